// Issue 49's CLI: `create-framework-auth --admin`, `framework-auth add-admin` and `remove-admin`. The config gets
// `Admin()`, src/auth/index.ts `requireAdmin` and the types, the starter server `GET /admin-only` guarded by it, `.env`
// and `.env.example` `AUTH_ADMINS=` under a comment saying what it holds. The feature brings two-factor (an admin
// enrols a second factor before any admin action): its runtime files and dependency come with it, without
// `TwoFactor()` in the config. Without an adapter (JWT sessions) it is refused before anything is written; doctor
// warns while AUTH_ADMINS is empty.
import { existsSync, readdirSync } from 'node:fs';
import { cp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { findEnvLine } from '../../src/generator/edit/env-file.js';
import { cliPackageRoot, runtimeTemplateDir } from '../../src/generator/paths.js';
import { parseJsonOutput, parseManifestJson } from './helpers/json-schema.js';
import { projectTree } from './helpers/project-tree.js';
import { createApp, frameworkAuthIn, makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const tree = projectTree;
const frameworkAuth = frameworkAuthIn;
const create = createApp;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A runtime feature folder's files, as templates/runtime holds them, at their path in a project. */
const folderPaths = (id: string): string[] =>
  readdirSync(join(runtimeTemplateDir, 'features', id))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `src/auth/core/features/${id}/${file}`);
const adminPaths = (): string[] => folderPaths('admin');
const twoFactorPaths = (): string[] => folderPaths('two-factor');
const homeLinks = (server: string): string => /const links = user\n\s+\? `([^`]*)`/.exec(server)?.[1] ?? '';

/** The comment and the line create writes for AUTH_ADMINS. */
const adminsLines = [
  '# Administration.',
  "# AUTH_ADMINS (optional): the admins' email addresses, comma-separated: a user signed in with one of them, verified, is an admin.",
  '#   e.g. you@example.com,ops@example.com',
];

/** This repo's installs stand in for npm install. */
async function withInstalls(root: string): Promise<string> {
  await symlink(join(cliPackageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  return root;
}

async function tsc(root: string): Promise<{ exitCode: number | undefined; all: string }> {
  const result = await execa(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root, '--noEmit'], { reject: false, all: true });
  return { exitCode: result.exitCode, all: String(result.all) };
}

describe('administration in the CLI: create --admin', () => {
  it('writes Admin() in the features, its runtime folder with two-factor\'s, and records it in the manifest', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--admin']);
    const config = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect(config).toContain("import { Admin } from './core/features/admin/index.js';");
    expect(config).toContain('  features: [Admin()],\n');
    // Two-factor comes with it, in the files: the config does not list it.
    expect(config).not.toContain('TwoFactor');
    for (const path of [...adminPaths(), ...twoFactorPaths()]) expect(existsSync(join(root, path)), path).toBe(true);
    expect(existsSync(join(root, 'src/auth/core/features/security-events/index.ts'))).toBe(true);
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    // Two-factor's QR code, and the notices to users.
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['uqr', 'nodemailer']));
    expect(parseManifestJson(await readFile(join(root, 'framework-auth.json'), 'utf8')).answers).toEqual({ providers: ['password'], mount: '/auth', adapter: 'sqlite', admin: true });
  });

  it('writes it after the other features, in catalog order, and beside TwoFactor() when both are asked for', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--admin', '--organizations', '--two-factor']);
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).toContain('  features: [TwoFactor(), Organizations(), Admin()],\n');
  });

  it('exports requireAdmin and the types from src/auth/index.ts', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'memory', '--mount', '/api/auth', '--admin']);
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
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite', '--admin']);
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
    const compiled = await tsc(root);
    expect(compiled.all).toBe('');
    expect(compiled.exitCode).toBe(0);
  }, 300_000);

  it('compiles with tsc in TypeScript compiled to CommonJS', async () => {
    const root = join(await makeTempDir('cfa-tscjs-'), 'orders');
    await cp(join(repoRoot, 'test/fixtures/ts-express5-commonjs'), root, { recursive: true });
    const made = await runInProcess('create-framework-auth', ['--yes', '--no-install', '--providers', 'password', '--adapter', 'sqlite', '--admin'], { cwd: root, nodeVersion: '20.19.0' });
    expect(made.exitCode, made.stderr).toBe(0);
    expect(await readFile(join(root, 'src/auth/index.ts'), 'utf8')).toContain('export const requireAdmin: RequestHandler = createRequireAdmin(authConfig);');
    const compiled = await tsc(await withInstalls(root));
    expect(compiled.all).toBe('');
    expect(compiled.exitCode).toBe(0);
  }, 300_000);

  it('refuses --admin with --adapter none (JWT sessions) before writing anything (exit 2), saying why', async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'none', '--admin'], { cwd: parent });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--admin needs a database adapter, but --adapter is "none": admin grants, disabled users and impersonation sessions are stored through the adapter.');
    expect(result.stderr).toContain('--adapter memory, sqlite, postgres');
    expect(await readdir(parent)).toEqual([]);
  });

  it('refuses --admin without --adapter given and no terminal to ask, before writing anything (exit 2)', async () => {
    // --yes takes the default adapter, none: JWT sessions.
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'oidc', '--admin'], { cwd: parent });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--admin needs a database adapter, but --adapter is "none"');
    expect(await readdir(parent)).toEqual([]);
  });

  it('reports admin in the answers of its --json document', async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'password', '--adapter', 'memory', '--admin', '--json'], { cwd: parent });
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { answers: unknown; files: { created: string[] }; dependencies: { added: Record<string, string> } };
    expect(document).toMatchObject({ command: 'create', ok: true, dryRun: false, answers: { providers: ['password'], mount: '/auth', adapter: 'memory', admin: true } });
    expect(document.files.created).toEqual(expect.arrayContaining([...adminPaths(), ...twoFactorPaths(), 'src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', '.env', '.env.example']));
  });

  it('prints its plan with --dry-run and writes nothing', async () => {
    const parent = await makeTempDir();
    const flags = ['app', '--yes', '--no-install', '--providers', 'password', '--adapter', 'sqlite', '--admin', '--dry-run'];
    const result = await runInProcess('create-framework-auth', [...flags, '--json'], { cwd: parent });
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { dryRun: boolean; answers: { admin?: boolean }; files: { created: string[] } };
    expect(document.dryRun).toBe(true);
    expect(document.answers.admin).toBe(true);
    expect(document.files.created).toEqual(expect.arrayContaining([...adminPaths(), ...twoFactorPaths()]));
    expect(await readdir(parent)).toEqual([]);

    const text = await runInProcess('create-framework-auth', flags, { cwd: parent });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/create\s+src\/auth\/core\/features\/admin\/index\.ts/);
    expect(text.stdout).toMatch(/create\s+src\/auth\/core\/features\/two-factor\/index\.ts/);
    expect(text.stdout).toContain('Dry run: nothing was written.');
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('administration in the CLI: add-admin and remove-admin', () => {
  it('gives the same project created with --admin as created and then given add-admin; remove-admin --purge-env undoes it', async () => {
    const together = await create(['--providers', 'oidc,password', '--adapter', 'postgres', '--admin']);
    const added = await create(['--providers', 'oidc,password', '--adapter', 'postgres']);
    const without = await tree(added);
    const result = await frameworkAuth(['add-admin', '--no-install'], added);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("Set AUTH_ADMINS in .env to your admins' addresses (comma-separated).");
    expect(result.stdout).toContain('an admin finds users at /auth/admin');
    expect(result.stdout).toContain('npx framework-auth migrate');
    expect(await tree(added)).toEqual(await tree(together));

    const removed = await frameworkAuth(['remove-admin', '--purge-env', '--json'], added);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(parseJsonOutput(removed.stdout)).toMatchObject({
      command: 'remove-admin',
      admin: false,
      files: { updated: expect.arrayContaining(['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', 'framework-auth.json']), deleted: expect.arrayContaining([...adminPaths(), ...twoFactorPaths()]) },
      dependencies: { removed: ['uqr'] },
      env: { removed: ['AUTH_ADMINS'] },
    });
    expect(removed.stderr).toContain('so disabled users can sign in again.');
    expect(await tree(added)).toEqual(without);
  });

  it('add-admin reports its env keys and dependencies in --json', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite']);
    const result = await frameworkAuth(['add-admin', '--no-install', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { dependencies: { added: Record<string, string> } };
    expect(document).toMatchObject({ command: 'add-admin', admin: true, dryRun: false, env: { added: ['AUTH_ADMINS', 'AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM'], removed: [], fill: [] } });
    expect(Object.keys(document.dependencies.added).sort()).toEqual(['nodemailer', 'uqr']);
  });

  it('changes nothing when run again, and says so', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'memory', '--admin']);
    const before = await tree(root);
    const again = await frameworkAuth(['add-admin', '--no-install', '--json'], root);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(parseJsonOutput(again.stdout)).toMatchObject({ command: 'add-admin', admin: true, files: { created: [], updated: [], deleted: [] } });
    expect(again.stderr).toContain('The admin feature is already in src/auth/config.ts; nothing changed.');
    expect(await tree(root)).toEqual(before);

    expect((await frameworkAuth(['remove-admin'], root)).exitCode).toBe(0);
    const removed = await tree(root);
    const twice = await frameworkAuth(['remove-admin'], root);
    expect(twice.exitCode, twice.stderr).toBe(0);
    expect(twice.stdout).toContain('The admin feature is not in src/auth/config.ts; nothing to remove.');
    expect(await tree(root)).toEqual(removed);
  });

  it('prints its plan with --dry-run --json and writes nothing', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite']);
    const before = await tree(root);
    const result = await frameworkAuth(['add-admin', '--dry-run', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { files: { created: string[]; updated: string[] } };
    expect(document).toMatchObject({ command: 'add-admin', dryRun: true, admin: true });
    expect(document.files.created).toEqual(expect.arrayContaining([...adminPaths(), ...twoFactorPaths()]));
    expect(document.files.updated).toEqual(expect.arrayContaining(['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', '.env', '.env.example', 'framework-auth.json']));
    expect(await tree(root)).toEqual(before);

    const withAdmin = await create(['--providers', 'oidc', '--adapter', 'sqlite', '--admin']);
    const kept = await tree(withAdmin);
    const text = await frameworkAuth(['remove-admin', '--dry-run'], withAdmin);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/delete\s+src\/auth\/core\/features\/admin\/index\.ts/);
    expect(text.stdout).toContain('Dry run: nothing was written.');
    expect(await tree(withAdmin)).toEqual(kept);
  });

  it('add-admin refuses a project without an adapter (JWT sessions) (exit 2), changing nothing', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'none']);
    const before = await tree(root);
    const result = await frameworkAuth(['add-admin'], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('The admin feature needs a database adapter, and src/auth/config.ts sets none: admin grants, disabled users and impersonation sessions are stored through the adapter.');
    expect(await tree(root)).toEqual(before);
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

  it('removes Admin(…) with the options the user gave it, and its import', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'memory']);
    const configPath = join(root, 'src/auth/config.ts');
    const before = await readFile(configPath, 'utf8');
    expect((await frameworkAuth(['add-admin', '--no-install'], root)).exitCode).toBe(0);
    await writeFile(configPath, (await readFile(configPath, 'utf8')).replace('Admin()', "Admin({\n    admins: ['ops@example.com'],\n    impersonation: false,\n  })"));
    const removed = await frameworkAuth(['remove-admin'], root);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(await readFile(configPath, 'utf8')).toBe(before);
  });
});

describe('administration in JavaScript projects', () => {
  async function copyFixture(name: string): Promise<string> {
    const target = join(await makeTempDir('cfa-js-'), name);
    await cp(join(repoRoot, 'test/fixtures', name), target, { recursive: true });
    return target;
  }

  /** Imports the auth module in the project: its guard is a request handler. */
  const load = `
    const auth = await import(process.env.AUTH_INDEX);
    console.log(JSON.stringify({ requireAdmin: typeof auth.requireAdmin, arity: auth.requireAdmin.length }));
  `;

  it.each([
    ['js-express5-esm', "import { createRequireAdmin } from './core/features/admin/index.js';"],
    ['js-express4-cjs', "const { createRequireAdmin } = require('./core/features/admin/index.js');"],
  ])('%s: create --admin writes requireAdmin in its module system, with two-factor\'s runtime, and the module loads', async (fixture, importLine) => {
    const root = await copyFixture(fixture);
    const made = await runInProcess('create-framework-auth', ['.', '--yes', '--no-install', '--providers', 'password', '--adapter', 'memory', '--admin'], { cwd: root });
    expect(made.exitCode, made.stderr).toBe(0);
    const index = await readFile(join(root, 'auth/index.js'), 'utf8');
    expect(index).toContain(importLine);
    expect(await readFile(join(root, 'auth/index.d.ts'), 'utf8')).toContain('export declare const requireAdmin: RequestHandler;');
    for (const path of ['auth/core/features/admin/index.js', 'auth/core/features/admin/index.d.ts', 'auth/core/features/two-factor/index.js']) expect(existsSync(join(root, path)), path).toBe(true);

    await withInstalls(root);
    const result = await execa(process.execPath, ['--input-type=module', '--eval', load], {
      cwd: root,
      env: { AUTH_INDEX: join(root, 'auth/index.js'), AUTH_SECRET: 'a'.repeat(43), AUTH_URL: 'http://localhost:3000', AUTH_ADMINS: 'ops@example.com' },
      reject: false,
    });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    // An Express middleware: (req, res, next).
    expect(JSON.parse(String(result.stdout).trim().split('\n').at(-1)!)).toEqual({ requireAdmin: 'function', arity: 3 });
  }, 60_000);
});

describe('administration in doctor', () => {
  /** Doctor's finding about AUTH_ADMINS, its id left out. */
  async function adminsFinding(root: string): Promise<{ status: string; message: string; fix?: string } | undefined> {
    const result = await frameworkAuth(['doctor', '--offline', '--json'], root);
    const found = (parseJsonOutput(result.stdout) as { findings: { id: string; status: string; message: string; fix?: string }[] }).findings.find((each) => each.id === 'feature-env:AUTH_ADMINS');
    if (!found) return undefined;
    const { id: _id, ...rest } = found;
    return rest;
  }

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

  it('says what is wrong with Admin() in a config without an adapter, and how to fix it', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'none']);
    const configPath = join(root, 'src/auth/config.ts');
    const config = await readFile(configPath, 'utf8');
    await writeFile(configPath, config.replace("import './env.js';", "import './env.js';\nimport { Admin } from './core/features/admin/index.js';").replace(/\n};\s*$/, '\n  features: [Admin()],\n};\n'));
    const result = await frameworkAuth(['doctor', '--offline'], root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ src/auth/config.ts has Admin() but no adapter: the app refuses to start (its grants, disabled users and impersonation sessions live in the database).');
    expect(result.stdout).toContain('Set `adapter:` (npx create-framework-auth . --adapter sqlite), or run npx framework-auth remove-admin.');
  });
});
