// Issue 49's CLI: `create-framework-auth --admin`, `framework-auth add-admin` and `remove-admin`. The config gets
// `Admin()`, src/auth/index.ts `requireAdmin` and the types, the starter server `GET /admin-only` guarded by it, `.env`
// and `.env.example` `AUTH_ADMINS=` under a comment saying what it holds. The feature brings two-factor (an admin
// enrols a second factor before any admin action): its runtime files and dependency come with it, without
// `TwoFactor()` in the config. Without an adapter (JWT sessions) it is refused before anything is written; doctor
// warns while AUTH_ADMINS is empty.
import { existsSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findEnvLine } from '../../src/generator/edit/env-file.js';
import { addDryRun, addThenRemove, configWithFeature, createDryRun, createInFixture, createJson, doctorFinding, doctorOnFeatureByHand, expectAddAndRemoveAgainChangeNothing, expectAddRefused, expectCompiles, expectCreateRefused, expectRemovesWithOptions, featurePaths, homeLinks, manifestAnswers, removeDryRun, runWithAuthIndex, withInstalls } from './helpers/feature-cli.js';
import { parseJsonOutput } from './helpers/json-schema.js';
import { projectTree } from './helpers/project-tree.js';
import { createApp, frameworkAuthIn, makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const tree = projectTree;
const frameworkAuth = frameworkAuthIn;
const create = createApp;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const adminPaths = (): string[] => featurePaths('admin');
const twoFactorPaths = (): string[] => featurePaths('two-factor');

/** The comment and the line create writes for AUTH_ADMINS. */
const adminsLines = [
  '# Administration.',
  "# AUTH_ADMINS (optional): the admins' email addresses, comma-separated: a user signed in with one of them, verified, is an admin.",
  '#   e.g. you@example.com,ops@example.com',
];

describe('administration in the CLI: create --admin', () => {
  it('writes Admin() in the features, its runtime folder with two-factor\'s, and records it in the manifest', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--admin']);
    const config = await configWithFeature(root, 'admin', 'Admin');
    // Two-factor comes with it, in the files: the config does not list it.
    expect(config).not.toContain('TwoFactor');
    for (const path of [...adminPaths(), ...twoFactorPaths()]) expect(existsSync(join(root, path)), path).toBe(true);
    expect(existsSync(join(root, 'src/auth/core/features/security-events/index.ts'))).toBe(true);
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    // Two-factor's QR code, and the notices to users.
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['uqr', 'nodemailer']));
    expect(await manifestAnswers(root)).toEqual({ providers: ['password'], mount: '/auth', adapter: 'sqlite', admin: true });
  });

  it('writes it after the other features, in catalog order, and beside TwoFactor() when both are asked for', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--admin', '--organizations', '--two-factor']);
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).toContain('  features: [TwoFactor(), Organizations(), Admin()],\n');
  });

  it('tells Credentials() to ask for the code of the two-factor it brings, once beside --two-factor', async () => {
    const root = await create(['--providers', 'credentials', '--adapter', 'sqlite', '--admin']);
    const config = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect(config).toContain('  Credentials({\n      twoFactor: true, // users who turned two-factor on enter a code after authorize()\n');
    const both = await readFile(join(await create(['--providers', 'credentials', '--adapter', 'sqlite', '--admin', '--two-factor']), 'src/auth/config.ts'), 'utf8');
    expect(both.match(/twoFactor: true/g)).toHaveLength(1);
  });

  it('exports requireAdmin and the types from src/auth/index.ts', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'memory', '--mount', '/api/auth', '--admin']);
    const index = await readFile(join(root, 'src/auth/index.ts'), 'utf8');
    expect(index).toContain("import { createRequireAdmin } from './core/features/admin/index.js';");
    expect(index).toContain("export type { AdminOptions, SessionImpersonation } from './core/features/admin/index.js';");
    expect(index).toContain('export const requireAdmin: RequestHandler = createRequireAdmin(authConfig);');
    expect(index).toContain("another admin granted admin at '/api/auth/admin'");
  });

  it('gives the starter server GET /admin-only, guarded by requireAdmin, and no link to the admin pages', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--mount', '/api/auth', '--admin']);
    const server = await readFile(join(root, 'src/server.ts'), 'utf8');
    expect(server).toContain("import { authHandler, requireAdmin, requireAuth, sessionLocals } from './auth/index.js';");
    expect(server).toContain(["app.get('/admin-only', requireAdmin, (_req, res) => {", '  res.json({ admin: res.locals.session?.user ?? null });', '});'].join('\n'));
    // Anyone but an admin would find a 404 there.
    expect(homeLinks(server)).toBe("<a href=\"/me\">/me</a> · <a href='/api/auth/sessions'>Your sessions</a> · <a href='/api/auth/signout'>Sign out</a>");
  });

  it('writes AUTH_ADMINS= to .env and .env.example under a comment saying what it holds, with the mail keys', async () => {
    // Credentials reads no mail keys: the feature writes them.
    const root = await create(['--providers', 'credentials', '--adapter', 'sqlite', '--admin']);
    for (const file of ['.env', '.env.example']) {
      const text = await readFile(join(root, file), 'utf8');
      expect(text, file).toContain(`${adminsLines.join('\n')}\n`);
      expect(findEnvLine(text, 'AUTH_ADMINS')?.value, file).toBe('');
      expect(findEnvLine(text, 'AUTH_EMAIL_SERVER')?.value, file).toBe('');
      expect(findEnvLine(text, 'AUTH_EMAIL_FROM')?.value, file).toBe('');
    }
  });

  it('writes under its name only AUTH_ADMINS when a provider wrote the mail keys already', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--admin']);
    const example = await readFile(join(root, '.env.example'), 'utf8');
    expect(example).toContain(`${adminsLines.join('\n')}\nAUTH_ADMINS=\n\n`);
    expect(example.match(/^AUTH_EMAIL_SERVER=/gm)).toHaveLength(1);
    expect(example).not.toContain('the SMTP server of its notices');
  });

  it('writes nothing of it in a project without it', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite']);
    expect(existsSync(join(root, 'src/auth/core/features/admin'))).toBe(false);
    expect(existsSync(join(root, 'src/auth/core/features/two-factor'))).toBe(false);
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).not.toContain('Admin');
    expect(await readFile(join(root, 'src/auth/index.ts'), 'utf8')).not.toMatch(/admin/i);
    expect(await readFile(join(root, 'src/server.ts'), 'utf8')).not.toMatch(/admin/i);
    expect(await readFile(join(root, '.env'), 'utf8')).not.toContain('AUTH_ADMINS');
  });

  it('compiles with tsc, with an app route guarded by requireAdmin that reads session.impersonatedBy', async () => {
    const root = await withInstalls(await create(['--providers', 'password', '--adapter', 'sqlite', '--admin']));
    await writeFile(
      join(root, 'src/reports.ts'),
      [
        "import type { Request, Response } from 'express';",
        "import { getSession, requireAdmin } from './auth/index.js';",
        "import type { AdminOptions, SessionImpersonation } from './auth/index.js';",
        '',
        'export const guard = requireAdmin;',
        "export const options: AdminOptions = { admins: ['ops@example.com'], requireSecondFactor: true, impersonation: { maxAge: 1800 } };",
        'export async function actingAdmin(req: Request, res: Response): Promise<void> {',
        '  const session = await getSession(req);',
        '  const admin: SessionImpersonation | null | undefined = session?.impersonatedBy;',
        '  res.json({ admin: admin ? { id: admin.id, email: admin.email, name: admin.name } : null });',
        '}',
        '',
      ].join('\n'),
    );
    await expectCompiles(root);
  }, 300_000);

  it('compiles with tsc in TypeScript compiled to CommonJS', async () => {
    const root = join(await makeTempDir('cfa-tscjs-'), 'orders');
    await cp(join(repoRoot, 'test/fixtures/ts-express5-commonjs'), root, { recursive: true });
    const made = await runInProcess('create-framework-auth', ['--yes', '--no-install', '--providers', 'password', '--adapter', 'sqlite', '--admin'], { cwd: root, nodeVersion: '20.19.0' });
    expect(made.exitCode, made.stderr).toBe(0);
    expect(await readFile(join(root, 'src/auth/index.ts'), 'utf8')).toContain('export const requireAdmin: RequestHandler = createRequireAdmin(authConfig);');
    await expectCompiles(await withInstalls(root));
  }, 300_000);

  it('refuses --admin with --adapter none (JWT sessions) before writing anything (exit 2), saying why', async () => {
    await expectCreateRefused(['--providers', 'credentials', '--adapter', 'none', '--admin'], [
      '--admin needs a database adapter, but --adapter is "none": admin grants, disabled users and impersonation sessions are stored through the adapter.',
      '--adapter memory, sqlite, postgres',
    ]);
  });

  it('refuses --admin without --adapter given and no terminal to ask, before writing anything (exit 2)', async () => {
    // --yes takes the default adapter, none: JWT sessions.
    await expectCreateRefused(['--providers', 'credentials', '--admin'], ['--admin needs a database adapter, but --adapter is "none"']);
  });

  it('refuses --admin without a password or credentials provider before writing anything (exit 2): the two-factor it brings would stop the app', async () => {
    await expectCreateRefused(['--providers', 'oidc,github', '--adapter', 'sqlite', '--admin'], [
      "--admin brings two-factor (an admin's second factor), which asks for a code after a password, and none of the providers (oidc, github) signs in with one.",
      'Add password (or credentials) to --providers, e.g. --providers oidc,github,password.',
    ]);
  });

  it('reports admin in the answers of its --json document', async () => {
    const document = await createJson<{ answers: unknown; files: { created: string[] }; dependencies: { added: Record<string, string> } }>(['--providers', 'password', '--adapter', 'memory', '--admin']);
    expect(document).toMatchObject({ command: 'create', ok: true, dryRun: false, answers: { providers: ['password'], mount: '/auth', adapter: 'memory', admin: true } });
    expect(document.files.created).toEqual(expect.arrayContaining([...adminPaths(), ...twoFactorPaths(), 'src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', '.env', '.env.example']));
  });

  it('prints its plan with --dry-run and writes nothing', async () => {
    const { document, text } = await createDryRun(['--providers', 'password', '--adapter', 'sqlite', '--admin']);
    expect(document.answers['admin']).toBe(true);
    expect(document.files.created).toEqual(expect.arrayContaining([...adminPaths(), ...twoFactorPaths()]));
    expect(text).toMatch(/create\s+src\/auth\/core\/features\/admin\/index\.ts/);
    expect(text).toMatch(/create\s+src\/auth\/core\/features\/two-factor\/index\.ts/);
  });
});

