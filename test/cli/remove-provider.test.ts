// framework-auth remove-provider: the inverse of add-provider, checked by file hashes.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshotTree } from '../e2e/helpers/project.js';
import { parseJsonOutput } from './helpers/json-schema.js';
import { makeTempDir, runInProcess, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const frameworkAuth = (argv: readonly string[], cwd: string) => runInProcess('framework-auth', argv, { cwd });

async function scaffold(flags: readonly string[] = []): Promise<string> {
  const parent = await makeTempDir();
  const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', ...flags], { cwd: parent });
  expect(result.exitCode).toBe(0);
  return join(parent, 'app');
}

function withoutEnv(tree: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tree).filter(([path]) => path !== '.env'));
}

describe('framework-auth remove-provider', () => {
  it('after add-provider, returns every file but .env to its previous hash', async () => {
    const root = await scaffold();
    const before = await snapshotTree(root);
    expect((await frameworkAuth(['add-provider', 'microblog'], root)).exitCode).toBe(0);
    const result = await frameworkAuth(['remove-provider', 'microblog'], root);
    expect(result.exitCode).toBe(0);
    expect(withoutEnv(await snapshotTree(root))).toEqual(withoutEnv(before));
    // .env keeps the user's values (here the empty placeholders) unless --purge-env.
    expect(await readFile(join(root, '.env'), 'utf8')).toContain('AUTH_MICROBLOG_ID=');
    expect(result.stdout).toContain('Kept AUTH_MICROBLOG_ID, AUTH_MICROBLOG_SECRET in .env (your values); --purge-env removes them.');
  });

  it('removes the folders its deletions emptied (core/oauth1/ after microblog) and keeps a folder that holds a file of yours (issue 24)', async () => {
    const root = await scaffold();
    await frameworkAuth(['add-provider', 'microblog'], root);
    expect(existsSync(join(root, 'src/auth/core/oauth1'))).toBe(true);
    expect((await frameworkAuth(['remove-provider', 'microblog'], root)).exitCode).toBe(0);
    expect(existsSync(join(root, 'src/auth/core/oauth1'))).toBe(false);
    expect(existsSync(join(root, 'src/auth/core/providers'))).toBe(true);

    await frameworkAuth(['add-provider', 'microblog'], root);
    await writeFile(join(root, 'src/auth/core/oauth1/notes.md'), 'mine\n');
    expect((await frameworkAuth(['remove-provider', 'microblog'], root)).exitCode).toBe(0);
    expect(await readFile(join(root, 'src/auth/core/oauth1/notes.md'), 'utf8')).toBe('mine\n');
  });

  it('with --purge-env, returns the whole tree to its previous hashes', async () => {
    const root = await scaffold();
    const before = await snapshotTree(root);
    await frameworkAuth(['add-provider', 'github'], root);
    expect((await frameworkAuth(['remove-provider', 'github', '--purge-env'], root)).exitCode).toBe(0);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('removes the dependencies add-provider added for the provider alone (email, with an adapter)', async () => {
    const root = await scaffold(['--adapter', 'memory']);
    const before = await snapshotTree(root);
    await frameworkAuth(['add-provider', 'email', '--no-install'], root);
    expect(JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).dependencies.nodemailer).toBeDefined();
    const result = await frameworkAuth(['remove-provider', 'email', '--purge-env'], root);
    expect(result.exitCode).toBe(0);
    expect(await snapshotTree(root)).toEqual(before);
    expect(result.stdout).toContain('to drop nodemailer from the lockfile');
  });

  it('keeps a dependency the project had before add-provider', async () => {
    const root = await scaffold(['--adapter', 'memory']);
    const packagePath = join(root, 'package.json');
    const pkg = JSON.parse(await readFile(packagePath, 'utf8'));
    pkg.dependencies.nodemailer = '^10.0.0';
    await writeFile(packagePath, `${JSON.stringify(pkg, null, 2)}\n`);
    await frameworkAuth(['add-provider', 'email', '--no-install'], root);
    const result = await frameworkAuth(['remove-provider', 'email'], root);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(await readFile(packagePath, 'utf8')).dependencies.nodemailer).toBe('^10.0.0');
    expect(result.stdout).toContain('Kept nodemailer in package.json');
  });

  it('changes nothing the second time, nor through an alias', async () => {
    const root = await scaffold(['--providers', 'oidc,microblog']);
    expect((await frameworkAuth(['remove-provider', 'x'], root)).exitCode).toBe(0);
    const after = await snapshotTree(root);
    for (const alias of ['microblog', 'twitter', 'x']) {
      const result = await frameworkAuth(['remove-provider', alias], root);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('is not in src/auth/config.ts; nothing to remove.');
    }
    expect(await snapshotTree(root)).toEqual(after);
  });

  it('removes the config entry and its import, and the provider file nothing imports any more', async () => {
    const root = await scaffold(['--providers', 'oidc,credentials']);
    await frameworkAuth(['remove-provider', 'oidc'], root);
    const config = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect(config).not.toContain('OIDC');
    expect(config).toContain("import Credentials from './core/providers/credentials.js';");
    expect(await snapshotTree(root)).not.toHaveProperty('src/auth/core/providers/oidc.ts');
    expect(await readFile(join(root, '.env.example'), 'utf8')).not.toContain('AUTH_OIDC_');
  });

  it('keeps a provider file with changes of the user\'s', async () => {
    const root = await scaffold(['--providers', 'oidc,github']);
    const file = join(root, 'src/auth/core/providers/github.ts');
    await writeFile(file, `${await readFile(file, 'utf8')}// mine\n`);
    const result = await frameworkAuth(['remove-provider', 'github'], root);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Kept src/auth/core/providers/github.ts: it has changes of yours.');
    expect(await readFile(file, 'utf8')).toContain('// mine');
  });

  it('refuses to remove the last provider, writing nothing (exit 2)', async () => {
    const root = await scaffold();
    const before = await snapshotTree(root);
    const result = await frameworkAuth(['remove-provider', 'oidc'], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('src/auth/config.ts: it is the only provider; a config without providers cannot sign anyone in.');
    expect(result.stderr).toContain('Add another provider first');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('refuses an unknown provider with the valid ones (exit 2)', async () => {
    const root = await scaffold();
    const result = await frameworkAuth(['remove-provider', 'myspace'], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Unknown provider "myspace". Valid providers: oidc, github');
  });

  it('explains that it needs a scaffolded project (exit 2)', async () => {
    const empty = await makeTempDir();
    const result = await frameworkAuth(['remove-provider', 'github'], empty);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`No auth module in ${empty}`);
  });

  it('--dry-run shows the plan and writes nothing', async () => {
    const root = await scaffold(['--providers', 'oidc,github']);
    const before = await snapshotTree(root);
    const result = await frameworkAuth(['remove-provider', 'github', '--dry-run'], root);
    expect(result.stdout).toMatch(/update +src\/auth\/config\.ts {2}\(removes GitHub from the providers\)/);
    expect(result.stdout).toMatch(/delete +src\/auth\/core\/providers\/github\.ts {2}\(no longer used\)/);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('--json prints one document: files, env keys and dependencies removed', async () => {
    const root = await scaffold(['--providers', 'oidc,github']);
    const result = await frameworkAuth(['remove-provider', 'github', '--json'], root);
    expect(result.exitCode).toBe(0);
    const document = parseJsonOutput(result.stdout);
    expect(document).toMatchObject({
      command: 'remove-provider',
      ok: true,
      provider: 'github',
      files: { updated: ['src/auth/config.ts', '.env.example', 'framework-auth.json'], deleted: ['src/auth/core/providers/github.ts'] },
      env: { removed: ['AUTH_GITHUB_ID', 'AUTH_GITHUB_SECRET'], kept: ['AUTH_GITHUB_ID', 'AUTH_GITHUB_SECRET'] },
      dependencies: { removed: [] },
    });
  });

  it('removes password beside email: its feature folder and argon2 go, the shared email transport, links and nodemailer stay (--json)', async () => {
    const root = await scaffold(['--providers', 'email,password', '--adapter', 'sqlite']);
    const result = await frameworkAuth(['remove-provider', 'password', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { files: { deleted: string[] }; dependencies: { removed: string[] } };
    expect(document.files.deleted.sort()).toEqual(
      [
        'account.ts',
        'breached.ts',
        'change-password-route.ts',
        'common-passwords.ts',
        'confirm-address.ts',
        'hash.ts',
        'index.ts',
        'mail.ts',
        'pages.ts',
        'policy.ts',
        'reset-password-route.ts',
        'shared.ts',
        'sign-in.ts',
        'sign-up-route.ts',
        'storage.ts',
      ]
        .map((file) => `src/auth/core/features/password/${file}`)
        // Only password asks a signed-in user to re-authenticate in this project (email sign-in does not), and only it
        // has a part of the account (features/database/account-parts.ts declares it).
        .concat('src/auth/core/providers/password.ts', 'src/auth/core/features/database/ask-to-reauthenticate.ts', 'src/auth/core/features/database/account-parts.ts')
        .sort(),
    );
    expect(document.dependencies.removed).toEqual(['@node-rs/argon2']);
    expect(existsSync(join(root, 'src/auth/core/features/password'))).toBe(false);
    for (const kept of ['smtp.ts', 'link-token.ts', 'verify-request-route.ts']) expect(existsSync(join(root, 'src/auth/core/features/email', kept))).toBe(true);
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['nodemailer']).toBeDefined();
    expect(pkg.dependencies['@node-rs/argon2']).toBeUndefined();
  });

  it('prints help with examples', async () => {
    const result = await frameworkAuth(['remove-provider', '--help'], await makeTempDir());
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Examples:\n  $ npx framework-auth remove-provider microblog');
  });
});
