// --json on every command that writes: stdout is one document that validates against
// docs/schemas/cli-output.schema.json; messages go to stderr. (update, remove-provider, doctor and dev-idp check
// theirs in their own files.)
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPackageRoot } from '../../src/generator/paths.js';
import { parseJsonOutput } from './helpers/json-schema.js';
import { makeTempDir, runInProcess, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

describe('--json', () => {
  it('create: files, dependencies, env keys and callback URLs', async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'oidc,microblog', '--json'], { cwd: parent });
    expect(result.exitCode).toBe(0);
    const document = parseJsonOutput(result.stdout);
    expect(document).toMatchObject({
      command: 'create',
      ok: true,
      dryRun: false,
      answers: { providers: ['oidc', 'microblog'], mount: '/auth', adapter: 'none' },
      env: { fill: ['AUTH_OIDC_ID', 'AUTH_OIDC_SECRET', 'AUTH_OIDC_ISSUER', 'AUTH_MICROBLOG_ID', 'AUTH_MICROBLOG_SECRET'] },
      callbackUrls: [
        { provider: 'oidc', url: 'http://localhost:3000/auth/callback/oidc' },
        { provider: 'microblog', url: 'http://localhost:3000/auth/callback/microblog' },
      ],
      installed: false,
    });
    expect((document.files as { created: string[] }).created).toEqual(expect.arrayContaining(['src/auth/config.ts', 'framework-auth.json', '.env']));
    expect((document.env as { added: string[] }).added).toContain('AUTH_SECRET');
    expect(result.stderr).toContain('The auth module is ready.');
  });

  it('create --dry-run', async () => {
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--dry-run', '--json'], { cwd: await makeTempDir() });
    expect(parseJsonOutput(result.stdout)).toMatchObject({ command: 'create', dryRun: true });
  });

  it('add-provider: the provider, its env keys and callback URL', async () => {
    const parent = await makeTempDir();
    await runInProcess('create-framework-auth', ['app', '--yes', '--no-install'], { cwd: parent });
    const result = await runInProcess('framework-auth', ['add-provider', 'github', '--json'], { cwd: join(parent, 'app') });
    expect(result.exitCode).toBe(0);
    expect(parseJsonOutput(result.stdout)).toMatchObject({
      command: 'add-provider',
      provider: 'github',
      files: { created: ['src/auth/core/providers/github.ts'], updated: ['src/auth/config.ts', '.env', '.env.example', 'framework-auth.json'] },
      env: { added: ['AUTH_GITHUB_ID', 'AUTH_GITHUB_SECRET'] },
      callbackUrls: [{ provider: 'github', url: 'http://localhost:3000/auth/callback/github' }],
    });
  });

  it('migrate: the adapter, the database (no password) and the tables', async () => {
    const parent = await makeTempDir();
    await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--adapter', 'sqlite'], { cwd: parent });
    const root = join(parent, 'app');
    // The project's own tsx and better-sqlite3 run its adapter: this repo's installs stand in for npm install.
    await symlink(join(cliPackageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    const result = await runInProcess('framework-auth', ['migrate', '--json'], { cwd: root });
    expect(result.exitCode).toBe(0);
    expect(parseJsonOutput(result.stdout)).toMatchObject({ command: 'migrate', ok: true, adapter: 'sqlite', database: 'file:./data/auth.db', tables: expect.arrayContaining(['users', 'sessions']) });
  }, 60_000);

  it('secret: never the secret itself', async () => {
    const root = await makeTempDir();
    const result = await runInProcess('framework-auth', ['secret', '--json'], { cwd: root });
    expect(result.exitCode).toBe(0);
    expect(parseJsonOutput(result.stdout)).toMatchObject({ command: 'secret', ok: true, kept: false, files: { created: ['.env'] } });
    expect(result.stdout).not.toMatch(/AUTH_SECRET=/);
  });

  it('a failure is a document too: ok false with the error (and the exit code of the error)', async () => {
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--mount', 'auth', '--json'], { cwd: await makeTempDir() });
    expect(result.exitCode).toBe(2);
    expect(parseJsonOutput(result.stdout)).toEqual({
      command: 'create',
      ok: false,
      version: expect.any(String),
      error: { type: 'usage', message: '--mount must start with "/" (got "auth")' },
    });
  });

  it('an unknown option is a usage error document', async () => {
    const result = await runInProcess('framework-auth', ['doctor', '--frobnicate', '--json'], { cwd: await makeTempDir() });
    expect(result.exitCode).toBe(2);
    expect(parseJsonOutput(result.stdout)).toMatchObject({ command: 'doctor', ok: false, error: { type: 'usage', message: "unknown option '--frobnicate'" } });
  });
});
