// The database goes down in the middle of a request and comes back. For each adapter method of a first sign-in
// (find the account, find the user by email, create the user, link the account, open the session) the outage
// starts just before that call: the user gets a clear error page (never a 500, never a session), the app keeps
// serving, and once the database is back nothing half-written remains — no user without an account, no session
// without a user — and the same person can sign in. Also: reading a session during an outage, and recovery.
//
// PostgreSQL: a private cluster; the outage is real — `ALTER DATABASE … ALLOW_CONNECTIONS false` plus
// `pg_terminate_backend` on every connection of the adapter's pool (the adapter's own pool, from its URL), and back.
// SQLite: the adapter's file is locked by another connection (`BEGIN EXCLUSIVE`, as a backup or a migration in
// another process would), so its calls fail with SQLITE_BUSY; `ROLLBACK` brings it back.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import Database from 'better-sqlite3';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { Adapter } from '../../templates/runtime/index.js';
import { PostgresAdapter, migrate as migratePostgres } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter, migrate as migrateSqlite } from '../../templates/runtime/adapters/sqlite.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { createJar } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';
import { startPostgres } from '../support/postgres.js';
import type { RunningPostgres } from '../support/postgres.js';

import { pendingCallbackViaStandIn } from './support/oauth-flow.js';
import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn } from './support/oidc-stand-in.js';
import { MOUNT, SESSION_COOKIE, expectNoSession, expectPageRenders, expectRefusalRedirect, expectStillServing, sessionOf, startScaffoldApp } from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';

/** The adapter calls of a first sign-in, in order; the outage begins just before the named one. */
// Every adapter call a first OAuth sign-in makes with our adapters: the user and account are written together.
const signInSteps = ['getUserByAccount', 'getUserByEmail', 'createUserWithAccount', 'createSession'] as const;
type Step = (typeof signInSteps)[number] | 'getSessionAndUser';

interface Outage {
  down(): Promise<void>;
  up(): Promise<void>;
}

interface Rows {
  users: { id: string; email: string | null }[];
  accounts: { userId: string; providerAccountId: string }[];
  sessions: { token: string; userId: string }[];
}

interface Fixture {
  app: ScaffoldApp;
  outage: Outage;
  rows(): Promise<Rows>;
  /** The outage starts right before the next call of `step` (once). */
  arm(step: Step): void;
}

let standIn: OidcStandIn;
let postgres: RunningPostgres;
let folder: string;
let people = 0;
const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});

beforeAll(async () => {
  standIn = await startOidcStandIn();
  postgres = await startPostgres();
  folder = await mkdtemp(join(tmpdir(), 'hardening-db-faults-'));
});
afterAll(async () => {
  await standIn?.close();
  await postgres?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
  warn.mockRestore();
});

/** Wraps `adapter` so that an armed step first takes the database down. */
function withOutage(adapter: Adapter, outage: Outage): { adapter: Adapter; arm(step: Step): void } {
  let armed: Step | undefined;
  const wrapped = new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (armed === property) {
          armed = undefined;
          await outage.down();
        }
        return (value as (...params: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { adapter: wrapped, arm: (step) => void (armed = step) };
}

/** A new person at the provider: their first sign-in creates a user and links an account. */
function newPerson(): { sub: string; email: string } {
  people++;
  const person = { sub: `fault-${people}`, email: `fault-${people}@example.test` };
  standIn.behaviour = { account: { ...person, name: `Fault ${people}` } };
  return person;
}

async function signIn(app: ScaffoldApp, jar: CookieJar): Promise<Response> {
  return jar.fetch(await pendingCallbackViaStandIn(app.url, jar, 'standin'));
}

/**
 * Nothing half-written for `email`: its user (if any) has an account, and no session anywhere lacks its user.
 * Soft assertions, so that a test reports this and whether the person can sign in again, both.
 */
function expectConsistent(rows: Rows, email: string): void {
  const userIds = new Set(rows.users.map((user) => user.id));
  const withAccount = new Set(rows.accounts.map((account) => account.userId));
  expect.soft(rows.users.filter((user) => user.email === email && !withAccount.has(user.id)), `a user without an account for ${email}`).toEqual([]);
  expect.soft(rows.sessions.filter((session) => !userIds.has(session.userId)), 'sessions without a user').toEqual([]);
  expect.soft(rows.accounts.filter((account) => !userIds.has(account.userId)), 'accounts without a user').toEqual([]);
}

function faultSuite(name: string, setup: () => Promise<Fixture & { close(): Promise<void> }>): void {
  describe(`${name}: the database goes down mid-request`, () => {
    let fixture: Fixture & { close(): Promise<void> };
    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(async () => {
      await fixture?.outage.up();
      await fixture?.close();
    });

    it.each(signInSteps)('before %s: a clear error page, no session, nothing half-written, and the person can sign in once it is back', async (step) => {
      const { app, outage } = fixture;
      const person = newPerson();
      fixture.arm(step);
      const jar = createJar();
      let response: Response;
      try {
        response = await signIn(app, jar);
        expect(response.status).toBeLessThan(500);
        const location = expectRefusalRedirect(response, app.url, { page: 'error' });
        expect(response.headers.getSetCookie().filter((cookie) => /^authjs\.session-token=[^;]/.test(cookie))).toEqual([]);
        await expectPageRenders(jar, location);
        await expectStillServing(app.url);
        expect(app.log.types()).toContain('AdapterError');
      } finally {
        await outage.up();
      }
      await expectNoSession(app.url, jar);
      const afterOutage = await fixture.rows();
      expectConsistent(afterOutage, person.email);
      expect(afterOutage.sessions.filter((session) => afterOutage.users.find((user) => user.id === session.userId)?.email === person.email)).toEqual([]);

      // Back up: the same person signs in, with exactly one user, one account and one session.
      const again = createJar();
      const retry = await signIn(app, again);
      expect(retry.status).toBe(302);
      expect(retry.headers.get('location'), 'the person can sign in once the database is back').toBe(`${app.url}/me`);
      expect(await sessionOf(app.url, again)).toMatchObject({ user: { email: person.email } });
      const rows = await fixture.rows();
      expectConsistent(rows, person.email);
      const users = rows.users.filter((user) => user.email === person.email);
      expect(users).toHaveLength(1);
      expect(rows.accounts.filter((account) => account.providerAccountId === person.sub)).toHaveLength(1);
      expect(rows.sessions.filter((session) => session.userId === users[0]!.id)).toHaveLength(1);
    });

    it('treats a session as absent while the database is down (guard refuses, cookie kept), and as present once it is back', async () => {
      const { app, outage } = fixture;
      const person = newPerson();
      const jar = createJar();
      expect((await signIn(app, jar)).headers.get('location')).toBe(`${app.url}/me`);
      const token = jar.get(SESSION_COOKIE, app.url);
      await outage.down();
      try {
        const me = await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } });
        expect(me.status).toBe(401);
        expect(me.headers.getSetCookie(), 'the session cookie survives the outage').toEqual([]);
        const page = await jar.fetch(`${app.url}/me`);
        expect(page.status).toBe(302);
        const session = await jar.fetch(`${app.url}${MOUNT}/session`);
        expect(session.status).toBe(200);
        expect(await session.text()).toBe('null');
        await expectStillServing(app.url);
      } finally {
        await outage.up();
      }
      expect(jar.get(SESSION_COOKIE, app.url)).toBe(token);
      const me = await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ user: { email: person.email } });
    });

    it('a returning person whose account lookup fails mid-callback gets the error page, and signs in after recovery', async () => {
      const { app, outage } = fixture;
      newPerson();
      expect((await signIn(app, createJar())).status).toBe(302);
      const before = await fixture.rows();
      fixture.arm('getUserByAccount');
      const jar = createJar();
      try {
        const response = await signIn(app, jar);
        expectRefusalRedirect(response, app.url, { page: 'error' });
      } finally {
        await outage.up();
      }
      await expectNoSession(app.url, jar);
      const after = await fixture.rows();
      expect(after.users).toEqual(before.users);
      expect(after.sessions).toEqual(before.sessions);
      expect((await signIn(app, createJar())).headers.get('location')).toBe(`${app.url}/me`);
    });
  });
}

