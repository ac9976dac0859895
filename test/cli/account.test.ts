// Issue 38's CLI: `create-framework-auth --account`, `framework-auth add-account` and `remove-account`. The config
// gets `Account()`, the starter server's home page a link to <mount>/account ("Your account"). "create with the
// account" and "create, then add-account" give the same project; removing it gives back the project without; without
// an adapter it is refused before anything is written. JavaScript projects get it in their own module system.
import { existsSync, readdirSync } from 'node:fs';
import { cp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPackageRoot, runtimeTemplateDir } from '../../src/generator/paths.js';
import { parseJsonOutput, parseManifestJson } from './helpers/json-schema.js';
import { projectTree } from './helpers/project-tree.js';
import { createApp, frameworkAuthIn, makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const tree = projectTree;
const frameworkAuth = frameworkAuthIn;
const create = createApp;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The account feature's runtime files, as its folder in templates/runtime holds them (read when a test needs them). */
const accountFiles = (): string[] => readdirSync(join(runtimeTemplateDir, 'features/account')).filter((file) => file.endsWith('.ts'));
const accountPaths = (): string[] => accountFiles().map((file) => `src/auth/core/features/account/${file}`);
const homeLinks = (server: string): string => /const links = user\n\s+\? `([^`]*)`/.exec(server)?.[1] ?? '';

async function copyFixture(name: string): Promise<string> {
  const target = join(await makeTempDir('cfa-js-'), name);
  await cp(join(repoRoot, 'test/fixtures', name), target, { recursive: true });
  return target;
}

describe('the account in the CLI: create --account', () => {
  it('writes Account() in the features, its runtime folder, and records it in the manifest', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--account']);
    const config = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect(config).toContain("import { Account } from './core/features/account/index.js';");
    expect(config).toContain('  features: [Account()],\n');
    expect(accountFiles()).toContain('index.ts');
    for (const file of accountFiles()) expect(existsSync(join(root, 'src/auth/core/features/account', file)), file).toBe(true);
    // The security events it records and shows come with it.
    expect(existsSync(join(root, 'src/auth/core/features/security-events/index.ts'))).toBe(true);
    expect(parseManifestJson(await readFile(join(root, 'framework-auth.json'), 'utf8')).answers).toEqual({ providers: ['password'], mount: '/auth', adapter: 'sqlite', account: true });
  });

  it('writes it after the other features, in catalog order', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--account', '--two-factor', '--api-keys']);
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).toContain("  features: [TwoFactor(), ApiKeys({ scopes: ['read', 'write'] }), Account()],\n");
  });

  it('writes nothing of the features it was not asked for, and a project without it has none of it', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--account']);
    const features = await readdir(join(root, 'src/auth/core/features'));
    expect(features).not.toContain('two-factor');
    expect(features).not.toContain('api-keys');
    const without = await create(['--providers', 'password', '--adapter', 'sqlite']);
    expect(existsSync(join(without, 'src/auth/core/features/account'))).toBe(false);
    expect(existsSync(join(without, 'src/auth/core/features/security-events'))).toBe(false);
    expect(await readFile(join(without, 'src/auth/config.ts'), 'utf8')).not.toContain('Account');
    expect(homeLinks(await readFile(join(without, 'src/server.ts'), 'utf8'))).not.toContain('Your account');
  });

  it('compiles with tsc: the config and the runtime folder fit together', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--account']);
    // This repo's installs stand in for npm install.
    await symlink(join(cliPackageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    const result = await execa(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root, '--noEmit'], { reject: false, all: true });
    expect(result.all).toBe('');
    expect(result.exitCode).toBe(0);
  }, 60_000);

  it('links <mount>/account from the starter server\'s home page for a signed-in user, after API keys', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--mount', '/api/auth', '--account']);
    expect(homeLinks(await readFile(join(root, 'src/server.ts'), 'utf8'))).toBe(
      "<a href=\"/me\">/me</a> · <a href='/api/auth/sessions'>Your sessions</a> · <a href='/api/auth/account'>Your account</a> · <a href='/api/auth/signout'>Sign out</a>",
    );
    const both = await create(['--providers', 'password', '--adapter', 'sqlite', '--api-keys', '--account']);
    expect(homeLinks(await readFile(join(both, 'src/server.ts'), 'utf8'))).toBe(
      "<a href=\"/me\">/me</a> · <a href='/auth/sessions'>Your sessions</a> · <a href='/auth/api-keys'>API keys</a> · <a href='/auth/account'>Your account</a> · <a href='/auth/signout'>Sign out</a>",
    );
  });

  it('is what update and doctor find: nothing to update, and the account page configured', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--account']);
    expect((await frameworkAuth(['doctor', '--offline'], root)).stdout).toContain('✔ The account page is configured; users manage their account at /auth/account.');
    const update = await frameworkAuth(['update', '--json'], root);
    expect(update.exitCode, update.stderr).toBe(0);
    expect(parseJsonOutput(update.stdout)).toMatchObject({ command: 'update', ok: true, files: { created: [], updated: [], deleted: [] } });
  });

  it('refuses --account with --adapter none before writing anything (exit 2), saying why', async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'none', '--account'], { cwd: parent });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--account needs a database adapter, but --adapter is "none": security events and address changes are stored through the adapter.');
    expect(result.stderr).toContain('--adapter memory, sqlite, postgres');
    expect(await readdir(parent)).toEqual([]);
  });

  it('is not asked without a terminal: the three flags without --yes write a project without it, and a re-run keeps it', async () => {
    const parent = await makeTempDir();
    const flags = ['--providers', 'password', '--mount', '/auth', '--adapter', 'sqlite', '--no-install'];
    const result = await runInProcess('create-framework-auth', ['app', ...flags], { cwd: parent });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8')).not.toContain('Account');

    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--account']);
    const before = await tree(root);
    const again = await runInProcess('create-framework-auth', ['.', ...flags, '--json'], { cwd: root });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(parseJsonOutput(again.stdout)).toMatchObject({ answers: { account: true }, files: { created: [], updated: [], deleted: [] } });
    expect(await tree(root)).toEqual(before);
  });

  it('changes nothing when create --account runs again with the same answers', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'postgres', '--account']);
    const before = await tree(root);
    const again = await runInProcess('create-framework-auth', ['.', '--yes', '--no-install', '--providers', 'password', '--adapter', 'postgres', '--account', '--json'], { cwd: root });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(parseJsonOutput(again.stdout)).toMatchObject({ answers: { account: true }, files: { created: [], updated: [], deleted: [] } });
    expect(await tree(root)).toEqual(before);
  });

  it('reports account in the answers of its --json document', async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'password', '--adapter', 'memory', '--account', '--json'], { cwd: parent });
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { answers: unknown; files: { created: string[] } };
    expect(document).toMatchObject({ command: 'create', ok: true, dryRun: false, answers: { providers: ['password'], mount: '/auth', adapter: 'memory', account: true } });
    expect(document.files.created).toEqual(expect.arrayContaining(['src/auth/core/features/account/index.ts', 'src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts']));
  });

  it('prints its plan with --dry-run and writes nothing', async () => {
    const parent = await makeTempDir();
    const flags = ['app', '--yes', '--no-install', '--providers', 'password', '--adapter', 'sqlite', '--account', '--dry-run'];
    const result = await runInProcess('create-framework-auth', [...flags, '--json'], { cwd: parent });
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { dryRun: boolean; answers: { account?: boolean }; files: { created: string[] } };
    expect(document.dryRun).toBe(true);
    expect(document.answers.account).toBe(true);
    expect(document.files.created).toEqual(expect.arrayContaining(accountPaths()));
    expect(await readdir(parent)).toEqual([]);

    const text = await runInProcess('create-framework-auth', flags, { cwd: parent });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/create\s+src\/auth\/core\/features\/account\/index\.ts/);
    expect(text.stdout).toContain('Dry run: nothing was written.');
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('the account in the CLI: add-account and remove-account', () => {
  it('gives the same project created with --account as created and then given add-account; remove-account undoes it', async () => {
    const together = await create(['--providers', 'oidc,password', '--adapter', 'postgres', '--account']);
    const added = await create(['--providers', 'oidc,password', '--adapter', 'postgres']);
    const without = await tree(added);
    const result = await frameworkAuth(['add-account', '--no-install'], added);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('Signed-in users see their account at /auth/account:');
    expect(result.stdout).toContain('npx framework-auth migrate');
    expect(await tree(added)).toEqual(await tree(together));

    const removed = await frameworkAuth(['remove-account', '--json'], added);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(parseJsonOutput(removed.stdout)).toMatchObject({
      command: 'remove-account',
      account: false,
      files: { updated: ['src/auth/config.ts', 'src/server.ts', 'framework-auth.json'], deleted: expect.arrayContaining(accountPaths()) },
    });
    // Messages go to stderr under --json.
    expect(removed.stderr).toContain('The security_events and email_changes tables keep their rows; nothing reads them any more.');
    expect(await tree(added)).toEqual(without);
  });

  it('changes nothing when run again, and says so', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'memory', '--account']);
    const before = await tree(root);
    const again = await frameworkAuth(['add-account', '--no-install', '--json'], root);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(parseJsonOutput(again.stdout)).toMatchObject({ command: 'add-account', account: true, files: { created: [], updated: [], deleted: [] } });
    expect(again.stderr).toContain('The account feature is already in src/auth/config.ts; nothing changed.');
    expect(await tree(root)).toEqual(before);

    expect((await frameworkAuth(['remove-account'], root)).exitCode).toBe(0);
    const removed = await tree(root);
    const twice = await frameworkAuth(['remove-account'], root);
    expect(twice.exitCode, twice.stderr).toBe(0);
    expect(twice.stdout).toContain('The account feature is not in src/auth/config.ts; nothing to remove.');
    expect(await tree(root)).toEqual(removed);
  });

  it('brings nodemailer (its messages go over SMTP) to a project that had no email provider', async () => {
    const root = await create(['--providers', 'github', '--adapter', 'sqlite']);
    const result = await frameworkAuth(['add-account', '--dry-run', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(parseJsonOutput(result.stdout)).toMatchObject({ command: 'add-account', dependencies: { added: { nodemailer: '^10.6.0' } } });
  });

  it('prints its plan with --dry-run --json and writes nothing', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite']);
    const before = await tree(root);
    const result = await frameworkAuth(['add-account', '--dry-run', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { dryRun: boolean; account: boolean; files: { created: string[]; updated: string[] }; dependencies: { added: Record<string, string> } };
    expect(document).toMatchObject({ command: 'add-account', dryRun: true, account: true, dependencies: { added: {} } });
    expect(document.files.created).toEqual(expect.arrayContaining(accountPaths()));
    // Only runtime files are new; of the project's own files, the config, the starter server and the manifest change.
    expect(document.files.created.filter((path) => !path.startsWith('src/auth/core/'))).toEqual([]);
    expect(document.files.updated).toEqual(['src/auth/config.ts', 'src/server.ts', 'framework-auth.json']);
    expect(await tree(root)).toEqual(before);

    const text = await frameworkAuth(['remove-account', '--dry-run'], await create(['--providers', 'password', '--adapter', 'sqlite', '--account']));
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/delete\s+src\/auth\/core\/features\/account\/index\.ts/);
    expect(text.stdout).toContain('Dry run: nothing was written.');
  });

  it('remove-account --dry-run --json lists what it would delete and writes nothing', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--account']);
    const before = await tree(root);
    const result = await frameworkAuth(['remove-account', '--dry-run', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(parseJsonOutput(result.stdout)).toMatchObject({ command: 'remove-account', dryRun: true, account: false, files: { updated: ['src/auth/config.ts', 'src/server.ts', 'framework-auth.json'], deleted: expect.arrayContaining(accountPaths()) } });
    expect(await tree(root)).toEqual(before);
  });

  it('add-account refuses a project without an adapter (exit 2), changing nothing', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'none']);
    const before = await tree(root);
    const result = await frameworkAuth(['add-account'], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('The account feature needs a database adapter, and src/auth/config.ts sets none: security events and address changes are stored through the adapter.');
    expect(result.stderr).toContain('--adapter memory, sqlite or postgres');
    expect(await tree(root)).toEqual(before);
  });

  it('add-account --dry-run refuses a project without an adapter the same way', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'none']);
    const result = await frameworkAuth(['add-account', '--dry-run', '--json'], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('The account feature needs a database adapter');
  });

  it('removes Account(…) with the options the user gave it, and its import', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'memory']);
    const configPath = join(root, 'src/auth/config.ts');
    const before = await readFile(configPath, 'utf8');
    expect((await frameworkAuth(['add-account', '--no-install'], root)).exitCode).toBe(0);
    const added = await readFile(configPath, 'utf8');
    await writeFile(configPath, added.replace('Account()', 'Account({\n    linkMaxAge: 30 * 60, // half an hour to confirm a new address\n  })'));
    const removed = await frameworkAuth(['remove-account'], root);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(await readFile(configPath, 'utf8')).toBe(before);
  });

  it('merges its link into a src/server.ts the user changed, and takes it out again', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite']);
    const serverPath = join(root, 'src/server.ts');
    const ordersRoute = "app.get('/orders', requireAuth(), (_req, res) => {\n  res.json([]);\n});\n\n";
    await writeFile(serverPath, (await readFile(serverPath, 'utf8')).replace("app.get('/me',", `${ordersRoute}app.get('/me',`));
    const mine = await readFile(serverPath, 'utf8');

    const added = await frameworkAuth(['add-account', '--no-install', '--json'], root);
    expect(added.exitCode, added.stderr).toBe(0);
    expect(parseJsonOutput(added.stdout)).toMatchObject({ files: { updated: ['src/auth/config.ts', 'src/server.ts', 'framework-auth.json'], conflicts: [] } });
    const server = await readFile(serverPath, 'utf8');
    expect(server).toContain(ordersRoute);
    expect(homeLinks(server)).toContain(" · <a href='/auth/account'>Your account</a> · ");

    const removed = await frameworkAuth(['remove-account'], root);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(await readFile(serverPath, 'utf8')).toBe(mine);
  });

  it('add-api-keys in a project with the account gives what create writes with both: API keys before the account', async () => {
    const together = await create(['--providers', 'password', '--adapter', 'sqlite', '--api-keys', '--account']);
    const added = await create(['--providers', 'password', '--adapter', 'sqlite', '--account']);
    expect((await frameworkAuth(['add-api-keys', '--no-install'], added)).exitCode).toBe(0);
    expect(await tree(added)).toEqual(await tree(together));
  });
});

describe('the account in JavaScript projects', () => {
  it('add-account adds Account to a CommonJS config.js with require, its runtime as JavaScript and declarations; remove-account undoes it', async () => {
    const projectDir = await copyFixture('js-express4-cjs');
    const made = await runInProcess('create-framework-auth', ['.', '--yes', '--no-install', '--providers', 'password', '--adapter', 'memory'], { cwd: projectDir });
    expect(made.exitCode, made.stderr).toBe(0);
    const before = await tree(projectDir);

    const result = await frameworkAuth(['add-account', '--no-install'], projectDir);
    expect(result.exitCode, result.stderr).toBe(0);
    const config = await readFile(join(projectDir, 'auth/config.js'), 'utf8');
    expect(config).toContain("const { Account } = require('./core/features/account/index.js');");
    expect(config).toContain('features: [Account()],');
    for (const file of ['index.js', 'index.d.ts']) expect(existsSync(join(projectDir, 'auth/core/features/account', file)), file).toBe(true);
    expect(existsSync(join(projectDir, 'auth/core/features/account/index.ts'))).toBe(false);
    const again = await frameworkAuth(['add-account', '--no-install', '--json'], projectDir);
    expect(parseJsonOutput(again.stdout)).toMatchObject({ files: { created: [], updated: [], deleted: [] } });

    const removed = await frameworkAuth(['remove-account'], projectDir);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(await tree(projectDir)).toEqual(before);
  });

  it('create --account in an ESM JavaScript app writes Account with import, as JavaScript', async () => {
    const projectDir = await copyFixture('js-express5-esm');
    const result = await runInProcess('create-framework-auth', ['.', '--yes', '--no-install', '--providers', 'password', '--adapter', 'memory', '--account'], { cwd: projectDir });
    expect(result.exitCode, result.stderr).toBe(0);
    const config = await readFile(join(projectDir, 'auth/config.js'), 'utf8');
    expect(config).toContain("import { Account } from './core/features/account/index.js';");
    expect(config).toContain('features: [Account()],');
    expect(existsSync(join(projectDir, 'auth/core/features/account/index.js'))).toBe(true);
    expect(existsSync(join(projectDir, 'auth/core/features/account/index.d.ts'))).toBe(true);
    expect(existsSync(join(projectDir, 'auth/core/features/account/index.ts'))).toBe(false);
  });
});

describe('the account in doctor', () => {
  it('says what is wrong with Account() in a config without an adapter, and how to fix it', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'none']);
    const configPath = join(root, 'src/auth/config.ts');
    const config = await readFile(configPath, 'utf8');
    await writeFile(configPath, config.replace("import './env.js';", "import './env.js';\nimport { Account } from './core/features/account/index.js';").replace(/\n};\s*$/, '\n  features: [Account()],\n};\n'));
    const result = await frameworkAuth(['doctor', '--offline'], root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ src/auth/config.ts has Account() but no adapter: the app refuses to start (its security events and address changes live in the database).');
    expect(result.stdout).toContain('Set `adapter:` (npx create-framework-auth . --adapter sqlite), or run npx framework-auth remove-account.');
  });
});
