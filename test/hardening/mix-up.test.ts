// Mix-up (RFC 9700 §4.4): every check cookie (PKCE verifier, state, nonce, WebAuthn challenge) records the provider
// that started the flow, and a callback for another provider refuses it, before any code reaches a token endpoint.
// The providers here have no issuer to compare (explicit-endpoint OAuth, Discord and GitLab shapes) or share one
// issuer (two clients of one OpenID provider), so the binding is the only thing that tells their flows apart.
// The OAuth 1.0a request token cookie has its case in test/runtime/microblog.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import type { OAuthConfig } from '../../templates/runtime/contracts.js';
import Discord from '../../templates/runtime/providers/discord.js';
import GitLab from '../../templates/runtime/providers/gitlab.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import { createJar, formBody } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';

import { pendingCallbackViaStandIn } from './support/oauth-flow.js';
import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn } from './support/oidc-stand-in.js';
import { MOUNT, csrfToken, expectNoSession, expectPageRenders, expectRefusalRedirect, sessionOf, startScaffoldApp } from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';

let provider: OidcStandIn;
let app: ScaffoldApp;

/** A plain OAuth 2 provider with explicit endpoints at the stand-in and no issuer: nothing to compare `iss` with. */
function explicitOAuth(id: string, checks: OAuthConfig['checks']): OAuthConfig {
  return {
    id,
    name: id,
    type: 'oauth',
    clientId: provider.client.id,
    clientSecret: provider.client.secret,
    authorization: { url: `${provider.issuer}/authorize` },
    token: `${provider.issuer}/token`,
    userinfo: `${provider.issuer}/userinfo`,
    checks,
  };
}

/** Catalog providers without an issuer, pointed at the stand-in. */
const atStandIn = () => ({
  clientId: provider.client.id,
  clientSecret: provider.client.secret,
  authorization: { url: `${provider.issuer}/authorize` },
  token: `${provider.issuer}/token`,
  userinfo: `${provider.issuer}/userinfo`,
});

beforeAll(async () => {
  provider = await startOidcStandIn();
  const sameIssuer = { issuer: provider.issuer, clientId: provider.client.id, clientSecret: provider.client.secret };
  app = await startScaffoldApp({
    adapter: MemoryAdapter(),
    providers: [
      explicitOAuth('alpha-pkce', ['pkce']),
      explicitOAuth('beta-pkce', ['pkce']),
      explicitOAuth('alpha-state', ['state']),
      explicitOAuth('beta-state', ['state']),
      OIDC({ id: 'alpha-nonce', name: 'Alpha (nonce)', ...sameIssuer, checks: ['nonce'] }),
      OIDC({ id: 'beta-nonce', name: 'Beta (nonce)', ...sameIssuer, checks: ['nonce'] }),
      Discord(atStandIn()),
      GitLab(atStandIn()),
      Passkey(),
      Passkey({ id: 'passkey-b', name: 'Passkey B' }),
    ],
  });
});
afterAll(async () => {
  await app?.close();
  await provider?.close();
});
beforeEach(() => {
  provider.reset();
  app.log.clear();
});

/** Starts a sign-in with `started` and delivers the provider's answer to the callback URL of `deliveredTo`. */
async function mixUp(jar: CookieJar, started: string, deliveredTo: string): Promise<{ honest: URL; response: Response }> {
  const honest = await pendingCallbackViaStandIn(app.url, jar, started);
  expect(honest.pathname).toBe(`${MOUNT}/callback/${started}`);
  const response = await jar.fetch(`${app.url}${MOUNT}/callback/${deliveredTo}${honest.search}`);
  return { honest, response };
}

/** Refused as a mix-up: the sign-in page, no session, InvalidCheck naming both providers, no token request at all. */
async function expectMixUpRefused(jar: CookieJar, response: Response, tokenRequestsBefore: number, check: string, started: string, deliveredTo: string): Promise<void> {
  const location = expectRefusalRedirect(response, app.url, { page: 'signin', error: 'OAuthCallbackError' });
  await expectNoSession(app.url, jar, response);
  await expectPageRenders(jar, location, 'Sign-in with this provider did not complete');
  expect(app.log.types()).toEqual(['InvalidCheck']);
  expect(app.log.errors[0]!.message).toBe(
    `The ${check} cookie was issued for provider "${started}", not for "${deliveredTo}": a callback may only finish a sign-in started with its own provider.`,
  );
  expect(tokenRequests(), 'the code reached no token endpoint').toBe(tokenRequestsBefore);
}

const tokenRequests = (): number => provider.requests.filter((request) => request === 'POST /token').length;

const checkCookies = new Set(['authjs.pkce.code_verifier', 'authjs.state', 'authjs.nonce', 'authjs.challenge']);

/** The names of the check cookies `response` deletes. */
function clearedCheckCookies(response: Response): string[] {
  return response.headers
    .getSetCookie()
    .filter((cookie) => /^[^=]+=;/.test(cookie) && /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(cookie))
    .map((cookie) => cookie.slice(0, cookie.indexOf('=')))
    .filter((name) => checkCookies.has(name));
}

