import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { createJar } from '../support/cookie-jar.js';
import { startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { AppRegistry, expectRedirect, loggedTypes, sessionOf, signIn, signOut, type AuthApp } from './oauth-harness.js';

let op: RunningOidcProvider;
const apps = new AppRegistry();
let clients = 0;

beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(async () => {
  await apps.closeAll();
  await op?.close();
});

/** An app with two OIDC providers on the same test IdP (so the same person, same email): `oidc` and `corp`. */
async function startApp(config: Omit<FrameworkAuthConfig, 'providers'> & { linking?: boolean }): Promise<AuthApp> {
  const ids = [`db-${++clients}`, `db-${++clients}`] as const;
  const { linking, ...rest } = config;
  const app = await apps.start({
    ...rest,
    providers: [
      OIDC({ issuer: op.issuer, clientId: ids[0], clientSecret: `${ids[0]}-secret` }),
      OIDC({ id: 'corp', name: 'Corp', issuer: op.issuer, clientId: ids[1], clientSecret: `${ids[1]}-secret`, allowDangerousEmailAccountLinking: linking ?? false }),
    ],
  });
  await op.setClient({ client_id: ids[0], redirect_uris: [app.redirectUri('oidc')] });
  await op.setClient({ client_id: ids[1], redirect_uris: [app.redirectUri('corp')] });
  return app;
}

async function sessionRows(adapter: Adapter, token: string) {
  return adapter.getSessionAndUser!(token);
}

describe('database sessions', () => {
  it('defaults to the database strategy with an adapter: the cookie holds a session token whose row holds the user', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const jar = createJar();
    const { callbackResponse } = await signIn(app, jar);
    expectRedirect(callbackResponse, { pathname: '/me' });
    const token = jar.get('authjs.session-token', app.url)!;
    expect(token.split('.')).not.toHaveLength(5);
    const row = await sessionRows(adapter, token);
    expect(row?.user).toMatchObject({ email: 'alice@example.test', name: 'Alice Example' });
    expect(await sessionOf(app, jar)).toMatchObject({ user: { id: row!.user.id, email: 'alice@example.test' } });
    const account = await adapter.getAccount!('alice-sub', 'oidc');
    expect(account).toMatchObject({ userId: row!.user.id, provider: 'oidc', type: 'oidc', token_type: 'bearer' });
    expect(typeof account!.expires_at).toBe('number');
  });

  it('deletes the row on sign-out', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const jar = createJar();
    await signIn(app, jar);
    const token = jar.get('authjs.session-token', app.url)!;
    await signOut(app, jar);
    expect(await sessionRows(adapter, token)).toBeNull();
    expect(await sessionOf(app, jar)).toBeNull();
  });

  it('signs the user out everywhere when the row is deleted', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const jar = createJar();
    await signIn(app, jar);
    const token = jar.get('authjs.session-token', app.url)!;
    await adapter.deleteSession!(token);
    const response = await app.fetch(jar, '/auth/session');
    expect(await response.text()).toBe('null');
    expect(response.headers.getSetCookie()[0]).toMatch(/^authjs\.session-token=; .*Max-Age=0/);
  });

  it('answers null for an expired row and removes it', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const jar = createJar();
    await signIn(app, jar);
    const token = jar.get('authjs.session-token', app.url)!;
    await adapter.updateSession!({ sessionToken: token, expires: new Date(Date.now() - 1000) });
    expect(await sessionOf(app, jar)).toBeNull();
    expect(await sessionRows(adapter, token)).toBeNull();
  });

  it('extends the row once updateAge has passed', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter, session: { maxAge: 3600, updateAge: 60 } });
    const jar = createJar();
    await signIn(app, jar);
    const token = jar.get('authjs.session-token', app.url)!;
    const aged = new Date(Date.now() + 3600_000 - 120_000);
    await adapter.updateSession!({ sessionToken: token, expires: aged });
    const response = await app.fetch(jar, '/auth/session');
    expect(response.headers.getSetCookie()[0]).toMatch(new RegExp(`^authjs\\.session-token=${token}; `));
    const row = await sessionRows(adapter, token);
    expect(row!.session.expires.valueOf()).toBeGreaterThan(aged.valueOf() + 60_000);
  });

  it('shares sessions between two app instances on one database', async () => {
    const adapter = MemoryAdapter();
    const first = await startApp({ adapter });
    const second = await startApp({ adapter });
    const jar = createJar();
    await signIn(first, jar);
    const token = jar.get('authjs.session-token', first.url)!;
    jar.set(second.url, `authjs.session-token=${token}; Path=/`);
    expect(await sessionOf(second, jar)).toMatchObject({ user: { email: 'alice@example.test' } });
  });

  it('keeps serving when the database is down: no session for the request, a clear error page for sign-in, never a 500', async () => {
    const adapter = MemoryAdapter();
    const failing: Adapter = new Proxy(adapter, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' && down ? () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) : value;
      },
    });
    let down = false;
    const app = await startApp({ adapter: failing });
    const jar = createJar();
    await signIn(app, jar);
    down = true;
    const session = await app.fetch(jar, '/auth/session');
    expect(session.status).toBe(200);
    expect(await session.text()).toBe('null');
    expect(session.headers.getSetCookie()).toEqual([]);
    const again = await signIn(app, createJar());
    const location = expectRedirect(again.callbackResponse, { pathname: '/auth/error', error: 'Configuration' });
    expect(loggedTypes(app)).toContain('AdapterError');
    expect((await fetch(location)).status).toBe(400);
    down = false;
    expect(await sessionOf(app, jar)).toMatchObject({ user: { email: 'alice@example.test' } });
  });
});

