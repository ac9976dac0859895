// getAccessToken (issue 17): a real oidc-provider on 127.0.0.1 issues access tokens that live 2 seconds (so every
// token is within the 60-second skew and due for a refresh; see refreshingConfiguration) and rotates refresh tokens; an Express app on 127.0.0.1
// signs in through it and calls getAccessToken in its own routes. Refreshes are counted at the token endpoint through
// the provider's customFetch, and each access token is tried at the provider's userinfo endpoint.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import type { Express, Request, Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { RefreshTokenError, customFetch, decode, getAccessToken } from '../../templates/runtime/index.js';
import type { Adapter, FrameworkAuthConfig, JWT } from '../../templates/runtime/index.js';
import type { AdapterAccount } from '../../templates/runtime/features/database/adapter.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { createJar } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';
import { DEFAULT_ACCOUNTS, refreshingConfiguration, startOidcProvider } from '../support/oidc-provider.js';
import type { RunningOidcProvider } from '../support/oidc-provider.js';

import { SECRET } from './helpers.js';
import { AppRegistry, expectRedirect, getSessionThroughApp, sessionCookiesSet, sessionOf, signIn } from './oauth-harness.js';
import type { AuthApp } from './oauth-harness.js';

const alice = DEFAULT_ACCOUNTS.alice!;
const sessionCookie = 'authjs.session-token';

