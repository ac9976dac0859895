// End-to-end OAuth 2 / OpenID Connect sign-in: a real oidc-provider and an Express 5 app using the runtime, both on
// 127.0.0.1, driven over HTTP through a cookie jar like a browser would: csrf → POST signin → provider login →
// callback → session → sign-out.
import { createHash } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { customFetch } from '../../templates/runtime/index.js';
import type { Account, FrameworkAuthConfig, Profile, TokenSet, User } from '../../templates/runtime/index.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import type { OAuthConfig, OIDCUserConfig, TokenRequestContext, UserinfoRequestContext } from '../../templates/runtime/contracts.js';
import { createJar } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';
import { DEFAULT_ACCOUNTS, loginThroughProvider, startOidcProvider } from '../support/oidc-provider.js';
import type { OidcTestClient, RunningOidcProvider } from '../support/oidc-provider.js';

import {
  AppRegistry,
  expectRedirect,
  getSessionThroughApp,
  sessionCookiesSet,
  sessionOf,
  signIn,
  signOut,
  startSignIn,
} from './oauth-harness.js';
import type { AuthApp, AuthAppOptions, CompletedSignIn } from './oauth-harness.js';

const alice = DEFAULT_ACCOUNTS.alice!;
/** The user the default profile() makes of alice's claims. */
const aliceUser = { id: alice.sub, name: alice.name, email: alice.email, image: alice.picture };

let op: RunningOidcProvider;
const apps = new AppRegistry();
let clientCount = 0;

beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(async () => {
  await apps.closeAll();
  await op?.close();
});

/** A fresh client id, so each test registers its own client with its own redirect_uri. */
function nextClientId(): string {
  return `rp-${++clientCount}`;
}

/**
 * Starts an app with one OIDC provider (id `oidc`) found by discovery, and registers its client with the provider
 * for the app's redirect_uri.
 */
async function startOidcApp(
  setup: {
    clientId?: string;
    provider?: OIDCUserConfig;
    client?: Partial<OidcTestClient>;
    config?: Omit<FrameworkAuthConfig, 'providers'>;
  } = {},
  appOptions: AuthAppOptions = {},
): Promise<AuthApp> {
  const clientId = setup.clientId ?? nextClientId();
  const confidential = setup.client?.token_endpoint_auth_method !== 'none';
  const app = await apps.start(
    {
      ...setup.config,
      providers: [
        OIDC({
          issuer: op.issuer,
          clientId,
          ...(confidential && { clientSecret: `${clientId}-secret` }),
          ...setup.provider,
        }),
      ],
    },
    appOptions,
  );
  await op.setClient({ client_id: clientId, redirect_uris: [app.redirectUri()], ...setup.client });
  return app;
}

/** Provider request paths (no query) answered since `from`. */
function providerPathsSince(from: number): string[] {
  return op.requests.slice(from).map((request) => new URL(request.url, op.issuer).pathname);
}

const path = (url: string): string => new URL(url).pathname;

interface RecordedRequest {
  method: string;
  url: string;
  headers: Headers;
  body: URLSearchParams;
}

/** A `customFetch` that records each request (method, URL, headers, form body) and passes it on to fetch. */
function recordingFetch() {
  const requests: RecordedRequest[] = [];
  const fetchAndRecord = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const body = init?.body;
    requests.push({
      method: init?.method ?? (input instanceof Request ? input.method : 'GET'),
      url,
      headers: new Headers(init?.headers),
      body: new URLSearchParams(typeof body === 'string' || body instanceof URLSearchParams ? body : undefined),
    });
    return fetch(input, init);
  };
  return {
    requests,
    fetch: fetchAndRecord,
    /** The one request made to the token endpoint. */
    tokenRequest(): RecordedRequest {
      const token = requests.filter((request) => request.url === op.endpoints.token_endpoint);
      expect(token).toHaveLength(1);
      return token[0]!;
    },
  };
}

/**
 * The part every variant shares once the callback came back: the app redirected to callbackUrl (/me) with a session
 * cookie, `/auth/session` and `getSession` agree on the user, and sign-out clears the session.
 */
