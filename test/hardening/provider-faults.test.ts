// Faults of the OpenID provider: down (closed port) before or during a sign-in, slow (hanging past the timeout),
// or answering garbage mid-flow (discovery fine, then HTML, a 500, broken JSON, a reset connection from the token
// or userinfo endpoint). The user lands on the sign-in page with a clear message, never a 500 and never a
// session; the app keeps serving; and once the provider behaves again, sign-in works without a restart.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { PROVIDER_TIMEOUT_MS } from '../../templates/runtime/oauth/server.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { customFetch } from '../../templates/runtime/index.js';
import type { CustomFetch } from '../../templates/runtime/index.js';
import { createJar, formBody } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';

import { pendingCallbackViaStandIn } from './support/oauth-flow.js';
import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn, StandInBehaviour } from './support/oidc-stand-in.js';
import {
  MOUNT,
  csrfToken,
  expectNoSession,
  expectPageRenders,
  expectRefusalRedirect,
  expectStillServing,
  sessionOf,
  startScaffoldApp,
} from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';

/** The deadline the tests give the provider through `customFetch` (the runtime's own is PROVIDER_TIMEOUT_MS). */
const SHORT_TIMEOUT_MS = 800;

let standIn: OidcStandIn;
let app: ScaffoldApp;

/** A `customFetch` that gives up after SHORT_TIMEOUT_MS, as an app that wants a tighter deadline would write it. */
const impatientFetch: CustomFetch = (input, init) =>
  fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(SHORT_TIMEOUT_MS)]) : AbortSignal.timeout(SHORT_TIMEOUT_MS) });

beforeAll(async () => {
  standIn = await startOidcStandIn();
  const common = { issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret };
  app = await startScaffoldApp({
    providers: [
      OIDC({ id: 'standin', ...common }),
      OIDC({ id: 'impatient', ...common, [customFetch]: impatientFetch }),
      OIDC({ id: 'userinfo', ...common, idToken: false }),
    ],
  });
});
afterAll(async () => {
  await app?.close();
  await standIn?.close();
});
beforeEach(() => {
  standIn.reset();
  app.log.clear();
});

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** POST /auth/signin/<provider>: the app's answer. */
async function startSignIn(target: ScaffoldApp, jar: CookieJar, providerId: string): Promise<Response> {
  const token = await csrfToken(target.url, jar);
  return jar.fetch(`${target.url}${MOUNT}/signin/${providerId}`, { method: 'POST', ...formBody({ csrfToken: token, callbackUrl: '/me' }) });
}

/** The sign-in could not start: sign-in page with OAuthSignInError, no check cookies, no session. */
async function expectSignInCouldNotStart(target: ScaffoldApp, jar: CookieJar, response: Response): Promise<void> {
  const location = expectRefusalRedirect(response, target.url, { page: 'signin', error: 'OAuthSignInError' });
  expect(response.headers.getSetCookie().filter((cookie) => /authjs\.(pkce|state|nonce)[^=]*=[^;]/.test(cookie))).toEqual([]);
  await expectNoSession(target.url, jar, response);
  await expectPageRenders(jar, location, 'Sign-in could not start with this provider');
  await expectStillServing(target.url);
}

/** The sign-in did not complete: sign-in page with OAuthCallbackError, no session. */
async function expectSignInDidNotComplete(jar: CookieJar, response: Response): Promise<void> {
  const location = expectRefusalRedirect(response, app.url, { page: 'signin', error: 'OAuthCallbackError' });
  await expectNoSession(app.url, jar, response);
  await expectPageRenders(jar, location, 'Sign-in with this provider did not complete');
  await expectStillServing(app.url);
}

/** With the provider well-behaved again, a sign-in completes. */
async function expectRecovered(providerId = 'standin'): Promise<void> {
  standIn.reset();
  const jar = createJar();
  const response = await jar.fetch(await pendingCallbackViaStandIn(app.url, jar, providerId));
  expect(response.status).toBe(302);
  expect(response.headers.get('location')).toBe(`${app.url}/me`);
  expect(await sessionOf(app.url, jar)).toMatchObject({ user: { email: 'stan@example.test' } });
}

