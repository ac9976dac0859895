// Projects scaffolded with --adapter sqlite and --adapter postgres: they compile, `framework-auth migrate` creates
// the tables in a real SQLite file / a real PostgreSQL server, and an OIDC sign-in through oidc-provider stores the
// session as a row that sign-out deletes (issue 5, point 4).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar, formBody } from '../support/cookie-jar.js';
import { freePort } from '../support/listen.js';
import { startOidcProvider } from '../support/oidc-provider.js';
import type { RunningOidcProvider } from '../support/oidc-provider.js';
import { startPostgres } from '../support/postgres.js';
import { compileProject, fillEnv, makeTempDir, removeTempDirs, runBuiltCli, startApp } from './helpers/project.js';
import type { CliRun, RunningApp } from './helpers/project.js';
import { linkProjectDeps, prepareSharedDeps } from './helpers/shared-deps.js';
import { signInWithOidc, signOut } from './helpers/sign-in.js';

afterAll(removeTempDirs);

/** What a test reads from the project's database, through the driver, beside the app. */
interface DatabaseProbe {
  tables(): Promise<string[]>;
  /** Session tokens of the user with this email. */
  sessionTokens(email: string): Promise<string[]>;
}

/** A database for one project: the .env values that point at it, a probe, and how to stop it. */
interface TestDatabase {
  env: Record<string, string>;
  probe: DatabaseProbe;
  stop(): Promise<void>;
}

const sessionsOfEmail = 'SELECT s.session_token FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = ';

function sqliteDatabase(projectDir: string): TestDatabase {
  // The file is made by `framework-auth migrate`; each look opens it read-only (WAL: the app may be writing).
  const read = <T>(look: (database: Database.Database) => T): T => {
    const database = new Database(join(projectDir, 'data/auth.db'), { readonly: true, fileMustExist: true });
    try {
      return look(database);
    } finally {
      database.close();
    }
  };
  return {
    env: {},
    probe: {
      tables: async () =>
        read((database) => database.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((row) => row.name)),
      sessionTokens: async (email) =>
        read((database) => database.prepare<[string], { session_token: string }>(`${sessionsOfEmail}?`).all(email).map((row) => row.session_token)),
    },
    stop: async () => {},
  };
}