async function expectSignedInThenOut(app: AuthApp, jar: CookieJar, flow: CompletedSignIn, user: User): Promise<void> {
  expectRedirect(flow.callbackResponse, { origin: app.publicOrigin, pathname: '/me' });
  expect(sessionCookiesSet(flow.callbackResponse)).toHaveLength(1);

  const session = await sessionOf(app, jar);
  expect(session?.user).toEqual(user);
  expect(Date.parse(session!.expires)).toBeGreaterThan(Date.now());
  expect(await getSessionThroughApp(app, jar)).toEqual(session);

  const signedOut = await signOut(app, jar);
  expect(signedOut.headers.getSetCookie().some((cookie) => /authjs\.session-token=;/.test(cookie))).toBe(true);
  expect(await sessionOf(app, jar)).toBeNull();
  expect(await getSessionThroughApp(app, jar)).toBeNull();
}

describe('OIDC sign-in through a real provider', () => {
  it('signs in with the default checks (PKCE), shows the ID token user in the session and getSession, and signs out', async () => {
    const app = await startOidcApp();
    const jar = createJar();
    const flow = await signIn(app, jar);

    const params = flow.authorizationUrl.searchParams;
    expect(flow.authorizationUrl.origin + flow.authorizationUrl.pathname).toBe(op.endpoints.authorization_endpoint);
    expect(params.get('response_type')).toBe('code');
    expect(params.get('redirect_uri')).toBe(app.redirectUri());
    expect(params.get('scope')).toBe('openid profile email');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.has('state')).toBe(false);
    expect(params.has('nonce')).toBe(false);
    expect(jar.get('authjs.state', app.url)).toBeUndefined();
    // The verifier cookie is single-use: the callback deleted it.
    expect(jar.get('authjs.pkce.code_verifier', app.url)).toBeUndefined();

    await expectSignedInThenOut(app, jar, flow, aliceUser);
    expect(app.errors).toEqual([]);
  });

  it('reads the profile from the userinfo endpoint when idToken is false', async () => {
    const profiles: Profile[] = [];
    const app = await startOidcApp({
      provider: {
        idToken: false,
        profile: (profile) => {
          profiles.push(profile);
          return { id: String(profile.sub), name: profile.name ?? null, email: profile.email ?? null, image: (profile.picture as string) ?? null };
        },
      },
    });
    const jar = createJar();
    const before = op.requests.length;
    const flow = await signIn(app, jar);

    expect(providerPathsSince(before)).toContain(path(op.endpoints.userinfo_endpoint));
    // A userinfo response, not ID token claims: no iss, aud or nonce.
    expect(profiles).toHaveLength(1);
    expect(profiles[0]).toMatchObject({ sub: alice.sub, email: alice.email });
    expect(profiles[0]).not.toHaveProperty('aud');
    expect(profiles[0]).not.toHaveProperty('iss');
    await expectSignedInThenOut(app, jar, flow, aliceUser);
  });

  it('does not call the userinfo endpoint when the ID token carries the profile', async () => {
    const app = await startOidcApp();
    const before = op.requests.length;
    const flow = await signIn(app, createJar());
    expectRedirect(flow.callbackResponse, { pathname: '/me' });
    const paths = providerPathsSince(before);
    expect(paths).toContain(path(op.endpoints.token_endpoint));
    expect(paths).not.toContain(path(op.endpoints.userinfo_endpoint));
  });

  it("signs in with checks ['state'] and a confidential client, sending state and no PKCE challenge", async () => {
    const app = await startOidcApp({ provider: { checks: ['state'] } });
    const jar = createJar();
    const started = await startSignIn(app, jar);
    const params = started.authorizationUrl.searchParams;
    expect(params.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(params.has('code_challenge')).toBe(false);
    expect(params.has('nonce')).toBe(false);
    expect(jar.get('authjs.state', app.url)).toBeDefined();
    expect(jar.get('authjs.pkce.code_verifier', app.url)).toBeUndefined();

    const callbackUrl = new URL(await loginThroughProvider(jar, started.authorizationUrl));
    expect(callbackUrl.searchParams.get('state')).toBe(params.get('state'));
    const callbackResponse = await app.fetch(jar, callbackUrl);
    expect(jar.get('authjs.state', app.url)).toBeUndefined();
    await expectSignedInThenOut(app, jar, { ...started, callbackUrl, callbackResponse }, aliceUser);
  });

  it("signs in with checks ['pkce', 'state', 'nonce'], sending all three and clearing their cookies", async () => {
    const app = await startOidcApp({ provider: { checks: ['pkce', 'state', 'nonce'] } });
    const jar = createJar();
    const flow = await signIn(app, jar);
    const params = flow.authorizationUrl.searchParams;
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(params.get('nonce')).toMatch(/^[\w-]{20,}$/);
    for (const name of ['authjs.pkce.code_verifier', 'authjs.state', 'authjs.nonce']) {
      expect(jar.get(name, app.url), name).toBeUndefined();
    }
    await expectSignedInThenOut(app, jar, flow, aliceUser);
  });

  it('signs in under a custom mount path, whose callback URL follows the mount', async () => {
    const app = await startOidcApp({}, { mount: '/api/auth' });
    expect(app.redirectUri()).toBe(`${app.url}/api/auth/callback/oidc`);
    const jar = createJar();
    const flow = await signIn(app, jar);
    expect(flow.authorizationUrl.searchParams.get('redirect_uri')).toBe(`${app.url}/api/auth/callback/oidc`);
    expect(flow.callbackUrl.pathname).toBe('/api/auth/callback/oidc');
    await expectSignedInThenOut(app, jar, flow, aliceUser);
  });

  it('signs in through a plain OAuth 2 provider with explicit endpoints and no discovery', async () => {
    const clientId = nextClientId();
    const provider: OAuthConfig = {
      id: 'plain',
      name: 'Plain OAuth',
      type: 'oauth',
      clientId,
      clientSecret: `${clientId}-secret`,
      authorization: { url: op.endpoints.authorization_endpoint, params: { scope: 'openid profile email' } },
      token: op.endpoints.token_endpoint,
      userinfo: op.endpoints.userinfo_endpoint,
    };
    const app = await apps.start({ providers: [provider] });
    await op.setClient({ client_id: clientId, redirect_uris: [app.redirectUri('plain')] });
    const jar = createJar();
    const before = op.requests.length;
    const flow = await signIn(app, jar, { providerId: 'plain' });

    expect(flow.authorizationUrl.searchParams.get('redirect_uri')).toBe(`${app.url}/auth/callback/plain`);
    const paths = providerPathsSince(before);
    expect(paths).not.toContain('/.well-known/openid-configuration');
    expect(paths).not.toContain('/.well-known/oauth-authorization-server');
    expect(paths).toContain(path(op.endpoints.token_endpoint));
    expect(paths).toContain(path(op.endpoints.userinfo_endpoint));
    await expectSignedInThenOut(app, jar, flow, aliceUser);
    expect(app.errors).toEqual([]);
  });

  it('authenticates at the token endpoint with client_secret_basic by default', async () => {
    const spy = recordingFetch();
    const app = await startOidcApp({ clientId: 'basic-rp', provider: { [customFetch]: spy.fetch } });
    const jar = createJar();
    const flow = await signIn(app, jar);
    expectRedirect(flow.callbackResponse, { pathname: '/me' });

    const token = spy.tokenRequest();
    // RFC 6749 2.3.1: id and secret are form-urlencoded, joined with ':', then base64-encoded.
    const [scheme, credentials] = (token.headers.get('authorization') ?? '').split(' ');
    expect(scheme).toBe('Basic');
    const [id, secret] = Buffer.from(credentials ?? '', 'base64').toString('utf8').split(':').map(decodeURIComponent);
    expect({ id, secret }).toEqual({ id: 'basic-rp', secret: 'basic-rp-secret' });
    expect(token.body.has('client_secret')).toBe(false);
    expect(token.body.get('code_verifier')).toMatch(/^[\w-]{43,128}$/);
  });

  it('authenticates at the token endpoint with client_secret_post when client.token_endpoint_auth_method says so', async () => {
    // oidc-provider accepts either of basic and post for a secret-based client, so the request itself is inspected.
    const spy = recordingFetch();
    const app = await startOidcApp({
      clientId: 'post-rp',
      provider: { client: { token_endpoint_auth_method: 'client_secret_post' }, [customFetch]: spy.fetch },
      client: { token_endpoint_auth_method: 'client_secret_post' },
    });
    const jar = createJar();
    const errorsBefore = op.errors.length;
    const flow = await signIn(app, jar);
    expect(op.errors.slice(errorsBefore)).toEqual([]);

    const token = spy.tokenRequest();
    expect(token.headers.has('authorization')).toBe(false);
    expect(token.body.get('client_id')).toBe('post-rp');
    expect(token.body.get('client_secret')).toBe('post-rp-secret');
    await expectSignedInThenOut(app, jar, flow, aliceUser);
  });

  it('signs in as a public client without a secret (token_endpoint_auth_method none, PKCE)', async () => {
    const spy = recordingFetch();
    const app = await startOidcApp({
      clientId: 'public-rp',
      provider: { client: { token_endpoint_auth_method: 'none' }, [customFetch]: spy.fetch },
      client: { token_endpoint_auth_method: 'none' },
    });
    const jar = createJar();
    const errorsBefore = op.errors.length;
    const flow = await signIn(app, jar);
    expect(flow.authorizationUrl.searchParams.get('code_challenge')).toBeTruthy();
    expect(op.errors.slice(errorsBefore)).toEqual([]);

    const token = spy.tokenRequest();
    expect(token.headers.has('authorization')).toBe(false);
    expect(token.body.get('client_id')).toBe('public-rp');
    expect(token.body.has('client_secret')).toBe(false);
    expect(token.body.get('code_verifier')).toBeTruthy();
    await expectSignedInThenOut(app, jar, flow, aliceUser);
  });

  it('calls custom token and userinfo request handlers with { checks, params } and { tokens }', async () => {
    const tokenCalls: TokenRequestContext[] = [];
    const userinfoCalls: UserinfoRequestContext[] = [];
    const clientId = nextClientId();
    const app = await startOidcApp({
      clientId,
      provider: {
        token: {
          async request(context) {
            tokenCalls.push(context);
            const response = await fetch(op.endpoints.token_endpoint, {
              method: 'POST',
              headers: {
                'content-type': 'application/x-www-form-urlencoded',
                authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret`).toString('base64')}`,
              },
              body: new URLSearchParams({
                grant_type: 'authorization_code',
                code: context.params.code!,
                redirect_uri: context.params.redirect_uri,
                code_verifier: context.checks.code_verifier!,
              }),
            });
            expect(response.status).toBe(200);
            return { tokens: (await response.json()) as TokenSet };
          },
        },
        userinfo: {
          request(context) {
            userinfoCalls.push(context);
            return { sub: 'from-userinfo-handler', name: 'Handler Name', email: 'handler@example.test' };
          },
        },
      },
    });
    const jar = createJar();
    const before = op.requests.length;
    const flow = await signIn(app, jar);

    expect(tokenCalls).toHaveLength(1);
    const { checks, params } = tokenCalls[0]!;
    // The verifier handed over is the one whose challenge went to the provider.
    const challenge = createHash('sha256').update(checks.code_verifier!).digest('base64url');
    expect(challenge).toBe(flow.authorizationUrl.searchParams.get('code_challenge'));
    expect(params.code).toBe(flow.callbackUrl.searchParams.get('code'));
    expect(params.redirect_uri).toBe(app.redirectUri());

    expect(userinfoCalls).toHaveLength(1);
    expect(userinfoCalls[0]!.tokens.access_token).toEqual(expect.any(String));
    expect(userinfoCalls[0]!.tokens.id_token).toEqual(expect.any(String));
    expect(userinfoCalls[0]!.tokens.token_type).toBe('bearer');
    expect(providerPathsSince(before)).not.toContain(path(op.endpoints.userinfo_endpoint));

    await expectSignedInThenOut(app, jar, flow, { id: 'from-userinfo-handler', name: 'Handler Name', email: 'handler@example.test' });
  });

  it('sends every call to the provider (discovery, token, JWKS, userinfo) through customFetch', async () => {
    const spy = recordingFetch();
    const app = await startOidcApp({ provider: { idToken: false, [customFetch]: spy.fetch } });
    const jar = createJar();
    const before = op.requests.length;
    const flow = await signIn(app, jar);
    await expectSignedInThenOut(app, jar, flow, aliceUser);

    const called = spy.requests.map((request) => `${request.method} ${path(request.url)}`);
    expect(called).toEqual([
      'GET /.well-known/openid-configuration',
      `POST ${path(op.endpoints.token_endpoint)}`,
      `GET ${path(op.endpoints.jwks_uri)}`,
      `GET ${path(op.endpoints.userinfo_endpoint)}`,
    ]);
    // And nothing reached the provider from the app by any other way: what the provider saw, minus the browser's
    // own visits (authorization and interaction pages), is exactly what customFetch saw.
    const browserPaths = new Set([path(op.endpoints.authorization_endpoint)]);
    const backChannel = op.requests
      .slice(before)
      .filter((request) => {
        const pathname = new URL(request.url, op.issuer).pathname;
        return !browserPaths.has(pathname) && !pathname.startsWith('/interaction/') && !pathname.startsWith('/auth/');
      })
      .map((request) => `${request.method} ${new URL(request.url, op.issuer).pathname}`);
    expect(backChannel).toEqual(called);
  });

  it('fetches the discovery document once for many sign-ins, and again once it is an hour old', async () => {
    const spy = recordingFetch();
    const app = await startOidcApp({ provider: { [customFetch]: spy.fetch } });
    const discoveries = (): number => spy.requests.filter((request) => path(request.url) === '/.well-known/openid-configuration').length;
    for (let round = 0; round < 3; round++) {
      const jar = createJar();
      await expectSignedInThenOut(app, jar, await signIn(app, jar), aliceUser);
    }
    expect(discoveries()).toBe(1);

    // An hour on: how long oauth/server.ts keeps a provider's discovered metadata (DISCOVERY_MAX_AGE_MS).
    const discoveryMaxAgeMs = 60 * 60 * 1000;
    const realNow = Date.now.bind(Date);
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + discoveryMaxAgeMs);
    try {
      const jar = createJar();
      await expectSignedInThenOut(app, jar, await signIn(app, jar), aliceUser);
      expect(discoveries()).toBe(2);
      const again = createJar();
      await expectSignedInThenOut(app, again, await signIn(app, again), aliceUser);
      expect(discoveries()).toBe(2);
    } finally {
      clock.mockRestore();
    }
  });

  it('hands the jwt callback the default account subset, with expires_at from expires_in and a lowercase token_type', async () => {
    const accounts: (Account | null | undefined)[] = [];
    const app = await startOidcApp({
      config: {
        callbacks: {
          jwt: ({ token, account }) => {
            if (account !== undefined) accounts.push(account);
            return token;
          },
        },
      },
    });
    const jar = createJar();
    const startedAt = Math.floor(Date.now() / 1000);
    const flow = await signIn(app, jar);
    const finishedAt = Math.ceil(Date.now() / 1000);
    expectRedirect(flow.callbackResponse, { pathname: '/me' });

    expect(accounts).toHaveLength(1);
    const account = accounts[0]!;
    expect(Object.keys(account).sort()).toEqual(
      ['access_token', 'expires_at', 'id_token', 'provider', 'providerAccountId', 'scope', 'token_type', 'type'].sort(),
    );
    expect(account).toMatchObject({
      provider: 'oidc',
      type: 'oidc',
      providerAccountId: alice.sub,
      token_type: 'bearer',
      access_token: expect.any(String),
      id_token: expect.any(String),
    });
    expect(account.scope?.split(' ').sort()).toEqual(['email', 'openid', 'profile']);
    // oidc-provider issues access tokens for 3600 s (see test/support/oidc-provider.ts ttl).
    expect(account.expires_at).toBeGreaterThanOrEqual(startedAt + 3600);
    expect(account.expires_at).toBeLessThanOrEqual(finishedAt + 3600);
    expect(account).not.toHaveProperty('expires_in');
  });

  it('builds the user with a profile() override', async () => {
    const app = await startOidcApp({
      provider: {
        profile: (profile, tokens) => ({
          id: `custom-${String(profile.sub)}`,
          name: String(profile.preferred_username),
          email: `${String(profile.given_name)}@override.test`,
          image: tokens.access_token ? 'https://example.test/override.png' : null,
        }),
      },
    });
    const jar = createJar();
    const flow = await signIn(app, jar);
    await expectSignedInThenOut(app, jar, flow, {
      id: 'custom-alice-sub',
      name: 'alice',
      email: 'Alice@override.test',
      image: 'https://example.test/override.png',
    });
  });

  it('calls events.signIn with the user, the account and the profile', async () => {
    const signInEvent = vi.fn();
    const app = await startOidcApp({ config: { events: { signIn: signInEvent } } });
    const flow = await signIn(app, createJar());
    expectRedirect(flow.callbackResponse, { pathname: '/me' });

    expect(signInEvent).toHaveBeenCalledTimes(1);
    const message = signInEvent.mock.calls[0]![0] as { user: User; account: Account; profile: Profile; isNewUser: boolean };
    expect(message.user).toEqual(aliceUser);
    expect(message.account).toMatchObject({ provider: 'oidc', type: 'oidc', providerAccountId: alice.sub });
    expect(message.profile).toMatchObject({ sub: alice.sub, email: alice.email, iss: op.issuer });
    expect(message.isNewUser).toBe(false);
  });

  it('behind a TLS-terminating proxy sends an https redirect_uri and sets __Secure-/__Host- cookies with Secure', async () => {
    const app = await startOidcApp({}, { behindHttpsProxy: true });
    expect(app.redirectUri()).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/auth\/callback\/oidc$/);
    const jar = createJar();

    const csrf = await app.fetch(jar, '/auth/csrf');
    const csrfCookie = csrf.headers.getSetCookie().find((cookie) => cookie.includes('authjs.csrf-token='));
    expect(csrfCookie).toMatch(/^__Host-authjs\.csrf-token=/);
    expect(csrfCookie).toMatch(/; Secure/);
    expect(csrfCookie).toMatch(/; Path=\//);
    expect(csrfCookie).not.toMatch(/; Domain=/);

    const flow = await signIn(app, jar);
    expect(flow.authorizationUrl.searchParams.get('redirect_uri')).toBe(app.redirectUri());
    const started = flow.response.headers.getSetCookie();
    const verifierCookie = started.find((cookie) => cookie.includes('authjs.pkce.code_verifier='));
    const callbackCookie = started.find((cookie) => cookie.includes('authjs.callback-url='));
    expect(verifierCookie).toMatch(/^__Secure-authjs\.pkce\.code_verifier=.+; Secure/);
    expect(callbackCookie).toMatch(/^__Secure-authjs\.callback-url=.+; Secure/);
    expect(decodeURIComponent(callbackCookie!.split(';')[0]!.split('=')[1]!)).toBe(`${app.publicOrigin}/me`);

    expect(flow.callbackUrl.origin).toBe(app.publicOrigin);
    const sessionCookies = sessionCookiesSet(flow.callbackResponse);
    expect(sessionCookies).toHaveLength(1);
    expect(sessionCookies[0]).toMatch(/^__Secure-authjs\.session-token=.+; HttpOnly; Secure; SameSite=Lax$/);
    for (const cookie of [...started, ...flow.callbackResponse.headers.getSetCookie()]) {
      expect(cookie, 'every cookie the app sets over https').toMatch(/^__(Secure|Host)-authjs\..*; Secure/);
    }

    await expectSignedInThenOut(app, jar, flow, aliceUser);
  });
});