let op: RunningOidcProvider;
let folder: string;
const apps = new AppRegistry();
let clients = 0;
/** What `/late` (getAccessToken after the response was sent) came to. */
const lateOutcomes: string[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'framework-auth-access-token-'));
  op = await startOidcProvider({ configuration: refreshingConfiguration() });
});
afterAll(async () => {
  await apps.closeAll();
  await op?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** One refresh token request the app sent, and what the provider answered. */
interface RefreshCall {
  refreshToken: string | null;
  status: number;
  body: Record<string, unknown> | null;
}

/** A customFetch that records the refresh token requests; `failNext` makes the next one fail as a network error. */
function tokenEndpointSpy() {
  const refreshes: RefreshCall[] = [];
  const control = { failNext: false };
  const spy = async (input: string | URL | globalThis.Request, init?: RequestInit): Promise<globalThis.Response> => {
    const body = init?.body;
    const params = body instanceof URLSearchParams ? body : new URLSearchParams(typeof body === 'string' ? body : '');
    const isRefresh = params.get('grant_type') === 'refresh_token';
    if (isRefresh && control.failNext) {
      control.failNext = false;
      throw new TypeError('fetch failed');
    }
    const response = await fetch(input, init);
    if (isRefresh) {
      const json = (await response.clone().json().catch(() => null)) as Record<string, unknown> | null;
      refreshes.push({ refreshToken: params.get('refresh_token'), status: response.status, body: json });
    }
    return response;
  };
  return { refreshes, control, fetch: spy };
}

/** What `GET /token/:provider` answers: the token, or the error's type, reason and message. */
interface TokenAnswer {
  status: number;
  accessToken?: string | null;
  type?: string;
  reason?: string;
  message?: string;
}

/** The test routes: `/token/:provider` (getAccessToken), `/twice` (two calls in one request), `/late` (after sending). */
function tokenRoutes(app: Express, config: FrameworkAuthConfig): void {
  const answer = async (req: Request, res: Response, call: () => Promise<unknown>): Promise<void> => {
    try {
      res.json({ accessToken: await call() });
    } catch (error) {
      const failure = error as RefreshTokenError;
      res.status(failure instanceof RefreshTokenError ? 401 : 400).json({ type: failure.type, reason: failure.reason, message: failure.message });
    }
  };
  app.get('/token/:provider', (req, res) => answer(req, res, () => getAccessToken(req, String(req.params['provider']), config)));
  app.get('/twice', (req, res) =>
    answer(req, res, async () => [await getAccessToken(req, 'oidc', config), await getAccessToken(req, 'oidc', config)]),
  );
  app.get('/late', async (req, res) => {
    res.json({ sent: true });
    const outcome = await getAccessToken(req, 'oidc', config).then(
      () => 'resolved',
      (error: RefreshTokenError) => `${error.type}:${error.reason}`,
    );
    lateOutcomes.push(outcome);
  });
}

interface TokenApp {
  app: AuthApp;
  spy: ReturnType<typeof tokenEndpointSpy>;
  adapter: Adapter | undefined;
}

/**
 * An app with one OIDC provider (`oidc`) that asks for offline access, registered at the provider as a client that
 * may refresh. `lifetime` names how long its access tokens live (see the provider's ttl above; `short` by default);
 * `offline: false` leaves out offline_access (no refresh token).
 */
async function startTokenApp(setup: { lifetime?: 'short' | 'first' | 'long'; offline?: boolean; adapter?: Adapter; config?: Partial<FrameworkAuthConfig> } = {}): Promise<TokenApp> {
  const clientId = `${setup.lifetime ?? 'short'}-${++clients}`;
  const spy = tokenEndpointSpy();
  const scope = setup.offline === false ? 'openid profile email' : 'openid profile email offline_access';
  const app = await apps.start(
    {
      ...(setup.adapter && { adapter: setup.adapter }),
      ...setup.config,
      providers: [
        OIDC({
          issuer: op.issuer,
          clientId,
          clientSecret: `${clientId}-secret`,
          // oidc-provider grants offline_access (a refresh token) only with prompt=consent.
          authorization: { params: { scope, prompt: 'consent' } },
          [customFetch]: spy.fetch,
        }),
      ],
    },
    { routes: tokenRoutes },
  );
  await op.setClient({ client_id: clientId, redirect_uris: [app.redirectUri()], grant_types: ['authorization_code', 'refresh_token'] });
  return { app, spy, adapter: setup.adapter };
}

async function signedIn(app: AuthApp): Promise<CookieJar> {
  const jar = createJar();
  const flow = await signIn(app, jar);
  expectRedirect(flow.callbackResponse, { pathname: '/me' });
  return jar;
}

async function tokenOf(app: AuthApp, jar: CookieJar, path = '/token/oidc'): Promise<TokenAnswer> {
  const response = await app.fetch(jar, path);
  return { status: response.status, ...((await response.json()) as Omit<TokenAnswer, 'status'>) };
}

/** The session JWT the jar holds. */
async function sessionToken(app: AuthApp, jar: CookieJar): Promise<JWT> {
  const token = await decode({ token: jar.get(sessionCookie, app.url), secret: SECRET, salt: sessionCookie });
  if (!token) throw new Error('the jar holds no session');
  return token;
}

/** Whether the provider accepts `accessToken` at its userinfo endpoint. */
async function userinfoStatus(accessToken: string): Promise<number> {
  const response = await fetch(op.endpoints.userinfo_endpoint, { headers: { authorization: `Bearer ${accessToken}` } });
  await response.arrayBuffer();
  return response.status;
}

/** Makes the provider forget a refresh token, so that refreshing with it is refused with invalid_grant. */
async function revokeAtProvider(refreshToken: string): Promise<void> {
  const stored = await op.provider.RefreshToken.find(refreshToken);
  if (!stored) throw new Error('the provider does not know this refresh token');
  await stored.destroy();
}

function copyJar(app: AuthApp, jar: CookieJar): CookieJar {
  const copy = createJar();
  for (const cookie of jar.all()) copy.set(app.url, `${cookie.name}=${cookie.value}; Path=${cookie.path}`);
  return copy;
}

describe('getAccessToken with JWT sessions', () => {
  it('resolves null when nobody is signed in', async () => {
    const { app, spy } = await startTokenApp();
    expect(await tokenOf(app, createJar())).toEqual({ status: 200, accessToken: null });
    expect(spy.refreshes).toHaveLength(0);
  });

  it('keeps the sign-in tokens in the session JWT under providerTokens, without the ID token', async () => {
    const { app } = await startTokenApp();
    const jar = await signedIn(app);
    const record = (await sessionToken(app, jar)).providerTokens?.['oidc'];
    expect(record).toMatchObject({ providerAccountId: alice.sub, token_type: 'bearer', scope: expect.stringContaining('offline_access') });
    expect(record?.access_token).toEqual(expect.any(String));
    expect(record?.refresh_token).toEqual(expect.any(String));
    expect(record?.expires_at).toEqual(expect.any(Number));
    expect(record).not.toHaveProperty('id_token');
  });

  it('gives the stored access token while it is valid, without asking the provider', async () => {
    const { app, spy } = await startTokenApp({ lifetime: 'long' });
    const jar = await signedIn(app);
    const stored = (await sessionToken(app, jar)).providerTokens?.['oidc']?.access_token;
    const response = await app.fetch(jar, '/token/oidc');
    expect(await response.json()).toEqual({ accessToken: stored });
    expect(sessionCookiesSet(response)).toEqual([]);
    expect(spy.refreshes).toHaveLength(0);
    expect(await userinfoStatus(stored!)).toBe(200);
  });

  it('refreshes an access token that expires within the skew, and re-issues the cookie with the new tokens', async () => {
    const { app, spy } = await startTokenApp();
    const jar = await signedIn(app);
    const before = (await sessionToken(app, jar)).providerTokens!['oidc']!;
    const response = await app.fetch(jar, '/token/oidc');
    const { accessToken } = (await response.json()) as { accessToken: string };

    expect(spy.refreshes).toHaveLength(1);
    expect(spy.refreshes[0]).toMatchObject({ refreshToken: before.refresh_token, status: 200 });
    expect(accessToken).toBe(spy.refreshes[0]!.body!['access_token']);
    expect(accessToken).not.toBe(before.access_token);
    expect(await userinfoStatus(accessToken)).toBe(200);
    expect(sessionCookiesSet(response)).toHaveLength(1);
    expect(response.headers.get('cache-control')).toContain('no-store');
    const after = (await sessionToken(app, jar)).providerTokens!['oidc']!;
    expect(after).toMatchObject({ providerAccountId: alice.sub, access_token: accessToken, refresh_token: spy.refreshes[0]!.body!['refresh_token'] });
  });

  it('keeps the rotated refresh token: the next refresh uses it and succeeds', async () => {
    const { app, spy } = await startTokenApp();
    const jar = await signedIn(app);
    const first = await tokenOf(app, jar);
    const second = await tokenOf(app, jar);

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(spy.refreshes.map((call) => call.status)).toEqual([200, 200]);
    const rotated = spy.refreshes[0]!.body!['refresh_token'];
    expect(rotated).toEqual(expect.any(String));
    expect(rotated).not.toBe(spy.refreshes[0]!.refreshToken);
    expect(spy.refreshes[1]!.refreshToken).toBe(rotated);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(await userinfoStatus(second.accessToken!)).toBe(200);
  });

  it('shares one refresh among concurrent calls with one cookie', async () => {
    const { app, spy } = await startTokenApp({ lifetime: 'first' });
    const jar = await signedIn(app);
    const answers = await Promise.all(Array.from({ length: 8 }, () => tokenOf(app, copyJar(app, jar))));

    expect(spy.refreshes).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.accessToken))).toEqual(new Set([spy.refreshes[0]!.body!['access_token']]));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
  });

  it('answers a late request that still carries the old cookie with the same new tokens, without a second refresh', async () => {
    const { app, spy } = await startTokenApp({ lifetime: 'first' });
    const jar = await signedIn(app);
    const stale = copyJar(app, jar);
    const first = await tokenOf(app, jar);
    const late = await tokenOf(app, stale);

    expect(spy.refreshes).toHaveLength(1);
    expect(late).toEqual(first);
    expect((await sessionToken(app, stale)).providerTokens?.['oidc']?.refresh_token).toBe(spy.refreshes[0]!.body!['refresh_token']);
  });

  it('starts a second call in one request from the tokens the first one stored', async () => {
    const { app, spy } = await startTokenApp();
    const jar = await signedIn(app);
    const response = await app.fetch(jar, '/twice');
    const { accessToken } = (await response.json()) as { accessToken: [string, string] };
    // The 2-second token is within the skew again on the second call, which refreshes with the rotated token (not
    // the request cookie's, which the provider would refuse as reused).
    expect(spy.refreshes.map((call) => call.status)).toEqual([200, 200]);
    expect(spy.refreshes[1]!.refreshToken).toBe(spy.refreshes[0]!.body!['refresh_token']);
    expect(accessToken[1]).toBe(spy.refreshes[1]!.body!['access_token']);
    // One session cookie on the response: the second write replaced the first.
    expect(sessionCookiesSet(response)).toHaveLength(1);
    expect((await sessionToken(app, jar)).providerTokens?.['oidc']?.access_token).toBe(accessToken[1]);
  });

  it('shows a refused refresh as session.error and rejects with RefreshTokenError, with no token in a message or a log', async () => {
    const { app, spy } = await startTokenApp();
    const jar = await signedIn(app);
    const before = (await sessionToken(app, jar)).providerTokens!['oidc']!;
    await revokeAtProvider(before.refresh_token!);

    const refused = await tokenOf(app, jar);
    expect(refused).toMatchObject({ status: 401, type: 'RefreshTokenError', reason: 'refused' });
    expect(spy.refreshes).toHaveLength(1);
    expect(spy.refreshes[0]!.body).toMatchObject({ error: 'invalid_grant' });
    expect(await sessionOf(app, jar)).toMatchObject({ user: { id: alice.sub }, error: 'RefreshTokenError' });
    expect(await getSessionThroughApp(app, jar)).toMatchObject({ error: 'RefreshTokenError' });
    expect((await sessionToken(app, jar)).providerTokens?.['oidc']).toEqual({ providerAccountId: alice.sub, expires_at: before.expires_at, error: 'RefreshTokenError' });

    // Later calls reject at once: the provider is not asked again with a dead token.
    expect(await tokenOf(app, jar)).toMatchObject({ status: 401, type: 'RefreshTokenError', reason: 'refused' });
    expect(spy.refreshes).toHaveLength(1);

    const texts = [refused.message!, inspect(app.errors, { depth: Infinity, showHidden: true })];
    for (const secret of [before.access_token!, before.refresh_token!]) {
      for (const text of texts) expect(text).not.toContain(secret);
    }
  });

  it('rejects an expired token without a refresh token with reason no-refresh-token, and shows session.error', async () => {
    const { app, spy } = await startTokenApp({ offline: false });
    const jar = await signedIn(app);
    expect((await sessionToken(app, jar)).providerTokens?.['oidc']?.refresh_token).toBeUndefined();
    expect(await tokenOf(app, jar)).toMatchObject({ status: 401, type: 'RefreshTokenError', reason: 'no-refresh-token' });
    expect(spy.refreshes).toHaveLength(0);
    expect(await sessionOf(app, jar)).toMatchObject({ error: 'RefreshTokenError' });
  });

  it('keeps the tokens when the provider cannot be reached, so that a later call succeeds', async () => {
    const { app, spy } = await startTokenApp();
    const jar = await signedIn(app);
    spy.control.failNext = true;
    const failed = await tokenOf(app, jar);
    expect(failed).toMatchObject({ status: 401, type: 'RefreshTokenError', reason: 'failed' });
    expect(await sessionOf(app, jar)).not.toHaveProperty('error');
    expect(app.errors.map((error) => (error as RefreshTokenError).type)).toContain('RefreshTokenError');

    const retried = await tokenOf(app, jar);
    expect(retried.status).toBe(200);
    expect(await userinfoStatus(retried.accessToken!)).toBe(200);
  });

  it('refuses to refresh once the response is sent, before asking the provider', async () => {
    const { app, spy } = await startTokenApp();
    const jar = await signedIn(app);
    const response = await app.fetch(jar, '/late');
    await response.json();
    await expect.poll(() => lateOutcomes.length).toBeGreaterThan(0);
    expect(lateOutcomes.pop()).toBe('RefreshTokenError:failed');
    expect(spy.refreshes).toHaveLength(0);
  });

  it('refuses a provider id that is not a configured OAuth provider', async () => {
    const { app } = await startTokenApp();
    const jar = await signedIn(app);
    const answer = await tokenOf(app, jar, '/token/github');
    expect(answer).toMatchObject({ status: 400, type: 'InvalidProvider' });
    expect(answer.message).toContain('configured: oidc');
  });
});