describe('OAuth providers without an issuer', () => {
  it('completes a sign-in whose callback arrives at the provider that started it (the flows below differ only in the callback)', async () => {
    const jar = createJar();
    const callbackUrl = await pendingCallbackViaStandIn(app.url, jar, 'alpha-pkce');
    const response = await jar.fetch(callbackUrl);
    expect(response.headers.get('location')).toBe(`${app.url}/me`);
    expect(await sessionOf(app.url, jar)).toMatchObject({ user: { id: expect.any(String), email: 'stan@example.test' } });
  });

  it('refuses a callback at provider B for a sign-in started with provider A (PKCE verifier cookie)', async () => {
    const jar = createJar();
    const before = tokenRequests();
    const { response } = await mixUp(jar, 'alpha-pkce', 'beta-pkce');
    await expectMixUpRefused(jar, response, before, 'PKCE verifier', 'alpha-pkce', 'beta-pkce');
  });

  it('refuses a callback at provider B for a sign-in started with provider A (state cookie)', async () => {
    const jar = createJar();
    const before = tokenRequests();
    const { response } = await mixUp(jar, 'alpha-state', 'beta-state');
    await expectMixUpRefused(jar, response, before, 'state', 'alpha-state', 'beta-state');
  });

  it('refuses a callback at GitLab for a sign-in started with Discord (state and PKCE cookies)', async () => {
    const jar = createJar();
    const before = tokenRequests();
    const { response } = await mixUp(jar, 'discord', 'gitlab');
    await expectMixUpRefused(jar, response, before, 'state', 'discord', 'gitlab');
  });

  it('deletes the check cookies of the refused callback, so the honest callback cannot use them afterwards', async () => {
    const jar = createJar();
    const { honest, response } = await mixUp(jar, 'discord', 'gitlab');
    expect(clearedCheckCookies(response).sort()).toEqual(['authjs.pkce.code_verifier', 'authjs.state']);
    app.log.clear();
    const before = tokenRequests();
    const replay = await jar.fetch(honest);
    expectRefusalRedirect(replay, app.url, { page: 'signin', error: 'OAuthCallbackError' });
    await expectNoSession(app.url, jar, replay);
    expect(app.log.errors.map((error) => error.message)).toEqual([expect.stringMatching(/^The state cookie is missing/)]);
    expect(tokenRequests()).toBe(before);
  });
});

describe('two clients of one OpenID provider (the same issuer, so iss cannot tell them apart)', () => {
  it('refuses a callback at provider B for a sign-in started with provider A (nonce cookie)', async () => {
    const jar = createJar();
    const before = tokenRequests();
    const { response } = await mixUp(jar, 'alpha-nonce', 'beta-nonce');
    await expectMixUpRefused(jar, response, before, 'nonce', 'alpha-nonce', 'beta-nonce');
    expect(clearedCheckCookies(response)).toEqual(['authjs.nonce']);
  });
});

describe('WebAuthn challenge', () => {
  /** GET webauthn-options of `started`, then POST an (unverifiable) answer to the callback of `deliveredTo`. */
  async function passkeyMixUp(jar: CookieJar, started: string, deliveredTo: string): Promise<Response> {
    const options = await jar.fetch(`${app.url}${MOUNT}/webauthn-options/${started}?action=authenticate`);
    expect(options.status).toBe(200);
    const token = await csrfToken(app.url, jar);
    const data = JSON.stringify({ id: 'credential-id', rawId: 'credential-id', type: 'public-key', response: {}, clientExtensionResults: {} });
    return jar.fetch(`${app.url}${MOUNT}/callback/${deliveredTo}`, { method: 'POST', ...formBody({ csrfToken: token, action: 'authenticate', data }) });
  }

  it('refuses a passkey answer at provider B for a challenge issued by provider A', async () => {
    const jar = createJar();
    const response = await passkeyMixUp(jar, 'passkey', 'passkey-b');
    expectRefusalRedirect(response, app.url, { page: 'signin', error: 'WebAuthnVerificationError' });
    await expectNoSession(app.url, jar, response);
    expect(app.log.types()).toEqual(['WebAuthnVerificationError']);
    const cause = (app.log.errors[0] as Error & { cause?: { err?: Error } }).cause?.err;
    expect(cause?.message).toBe(
      'The WebAuthn challenge cookie was issued for provider "passkey", not for "passkey-b": a callback may only finish a sign-in started with its own provider.',
    );
    expect(clearedCheckCookies(response)).toEqual(['authjs.challenge']);
  });

  it('keeps the refused challenge spent: the same answer at provider A then finds no challenge', async () => {
    const jar = createJar();
    await passkeyMixUp(jar, 'passkey', 'passkey-b');
    app.log.clear();
    const token = await csrfToken(app.url, jar);
    const data = JSON.stringify({ id: 'credential-id', rawId: 'credential-id', type: 'public-key', response: {}, clientExtensionResults: {} });
    const response = await jar.fetch(`${app.url}${MOUNT}/callback/passkey`, { method: 'POST', ...formBody({ csrfToken: token, action: 'authenticate', data }) });
    expectRefusalRedirect(response, app.url, { page: 'signin', error: 'WebAuthnVerificationError' });
    const cause = (app.log.errors[0] as Error & { cause?: { err?: Error } }).cause?.err;
    expect(cause?.message).toMatch(/^The WebAuthn challenge cookie is missing/);
  });
});