async function postgresDatabase(): Promise<TestDatabase> {
  const server = await startPostgres();
  const query = async <Row extends Record<string, unknown>>(sql: string, parameters: unknown[] = []): Promise<Row[]> => {
    const client = new Client({ connectionString: server.url });
    await client.connect();
    try {
      return (await client.query<Row>(sql, parameters)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    env: { DATABASE_URL: server.url },
    probe: {
      tables: async () =>
        (await query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name")).map(
          (row) => row.table_name,
        ),
      sessionTokens: async (email) => (await query<{ session_token: string }>(`${sessionsOfEmail}$1`, [email])).map((row) => row.session_token),
    },
    stop: () => server.stop(),
  };
}

const cases = [
  { adapter: 'sqlite', native: ['better-sqlite3'], start: (projectDir: string) => Promise.resolve(sqliteDatabase(projectDir)) },
  { adapter: 'postgres', native: [], start: () => postgresDatabase() },
] as const;

// An OIDC project has the core's tables and rate_limits, where app processes take their lease on a token refresh;
// no passkey, password or two-factor table (issue 35).
const authTables = ['accounts', 'auth_migrations', 'rate_limits', 'sessions', 'users', 'verification_tokens'];

describe.each(cases)('a project scaffolded with --adapter $adapter', ({ adapter, native, start }) => {
  let provider: RunningOidcProvider;
  let database: TestDatabase;
  let app: RunningApp;
  let projectDir: string;
  let scaffold: CliRun;
  let compile: { exitCode: number; output: string };
  let migrate: CliRun;

  beforeAll(async () => {
    await prepareSharedDeps();
    provider = await startOidcProvider();
    const root = await makeTempDir();
    projectDir = join(root, 'app');
    scaffold = await runBuiltCli('create', ['app', '--adapter', adapter, '--providers', 'oidc', '--yes', '--no-install'], { cwd: root });
    if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
    await linkProjectDeps(projectDir, native);
    compile = await compileProject(projectDir);
    database = await start(projectDir);
    await fillEnv(projectDir, { AUTH_OIDC_ID: 'app', AUTH_OIDC_SECRET: 'app-secret', AUTH_OIDC_ISSUER: provider.issuer, ...database.env });
    migrate = await runBuiltCli('frameworkAuth', ['migrate'], { cwd: projectDir });
    app = await startApp(projectDir);
    await provider.setClient({ client_id: 'app', client_secret: 'app-secret', redirect_uris: [`${app.url}/auth/callback/oidc`] });
  }, 600_000);

  afterAll(async () => {
    await app?.stop();
    await provider?.close();
    await database?.stop();
  });

  it('prints how to create the tables', () => {
    expect(scaffold.stdout).toContain('npx framework-auth migrate');
  });

  it('compiles with tsc with zero errors', () => {
    expect(compile.output).toBe('');
    expect(compile.exitCode).toBe(0);
  });

  it('migrate creates the tables of the project\'s features: for OIDC the core\'s and the refresh lease\'s, no passkey, password or two-factor table', async () => {
    expect(migrate.stderr).toBe('');
    expect(migrate.exitCode).toBe(0);
    expect(migrate.stdout).toContain('Tables in place in');
    expect(migrate.stdout).toContain('Tables in place in');
    expect(migrate.stdout).toMatch(/: users, accounts, sessions, verification_tokens, rate_limits, auth_migrations\n/);
    if (adapter === 'sqlite') expect(existsSync(join(projectDir, 'data/auth.db'))).toBe(true);
    expect(await database.probe.tables()).toEqual(authTables);
  });

  it('migrate run again succeeds and changes nothing', async () => {
    const again = await runBuiltCli('frameworkAuth', ['migrate'], { cwd: projectDir });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('The database is up to date: no step to apply.');
    expect(await database.probe.tables()).toEqual(authTables);
  });

  it('signs in through oidc-provider into a session row, which sign-out deletes', async () => {
    const jar = createJar();
    const landing = await signInWithOidc(jar, app.url, '/auth', `${app.url}/me`);
    expect(landing).toBe(`${app.url}/me`);
    const me = await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } });
    expect(me.status).toBe(200);

    // With a database adapter the cookie holds the session row's token, not a JWT.
    const token = jar.get('authjs.session-token', app.url);
    expect(await database.probe.sessionTokens('alice@example.test')).toEqual([token]);

    const signedOut = await signOut(jar, app.url, '/auth');
    expect([200, 302, 303]).toContain(signedOut.status);
    expect(await database.probe.sessionTokens('alice@example.test')).toEqual([]);
    const after = await jar.fetch(`${app.url}/auth/session`);
    expect(await after.json()).toBeNull();
  });

  it('lists the session at /auth/sessions, links it from the home page, and "sign out everywhere" deletes every row', async () => {
    const [laptop, phone] = [createJar(), createJar()];
    await signInWithOidc(laptop, app.url, '/auth', `${app.url}/me`);
    await signInWithOidc(phone, app.url, '/auth', `${app.url}/me`);
    expect(await (await laptop.fetch(`${app.url}/`)).text()).toContain("<a href='/auth/sessions'>Your sessions</a>");
    const listed = await laptop.fetch(`${app.url}/auth/sessions`, { headers: { accept: 'application/json' } });
    const { sessions } = (await listed.json()) as { sessions: { current: boolean; userAgent: string | null }[] };
    expect(sessions.map((session) => session.current)).toEqual([true, false]);
    const { csrfToken } = (await (await laptop.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const form = formBody({ csrfToken, action: 'end-all' });
    const ended = await laptop.fetch(`${app.url}/auth/sessions`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: 'application/json' } });
    expect(await ended.json()).toEqual({ ended: 2 });
    expect(await database.probe.sessionTokens('alice@example.test')).toEqual([]);
    expect(await (await phone.fetch(`${app.url}/auth/session`)).json()).toBeNull();
  });
});

describe('framework-auth migrate against a PostgreSQL server that is not there', () => {
  it('exits 1 with a clear message that never shows the password', async () => {
    await prepareSharedDeps();
    const root = await makeTempDir();
    const projectDir = join(root, 'app');
    const scaffold = await runBuiltCli('create', ['app', '--adapter', 'postgres', '--providers', 'oidc', '--yes', '--no-install'], { cwd: root });
    expect(scaffold.exitCode).toBe(0);
    await linkProjectDeps(projectDir, []);
    await fillEnv(projectDir, { DATABASE_URL: `postgres://app:s3cret-pw@127.0.0.1:${await freePort()}/app` });

    const result = await runBuiltCli('frameworkAuth', ['migrate'], { cwd: projectDir });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('Could not reach the database at postgres://app:***@127.0.0.1:');
    expect(result.stderr).toContain('ECONNREFUSED');
    expect(result.stderr).toContain('Is PostgreSQL running');
    expect(`${result.stdout}${result.stderr}`).not.toContain('s3cret-pw');
  }, 600_000);
});