faultSuite('PostgreSQL', async () => {
  const admin = new Client({ connectionString: postgres.url.replace(/\/test$/, '/postgres') });
  await admin.connect();
  // The test's own reader stays connected (it only counts rows); every connection of the app's adapter is cut.
  const reader = new Client({ connectionString: postgres.url });
  await reader.connect();
  const readerPid = (await reader.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const outage: Outage = {
    async down() {
      await admin.query('ALTER DATABASE test ALLOW_CONNECTIONS false');
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'test' AND pid <> $1", [readerPid]);
    },
    async up() {
      await admin.query('ALTER DATABASE test ALLOW_CONNECTIONS true');
    },
  };
  await migratePostgres({ url: postgres.url });
  const { adapter, arm } = withOutage(PostgresAdapter({ url: postgres.url }), outage);
  const app = await startScaffoldApp({
    providers: [OIDC({ id: 'standin', issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret })],
    adapter,
  });
  return {
    app,
    outage,
    arm,
    async rows() {
      return {
        users: (await reader.query<{ id: string; email: string | null }>('SELECT id, email FROM users')).rows,
        accounts: (await reader.query<{ userId: string; providerAccountId: string }>('SELECT user_id AS "userId", provider_account_id AS "providerAccountId" FROM accounts')).rows,
        sessions: (await reader.query<{ token: string; userId: string }>('SELECT session_token AS token, user_id AS "userId" FROM sessions')).rows,
      };
    },
    async close() {
      await app.close();
      await reader.end();
      await admin.end();
    },
  };
});

faultSuite('SQLite', async () => {
  const file = join(folder, 'auth.db');
  const database = new Database(file, { timeout: 200 });
  const blocker = new Database(file, { timeout: 200 });
  let locked = false;
  const outage: Outage = {
    async down() {
      blocker.exec('BEGIN EXCLUSIVE');
      locked = true;
    },
    async up() {
      if (locked) blocker.exec('ROLLBACK');
      locked = false;
    },
  };
  migrateSqlite({ database });
  const { adapter, arm } = withOutage(SqliteAdapter({ database }), outage);
  const app = await startScaffoldApp({
    providers: [OIDC({ id: 'standin', issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret })],
    adapter,
  });
  return {
    app,
    outage,
    arm,
    async rows() {
      return {
        users: blocker.prepare('SELECT id, email FROM users').all() as Rows['users'],
        accounts: blocker.prepare('SELECT user_id AS userId, provider_account_id AS providerAccountId FROM accounts').all() as Rows['accounts'],
        sessions: blocker.prepare('SELECT session_token AS token, user_id AS userId FROM sessions').all() as Rows['sessions'],
      };
    },
    async close() {
      await app.close();
      database.close();
      blocker.close();
    },
  };
});
