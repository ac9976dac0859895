// `framework-auth add-provider microblog`, run through the bin the generated project installed from the packed
// tarball: the project still compiles and serves the new provider; running it again changes nothing.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProject, makeTempDir, runBuiltCli, snapshotTree, startApp, removeTempDirs } from './helpers/project.js';
import type { RunningApp } from './helpers/project.js';
import { linkSharedDeps, prepareSharedDeps } from './helpers/shared-deps.js';

afterAll(removeTempDirs);

async function projectBin(projectDir: string, args: string[]) {
  const result = await execa(join(projectDir, 'node_modules/.bin/framework-auth'), args, { cwd: projectDir, reject: false, env: {} });
  return { exitCode: result.exitCode, stdout: stripVTControlCharacters(String(result.stdout)), stderr: String(result.stderr) };
}

describe('framework-auth add-provider microblog in a generated project', () => {
  let projectDir: string;
  let app: RunningApp | undefined;

  beforeAll(async () => {
    await prepareSharedDeps();
    const root = await makeTempDir();
    const scaffold = await runBuiltCli('create', ['app', '--yes', '--no-install'], { cwd: root });
    if (scaffold.exitCode !== 0) throw new Error(scaffold.stderr);
    projectDir = join(root, 'app');
    await linkSharedDeps(projectDir);
  }, 600_000);

  afterAll(async () => {
    await app?.stop();
  });

  it('adds the provider through the project\'s own framework-auth bin and prints the callback URL', async () => {
    const result = await projectBin(projectDir, ['add-provider', 'microblog']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('http://localhost:3000/auth/callback/microblog');
    const config = await readFile(join(projectDir, 'src/auth/config.ts'), 'utf8');
    expect(config.replace(/^\/\/ Written by .*\n/, '')).toMatchInlineSnapshot(`
      "import './env.js';
      import type { FrameworkAuthConfig } from './core/index.js';
      import OIDC from './core/providers/oidc.js';
      import Microblog from './core/providers/microblog.js';

      /**
       * The auth configuration used by the handler, getSession and the guards in ./index.ts.
       * Provider secrets come from .env (AUTH_<ID>_ID, AUTH_<ID>_SECRET, ...); \`npx framework-auth add-provider <id>\`
       * adds one to the list below.
       */
      export const authConfig: FrameworkAuthConfig = {
        basePath: '/auth',
        providers: [
          OIDC(),
          Microblog(),
        ],
      };
      "
    `);
  });

  it('still compiles with tsc with zero errors', async () => {
    const result = await compileProject(projectDir);
    expect(result.output).toBe('');
    expect(result.exitCode).toBe(0);
  }, 60_000);

  it('serves microblog at /auth/providers', async () => {
    app = await startApp(projectDir, 'dist/server.js', { AUTH_MICROBLOG_ID: 'client', AUTH_MICROBLOG_SECRET: 'secret', AUTH_OIDC_ISSUER: 'http://127.0.0.1:9' });
    const providers = (await (await fetch(`${app.url}/auth/providers`)).json()) as Record<string, { id: string; name: string; callbackUrl: string }>;
    expect(Object.keys(providers)).toEqual(['oidc', 'microblog']);
    expect(providers.microblog?.callbackUrl).toBe(`${app.url}/auth/callback/microblog`);
  });

  it('changes nothing when run again, or through the alias twitter', async () => {
    const before = await snapshotTree(projectDir);
    for (const id of ['microblog', 'twitter']) {
      const result = await projectBin(projectDir, ['add-provider', id]);
      expect(result.exitCode).toBe(0);
    }
    expect(await snapshotTree(projectDir)).toEqual(before);
  });

  it('keeps a secret through the project\'s bin: framework-auth secret', async () => {
    const before = await readFile(join(projectDir, '.env'), 'utf8');
    const result = await projectBin(projectDir, ['secret']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('kept it');
    expect(await readFile(join(projectDir, '.env'), 'utf8')).toBe(before);
  });
});
