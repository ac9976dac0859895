// OAuth / OIDC attacks on the callback, against a real OpenID provider (oidc-provider on loopback): replayed and
// foreign state, swapped PKCE verifiers, replayed codes and nonces, and the `iss` mix-up. Every one is refused with
// a redirect to the sign-in page (or a 4xx), never a 500, and never sets a session.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import OIDC from '../../templates/runtime/providers/oidc.js';
import { createJar } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';
import { loginThroughProvider, startOidcProvider } from '../support/oidc-provider.js';
import type { RunningOidcProvider } from '../support/oidc-provider.js';

import { pendingCallbackViaOidcProvider, startOAuthSignIn } from './support/oauth-flow.js';
import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn } from './support/oidc-stand-in.js';
import { MOUNT, expectNoSession, expectPageRenders, expectRefusalRedirect, sessionCookiesSet, sessionOf, startScaffoldApp } from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';

let op: RunningOidcProvider;
let standIn: OidcStandIn;
let app: ScaffoldApp;

/** Provider ids of the app, each with other checks: `oidc` (pkce, the default), `oidc-state`, `oidc-nonce`. */
const providers = { oidc: ['pkce'], 'oidc-state': ['pkce', 'state'], 'oidc-nonce': ['pkce', 'nonce'] } as const;

beforeAll(async () => {
  op = await startOidcProvider();
  standIn = await startOidcStandIn();
  app = await startScaffoldApp({
    providers: [
      ...Object.entries(providers).map(([id, checks]) =>
        OIDC({ id, name: id, issuer: op.issuer, clientId: `hardening-${id}`, clientSecret: `hardening-${id}-secret`, checks: [...checks] }),
      ),
      OIDC({ id: 'standin', name: 'Stand-in', issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret }),
    ],
  });
  for (const id of Object.keys(providers)) {
    await op.setClient({ client_id: `hardening-${id}`, redirect_uris: [`${app.url}${MOUNT}/callback/${id}`] });
  }
});
afterAll(async () => {
  await app?.close();
  await op?.close();
  await standIn?.close();
});
beforeEach(() => app.log.clear());

const cookieOf = (jar: CookieJar, name: string): string => {
  const value = jar.get(name, app.url);
  expect(value, `cookie ${name}`).toBeDefined();
  return value!;
};
const putCookie = (jar: CookieJar, name: string, value: string): void => jar.set(app.url, `${name}=${value}; Path=/; HttpOnly; SameSite=Lax`);

/** A refused callback: back to the sign-in page with OAuthCallbackError, no session, the page renders. */
async function expectCallbackRefused(jar: CookieJar, response: Response): Promise<void> {
  const location = expectRefusalRedirect(response, app.url, { page: 'signin', error: 'OAuthCallbackError' });
  expect(sessionCookiesSet(response)).toEqual([]);
  await expectPageRenders(jar, location, 'Sign-in with this provider did not complete');
}

/** A complete sign-in in `jar`, returning the callback URL that was delivered. */
async function completeSignIn(jar: CookieJar, providerId: keyof typeof providers): Promise<URL> {
  const callbackUrl = await pendingCallbackViaOidcProvider(app.url, jar, providerId);
  const response = await jar.fetch(callbackUrl);
  expect(response.status).toBe(302);
  expect(response.headers.get('location')).toBe(`${app.url}/me`);
  expect(await sessionOf(app.url, jar)).toMatchObject({ user: { email: 'alice@example.test' } });
  return callbackUrl;
}