describe('administration in the CLI: add-admin and remove-admin', () => {
  it('gives the same project created with --admin as created and then given add-admin; remove-admin --purge-env undoes it', async () => {
    const { added, removed, document } = await addThenRemove('admin', ['--providers', 'oidc,password', '--adapter', 'postgres'], ['--purge-env']);
    expect(added.stdout).toContain("Set AUTH_ADMINS in .env to your admins' addresses (comma-separated).");
    expect(added.stdout).toContain('an admin finds users at /auth/admin');
    expect(added.stdout).toContain('npx framework-auth migrate');
    expect(document).toMatchObject({
      files: { updated: expect.arrayContaining(['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', 'framework-auth.json']), deleted: expect.arrayContaining([...adminPaths(), ...twoFactorPaths()]) },
      dependencies: { removed: ['uqr'] },
      env: { removed: ['AUTH_ADMINS'] },
    });
    expect(removed.stderr).toContain('so disabled users can sign in again.');
  });

  it('add-admin reports its env keys and dependencies in --json', async () => {
    const root = await create(['--providers', 'credentials', '--adapter', 'sqlite']);
    const result = await frameworkAuth(['add-admin', '--no-install', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { dependencies: { added: Record<string, string> } };
    expect(document).toMatchObject({ command: 'add-admin', admin: true, dryRun: false, env: { added: ['AUTH_ADMINS', 'AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM'], removed: [], fill: [] } });
    expect(Object.keys(document.dependencies.added).sort()).toEqual(['nodemailer', 'uqr']);
  });

  it('changes nothing when run again, and says so', async () => {
    await expectAddAndRemoveAgainChangeNothing('admin', ['--providers', 'credentials', '--adapter', 'memory']);
  });

  it('prints its plan with --dry-run --json and writes nothing', async () => {
    const document = await addDryRun('admin', await create(['--providers', 'credentials', '--adapter', 'sqlite']));
    expect(document.files.created).toEqual(expect.arrayContaining([...adminPaths(), ...twoFactorPaths()]));
    expect(document.files.updated).toEqual(expect.arrayContaining(['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', '.env', '.env.example', 'framework-auth.json']));

    const text = await removeDryRun('admin', await create(['--providers', 'credentials', '--adapter', 'sqlite', '--admin']));
    expect(text).toMatch(/delete\s+src\/auth\/core\/features\/admin\/index\.ts/);
  });

  it('add-admin refuses a project without an adapter (JWT sessions) (exit 2), changing nothing', async () => {
    await expectAddRefused('admin', await create(['--providers', 'credentials', '--adapter', 'none']), [
      'The admin feature needs a database adapter, and src/auth/config.ts sets none: admin grants, disabled users and impersonation sessions are stored through the adapter.',
    ]);
  });

  it('add-admin refuses a project without a password or credentials provider (exit 2), changing nothing', async () => {
    await expectAddRefused('admin', await create(['--providers', 'oidc', '--adapter', 'sqlite']), [
      "The admin feature brings two-factor (an admin's second factor), which asks for a code after a password, and src/auth/config.ts has no provider that signs in with one.",
      'Add one first: npx framework-auth add-provider password',
    ]);
  });

  it('remove-admin keeps two-factor\'s files and dependency while TwoFactor() is in the config', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--two-factor']);
    const before = await tree(root);
    expect((await frameworkAuth(['add-admin', '--no-install'], root)).exitCode).toBe(0);
    const removed = await frameworkAuth(['remove-admin', '--purge-env', '--json'], root);
    expect(removed.exitCode, removed.stderr).toBe(0);
    const document = parseJsonOutput(removed.stdout) as { files: { deleted: string[] }; dependencies: { removed: string[] } };
    expect(document.files.deleted).toEqual(expect.arrayContaining(adminPaths()));
    expect(document.files.deleted.filter((path) => path.includes('/features/two-factor/'))).toEqual([]);
    expect(document.dependencies.removed).not.toContain('uqr');
    expect(await tree(root)).toEqual(before);
  });

  it('remove-two-factor keeps two-factor\'s files and dependency while Admin() brings them', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--two-factor', '--admin']);
    const removed = await frameworkAuth(['remove-two-factor', '--json'], root);
    expect(removed.exitCode, removed.stderr).toBe(0);
    const document = parseJsonOutput(removed.stdout) as { files: { deleted: string[] }; dependencies: { removed: string[] } };
    expect(document.files.deleted).toEqual([]);
    expect(document.dependencies.removed).toEqual([]);
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).toContain('  features: [Admin()],\n');
    for (const path of twoFactorPaths()) expect(existsSync(join(root, path)), path).toBe(true);
  });

  it('keeps Credentials({ twoFactor: true }) while the other of two-factor and administration is there, and takes it out with the last', async () => {
    const root = await create(['--providers', 'credentials', '--adapter', 'sqlite']);
    const configPath = join(root, 'src/auth/config.ts');
    const before = await readFile(configPath, 'utf8');
    for (const command of ['add-two-factor', 'add-admin']) expect((await frameworkAuth([command, '--no-install'], root)).exitCode).toBe(0);
    const withBoth = await readFile(configPath, 'utf8');
    expect(withBoth.match(/twoFactor: true/g)).toHaveLength(1);
    expect((await frameworkAuth(['remove-two-factor'], root)).exitCode).toBe(0);
    expect(await readFile(configPath, 'utf8')).toContain('twoFactor: true, // users who turned two-factor on enter a code after authorize()');
    expect((await frameworkAuth(['add-two-factor', '--no-install'], root)).exitCode).toBe(0);
    expect(await readFile(configPath, 'utf8')).toBe(withBoth);
    expect((await frameworkAuth(['remove-admin'], root)).exitCode).toBe(0);
    expect(await readFile(configPath, 'utf8')).toContain('twoFactor: true');
    expect((await frameworkAuth(['remove-two-factor'], root)).exitCode).toBe(0);
    expect(await readFile(configPath, 'utf8')).toBe(before);
  });

  it('removes Admin(…) with the options the user gave it, and its import', async () => {
    await expectRemovesWithOptions('admin', 'Admin', "{\n    admins: ['ops@example.com'],\n    impersonation: false,\n  }", ['--providers', 'credentials', '--adapter', 'memory']);
  });
});

