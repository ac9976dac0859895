// OAuth / OIDC callbacks the runtime must refuse. Each refusal is answered with a redirect to the error or sign-in
// page (or a 4xx), never a 5xx, sets no session cookie, and leaves the browser without a session.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import type { OIDCUserConfig } from '../../templates/runtime/contracts.js';
import { createJar, formBody } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';
import { loginThroughProvider, startOidcProvider } from '../support/oidc-provider.js';
import type { RunningOidcProvider } from '../support/oidc-provider.js';

import {
  AppRegistry,
  csrfTokenOf,
  dropCookie,
  expectRedirect,
  loggedTypes,
  sessionCookiesSet,
  sessionOf,
  signIn,
  startSignIn,
} from './oauth-harness.js';
import type { AuthApp } from './oauth-harness.js';

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

async function startOidcApp(provider: OIDCUserConfig = {}, config: Omit<FrameworkAuthConfig, 'providers'> = {}): Promise<AuthApp> {
  const clientId = `refusal-rp-${++clientCount}`;
  const app = await apps.start({
    ...config,
    providers: [OIDC({ issuer: op.issuer, clientId, clientSecret: `${clientId}-secret`, ...provider })],
  });
  await op.setClient({ client_id: clientId, redirect_uris: [app.redirectUri()] });
  return app;
}

/** Starts a sign-in in `jar` and logs in at the provider: the callback URL is ready but not yet delivered. */
async function pendingCallback(app: AuthApp, jar: CookieJar): Promise<{ authorizationUrl: URL; callbackUrl: URL }> {
  const { authorizationUrl } = await startSignIn(app, jar);
  const callbackUrl = new URL(await loginThroughProvider(jar, authorizationUrl));
  expect(callbackUrl.searchParams.get('code')).toBeTruthy();
  return { authorizationUrl, callbackUrl };
}

/** The refusal leaves no session: none set by the response, none readable afterwards. */
async function expectNoSession(app: AuthApp, jar: CookieJar, response: Response): Promise<void> {
  expect(response.status).toBeLessThan(500);
  expect(sessionCookiesSet(response)).toEqual([]);
  expect(await sessionOf(app, jar)).toBeNull();
}

/** The error page a refusal redirects to answers a 4xx page, not a 5xx. */
async function expectErrorPageRenders(app: AuthApp, jar: CookieJar, location: URL, status: number): Promise<void> {
  const page = await app.fetch(jar, `${location.pathname}${location.search}`);
  expect(page.status).toBe(status);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await page.text()).toContain(`href="${app.mount}/signin"`);
}

