// Every catalog provider together, with each database adapter: the scaffold compiles, and the app starts and lists
// them all (issue 25, item 6). `credentials` beside an adapter used to write an app that refused to start
// (Auth.js's "credentials need JWT sessions"); the database feature now keeps its users (test/runtime/
// credentials-database.test.ts signs in with it).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerCatalog } from '../../src/catalog/providers.js';
import { startPostgres } from '../support/postgres.js';
import type { RunningPostgres } from '../support/postgres.js';
import { compileProject, fillEnv, makeTempDir, removeTempDirs, runBuiltCli, startApp } from './helpers/project.js';
import type { RunningApp } from './helpers/project.js';
import { linkProjectDeps, prepareSharedDeps } from './helpers/shared-deps.js';

afterAll(removeTempDirs);

const allProviders = providerCatalog.map((entry) => entry.id);

const cases = [
  { adapter: 'memory', native: [], migrates: false },
  { adapter: 'sqlite', native: ['better-sqlite3'], migrates: true },
  { adapter: 'postgres', native: [], migrates: true },
] as const;

describe.each(cases)('every catalog provider with --adapter $adapter', ({ adapter, native, migrates }) => {
  let projectDir: string;
  let postgres: RunningPostgres | undefined;
  let app: RunningApp | undefined;

  beforeAll(async () => {
    await prepareSharedDeps();
    const root = await makeTempDir();
    const scaffold = await runBuiltCli('create', ['app', '--providers', allProviders.join(','), '--adapter', adapter, '--yes', '--no-install'], { cwd: root });
    if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
    projectDir = join(root, 'app');
    await linkProjectDeps(projectDir, native);
    if (adapter === 'postgres') postgres = await startPostgres();
    // What a user fills in before starting: the mail server (nothing is sent here) and the database.
    await fillEnv(projectDir, { AUTH_EMAIL_SERVER: 'smtp://127.0.0.1:2525', AUTH_EMAIL_FROM: 'App <auth@app.example.test>', ...(postgres ? { DATABASE_URL: postgres.url } : {}) });
  }, 600_000);

  afterAll(async () => {
    await app?.stop();
    await postgres?.stop();
  });

  it('compiles with tsc with zero errors', async () => {
    const result = await compileProject(projectDir);
    expect(result.output).toBe('');
    expect(result.exitCode).toBe(0);
  }, 120_000);

  it('starts, and serves every provider and the sign-in page', async () => {
    if (migrates) {
      const migrate = await runBuiltCli('frameworkAuth', ['migrate'], { cwd: projectDir });
      expect(migrate.exitCode, migrate.stderr).toBe(0);
    }
    app = await startApp(projectDir);
    const providers = (await (await fetch(`${app.url}/auth/providers`)).json()) as Record<string, unknown>;
    expect(Object.keys(providers).sort()).toEqual([...allProviders].sort());
    const page = await fetch(`${app.url}/auth/signin`);
    expect(page.status).toBe(200);
    expect(await (await fetch(`${app.url}/auth/session`)).json()).toBeNull();
  }, 60_000);
});