describe('users and accounts', () => {
  it('creates the user once, fires createUser and linkAccount, and sends a new user to pages.newUser', async () => {
    const adapter = MemoryAdapter();
    const events: string[] = [];
    const app = await startApp({
      adapter,
      pages: { newUser: '/welcome' },
      events: {
        createUser: () => void events.push('createUser'),
        linkAccount: () => void events.push('linkAccount'),
        signIn: ({ isNewUser }) => void events.push(`signIn:${String(isNewUser)}`),
      },
    });
    const first = await signIn(app, createJar());
    expect(first.callbackResponse.headers.get('location')).toBe(`${app.url}/welcome?callbackUrl=${encodeURIComponent(`${app.url}/me`)}`);
    const second = await signIn(app, createJar());
    expect(second.callbackResponse.headers.get('location')).toBe(`${app.url}/me`);
    expect(events).toEqual(['createUser', 'linkAccount', 'signIn:true', 'signIn:false']);
  });

  it('refuses a second provider with the same email by default (OAuthAccountNotLinked)', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    await signIn(app, createJar());
    const other = await signIn(app, createJar(), { providerId: 'corp' });
    expectRedirect(other.callbackResponse, { pathname: '/auth/signin', error: 'OAuthAccountNotLinked' });
    expect(await adapter.getAccount!('alice-sub', 'corp')).toBeNull();
  });

  it('links the second provider to the same user when allowDangerousEmailAccountLinking is set', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter, linking: true });
    await signIn(app, createJar());
    const jar = createJar();
    const other = await signIn(app, jar, { providerId: 'corp' });
    expectRedirect(other.callbackResponse, { pathname: '/me' });
    const first = await adapter.getAccount!('alice-sub', 'oidc');
    const second = await adapter.getAccount!('alice-sub', 'corp');
    expect(second!.userId).toBe(first!.userId);
    expect(await sessionOf(app, jar)).toMatchObject({ user: { id: first!.userId } });
  });

  it('links a new provider to the signed-in user', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const jar = createJar();
    await signIn(app, jar);
    const linked = await signIn(app, jar, { providerId: 'corp' });
    expectRedirect(linked.callbackResponse, { pathname: '/me' });
    const first = await adapter.getAccount!('alice-sub', 'oidc');
    expect((await adapter.getAccount!('alice-sub', 'corp'))!.userId).toBe(first!.userId);
  });

  it('deletes a new user again when linking the account fails, on adapters without createUserWithAccount', async () => {
    const store = MemoryAdapter();
    let failLink = true;
    const { createUserWithAccount: _atomic, ...methods } = store;
    const authjsLike: Adapter = {
      ...methods,
      linkAccount: (account) => {
        if (failLink) throw new Error('connection reset');
        return store.linkAccount!(account);
      },
    };
    const app = await startApp({ adapter: authjsLike });
    const failed = await signIn(app, createJar());
    expectRedirect(failed.callbackResponse, { pathname: '/auth/error', error: 'Configuration' });
    expect(await store.getUserByEmail!('alice@example.test')).toBeNull();
    failLink = false;
    const retry = await signIn(app, createJar());
    expectRedirect(retry.callbackResponse, { pathname: '/me' });
    expect(await store.getUserByEmail!('alice@example.test')).toMatchObject({ email: 'alice@example.test' });
  });

  it('keeps JWT sessions when asked, with the database user id as the token subject', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter, session: { strategy: 'jwt' } });
    const jar = createJar();
    await signIn(app, jar);
    expect(jar.get('authjs.session-token', app.url)!.split('.')).toHaveLength(5);
    const account = await adapter.getAccount!('alice-sub', 'oidc');
    expect(await sessionOf(app, jar)).toMatchObject({ user: { id: account!.userId, email: 'alice@example.test' } });
  });
});