describe('state', () => {
  it('refuses a completed callback replayed in the same browser: its state and check cookies are spent', async () => {
    const jar = createJar();
    const callbackUrl = await completeSignIn(jar, 'oidc-state');
    const before = await sessionOf(app.url, jar);
    const response = await jar.fetch(callbackUrl);
    await expectCallbackRefused(jar, response);
    expect(app.log.types()).toEqual(['InvalidCheck']);
    expect(await sessionOf(app.url, jar)).toEqual(before);
  });

  it('refuses an old state delivered while a new sign-in is pending', async () => {
    const jar = createJar();
    const oldCallback = await completeSignIn(jar, 'oidc-state');
    await startOAuthSignIn(app.url, jar, 'oidc-state');
    const response = await jar.fetch(oldCallback);
    await expectCallbackRefused(jar, response);
    expect(app.log.types()).toEqual(['InvalidCheck']);
  });

  it("refuses the attacker's callback (login CSRF) in a victim browser that started no sign-in", async () => {
    const attacker = createJar();
    const attackerCallback = await pendingCallbackViaOidcProvider(app.url, attacker, 'oidc-state');
    const victim = createJar();
    const response = await victim.fetch(attackerCallback);
    await expectCallbackRefused(victim, response);
    await expectNoSession(app.url, victim, response);
    expect(app.log.errors.map((error) => error.message).join('\n')).toMatch(/state cookie is missing/);
  });

  it("refuses the attacker's callback in a victim browser that has its own sign-in pending (state from another browser)", async () => {
    const attacker = createJar();
    const attackerCallback = await pendingCallbackViaOidcProvider(app.url, attacker, 'oidc-state');
    const victim = createJar();
    await startOAuthSignIn(app.url, victim, 'oidc-state');
    const response = await victim.fetch(attackerCallback);
    await expectCallbackRefused(victim, response);
    await expectNoSession(app.url, victim, response);
    expect(app.log.types()).toEqual(['InvalidCheck']);
  });

  it("refuses the attacker's callback even with the attacker's state cookie planted in the victim browser, because PKCE binds the code", async () => {
    const attacker = createJar();
    const attackerCallback = await pendingCallbackViaOidcProvider(app.url, attacker, 'oidc-state');
    const victim = createJar();
    await startOAuthSignIn(app.url, victim, 'oidc-state');
    putCookie(victim, 'authjs.state', cookieOf(attacker, 'authjs.state'));
    const errorsBefore = op.errors.length;
    const response = await victim.fetch(attackerCallback);
    await expectCallbackRefused(victim, response);
    await expectNoSession(app.url, victim, response);
    expect(op.errors.slice(errorsBefore)).toEqual([expect.objectContaining({ event: 'grant.error', error: 'invalid_grant' })]);
  });

  it('refuses a callback with no state at all when the provider requires state', async () => {
    const jar = createJar();
    const callbackUrl = await pendingCallbackViaOidcProvider(app.url, jar, 'oidc-state');
    callbackUrl.searchParams.delete('state');
    const response = await jar.fetch(callbackUrl);
    await expectCallbackRefused(jar, response);
    await expectNoSession(app.url, jar, response);
  });
});

