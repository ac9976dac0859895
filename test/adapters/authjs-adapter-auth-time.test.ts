/**
 * Issue 46, security review 5's A2: with an Auth.js adapter (session rows without `createdAt`), a renewal counted as
 * a fresh sign-in, so a stolen cookie linked the thief's OpenID account after one `GET <mount>/session`, and
 * `requireRecentAuth()` never passed. The authentication time now travels in the database session's token
 * (session/session-clock.ts), which every adapter keeps; an unknown time is never recent. Over HTTP against
 * `@auth/pg-adapter` on its documented schema, a real PostgreSQL server and the loopback OpenID provider.
 */
import AuthJsPostgresAdapter from '@auth/pg-adapter';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar, type CookieJar } from '../support/cookie-jar.js';
import { DEFAULT_ACCOUNTS, startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { createTestPool, startPostgres, type RunningPostgres } from '../support/postgres.js';
import type { Adapter } from '../../templates/runtime/features/database/adapter.js';
import { database } from '../../templates/runtime/features/database/index.js';
import { createRequireRecentAuth } from '../../templates/runtime/features/database/recent-auth.js';
import { databaseClock } from '../../templates/runtime/features/database/session-token.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { AppRegistry, expectRedirect, sessionOf, signIn, type AuthApp } from '../runtime/oauth-harness.js';
import { documentedSchema } from './authjs-pg-schema.js';

const ACCOUNTS = {
  ...DEFAULT_ACCOUNTS,
  carol: { sub: 'carol-sub', name: 'Carol Example', email: 'carol@idp.example.test', email_verified: true },
};

let server: RunningPostgres;
let pool: Pool;
let op: RunningOidcProvider;
const apps = new AppRegistry();
let clientCount = 0;

beforeAll(async () => {
  [server, op] = await Promise.all([startPostgres(), startOidcProvider({ accounts: ACCOUNTS })]);
  pool = createTestPool({ connectionString: server.url });
  await pool.query(documentedSchema);
}, 60_000);

afterAll(async () => {
  await apps.closeAll();
  await op?.close();
  await pool?.end();
  await server?.stop();
});

/** An app on @auth/pg-adapter (database sessions) with the OIDC provider, and `POST /billing` behind requireRecentAuth(). */
async function startApp(session: { reauthMaxAge?: number; updateAge?: number } = {}): Promise<{ app: AuthApp; adapter: Adapter }> {
  await pool.query('TRUNCATE verification_token, accounts, sessions, users');
  const adapter: Adapter = AuthJsPostgresAdapter(pool);
  const clientId = `auth-time-rp-${++clientCount}`;
  const app = await apps.start(
    { trustHost: ['127.0.0.1'], adapter, features: [database], session, providers: [OIDC({ issuer: op.issuer, clientId, clientSecret: `${clientId}-secret` })] },
    { routes: (express, config) => express.post('/billing', createRequireRecentAuth(config), (_req, res) => void res.json({ paid: true })) },
  );
  await op.setClient({ client_id: clientId, redirect_uris: [app.redirectUri()] });
  return { app, adapter };
}

function billing(app: AuthApp, jar: CookieJar): Promise<Response> {
  return app.fetch(jar, '/billing', { method: 'POST', headers: { accept: 'application/json' } });
}

function sessionTokenOf(jar: CookieJar): string {
  const token = jar.get('authjs.session-token');
  expect(token).toBeTruthy();
  return token!;
}

async function linkedUserOf(providerAccountId: string): Promise<string | null> {
  const { rows } = await pool.query<{ userId: number }>('SELECT "userId" FROM accounts WHERE provider = $1 AND "providerAccountId" = $2', ['oidc', providerAccountId]);
  return rows[0] ? String(rows[0].userId) : null;
}

describe('A2: the authentication time with an Auth.js adapter', () => {
  it('passes requireRecentAuth() right after a sign-in', async () => {
    const { app } = await startApp();
    const jar = createJar();
    expectRedirect((await signIn(app, jar)).callbackResponse, { origin: app.publicOrigin, pathname: '/me' });
    const answer = await billing(app, jar);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ paid: true });
  });

  it('stores the sign-in time in the session token the adapter keeps, not in a column it lacks', async () => {
    const { app } = await startApp();
    const jar = createJar();
    const before = Math.floor(Date.now() / 1000);
    await signIn(app, jar);
    const token = sessionTokenOf(jar);
    const { rows } = await pool.query<{ sessionToken: string }>('SELECT "sessionToken" FROM sessions');
    expect(rows.map((row) => row.sessionToken)).toEqual([token]);
    const { authTime } = databaseClock(token, {}, 3600);
    expect(authTime).toBeGreaterThanOrEqual(before);
    expect(authTime).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
  });

  it('refuses to link a thief\'s OpenID account to a stale session that one GET <mount>/session renewed', async () => {
    const { app } = await startApp({ reauthMaxAge: 2, updateAge: 0 });
    const victim = createJar();
    await signIn(app, victim);
    const victimId = (await sessionOf(app, victim))?.user?.id;
    expect(victimId).toBeTruthy();
    await new Promise((resolve) => setTimeout(resolve, 3500));
    const thief = createJar();
    thief.set(app.url, `authjs.session-token=${sessionTokenOf(victim)}; Path=/`);
    const expiresBefore = (await pool.query<{ expires: Date }>('SELECT expires FROM sessions')).rows[0]!.expires;
    expect((await sessionOf(app, thief))?.user?.id).toBe(victimId);
    // The read renewed the row (updateAge 0): with the time taken from the row, this made the session "recent".
    expect((await pool.query<{ expires: Date }>('SELECT expires FROM sessions')).rows[0]!.expires.valueOf()).toBeGreaterThan(expiresBefore.valueOf());
    const { callbackResponse } = await signIn(app, thief, { login: { login: 'carol' } });
    expectRedirect(callbackResponse, { pathname: `${app.mount}/signin`, error: 'ReauthenticationRequired' });
    expect(await linkedUserOf('carol-sub')).toBeNull();
  }, 20_000);

  it('refuses requireRecentAuth() for a stale session that a renewal made look new', async () => {
    const { app } = await startApp({ reauthMaxAge: 2, updateAge: 0 });
    const jar = createJar();
    await signIn(app, jar);
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(await sessionOf(app, jar)).not.toBeNull();
    const answer = await billing(app, jar);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ error: 'reauthentication_required' });
  }, 20_000);

  it('counts a row stored before tokens carried the time as signed in but never recent, until the user signs in again', async () => {
    const { app, adapter } = await startApp();
    const jar = createJar();
    await signIn(app, jar);
    const userId = (await sessionOf(app, jar))!.user!.id!;
    // A session as Auth.js (or this runtime before) stored it: a bare token, no createdAt anywhere.
    await adapter.createSession!({ sessionToken: 'a-session-from-before', userId, expires: new Date(Date.now() + 86_400_000) });
    const old = createJar();
    old.set(app.url, 'authjs.session-token=a-session-from-before; Path=/');
    expect((await sessionOf(app, old))?.user?.id).toBe(userId);
    expect((await billing(app, old)).status).toBe(401);
    // Re-authenticating opens a session whose token carries the time: no loop back to <mount>/reauth.
    await signIn(app, old);
    expect(databaseClock(sessionTokenOf(old), {}, 3600).authTime).toBeDefined();
    expect((await billing(app, old)).status).toBe(200);
  }, 20_000);
});