describe('getAccessToken with database sessions', () => {
  let databases = 0;
  function sqlite(): Adapter {
    return SqliteAdapter({ url: `file:${join(folder, `tokens-${++databases}.db`)}` });
  }

  async function accountRow(adapter: Adapter): Promise<AdapterAccount> {
    const user = await adapter.getUserByAccount!({ provider: 'oidc', providerAccountId: alice.sub });
    const [account] = await adapter.listAccountsByUserId!(user!.id);
    return account!;
  }

  it('refreshes and stores the new tokens in the account row', async () => {
    const adapter = sqlite();
    const { app, spy } = await startTokenApp({ adapter });
    const jar = await signedIn(app);
    const before = await accountRow(adapter);
    const answer = await tokenOf(app, jar);

    expect(answer.status).toBe(200);
    expect(spy.refreshes).toHaveLength(1);
    expect(spy.refreshes[0]!.refreshToken).toBe(before.refresh_token);
    const after = await accountRow(adapter);
    expect(after).toMatchObject({
      access_token: answer.accessToken,
      refresh_token: spy.refreshes[0]!.body!['refresh_token'],
      id_token: before.id_token,
      scope: before.scope,
    });
    expect(after.expires_at).toBeGreaterThanOrEqual(before.expires_at!);
    expect(await userinfoStatus(answer.accessToken!)).toBe(200);
  });

  it('keeps the rotated refresh token in the row: the next refresh uses it and succeeds', async () => {
    const adapter = sqlite();
    const { app, spy } = await startTokenApp({ adapter });
    const jar = await signedIn(app);
    await tokenOf(app, jar);
    const second = await tokenOf(app, jar);
    expect(second.status).toBe(200);
    expect(spy.refreshes.map((call) => call.status)).toEqual([200, 200]);
    expect(spy.refreshes[1]!.refreshToken).toBe(spy.refreshes[0]!.body!['refresh_token']);
    expect((await accountRow(adapter)).refresh_token).toBe(spy.refreshes[1]!.body!['refresh_token']);
  });

  it('shares one refresh among concurrent calls in one process, without a database lease', async () => {
    // Without hitRateLimit there is no lease: only the process's own sharing keeps this to one refresh.
    const { hitRateLimit: _hit, resetRateLimit: _reset, ...adapter } = sqlite();
    const { app, spy } = await startTokenApp({ adapter, lifetime: 'first' });
    const jar = await signedIn(app);
    const answers = await Promise.all(Array.from({ length: 8 }, () => tokenOf(app, jar)));
    expect(spy.refreshes).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.accessToken))).toEqual(new Set([(await accountRow(adapter)).access_token]));
  });

  const withdrawingAdapters: [string, () => Adapter][] = [
    ['the memory adapter', () => MemoryAdapter()],
    ['the SQLite adapter, whose session read tells it in the same query', sqlite],
    [
      'an adapter without getSessionAndUserForRead, through listAccountsByUserId',
      () => {
        const { getSessionAndUserForRead: _read, ...adapter } = MemoryAdapter();
        return adapter;
      },
    ],
  ];
  it.each(withdrawingAdapters)('shows a refused refresh as session.error, withdraws the tokens, and a new sign-in restores them (%s)', async (_name, create) => {
    const adapter = create();
    const { app, spy } = await startTokenApp({ adapter });
    const jar = await signedIn(app);
    await revokeAtProvider((await accountRow(adapter)).refresh_token!);

    expect(await tokenOf(app, jar)).toMatchObject({ status: 401, type: 'RefreshTokenError', reason: 'refused' });
    expect(await sessionOf(app, jar)).toMatchObject({ user: { id: expect.any(String) }, error: 'RefreshTokenError' });
    expect(await getSessionThroughApp(app, jar)).toMatchObject({ error: 'RefreshTokenError' });
    const withdrawn = await accountRow(adapter);
    expect(withdrawn.access_token ?? null).toBeNull();
    expect(withdrawn.refresh_token ?? null).toBeNull();
    expect(await tokenOf(app, jar)).toMatchObject({ status: 401, reason: 'refused' });
    expect(spy.refreshes).toHaveLength(1);

    await signedIn(app);
    const restored = await accountRow(adapter);
    expect(restored.refresh_token).toEqual(expect.any(String));
    expect(await sessionOf(app, jar)).not.toHaveProperty('error');
    expect((await tokenOf(app, jar)).status).toBe(200);
  });

  it('keeps the stored refresh token when a new sign-in brings none', async () => {
    const adapter = MemoryAdapter();
    const offline = await startTokenApp({ adapter });
    await signedIn(offline.app);
    const stored = (await accountRow(adapter)).refresh_token;
    // The same account signs in again through a client that does not ask for offline access.
    const online = await startTokenApp({ adapter, offline: false });
    await signedIn(online.app);
    expect((await accountRow(adapter)).refresh_token).toBe(stored);
  });

  it('tells an adapter without listAccountsByUserId and updateAccountTokens (an Auth.js adapter) with MissingAdapterMethods', async () => {
    const { listAccountsByUserId: _list, updateAccountTokens: _update, ...authJsShaped } = MemoryAdapter();
    const { app } = await startTokenApp({ adapter: authJsShaped });
    const jar = await signedIn(app);
    const answer = await tokenOf(app, jar);
    expect(answer).toMatchObject({ status: 400, type: 'MissingAdapterMethods' });
    expect(answer.message).toContain('listAccountsByUserId, updateAccountTokens');
    expect(await sessionOf(app, jar)).toMatchObject({ user: { id: expect.any(String) } });
  });

  it('resolves null for a user without an account at the provider', async () => {
    const adapter = MemoryAdapter();
    const { app } = await startTokenApp({ adapter });
    const jar = await signedIn(app);
    await adapter.unlinkAccount!({ provider: 'oidc', providerAccountId: alice.sub });
    expect(await sessionOf(app, jar)).toMatchObject({ user: { id: expect.any(String) } });
    expect(await tokenOf(app, jar)).toEqual({ status: 200, accessToken: null });
  });
});