describe('OAuth callback refusals', () => {
  it('refuses a callback whose state does not match the state cookie', async () => {
    const app = await startOidcApp({ checks: ['pkce', 'state'] });
    const jar = createJar();
    const { callbackUrl } = await pendingCallback(app, jar);
    callbackUrl.searchParams.set('state', 'tampered-state-value');

    const response = await app.fetch(jar, callbackUrl);
    const location = expectRedirect(response, { origin: app.url, pathname: '/auth/signin', error: 'OAuthCallbackError' });
    await expectNoSession(app, jar, response);
    expect(loggedTypes(app)).toEqual(['InvalidCheck']);
    // The refused callback spent the check cookies: it cannot be retried with a better guess.
    expect(jar.get('authjs.state', app.url)).toBeUndefined();
    expect(jar.get('authjs.pkce.code_verifier', app.url)).toBeUndefined();
    const page = await app.fetch(jar, `${location.pathname}${location.search}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sign-in with this provider did not complete. Try again.');
  });

  it('refuses a callback when the state cookie is missing', async () => {
    const app = await startOidcApp({ checks: ['pkce', 'state'] });
    const jar = createJar();
    const { callbackUrl } = await pendingCallback(app, jar);
    dropCookie(app, jar, 'authjs.state');

    const response = await app.fetch(jar, callbackUrl);
    expectRedirect(response, { origin: app.url, pathname: '/auth/signin', error: 'OAuthCallbackError' });
    await expectNoSession(app, jar, response);
    expect(loggedTypes(app)).toEqual(['InvalidCheck']);
    expect(app.errors[0]!.message).toMatch(/state cookie is missing/);
  });

  it('refuses a callback when the PKCE verifier cookie is missing', async () => {
    const app = await startOidcApp();
    const jar = createJar();
    const { callbackUrl } = await pendingCallback(app, jar);
    dropCookie(app, jar, 'authjs.pkce.code_verifier');

    const response = await app.fetch(jar, callbackUrl);
    expectRedirect(response, { origin: app.url, pathname: '/auth/signin', error: 'OAuthCallbackError' });
    await expectNoSession(app, jar, response);
    expect(loggedTypes(app)).toEqual(['InvalidCheck']);
    expect(app.errors[0]!.message).toMatch(/PKCE verifier cookie is missing/);
  });

  it('refuses a callback carrying the PKCE verifier of another sign-in', async () => {
    const app = await startOidcApp();
    const victim = createJar();
    const other = createJar();
    const { callbackUrl } = await pendingCallback(app, victim);
    await startSignIn(app, other);
    const foreignVerifier = other.get('authjs.pkce.code_verifier', app.url)!;
    expect(foreignVerifier).not.toBe(victim.get('authjs.pkce.code_verifier', app.url));
    victim.set(app.url, `authjs.pkce.code_verifier=${foreignVerifier}; Path=/; HttpOnly; SameSite=Lax`);

    const errorsBefore = op.errors.length;
    const response = await app.fetch(victim, callbackUrl);
    expectRedirect(response, { origin: app.url, pathname: '/auth/signin', error: 'OAuthCallbackError' });
    await expectNoSession(app, victim, response);
    expect(loggedTypes(app)).toEqual(['OAuthCallbackError']);
    // The provider itself refused the code exchange (the verifier does not match the challenge).
    expect(op.errors.slice(errorsBefore)).toEqual([expect.objectContaining({ event: 'grant.error', error: 'invalid_grant' })]);
  });

  it('refuses a callback whose ID token nonce does not match the nonce cookie', async () => {
    const app = await startOidcApp({ checks: ['pkce', 'nonce'] });
    const victim = createJar();
    const other = createJar();
    const { callbackUrl } = await pendingCallback(app, victim);
    await startSignIn(app, other);
    const foreignNonce = other.get('authjs.nonce', app.url)!;
    expect(foreignNonce).toBeDefined();
    victim.set(app.url, `authjs.nonce=${foreignNonce}; Path=/; HttpOnly; SameSite=Lax`);

    const response = await app.fetch(victim, callbackUrl);
    expectRedirect(response, { origin: app.url, pathname: '/auth/signin', error: 'OAuthCallbackError' });
    await expectNoSession(app, victim, response);
    expect(loggedTypes(app)).toEqual(['OAuthCallbackError']);
    const cause = (app.errors[0] as Error & { cause?: { err?: Error } }).cause?.err;
    expect(cause?.message).toMatch(/nonce/i);
  });

  it('refuses a completed callback URL replayed in another browser that has its own sign-in pending', async () => {
    const app = await startOidcApp();
    const first = createJar();
    const flow = await signIn(app, first);
    expectRedirect(flow.callbackResponse, { pathname: '/me' });
    expect(await sessionOf(app, first)).not.toBeNull();

    const second = createJar();
    await startSignIn(app, second);
    const response = await app.fetch(second, flow.callbackUrl);
    expectRedirect(response, { origin: app.url, pathname: '/auth/signin', error: 'OAuthCallbackError' });
    await expectNoSession(app, second, response);
    expect(loggedTypes(app)).toEqual(['OAuthCallbackError']);
  });

  it('refuses a completed callback URL replayed in the same browser, whose check cookies are spent', async () => {
    const app = await startOidcApp();
    const jar = createJar();
    const flow = await signIn(app, jar);
    expectRedirect(flow.callbackResponse, { pathname: '/me' });
    const session = await sessionOf(app, jar);

    const response = await app.fetch(jar, flow.callbackUrl);
    expectRedirect(response, { origin: app.url, pathname: '/auth/signin', error: 'OAuthCallbackError' });
    expect(sessionCookiesSet(response)).toEqual([]);
    expect(loggedTypes(app)).toEqual(['InvalidCheck']);
    // The replay changes nothing: the earlier session stays what it was.
    expect((await sessionOf(app, jar))?.user).toEqual(session?.user);
  });

  it('sends the user to the AccessDenied error page when the provider answers access_denied', async () => {
    const app = await startOidcApp();
    const jar = createJar();
    const { authorizationUrl } = await startSignIn(app, jar);
    const callbackUrl = new URL(await loginThroughProvider(jar, authorizationUrl, { abort: true }));
    expect(callbackUrl.searchParams.get('error')).toBe('access_denied');

    const response = await app.fetch(jar, callbackUrl);
    const location = expectRedirect(response, { origin: app.url, pathname: '/auth/error', error: 'AccessDenied' });
    await expectNoSession(app, jar, response);
    expect(loggedTypes(app)).toEqual(['AccessDenied']);
    await expectErrorPageRenders(app, jar, location, 403);
  });

  it('refuses a callback whose iss parameter names another issuer (mix-up attack)', async () => {
    const app = await startOidcApp();
    const jar = createJar();
    const { callbackUrl } = await pendingCallback(app, jar);
    expect(callbackUrl.searchParams.get('iss')).toBe(op.issuer);
    callbackUrl.searchParams.set('iss', 'https://attacker.example');

    const errorsBefore = op.errors.length;
    const requestsBefore = op.requests.length;
    const response = await app.fetch(jar, callbackUrl);
    expectRedirect(response, { origin: app.url, pathname: '/auth/signin', error: 'OAuthCallbackError' });
    await expectNoSession(app, jar, response);
    expect(loggedTypes(app)).toEqual(['InvalidCheck']);
    // Refused before the code was sent anywhere.
    expect(op.requests.slice(requestsBefore).map((request) => request.url)).not.toContain(new URL(op.endpoints.token_endpoint).pathname);
    expect(op.errors.slice(errorsBefore)).toEqual([]);
  });

  it('answers 404 to a sign-in with an unknown provider id', async () => {
    const app = await startOidcApp();
    const jar = createJar();
    const csrfToken = await csrfTokenOf(app, jar);
    const form = formBody({ csrfToken, callbackUrl: '/me' });
    const response = await app.fetch(jar, '/auth/signin/nope', {
      method: 'POST',
      body: form.body,
      headers: { ...form.headers, accept: 'application/json' },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'InvalidProvider', message: expect.stringContaining('"nope"') });
    await expectNoSession(app, jar, response);
  });

  it('answers 404 to a callback for an unknown provider id', async () => {
    const app = await startOidcApp();
    const jar = createJar();
    const response = await app.fetch(jar, '/auth/callback/nope?code=abc&state=def');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    await expectNoSession(app, jar, response);
  });

  it('redirects to the sign-in page, not a 500, when provider discovery is unreachable, and keeps answering', async () => {
    const closedPort = await unusedPort();
    const app = await apps.start({
      providers: [OIDC({ issuer: `http://127.0.0.1:${closedPort}`, clientId: 'unreachable', clientSecret: 'unreachable-secret' })],
    });
    const jar = createJar();

    for (let attempt = 1; attempt <= 2; attempt++) {
      const csrfToken = await csrfTokenOf(app, jar);
      const response = await app.fetch(jar, '/auth/signin/oidc', { method: 'POST', ...formBody({ csrfToken, callbackUrl: '/me' }) });
      const location = expectRedirect(response, { origin: app.url, pathname: '/auth/signin', error: 'OAuthSignInError' });
      await expectNoSession(app, jar, response);
      expect(response.headers.getSetCookie().some((cookie) => /authjs\.pkce\.code_verifier=[^;]/.test(cookie))).toBe(false);

      const page = await app.fetch(jar, `${location.pathname}${location.search}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Sign-in could not start with this provider');
    }
    expect(loggedTypes(app)).toEqual(['OAuthSignInError', 'OAuthSignInError']);

    const providers = await app.fetch(jar, '/auth/providers');
    expect(providers.status).toBe(200);
    expect(await providers.json()).toHaveProperty('oidc');
  });
});

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
