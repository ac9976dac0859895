// Issue 47, item 6: a feature written with the seams alone. The suspensions feature of test/support/sample-feature/
// (its own table with a reference to users, a composite unique constraint and an index; a column on users; a session
// field; a sign-in refusal with its own error; an afterSignIn; an account part; a security event type with its label)
// in an Express app with the real SQLite adapter (a temporary file), PostgreSQL and in memory, signing in with a password. And
// the folder imports nothing of the runtime but the core and the database feature's public types and helpers.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import express, { urlencoded } from 'express';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { PostgresAdapter, migrate as migratePostgres } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter, migrate as migrateSqlite } from '../../templates/runtime/adapters/sqlite.js';
import type { AppliedStep } from '../../templates/runtime/adapters/sql-tables.js';
import { Account } from '../../templates/runtime/features/account/index.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import { FrameworkAuth, featuresOf, getSession } from '../../templates/runtime/index.js';
import type { Adapter, FrameworkAuthConfig, Session } from '../../templates/runtime/index.js';
import Password from '../../templates/runtime/providers/password.js';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { createTestPool, startPostgres, type RunningPostgres } from '../support/postgres.js';
import { DELETE_REFUSAL, SUSPENDED_MESSAGE, Suspensions, liftSuspension, suspendUser } from '../support/sample-feature/index.js';
import { SECRET, recordingLogger } from '../runtime/helpers.js';

const PASSWORD = 'violet staple orbit lantern';

/** The migration steps the sample brings: its table, its unique index and index, its column on users. */
const sampleSteps = ['table:suspensions', 'index:suspensions_user_id_started_at_unique', 'index:suspensions_user_id_lifted_at_index', 'column:users.suspended_at'];