describe('the provider is down', () => {
  it('sends the user back to the sign-in page when the provider port is closed at sign-in, and keeps serving', async () => {
    const down = await startScaffoldApp({
      providers: [OIDC({ id: 'down', issuer: `http://127.0.0.1:${await closedPort()}`, clientId: 'c', clientSecret: 's' })],
    });
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const jar = createJar();
        await expectSignInCouldNotStart(down, jar, await startSignIn(down, jar, 'down'));
      }
      expect(down.log.types()).toEqual(['OAuthSignInError', 'OAuthSignInError', 'OAuthSignInError']);
    } finally {
      await down.close();
    }
  });

  it('sends the user back to the sign-in page when the provider goes down between the redirect and the callback', async () => {
    const vanishing = await startOidcStandIn();
    const target = await startScaffoldApp({
      providers: [OIDC({ id: 'vanishing', issuer: vanishing.issuer, clientId: vanishing.client.id, clientSecret: vanishing.client.secret })],
    });
    try {
      const jar = createJar();
      const callback = await pendingCallbackViaStandIn(target.url, jar, 'vanishing');
      await vanishing.close();
      const response = await jar.fetch(callback);
      const location = expectRefusalRedirect(response, target.url, { page: 'signin', error: 'OAuthCallbackError' });
      await expectNoSession(target.url, jar, response);
      await expectPageRenders(jar, location, 'Sign-in with this provider did not complete');
      await expectStillServing(target.url);
    } finally {
      await target.close();
    }
  });
});

describe('the provider is slow', () => {
  it(`gives up on a hanging token endpoint after the runtime's own ${PROVIDER_TIMEOUT_MS / 1000} s timeout with the sign-in page`, async () => {
    const jar = createJar();
    const callback = await pendingCallbackViaStandIn(app.url, jar, 'standin');
    standIn.behaviour = { token: { kind: 'hang' } };
    const started = Date.now();
    const response = await jar.fetch(callback);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(PROVIDER_TIMEOUT_MS - 200);
    expect(elapsed).toBeLessThan(PROVIDER_TIMEOUT_MS + 5_000);
    await expectSignInDidNotComplete(jar, response);
    await expectRecovered();
  }, PROVIDER_TIMEOUT_MS + 20_000);

  it('serves other requests while a callback waits on a hanging provider', async () => {
    const jar = createJar();
    const callback = await pendingCallbackViaStandIn(app.url, jar, 'impatient');
    standIn.behaviour = { token: { kind: 'hang' } };
    const waiting = jar.fetch(callback);
    const started = Date.now();
    await expectStillServing(app.url);
    expect(Date.now() - started).toBeLessThan(SHORT_TIMEOUT_MS);
    await expectSignInDidNotComplete(jar, await waiting);
  });

  it('gives up on a hanging token endpoint at the deadline of a customFetch', async () => {
    const jar = createJar();
    const callback = await pendingCallbackViaStandIn(app.url, jar, 'impatient');
    standIn.behaviour = { token: { kind: 'hang' } };
    await expectSignInDidNotComplete(jar, await jar.fetch(callback));
    await expectRecovered('impatient');
  });

  it('gives up on hanging discovery at the deadline of a customFetch, and discovers again once the provider answers', async () => {
    const fresh = await startOidcStandIn();
    const target = await startScaffoldApp({
      providers: [OIDC({ id: 'fresh', issuer: fresh.issuer, clientId: fresh.client.id, clientSecret: fresh.client.secret, [customFetch]: impatientFetch })],
    });
    try {
      fresh.behaviour = { discovery: { kind: 'hang' } };
      const jar = createJar();
      await expectSignInCouldNotStart(target, jar, await startSignIn(target, jar, 'fresh'));
      fresh.reset();
      const again = createJar();
      expect((await again.fetch(await pendingCallbackViaStandIn(target.url, again, 'fresh'))).status).toBe(302);
      expect(await sessionOf(target.url, again)).not.toBeNull();
    } finally {
      await target.close();
      await fresh.close();
    }
  });
});