describe('PKCE and codes', () => {
  it('refuses a callback whose PKCE verifier cookie was swapped for the one of another sign-in', async () => {
    const victim = createJar();
    const callbackUrl = await pendingCallbackViaOidcProvider(app.url, victim, 'oidc');
    const other = createJar();
    await startOAuthSignIn(app.url, other, 'oidc');
    putCookie(victim, 'authjs.pkce.code_verifier', cookieOf(other, 'authjs.pkce.code_verifier'));
    const errorsBefore = op.errors.length;
    const response = await victim.fetch(callbackUrl);
    await expectCallbackRefused(victim, response);
    await expectNoSession(app.url, victim, response);
    expect(op.errors.slice(errorsBefore)).toEqual([expect.objectContaining({ event: 'grant.error', error: 'invalid_grant' })]);
  });

  it('refuses a PKCE verifier cookie forged by the browser (not encrypted by the app)', async () => {
    const jar = createJar();
    const callbackUrl = await pendingCallbackViaOidcProvider(app.url, jar, 'oidc');
    putCookie(jar, 'authjs.pkce.code_verifier', 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk');
    const requestsBefore = op.requests.length;
    const response = await jar.fetch(callbackUrl);
    await expectCallbackRefused(jar, response);
    await expectNoSession(app.url, jar, response);
    expect(app.log.types()).toEqual(['InvalidCheck']);
    expect(op.requests.slice(requestsBefore).map((request) => request.url)).not.toContain(new URL(op.endpoints.token_endpoint).pathname);
  });

  it('refuses a replayed authorization code even with the stolen verifier cookie: the provider spent the code', async () => {
    const victim = createJar();
    const callbackUrl = await pendingCallbackViaOidcProvider(app.url, victim, 'oidc');
    const stolenVerifier = cookieOf(victim, 'authjs.pkce.code_verifier');
    expect((await victim.fetch(callbackUrl)).status).toBe(302);
    expect(await sessionOf(app.url, victim)).not.toBeNull();

    const attacker = createJar();
    putCookie(attacker, 'authjs.pkce.code_verifier', stolenVerifier);
    const errorsBefore = op.errors.length;
    const response = await attacker.fetch(callbackUrl);
    await expectCallbackRefused(attacker, response);
    await expectNoSession(app.url, attacker, response);
    expect(op.errors.slice(errorsBefore)).toEqual([expect.objectContaining({ event: 'grant.error', error: 'invalid_grant' })]);
  });

  it('refuses a callback without a code', async () => {
    const jar = createJar();
    const callbackUrl = await pendingCallbackViaOidcProvider(app.url, jar, 'oidc');
    callbackUrl.searchParams.delete('code');
    const response = await jar.fetch(callbackUrl);
    expectRefusalRedirect(response, app.url, { page: 'signin', error: 'OAuthCallbackError' });
    await expectNoSession(app.url, jar, response);
  });

  it('refuses a callback nobody started (no check cookies at all)', async () => {
    const jar = createJar();
    const response = await jar.fetch(`${app.url}${MOUNT}/callback/oidc?code=made-up&iss=${encodeURIComponent(op.issuer)}`);
    await expectCallbackRefused(jar, response);
    await expectNoSession(app.url, jar, response);
  });
});

describe('nonce', () => {
  it('refuses an ID token whose nonce belongs to an earlier sign-in (nonce cookie replayed)', async () => {
    const jar = createJar();
    const first = await pendingCallbackViaOidcProvider(app.url, jar, 'oidc-nonce');
    const oldNonce = cookieOf(jar, 'authjs.nonce');
    expect((await jar.fetch(first)).status).toBe(302);
    const second = await pendingCallbackViaOidcProvider(app.url, jar, 'oidc-nonce');
    putCookie(jar, 'authjs.nonce', oldNonce);
    const response = await jar.fetch(second);
    await expectCallbackRefused(jar, response);
    expect(app.log.types()).toEqual(['OAuthCallbackError']);
    expect(String((app.log.errors[0] as Error & { cause?: { err?: Error } }).cause?.err?.message)).toMatch(/nonce/i);
  });

  it('refuses a callback whose nonce cookie is missing when the provider requires a nonce', async () => {
    const jar = createJar();
    const callbackUrl = await pendingCallbackViaOidcProvider(app.url, jar, 'oidc-nonce');
    jar.set(app.url, 'authjs.nonce=; Path=/; Max-Age=0');
    const response = await jar.fetch(callbackUrl);
    await expectCallbackRefused(jar, response);
    await expectNoSession(app.url, jar, response);
    expect(app.log.types()).toEqual(['InvalidCheck']);
  });
});

describe('issuer mix-up', () => {
  it('refuses a callback whose iss names another issuer, before the code is sent anywhere', async () => {
    const jar = createJar();
    const callbackUrl = await pendingCallbackViaOidcProvider(app.url, jar, 'oidc');
    callbackUrl.searchParams.set('iss', standIn.issuer);
    const requestsBefore = op.requests.length;
    const standInBefore = standIn.requests.length;
    const response = await jar.fetch(callbackUrl);
    await expectCallbackRefused(jar, response);
    await expectNoSession(app.url, jar, response);
    expect(op.requests.slice(requestsBefore).map((request) => request.url)).not.toContain(new URL(op.endpoints.token_endpoint).pathname);
    expect(standIn.requests.slice(standInBefore)).toEqual([]);
  });

  it("refuses a provider's callback delivered to another provider's callback URL: the code never reaches the wrong token endpoint", async () => {
    const jar = createJar();
    const honestCallback = await pendingCallbackViaOidcProvider(app.url, jar, 'oidc');
    await startOAuthSignIn(app.url, jar, 'standin');
    const mixedUp = new URL(`${app.url}${MOUNT}/callback/standin${honestCallback.search}`);
    const standInBefore = standIn.requests.length;
    const response = await jar.fetch(mixedUp);
    await expectCallbackRefused(jar, response);
    await expectNoSession(app.url, jar, response);
    expect(standIn.requests.slice(standInBefore)).not.toContain('POST /token');
  });

  it('refuses a callback without iss from a provider that announces iss in its responses', async () => {
    const jar = createJar();
    const callbackUrl = await pendingCallbackViaOidcProvider(app.url, jar, 'oidc');
    callbackUrl.searchParams.delete('iss');
    const response = await jar.fetch(callbackUrl);
    await expectCallbackRefused(jar, response);
    await expectNoSession(app.url, jar, response);
  });
});

describe('access_denied at the provider', () => {
  it('sends the user to the AccessDenied error page with no session', async () => {
    const jar = createJar();
    const authorizationUrl = await startOAuthSignIn(app.url, jar, 'oidc');
    const callbackUrl = new URL(await loginThroughProvider(jar, authorizationUrl, { abort: true }));
    const response = await jar.fetch(callbackUrl);
    const location = expectRefusalRedirect(response, app.url, { page: 'error', error: 'AccessDenied' });
    await expectNoSession(app.url, jar, response);
    await expectPageRenders(jar, location, 'Access denied');
  });
});