/** One database under test: how to migrate it, its adapter, and a query on it. */
interface Store {
  migrate(features: Parameters<typeof featuresOf>[0]['features'], onStep: (step: AppliedStep) => void): Promise<void>;
  adapter(): Adapter;
  query<Row>(sql: string, parameters?: readonly unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

function sqliteStore(): Store {
  const folder = mkdtempSync(join(tmpdir(), 'framework-auth-sample-'));
  const url = `file:${join(folder, 'auth.db')}`;
  const reader = (): Database.Database => new Database(join(folder, 'auth.db'));
  return {
    migrate: async (features, onStep) => void migrateSqlite({ url, features: featuresOf({ features }), onStep }),
    adapter: () => SqliteAdapter({ url }),
    async query<Row>(sql: string, parameters: readonly unknown[] = []) {
      const database = reader();
      database.pragma('foreign_keys = ON');
      try {
        const statement = database.prepare(sql.replace(/\$\d+/g, '?'));
        if (!statement.reader) return (statement.run(...parameters), []);
        return statement.all(...parameters) as Row[];
      } finally {
        database.close();
      }
    },
    close: async () => rmSync(folder, { recursive: true, force: true }),
  };
}

async function postgresStore(): Promise<Store> {
  const postgres: RunningPostgres = await startPostgres();
  const pool: Pool = createTestPool({ connectionString: postgres.url });
  return {
    migrate: async (features, onStep) => void (await migratePostgres({ pool, features: featuresOf({ features }), onStep })),
    adapter: () => PostgresAdapter({ pool }),
    query: async <Row>(sql: string, parameters: readonly unknown[] = []) => (await pool.query(sql, [...parameters])).rows as Row[],
    async close() {
      await pool.end();
      vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      await postgres.stop();
      vi.restoreAllMocks();
    },
  };
}

describe.each([
  ['SQLite', async () => sqliteStore()],
  ['PostgreSQL', postgresStore],
] as const)('the suspensions sample feature with %s', (_name, open) => {
  let store: Store;
  let config: FrameworkAuthConfig;
  let app: RunningApp;
  let users = 0;
  const firstRun: AppliedStep[] = [];
  const secondRun: AppliedStep[] = [];

  beforeAll(async () => {
    store = await open();
    const features = [Account({ sendMessage: () => {} }), Suspensions];
    const providers = [Password({ sendMessage: () => {} })];
    await store.migrate([...features, ...providers.flatMap((provider) => featuresOf({ providers: [provider] }))], (step) => firstRun.push(step));
    await store.migrate([...features, ...providers.flatMap((provider) => featuresOf({ providers: [provider] }))], (step) => secondRun.push(step));
    config = { secret: SECRET, trustHost: ['127.0.0.1'], adapter: store.adapter(), providers, features, rateLimit: false, logger: recordingLogger().logger };
    const server = express();
    server.use(urlencoded({ extended: true }));
    server.get('/whoami', async (req, res) => void res.json(await getSession(req, config)));
    server.use('/auth/*splat', FrameworkAuth(config));
    app = await listen(server);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await store?.close();
  });

  /** A user with a password, and the jar of a browser that has not signed in yet. */
  async function newUser(): Promise<{ id: string; email: string; jar: CookieJar }> {
    users += 1;
    const email = `sample-${users}@example.test`;
    const user = await config.adapter!.createUser!({ id: crypto.randomUUID(), email, emailVerified: new Date() });
    await config.adapter!.setPasswordHash!(user.id, await hashPassword(PASSWORD));
    return { id: user.id, email, jar: createJar() };
  }

  async function csrf(jar: CookieJar): Promise<string> {
    return ((await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
  }

  async function signIn(jar: CookieJar, email: string): Promise<Response> {
    return jar.fetch(`${app.url}/auth/callback/password`, { method: 'POST', ...formBody({ csrfToken: await csrf(jar), email, password: PASSWORD }) });
  }

  async function post(jar: CookieJar, path: string, fields: Record<string, string>, json = false): Promise<Response> {
    const form = formBody({ csrfToken: await csrf(jar), ...fields });
    return jar.fetch(`${app.url}/auth/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: json ? 'application/json' : 'text/html' } });
  }

  const whoami = async (jar: CookieJar): Promise<Session | null> => (await (await jar.fetch(`${app.url}/whoami`)).json()) as Session | null;

  it('migrate creates its table, its indexes and its column, the ledger lists its steps, and a second run applies nothing', async () => {
    expect(firstRun.map((step) => step.id)).toEqual(expect.arrayContaining(sampleSteps));
    const ledger = await store.query<{ id: string }>('SELECT id FROM auth_migrations');
    expect(ledger.map((row) => row.id)).toEqual(expect.arrayContaining(sampleSteps));
    expect(secondRun).toEqual([]);
    expect(await store.query('SELECT id, user_id, reason, started_at, lifted_at, seen_at FROM suspensions')).toEqual([]);
    expect(await store.query('SELECT suspended_at FROM users')).toEqual([]);
  });

  it('signs a user in, whose session shows no suspension', async () => {
    const { id, email, jar } = await newUser();
    const response = await signIn(jar, email);
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get('location')!, app.url).searchParams.get('error')).toBeNull();
    expect(await whoami(jar)).toMatchObject({ user: { id }, suspension: null });
  });

  it('refuses a suspended user: no session, and the sign-in page shows its error', async () => {
    const { id, email, jar } = await newUser();
    await suspendUser(config, id, 'Spam');
    const response = await signIn(jar, email);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!, app.url);
    expect(location.pathname).toBe('/auth/signin');
    expect(location.searchParams.get('error')).toBe('AccountSuspended');
    expect(response.headers.getSetCookie().filter((cookie) => /^authjs\.session-token=[^;]/.test(cookie))).toEqual([]);
    expect(await (await jar.fetch(location.href)).text()).toContain(SUSPENDED_MESSAGE);
    expect(await whoami(jar)).toBeNull();
  });

  it('shows a signed-in user’s suspension in the session, the account section and the export, and refuses the deletion', async () => {
    const { id, email, jar } = await newUser();
    expect((await signIn(jar, email)).status).toBe(302);
    await suspendUser(config, id, 'Chargeback <review>');
    // Read per request: the session open before the suspension shows it.
    expect(await whoami(jar)).toMatchObject({ user: { id }, suspension: { reason: 'Chargeback <review>', since: expect.any(String) } });
    const page = await (await jar.fetch(`${app.url}/auth/account`)).text();
    expect(page).toContain('<h2>Suspensions</h2>');
    expect(page).toMatch(/<li>\d{4}-\d\d-\d\d: Chargeback &lt;review&gt; \(open\)<\/li>/);
    const exported = (await (await jar.fetch(`${app.url}/auth/account/export`)).json()) as Record<string, unknown>;
    expect(exported).toMatchObject({ user: { id }, suspensions: [{ reason: 'Chargeback <review>', liftedAt: null }] });
    const refused = await post(jar, 'account/delete', { confirm: 'yes' }, true);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'InvalidRequest', errors: { confirm: DELETE_REFUSAL } });
    const browser = await post(jar, 'account/delete', { email });
    expect(browser.status).toBe(400);
    expect(await browser.text()).toContain(DELETE_REFUSAL);
    expect(await config.adapter!.getUser!(id)).not.toBeNull();
  });

  it('records its event after the first sign-in since a lift, labelled on the account page; deleting the user deletes its rows', async () => {
    const { id, email, jar } = await newUser();
    await suspendUser(config, id, 'Spam');
    expect(await liftSuspension(config, id)).toBe(true);
    expect((await signIn(jar, email)).status).toBe(302);
    expect(await whoami(jar)).toMatchObject({ user: { id }, suspension: null });
    const events = await store.query<{ type: string }>('SELECT type FROM security_events WHERE user_id = $1 ORDER BY at', [id]);
    expect(events.map((event) => event.type)).toEqual(['sign-in', 'suspension-lifted']);
    const page = await (await jar.fetch(`${app.url}/auth/account`)).text();
    expect(page).toContain('<strong>Suspension lifted</strong>');
    expect(page).toMatch(/<li>\d{4}-\d\d-\d\d: Spam \(lifted \d{4}-\d\d-\d\d\)<\/li>/);
    // Told once: a second sign-in records no second event.
    expect((await signIn(createJar(), email)).status).toBe(302);
    expect(await store.query('SELECT type FROM security_events WHERE user_id = $1 AND type = $2', [id, 'suspension-lifted'])).toHaveLength(1);

    expect(await store.query('SELECT id FROM suspensions WHERE user_id = $1', [id])).toHaveLength(1);
    const deleted = await post(jar, 'account/delete', { confirm: 'yes' }, true);
    expect(deleted.status).toBe(200);
    expect(await config.adapter!.getUser!(id)).toBeNull();
    expect(await store.query('SELECT id FROM suspensions WHERE user_id = $1', [id])).toEqual([]);
  });
});

describe.each([
  ['SQLite', async () => sqliteStore()],
  ['PostgreSQL', postgresStore],
] as const)('the suspensions table with %s', (_name, open) => {
  let store: Store;
  beforeAll(async () => {
    store = await open();
    await store.migrate([Suspensions], () => {});
  }, 60_000);
  afterAll(() => store?.close());

  it('refuses a second suspension of a user started at the same instant, and goes with its user (the reference cascades)', async () => {
    const adapter = store.adapter();
    await adapter.createUser!({ id: 'user-1', email: 'one@example.test', emailVerified: null });
    await adapter.createUser!({ id: 'user-2', email: 'two@example.test', emailVerified: null });
    const insert = 'INSERT INTO suspensions (id, user_id, reason, started_at) VALUES ($1, $2, $3, $4)';
    const at = 1_700_000_000_000;
    const date = (ms: number) => (_name === 'SQLite' ? ms : new Date(ms));
    await store.query(insert, ['s1', 'user-1', 'Spam', date(at)]);
    await store.query(insert, ['s2', 'user-2', 'Spam', date(at)]);
    await store.query(insert, ['s3', 'user-1', 'Spam', date(at + 1)]);
    await expect(store.query(insert, ['s4', 'user-1', 'Again', date(at)])).rejects.toThrow(/unique/i);
    await store.query('DELETE FROM users WHERE id = $1', ['user-1']);
    expect(await store.query('SELECT id FROM suspensions ORDER BY id')).toEqual([{ id: 's2' }]);
  });
});

describe('the suspensions sample feature with the memory adapter', () => {
  it('refuses a suspended user, shows the session field, and forgets the rows of a deleted user', async () => {
    const adapter = MemoryAdapter();
    const config: FrameworkAuthConfig = { secret: SECRET, trustHost: ['127.0.0.1'], adapter, providers: [Password({ sendMessage: () => {} })], features: [Suspensions], rateLimit: false, logger: recordingLogger().logger };
    const server = express();
    server.use(urlencoded({ extended: true }));
    server.get('/whoami', async (req, res) => void res.json(await getSession(req, config)));
    server.use('/auth/*splat', FrameworkAuth(config));
    const running = await listen(server);
    try {
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: 'memory@example.test', emailVerified: new Date() });
      await adapter.setPasswordHash!(user.id, await hashPassword(PASSWORD));
      const signIn = async (jar: CookieJar): Promise<Response> => {
        const { csrfToken } = (await (await jar.fetch(`${running.url}/auth/csrf`)).json()) as { csrfToken: string };
        return jar.fetch(`${running.url}/auth/callback/password`, { method: 'POST', ...formBody({ csrfToken, email: user.email, password: PASSWORD }) });
      };
      const jar = createJar();
      expect((await signIn(jar)).status).toBe(302);
      await suspendUser(config, user.id, 'Spam');
      expect(await (await jar.fetch(`${running.url}/whoami`)).json()).toMatchObject({ user: { id: user.id }, suspension: { reason: 'Spam' } });
      const refused = await signIn(createJar());
      expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('AccountSuspended');
      const methods = adapter as Adapter & { listSuspensions(userId: string): Promise<unknown[]> };
      expect(await methods.listSuspensions(user.id)).toHaveLength(1);
      await adapter.deleteUser!(user.id);
      expect(await methods.listSuspensions(user.id)).toEqual([]);
    } finally {
      await running.close();
    }
  });
});

describe('the sample feature’s folder', () => {
  const folder = fileURLToPath(new URL('../support/sample-feature/', import.meta.url));
  const runtime = fileURLToPath(new URL('../../templates/runtime/', import.meta.url));
  const sources = readdirSync(folder)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => [name, readFileSync(join(folder, name), 'utf8')] as const);
  /** The database feature's files a feature may use: its public types and helpers. */
  const databasePublic = ['features/database/adapter.ts', 'features/database/account-parts.ts'];

  it.each(sources)('%s imports only its folder, the core and the database feature’s public types and helpers', (_name, source) => {
    const specifiers = [...source.matchAll(/(?:from|import)\s*'([^']+)'/g)].map((match) => match[1]!);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const specifier of specifiers) {
      expect(specifier, specifier).toMatch(/^\.{1,2}\//);
      const target = resolve(folder, specifier).replace(/\.js$/, '.ts');
      if (dirname(target) === dirname(join(folder, 'x'))) continue;
      const inRuntime = relative(runtime, target);
      expect(inRuntime.startsWith('..'), `${specifier} is outside templates/runtime`).toBe(false);
      if (inRuntime.startsWith('features/')) expect(databasePublic, specifier).toContain(inRuntime);
      expect(inRuntime, specifier).not.toMatch(/^(adapters|providers)\//);
    }
  });

  it('declares what a feature declares: its error type, its security event type, its session field', () => {
    const all = sources.map(([, source]) => source).join('\n');
    expect(all).toMatch(/interface FeatureErrorTypes \{\s+AccountSuspended: true;/);
    expect(all).toMatch(/interface SecurityEventTypes \{\s+'suspension-lifted': true;/);
    expect(all).toMatch(/interface Session \{[^}]*suspension\?:/);
  });
});
