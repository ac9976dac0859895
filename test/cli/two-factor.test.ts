// Issue 26's CLI: `create-framework-auth --two-factor`, `framework-auth add-two-factor` and `remove-two-factor`.
// "create with two-factor" and "create, then add-two-factor" give the same project; removing it gives back the
// project without it; what could not run is refused before anything is written (exit 2).
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJsonOutput, parseManifestJson } from './helpers/json-schema.js';
import { projectTree } from './helpers/project-tree.js';
import { createApp, frameworkAuthIn, makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const tree = projectTree;

const frameworkAuth = frameworkAuthIn;
const create = createApp;

describe('two-factor in the CLI', () => {
  it('create --two-factor writes TwoFactor() in the features, its files and uqr, and records it in the manifest', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--two-factor']);
    const config = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect(config).toContain("import { TwoFactor } from './core/features/two-factor/index.js';");
    expect(config).toContain('  features: [TwoFactor()],\n');
    for (const file of ['index.ts', 'two-factor.ts', 'totp.ts', 'secrets.ts', 'pages.ts']) expect(existsSync(join(root, 'src/auth/core/features/two-factor', file)), file).toBe(true);
    expect(JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).dependencies.uqr).toMatch(/^\^0\.1\./);
    expect(parseManifestJson(await readFile(join(root, 'framework-auth.json'), 'utf8')).answers).toEqual({ providers: ['password'], mount: '/auth', adapter: 'sqlite', twoFactor: true });
    expect((await frameworkAuth(['doctor', '--offline'], root)).stdout).toContain('✔ Two-factor is configured (after Email and password); users turn it on at /auth/two-factor.');
    const update = await frameworkAuth(['update', '--json'], root);
    expect(update.exitCode, update.stderr).toBe(0);
    expect(parseJsonOutput(update.stdout)).toMatchObject({ command: 'update', ok: true, files: { created: [], updated: [], deleted: [] } });
  });

  it('gives the same project created with --two-factor as created and then given add-two-factor; remove-two-factor undoes it', async () => {
    const together = await create(['--providers', 'oidc,password', '--adapter', 'postgres', '--two-factor']);
    const added = await create(['--providers', 'oidc,password', '--adapter', 'postgres']);
    const without = await tree(added);
    const result = await frameworkAuth(['add-two-factor', '--no-install'], added);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await tree(added)).toEqual(await tree(together));
    expect((await frameworkAuth(['add-two-factor', '--no-install'], added)).stdout).toContain('Two-factor is already in src/auth/config.ts; nothing changed.');

    const removed = await frameworkAuth(['remove-two-factor', '--json'], added);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(parseJsonOutput(removed.stdout)).toMatchObject({ command: 'remove-two-factor', twoFactor: false, dependencies: { removed: ['uqr'] } });
    expect(await tree(added)).toEqual(without);
  });

  // Issue 35: remove-provider and remove-two-factor dropped dependencies by different rules; one reconciler now
  // removes what the CLI added (the manifest's range) from dependencies or devDependencies alike.
  it('remove-two-factor drops uqr from devDependencies too, where the user moved it, as remove-provider does for its dependencies', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--two-factor']);
    const packagePath = join(root, 'package.json');
    const pkg = JSON.parse(await readFile(packagePath, 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    pkg.devDependencies['uqr'] = pkg.dependencies['uqr']!;
    delete pkg.dependencies['uqr'];
    await writeFile(packagePath, `${JSON.stringify(pkg, null, 2)}\n`);
    const result = await frameworkAuth(['remove-two-factor', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(parseJsonOutput(result.stdout)).toMatchObject({ dependencies: { removed: ['uqr'] } });
    expect(JSON.parse(await readFile(packagePath, 'utf8')).devDependencies.uqr).toBeUndefined();
  });

  it('prints its plan with --dry-run --json and writes nothing', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'memory']);
    const before = await tree(root);
    const result = await frameworkAuth(['add-two-factor', '--dry-run', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { dryRun: boolean; files: { created: string[]; updated: string[] }; dependencies: { added: Record<string, string> } };
    expect(document.dryRun).toBe(true);
    expect(document.files.created).toContain('src/auth/core/features/two-factor/two-factor.ts');
    expect(document.files.updated).toContain('src/auth/config.ts');
    expect(Object.keys(document.dependencies.added)).toEqual(['uqr']);
    expect(await tree(root)).toEqual(before);
  });

  it('opts the credentials provider in, and says so', async () => {
    const root = await create(['--providers', 'credentials', '--adapter', 'sqlite']);
    const result = await frameworkAuth(['add-two-factor', '--no-install'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('Credentials users are asked too: add-two-factor set `twoFactor: true` in Credentials({ … }) in src/auth/config.ts.');
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).toContain('    Credentials({\n      twoFactor: true, // users who turned two-factor on enter a code after authorize()\n');
  });

  it('tells a credentials project how its users opt in when its Credentials call is not one it can edit, and writes the rest', async () => {
    const root = await create(['--providers', 'credentials', '--adapter', 'sqlite']);
    const configPath = join(root, 'src/auth/config.ts');
    const config = await readFile(configPath, 'utf8');
    const call = config.slice(config.indexOf('    Credentials({'), config.indexOf('    }),\n') + '    }),\n'.length);
    const own = config.replace(call, '    Credentials(credentialsOptions),\n').replace('export const authConfig', `const credentialsOptions = { credentials: {}, authorize: async () => null };\n\nexport const authConfig`);
    await writeFile(configPath, own);
    const result = await frameworkAuth(['add-two-factor', '--no-install'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('Credentials users are asked only when you add `twoFactor: true` to Credentials({ … }) in src/auth/config.ts; it was left as it is (Credentials(…) does not take one object literal). Until then the app does not start');
    const written = await readFile(configPath, 'utf8');
    expect(written).toContain('    Credentials(credentialsOptions),\n');
    expect(written).toContain('  features: [TwoFactor()],\n');
  });

  it('remove-two-factor takes the credentials opt-in out: add then remove gives the config back', async () => {
    const root = await create(['--providers', 'oidc,credentials', '--adapter', 'memory']);
    const before = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect((await frameworkAuth(['add-two-factor', '--no-install'], root)).exitCode).toBe(0);
    const removed = await frameworkAuth(['remove-two-factor', '--json'], root);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(parseJsonOutput(removed.stdout)).toMatchObject({ command: 'remove-two-factor', twoFactor: false, files: { updated: expect.arrayContaining(['src/auth/config.ts']) } });
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).toBe(before);
  });

  it.each([
    [['--providers', 'credentials', '--adapter', 'none', '--two-factor'], '--two-factor needs a database adapter'],
    [['--providers', 'oidc', '--adapter', 'sqlite', '--two-factor'], 'none of the providers (oidc) signs in with one'],
  ])('create refuses %j before writing anything (exit 2)', async (flags, reason) => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', ...flags], { cwd: parent });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(reason);
    expect(await readdir(parent)).toEqual([]);
  });

  it('add-two-factor refuses a project without an adapter or without a password provider (exit 2), changing nothing', async () => {
    for (const [flags, reason] of [
      [['--providers', 'credentials', '--adapter', 'none'], 'Two-factor needs a database adapter'],
      [['--providers', 'oidc', '--adapter', 'sqlite'], 'no provider that signs in with one'],
    ] as const) {
      const root = await create(flags);
      const before = await tree(root);
      const result = await frameworkAuth(['add-two-factor'], root);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(reason);
      expect(await tree(root)).toEqual(before);
    }
  });

  it('remove-provider refuses to take away the last password provider while two-factor is on', async () => {
    const root = await create(['--providers', 'oidc,password', '--adapter', 'sqlite', '--two-factor']);
    const result = await frameworkAuth(['remove-provider', 'password'], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Remove two-factor first: npx framework-auth remove-two-factor');
  });
});