describe('administration in JavaScript projects', () => {
  /** Imports the auth module in the project: its guard is a request handler. */
  const load = `
    const auth = await import(process.env.AUTH_INDEX);
    console.log(JSON.stringify({ requireAdmin: typeof auth.requireAdmin, arity: auth.requireAdmin.length }));
  `;

  it.each([
    ['js-express5-esm', "import { createRequireAdmin } from './core/features/admin/index.js';"],
    ['js-express4-cjs', "const { createRequireAdmin } = require('./core/features/admin/index.js');"],
  ])('%s: create --admin writes requireAdmin in its module system, with two-factor\'s runtime, and the module loads', async (fixture, importLine) => {
    const { root } = await createInFixture(fixture, ['--providers', 'password', '--adapter', 'memory', '--admin'], importLine);
    expect(await readFile(join(root, 'auth/index.d.ts'), 'utf8')).toContain('export declare const requireAdmin: RequestHandler;');
    for (const path of ['auth/core/features/admin/index.js', 'auth/core/features/admin/index.d.ts', 'auth/core/features/two-factor/index.js']) expect(existsSync(join(root, path)), path).toBe(true);

    const result = await runWithAuthIndex(root, load, { AUTH_ADMINS: 'ops@example.com' });
    expect(result.exitCode, result.stderr).toBe(0);
    // An Express middleware: (req, res, next).
    expect(result.answer()).toEqual({ requireAdmin: 'function', arity: 3 });
  }, 60_000);
});