describe('the provider answers garbage mid-flow', () => {
  const tokenFaults: [string, StandInBehaviour][] = [
    ['an HTML page with 200', { token: { kind: 'raw', status: 200, contentType: 'text/html', body: '<!doctype html><h1>Welcome!</h1>' } }],
    ['an HTML 500 page', { token: { kind: 'raw', status: 500, contentType: 'text/html', body: '<h1>Internal Server Error</h1>' } }],
    ['a 502 with an empty body', { token: { kind: 'raw', status: 502, contentType: 'text/plain', body: '' } }],
    ['invalid JSON', { token: { kind: 'raw', status: 200, contentType: 'application/json', body: '{"access_token": "abc", ' } }],
    ['a JSON array', { token: { kind: 'raw', status: 200, contentType: 'application/json', body: '[1,2,3]' } }],
    ['JSON without an access token', { token: { kind: 'raw', status: 200, contentType: 'application/json', body: '{"token_type":"Bearer"}' } }],
    ['JSON without an ID token', { token: { kind: 'raw', status: 200, contentType: 'application/json', body: '{"access_token":"abc","token_type":"Bearer"}' } }],
    ['an unknown token_type', { token: { kind: 'raw', status: 200, contentType: 'application/json', body: '{"access_token":"abc","token_type":"mac","id_token":"x.y.z"}' } }],
    ['an ID token that is not a JWT', { token: { kind: 'raw', status: 200, contentType: 'application/json', body: '{"access_token":"abc","token_type":"Bearer","id_token":"garbage"}' } }],
    ['an OAuth error (invalid_grant)', { token: { kind: 'raw', status: 400, contentType: 'application/json', body: '{"error":"invalid_grant"}' } }],
    ['a reset connection', { token: { kind: 'destroy' } }],
  ];

  it.each(tokenFaults)('sends the user back to the sign-in page when the token endpoint answers %s, then recovers', async (_name, behaviour) => {
    const jar = createJar();
    const callback = await pendingCallbackViaStandIn(app.url, jar, 'standin');
    standIn.behaviour = behaviour;
    await expectSignInDidNotComplete(jar, await jar.fetch(callback));
    expect(app.log.types()).toEqual(['OAuthCallbackError']);
    await expectRecovered();
  });

  const userinfoFaults: [string, NonNullable<StandInBehaviour['userinfo']>][] = [
    ['an HTML page', { status: 200, contentType: 'text/html', body: '<h1>hello</h1>' }],
    ['a 500', { status: 500, contentType: 'application/json', body: '{"error":"server_error"}' }],
    ['invalid JSON', { status: 200, contentType: 'application/json', body: '{"sub":' }],
    ['claims of another subject', { status: 200, contentType: 'application/json', body: '{"sub":"someone-else","email":"mallory@example.test"}' }],
  ];

  it.each(userinfoFaults)('sends the user back to the sign-in page when userinfo answers %s', async (_name, userinfo) => {
    const jar = createJar();
    const callback = await pendingCallbackViaStandIn(app.url, jar, 'userinfo');
    standIn.behaviour = { userinfo };
    await expectSignInDidNotComplete(jar, await jar.fetch(callback));
    await expectRecovered('userinfo');
  });

  const discoveryFaults: [string, NonNullable<StandInBehaviour['discovery']>][] = [
    ['an HTML page', { status: 200, contentType: 'text/html', body: '<h1>It works!</h1>' }],
    ['a 503', { status: 503, contentType: 'text/plain', body: 'maintenance' }],
    ['metadata of another issuer', { status: 200, contentType: 'application/json', body: JSON.stringify({ issuer: 'https://attacker.example', authorization_endpoint: 'https://attacker.example/authorize' }) }],
  ];

  it.each(discoveryFaults)('refuses to start a sign-in when discovery answers %s, and discovers again later', async (_name, discovery) => {
    const fresh = await startOidcStandIn();
    const target = await startScaffoldApp({ providers: [OIDC({ id: 'fresh', issuer: fresh.issuer, clientId: fresh.client.id, clientSecret: fresh.client.secret })] });
    try {
      fresh.behaviour = { discovery };
      const jar = createJar();
      const response = await startSignIn(target, jar, 'fresh');
      expect(response.headers.get('location')).not.toContain('attacker.example');
      await expectSignInCouldNotStart(target, jar, response);
      fresh.reset();
      const again = createJar();
      expect((await again.fetch(await pendingCallbackViaStandIn(target.url, again, 'fresh'))).status).toBe(302);
    } finally {
      await target.close();
      await fresh.close();
    }
  });
});
