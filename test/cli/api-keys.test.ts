// Issue 37's CLI: `create-framework-auth --api-keys`, `framework-auth add-api-keys` and `remove-api-keys`. The config
// gets `ApiKeys({ scopes: ['read', 'write'] })`, src/auth/index.ts `createApiKey(request)` and its types, the starter
// server's home page a link to <mount>/api-keys. "create with API keys" and "create, then add-api-keys" give the same
// project; removing them gives back the project without; without an adapter it is refused before anything is written.
import { existsSync } from 'node:fs';
import { readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPackageRoot } from '../../src/generator/paths.js';
import { parseJsonOutput, parseManifestJson } from './helpers/json-schema.js';
import { projectTree } from './helpers/project-tree.js';
import { createApp, frameworkAuthIn, makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const tree = projectTree;

const frameworkAuth = frameworkAuthIn;
const create = createApp;

const apiKeysFiles = ['index.ts', 'api-keys.ts', 'bearer.ts', 'keys.ts', 'pages.ts', 'storage.ts'];
const homeLinks = (server: string): string => /const links = user\n\s+\? `([^`]*)`/.exec(server)?.[1] ?? '';

describe('API keys in the CLI: create --api-keys', () => {
  it('writes ApiKeys({ scopes }) in the features, its runtime folder, and records it in the manifest', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite', '--api-keys']);
    const config = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect(config).toContain("import { ApiKeys } from './core/features/api-keys/index.js';");
    expect(config).toContain("  features: [ApiKeys({ scopes: ['read', 'write'] })],\n");
    for (const file of apiKeysFiles) expect(existsSync(join(root, 'src/auth/core/features/api-keys', file)), file).toBe(true);
    expect(parseManifestJson(await readFile(join(root, 'framework-auth.json'), 'utf8')).answers).toEqual({ providers: ['oidc'], mount: '/auth', adapter: 'sqlite', apiKeys: true });
  });

  it('writes nothing of the features it was not asked for', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--api-keys']);
    expect(await readdir(join(root, 'src/auth/core/features'))).not.toContain('two-factor');
    const config = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect(config).not.toContain('TwoFactor');
    expect(JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).dependencies.uqr).toBeUndefined();
    // And a project without it has none of it.
    const without = await create(['--providers', 'password', '--adapter', 'sqlite']);
    expect(existsSync(join(without, 'src/auth/core/features/api-keys'))).toBe(false);
    expect(await readFile(join(without, 'src/auth/index.ts'), 'utf8')).not.toMatch(/api-keys|createApiKey|scopes/);
    expect(homeLinks(await readFile(join(without, 'src/server.ts'), 'utf8'))).not.toContain('API keys');
  });

  it('exports createApiKey(request) and the key types from src/auth/index.ts, and says what requireAuth({ scopes }) checks', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'memory', '--api-keys']);
    const index = await readFile(join(root, 'src/auth/index.ts'), 'utf8');
    expect(index).toContain("import { createApiKey as createApiKeyFor } from './core/features/api-keys/index.js';");
    expect(index).toContain("export type { CreatedApiKey, NewApiKey } from './core/features/api-keys/index.js';");
    expect(index).toContain(
      [
        " * @example const { key } = await createApiKey({ userId: user.id, name: 'CI deploys', scopes: ['read'] })",
        ' */',
        'export function createApiKey(request: NewApiKey & { userId: string }): Promise<CreatedApiKey> {',
        '  return createApiKeyFor(authConfig, request);',
        '}',
      ].join('\n'),
    );
    const requireAuthComment = index.slice(index.indexOf(' * Guard for a route or router'), index.indexOf('export function requireAuth'));
    expect(requireAuthComment).toContain('`options.scopes` checks the\n * key\'s scopes');
    expect(requireAuthComment).toContain("@example app.get('/api/orders', requireAuth({ scopes: ['read'] }), listOrders)");
  });

  it('compiles with tsc: the wrapper matches the runtime\'s createApiKey', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite', '--api-keys']);
    // This repo's installs stand in for npm install.
    await symlink(join(cliPackageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    const result = await execa(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root, '--noEmit'], { reject: false, all: true });
    expect(result.all).toBe('');
    expect(result.exitCode).toBe(0);
  }, 60_000);

  it('links <mount>/api-keys from the starter server\'s home page for a signed-in user', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite', '--mount', '/api/auth', '--api-keys']);
    expect(homeLinks(await readFile(join(root, 'src/server.ts'), 'utf8'))).toBe(
      "<a href=\"/me\">/me</a> · <a href='/api/auth/sessions'>Your sessions</a> · <a href='/api/auth/api-keys'>API keys</a> · <a href='/api/auth/signout'>Sign out</a>",
    );
  });

  it('is what update and doctor find: nothing to update, and API keys configured', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite', '--api-keys']);
    expect((await frameworkAuth(['doctor', '--offline'], root)).stdout).toContain('✔ API keys are configured; users create them at /auth/api-keys.');
    const update = await frameworkAuth(['update', '--json'], root);
    expect(update.exitCode, update.stderr).toBe(0);
    expect(parseJsonOutput(update.stdout)).toMatchObject({ command: 'update', ok: true, files: { created: [], updated: [], deleted: [] } });
  });

  it('refuses --api-keys with --adapter none before writing anything (exit 2), saying why', async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'none', '--api-keys'], { cwd: parent });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--api-keys needs a database adapter, but --adapter is "none": API keys (their digests) are stored through the adapter.');
    expect(await readdir(parent)).toEqual([]);
  });

  it('is not asked without a terminal: the three flags without --yes write a project without it, and a re-run keeps it', async () => {
    const parent = await makeTempDir();
    const flags = ['--providers', 'oidc', '--mount', '/auth', '--adapter', 'sqlite', '--no-install'];
    const result = await runInProcess('create-framework-auth', ['app', ...flags], { cwd: parent });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8')).not.toContain('ApiKeys');

    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite', '--api-keys']);
    const before = await tree(root);
    const again = await runInProcess('create-framework-auth', ['.', ...flags, '--json'], { cwd: root });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(parseJsonOutput(again.stdout)).toMatchObject({ answers: { apiKeys: true }, files: { created: [], updated: [], deleted: [] } });
    expect(await tree(root)).toEqual(before);
  });

  it('reports apiKeys in the answers of its --json document', async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'memory', '--api-keys', '--json'], { cwd: parent });
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { answers: unknown; files: { created: string[] } };
    expect(document).toMatchObject({ command: 'create', ok: true, dryRun: false, answers: { providers: ['oidc'], mount: '/auth', adapter: 'memory', apiKeys: true } });
    expect(document.files.created).toEqual(expect.arrayContaining(['src/auth/core/features/api-keys/index.ts', 'src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts']));
  });

  it('prints its plan with --dry-run and writes nothing', async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'sqlite', '--api-keys', '--dry-run', '--json'], { cwd: parent });
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { dryRun: boolean; answers: { apiKeys?: boolean }; files: { created: string[] } };
    expect(document.dryRun).toBe(true);
    expect(document.answers.apiKeys).toBe(true);
    expect(document.files.created).toContain('src/auth/core/features/api-keys/api-keys.ts');
    expect(await readdir(parent)).toEqual([]);

    const text = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'sqlite', '--api-keys', '--dry-run'], { cwd: parent });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/create\s+src\/auth\/core\/features\/api-keys\/api-keys\.ts/);
    expect(text.stdout).toContain('Dry run: nothing was written.');
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('API keys in the CLI: add-api-keys and remove-api-keys', () => {
  it('gives the same project created with --api-keys as created and then given add-api-keys; remove-api-keys undoes it', async () => {
    const together = await create(['--providers', 'oidc,password', '--adapter', 'postgres', '--api-keys']);
    const added = await create(['--providers', 'oidc,password', '--adapter', 'postgres']);
    const without = await tree(added);
    const result = await frameworkAuth(['add-api-keys', '--no-install'], added);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('Signed-in users create keys at /auth/api-keys; send one as Authorization: Bearer <key>.');
    expect(await tree(added)).toEqual(await tree(together));

    const removed = await frameworkAuth(['remove-api-keys', '--json'], added);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(parseJsonOutput(removed.stdout)).toMatchObject({
      command: 'remove-api-keys',
      apiKeys: false,
      files: { updated: ['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', 'framework-auth.json'], deleted: expect.arrayContaining(apiKeysFiles.map((file) => `src/auth/core/features/api-keys/${file}`)) },
    });
    expect(await tree(added)).toEqual(without);
  });

  it('changes nothing when run again, and says so', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'memory', '--api-keys']);
    const before = await tree(root);
    const again = await frameworkAuth(['add-api-keys', '--no-install', '--json'], root);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(parseJsonOutput(again.stdout)).toMatchObject({ command: 'add-api-keys', apiKeys: true, files: { created: [], updated: [], deleted: [] } });
    expect(again.stderr).toContain('The API-keys feature is already in src/auth/config.ts; nothing changed.');
    expect(await tree(root)).toEqual(before);

    expect((await frameworkAuth(['remove-api-keys'], root)).exitCode).toBe(0);
    const removed = await tree(root);
    const twice = await frameworkAuth(['remove-api-keys'], root);
    expect(twice.exitCode, twice.stderr).toBe(0);
    expect(twice.stdout).toContain('The API-keys feature is not in src/auth/config.ts; nothing to remove.');
    expect(await tree(root)).toEqual(removed);
  });

  it('prints its plan with --dry-run --json and writes nothing', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite']);
    const before = await tree(root);
    const result = await frameworkAuth(['add-api-keys', '--dry-run', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { dryRun: boolean; apiKeys: boolean; files: { created: string[]; updated: string[] }; dependencies: { added: Record<string, string> } };
    expect(document).toMatchObject({ command: 'add-api-keys', dryRun: true, apiKeys: true, dependencies: { added: {} } });
    // The feature's folder, and what of the runtime it uses that the project did not hold (the rate limits).
    expect(document.files.created).toEqual(expect.arrayContaining(apiKeysFiles.map((file) => `src/auth/core/features/api-keys/${file}`)));
    expect(document.files.created).toContain('src/auth/core/features/rate-limit/rate-limit.ts');
    // Outside the features' folders, only the client's address (http/client-address.ts), which the rate limits read.
    expect(document.files.created.filter((path) => !path.startsWith('src/auth/core/features/'))).toEqual(['src/auth/core/http/client-address.ts']);
    expect(document.files.updated).toEqual(['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', 'framework-auth.json']);
    expect(await tree(root)).toEqual(before);

    const text = await frameworkAuth(['remove-api-keys', '--dry-run'], await create(['--providers', 'oidc', '--adapter', 'sqlite', '--api-keys']));
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/delete\s+src\/auth\/core\/features\/api-keys\/api-keys\.ts/);
    expect(text.stdout).toContain('Dry run: nothing was written.');
  });

  it('add-api-keys refuses a project without an adapter (exit 2), changing nothing', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'none']);
    const before = await tree(root);
    const result = await frameworkAuth(['add-api-keys'], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('The API-keys feature needs a database adapter, and src/auth/config.ts sets none: API keys (their digests) are stored through the adapter.');
    expect(result.stderr).toContain('--adapter memory, sqlite or postgres');
    expect(await tree(root)).toEqual(before);
  });

  it('removes ApiKeys(…) with the options the user gave it, and its import', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'memory']);
    const before = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect((await frameworkAuth(['add-api-keys', '--no-install'], root)).exitCode).toBe(0);
    const configPath = join(root, 'src/auth/config.ts');
    const added = await readFile(configPath, 'utf8');
    await writeFile(configPath, added.replace("ApiKeys({ scopes: ['read', 'write'] })", "ApiKeys({\n    scopes: ['orders:read', 'orders:write'],\n    expiresInDays: 30,\n  })"));
    const removed = await frameworkAuth(['remove-api-keys'], root);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(await readFile(configPath, 'utf8')).toBe(before);
  });

  it('merges its export and link into src/auth/index.ts and src/server.ts the user changed, and takes them out again', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite']);
    const serverPath = join(root, 'src/server.ts');
    const indexPath = join(root, 'src/auth/index.ts');
    const ordersRoute = "app.get('/orders', requireAuth(), (_req, res) => {\n  res.json([]);\n});\n\n";
    const loginGuard = "  return createRequireAuth(authConfig, { redirectTo: '/login', ...options });";
    await writeFile(serverPath, (await readFile(serverPath, 'utf8')).replace("app.get('/me',", `${ordersRoute}app.get('/me',`));
    await writeFile(indexPath, (await readFile(indexPath, 'utf8')).replace('  return createRequireAuth(authConfig, options);', loginGuard));
    const mine = { server: await readFile(serverPath, 'utf8'), index: await readFile(indexPath, 'utf8') };

    const added = await frameworkAuth(['add-api-keys', '--no-install', '--json'], root);
    expect(added.exitCode, added.stderr).toBe(0);
    expect(parseJsonOutput(added.stdout)).toMatchObject({ files: { updated: ['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', 'framework-auth.json'], conflicts: [] } });
    const server = await readFile(serverPath, 'utf8');
    expect(server).toContain(ordersRoute);
    expect(homeLinks(server)).toContain(" · <a href='/auth/api-keys'>API keys</a> · ");
    const index = await readFile(indexPath, 'utf8');
    expect(index).toContain(loginGuard);
    expect(index).toContain('export function createApiKey(request: NewApiKey & { userId: string }): Promise<CreatedApiKey> {');

    const removed = await frameworkAuth(['remove-api-keys'], root);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(await readFile(serverPath, 'utf8')).toBe(mine.server);
    expect(await readFile(indexPath, 'utf8')).toBe(mine.index);
  });

  it('keeps a file whose changes touch the lines it changes, with the merge beside it, and writes the rest', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite']);
    const serverPath = join(root, 'src/server.ts');
    const own = (await readFile(serverPath, 'utf8')).replace("Your sessions</a> · <a href='/auth/signout'>", "Your sessions</a> · <a href='/orders'>Orders</a> · <a href='/auth/signout'>");
    await writeFile(serverPath, own);
    const result = await frameworkAuth(['add-api-keys', '--no-install', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { files: { updated: string[]; conflicts: { path: string; reason: string; mergeFile: string }[] } };
    expect(document.files.updated).toEqual(['src/auth/config.ts', 'src/auth/index.ts', 'framework-auth.json']);
    expect(document.files.conflicts).toEqual([
      { path: 'src/server.ts', mergeFile: 'src/server.ts.merge', reason: "your changes and this command's touch the same lines; kept as it is, the merge with conflict markers is in src/server.ts.merge (resolve it into src/server.ts, then delete it)" },
    ]);
    expect(result.stderr).toContain('src/server.ts: your changes and this command');
    expect(await readFile(serverPath, 'utf8')).toBe(own);
    const merge = await readFile(`${serverPath}.merge`, 'utf8');
    expect(merge).toContain("<<<<<<< yours\n    ? `<a href=\"/me\">/me</a> · <a href='/auth/sessions'>Your sessions</a> · <a href='/orders'>Orders</a> · <a href='/auth/signout'>Sign out</a>`\n");
    expect(merge).toContain("=======\n    ? `<a href=\"/me\">/me</a> · <a href='/auth/sessions'>Your sessions</a> · <a href='/auth/api-keys'>API keys</a> · <a href='/auth/signout'>Sign out</a>`\n>>>>>>> after this command\n");
  });

  it('keeps the feature\'s runtime files, all of them, while a src/auth/index.ts kept with the user\'s changes still imports them', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite', '--api-keys']);
    const indexPath = join(root, 'src/auth/index.ts');
    const own = (await readFile(indexPath, 'utf8')).replace('  return createApiKeyFor(authConfig, request);', '  return createApiKeyFor(authConfig, { expiresInDays: 30, ...request });');
    await writeFile(indexPath, own);
    const result = await frameworkAuth(['remove-api-keys', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { files: { deleted: string[]; conflicts: { path: string }[] }; notes: string[] };
    expect(document.files.conflicts.map((conflict) => conflict.path)).toEqual(['src/auth/index.ts']);
    expect(document.files.deleted).toEqual([]);
    for (const file of apiKeysFiles) {
      expect(existsSync(join(root, 'src/auth/core/features/api-keys', file)), file).toBe(true);
      expect(document.notes).toContain(`Kept src/auth/core/features/api-keys/${file}: another file still imports it.`);
    }
    expect(await readFile(indexPath, 'utf8')).toBe(own);
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).not.toContain('ApiKeys');
  });
});

describe('API keys in doctor', () => {
  it('says what is wrong with ApiKeys() in a config without an adapter, and how to fix it', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'none']);
    const configPath = join(root, 'src/auth/config.ts');
    const config = await readFile(configPath, 'utf8');
    await writeFile(configPath, config.replace("import './env.js';", "import './env.js';\nimport { ApiKeys } from './core/features/api-keys/index.js';").replace(/\n};\s*$/, '\n  features: [ApiKeys()],\n};\n'));
    const result = await frameworkAuth(['doctor', '--offline'], root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ src/auth/config.ts has ApiKeys() but no adapter: the app refuses to start (its keys live in the database).');
    expect(result.stdout).toContain('Set `adapter:` (npx create-framework-auth . --adapter sqlite), or run npx framework-auth remove-api-keys.');
  });
});