describe('administration in doctor', () => {
  /** Doctor's finding about AUTH_ADMINS, its id left out. */
  const adminsFinding = (root: string): ReturnType<typeof doctorFinding> => doctorFinding(root, 'feature-env:AUTH_ADMINS', ['doctor', '--offline', '--json']);

  it('warns while AUTH_ADMINS is empty, with the fix, as a warning (not an error)', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--admin']);
    expect(await adminsFinding(root)).toEqual({
      status: 'warn',
      message: 'Administration: AUTH_ADMINS is empty: no user is an admin, and only an admin can make another one.',
      fix: "Set AUTH_ADMINS in .env to your admins' addresses, comma-separated (AUTH_ADMINS=you@example.com), or list them in Admin({ admins }) in src/auth/config.ts.",
    });
    const text = await frameworkAuth(['doctor', '--offline'], root);
    expect(text.stdout).toContain('▲ Administration: AUTH_ADMINS is empty: no user is an admin, and only an admin can make another one.');
    expect(text.stdout).toContain('✔ Administration is configured; admins manage users at /auth/admin.');
  });

  it('says nothing against AUTH_ADMINS once it holds an address', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--admin']);
    const envPath = join(root, '.env');
    await writeFile(envPath, (await readFile(envPath, 'utf8')).replace(/^AUTH_ADMINS=$/m, 'AUTH_ADMINS=ops@example.com,me@example.com'));
    expect(await adminsFinding(root)).toEqual({ status: 'ok', message: 'Administration: AUTH_ADMINS is set.' });
    const text = await frameworkAuth(['doctor', '--offline'], root);
    expect(text.stdout).not.toContain('AUTH_ADMINS is empty');
  });

  it('says nothing against an empty AUTH_ADMINS when the config lists the admins in Admin({ admins })', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--admin']);
    const configPath = join(root, 'src/auth/config.ts');
    await writeFile(configPath, (await readFile(configPath, 'utf8')).replace('Admin()', "Admin({ admins: ['ops@example.com'] })"));
    expect(await adminsFinding(root)).toEqual({ status: 'ok', message: 'Administration: Admin({ admins }) in src/auth/config.ts stands for AUTH_ADMINS.' });
  });

  it('reads AUTH_ADMINS from the environment over .env, as the app does', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--admin']);
    const result = await runInProcess('framework-auth', ['doctor', '--offline', '--json'], { cwd: root, env: { AUTH_ADMINS: 'ops@example.com' } });
    const found = (parseJsonOutput(result.stdout) as { findings: { id: string; status: string }[] }).findings.find((each) => each.id === 'feature-env:AUTH_ADMINS');
    expect(found?.status).toBe('ok');
  });

  it('asks nothing of AUTH_ADMINS in a project without the feature', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite']);
    expect(await adminsFinding(root)).toBeUndefined();
  });

  it('says what is wrong with Admin() in a config without a password or credentials provider, and how to fix it', async () => {
    const stdout = await doctorOnFeatureByHand('admin', 'Admin', ['--providers', 'oidc', '--adapter', 'sqlite']);
    expect(stdout).toContain('✖ src/auth/config.ts has Admin() but no password or credentials provider (the two-factor it brings asks for a code after a password): the app refuses to start.');
    expect(stdout).toContain('Run npx framework-auth add-provider password, or npx framework-auth remove-admin.');
  });

  it('says what is wrong with Admin() in a config without an adapter, and how to fix it', async () => {
    const stdout = await doctorOnFeatureByHand('admin', 'Admin', ['--providers', 'oidc', '--adapter', 'none']);
    expect(stdout).toContain('✖ src/auth/config.ts has Admin() but no adapter: the app refuses to start (its grants, disabled users and impersonation sessions live in the database).');
    expect(stdout).toContain('Set `adapter:` (npx create-framework-auth . --adapter sqlite), or run npx framework-auth remove-admin.');
  });
});
