/**
 * Database sessions end to end on a real PostgreSQL: the OIDC sign-in through Auth.js's published
 * `@auth/pg-adapter` (interface compatibility), and two app processes sharing one database.
 */
import AuthJsPostgresAdapter from '@auth/pg-adapter';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { createJar, formBody } from '../support/cookie-jar.js';
import { loginThroughProvider, startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { createTestPool, startPostgres, type RunningPostgres } from '../support/postgres.js';
import { AppRegistry, expectRedirect, sessionOf, signIn, signOut } from '../runtime/oauth-harness.js';
import { documentedSchema } from './authjs-pg-schema.js';
import { AppProcesses } from '../support/postgres-app-processes.js';
import { database } from '../../templates/runtime/features/database/index.js';

let op: RunningOidcProvider;
let postgres: RunningPostgres;
const apps = new AppRegistry();

beforeAll(async () => {
  [op, postgres] = await Promise.all([startOidcProvider(), startPostgres()]);
});
afterAll(async () => {
  await apps.closeAll();
  await op?.close();
  await postgres?.stop();
});

describe('OIDC sign-in with @auth/pg-adapter', () => {
  let pool: Pool;
  beforeAll(async () => {
    pool = createTestPool({ connectionString: postgres.url });
    await pool.query('CREATE SCHEMA authjs; SET search_path TO authjs');
    pool.on('connect', (client) => void client.query('SET search_path TO authjs'));
    await pool.query(documentedSchema.replace(/CREATE TABLE /g, 'CREATE TABLE authjs.'));
  });
  afterAll(() => pool?.end());

  it('creates the user, links the account, stores the session row, and deletes it on sign-out', async () => {
    const app = await apps.start({
      adapter: AuthJsPostgresAdapter(pool),
      features: [database],
      providers: [OIDC({ issuer: op.issuer, clientId: 'pg-adapter-rp', clientSecret: 'pg-adapter-rp-secret' })],
    });
    await op.setClient({ client_id: 'pg-adapter-rp', redirect_uris: [app.redirectUri()] });
    const jar = createJar();
    const { callbackResponse } = await signIn(app, jar);
    expectRedirect(callbackResponse, { pathname: '/me' });

    const { rows: users } = await pool.query<{ id: number; email: string }>('SELECT id, email FROM authjs.users');
    expect(users).toEqual([{ id: expect.any(Number), email: 'alice@example.test' }]);
    const { rows: accounts } = await pool.query('SELECT "userId", provider, "providerAccountId", token_type FROM authjs.accounts');
    expect(accounts).toEqual([{ userId: users[0]!.id, provider: 'oidc', providerAccountId: 'alice-sub', token_type: 'bearer' }]);
    const token = jar.get('authjs.session-token', app.url)!;
    const { rows: sessions } = await pool.query('SELECT "userId" FROM authjs.sessions WHERE "sessionToken" = $1', [token]);
    expect(sessions).toEqual([{ userId: users[0]!.id }]);
    // The adapter's SERIAL id reaches the app as a string.
    expect(await sessionOf(app, jar)).toMatchObject({ user: { id: String(users[0]!.id), email: 'alice@example.test' } });

    await signOut(app, jar);
    const { rowCount } = await pool.query('SELECT 1 FROM authjs.sessions WHERE "sessionToken" = $1', [token]);
    expect(rowCount).toBe(0);
    expect(await sessionOf(app, jar)).toBeNull();
  });
});

describe('two app processes sharing one PostgreSQL', () => {
  let processes: AppProcesses;
  beforeAll(() => {
    processes = new AppProcesses({ databaseUrl: postgres.url, issuer: op.issuer, clientId: 'shared-rp', clientSecret: 'shared-rp-secret' });
  });
  afterAll(() => processes.stopAll());
  const startProcess = () => processes.start();

  it('sees a session made by one process in the other, and a sign-out in one ends it in both', async () => {
    const [first, second] = await Promise.all([startProcess(), startProcess()]);
    await op.setClient({ client_id: 'shared-rp', redirect_uris: [`${first}/auth/callback/oidc`, `${second}/auth/callback/oidc`] });
    const jar = createJar();
    const { csrfToken } = (await (await jar.fetch(`${first}/auth/csrf`)).json()) as { csrfToken: string };
    const started = await jar.fetch(`${first}/auth/signin/oidc`, { method: 'POST', ...formBody({ csrfToken, callbackUrl: '/me' }) });
    const callback = await loginThroughProvider(jar, started.headers.get('location')!);
    expect((await jar.fetch(callback)).status).toBe(302);

    const token = jar.get('authjs.session-token', first)!;
    jar.set(second, `authjs.session-token=${token}; Path=/`);
    const fromFirst = (await (await jar.fetch(`${first}/me`)).json()) as { session: { user: { email: string } }; pid: number };
    const fromSecond = (await (await jar.fetch(`${second}/me`)).json()) as { session: { user: { email: string } }; pid: number };
    expect(fromFirst.pid).not.toBe(fromSecond.pid);
    expect(fromSecond.session.user).toEqual(fromFirst.session.user);
    expect(fromSecond.session.user.email).toBe('alice@example.test');

    const csrf = (await (await jar.fetch(`${second}/auth/csrf`)).json()) as { csrfToken: string };
    await jar.fetch(`${second}/auth/signout`, { method: 'POST', ...formBody({ csrfToken: csrf.csrfToken }) });
    jar.set(first, `authjs.session-token=${token}; Path=/`);
    expect(((await (await jar.fetch(`${first}/me`)).json()) as { session: unknown }).session).toBeNull();
  }, 60_000);
});
