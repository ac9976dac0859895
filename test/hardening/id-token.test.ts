// Crafted ID tokens, from a hand-rolled provider stand-in on loopback (oidc-provider will not mint bad tokens):
// a wrong audience, an expired token, `alg: none`, another issuer, a replayed nonce. Each is refused at the
// callback — a redirect to the sign-in page, never a 500 — and no session is set.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import OIDC from '../../templates/runtime/providers/oidc.js';
import { createJar } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';

import { pendingCallbackViaStandIn } from './support/oauth-flow.js';
import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn } from './support/oidc-stand-in.js';
import { expectNoSession, expectPageRenders, expectRefusalRedirect, sessionOf, startScaffoldApp } from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';

let standIn: OidcStandIn;
let app: ScaffoldApp;

beforeAll(async () => {
  standIn = await startOidcStandIn();
  const common = { issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret };
  app = await startScaffoldApp({
    providers: [OIDC({ id: 'standin', ...common }), OIDC({ id: 'standin-nonce', ...common, checks: ['pkce', 'nonce'] })],
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

/** Delivers the stand-in's callback with the current behaviour: returns the app's answer. */
async function callback(jar: CookieJar, providerId = 'standin'): Promise<Response> {
  const callbackUrl = await pendingCallbackViaStandIn(app.url, jar, providerId);
  return jar.fetch(callbackUrl);
}

/** The ID token was refused: sign-in page with OAuthCallbackError, the reason (oauth4webapi's) in the log. */
async function expectIdTokenRefused(jar: CookieJar, response: Response, reason: RegExp): Promise<void> {
  const location = expectRefusalRedirect(response, app.url, { page: 'signin', error: 'OAuthCallbackError' });
  await expectNoSession(app.url, jar, response);
  await expectPageRenders(jar, location, 'Sign-in with this provider did not complete');
  expect(app.log.types()).toEqual(['OAuthCallbackError']);
  const cause = (app.log.errors[0] as Error & { cause?: { err?: Error } }).cause?.err;
  expect(cause?.message).toMatch(reason);
}

describe('the stand-in itself', () => {
  it('signs in with a well-formed ID token (so every refusal below is the crafted part)', async () => {
    const jar = createJar();
    const response = await callback(jar, 'standin-nonce');
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${app.url}/me`);
    expect(await sessionOf(app.url, jar)).toMatchObject({ user: { email: 'stan@example.test' } });
  });
});

describe('crafted ID tokens', () => {
  it('refuses an ID token issued to another client (wrong aud)', async () => {
    standIn.behaviour = { claims: (claims) => ({ ...claims, aud: 'some-other-client' }) };
    const jar = createJar();
    await expectIdTokenRefused(jar, await callback(jar), /aud/);
  });

  it('refuses an ID token for several audiences whose authorized party (azp) is another client', async () => {
    standIn.behaviour = { claims: (claims) => ({ ...claims, aud: [standIn.client.id, 'some-other-client'], azp: 'some-other-client' }) };
    const jar = createJar();
    await expectIdTokenRefused(jar, await callback(jar), /azp/);
  });

  it('refuses an expired ID token', async () => {
    standIn.behaviour = { claims: (claims) => ({ ...claims, iat: claims.iat - 7200, exp: claims.iat - 3600 }) };
    const jar = createJar();
    await expectIdTokenRefused(jar, await callback(jar), /exp/);
  });

  it('refuses an ID token that is not valid yet (nbf an hour ahead)', async () => {
    standIn.behaviour = { claims: (claims) => ({ ...claims, nbf: claims.iat + 3600 }) };
    const jar = createJar();
    await expectIdTokenRefused(jar, await callback(jar), /nbf/);
  });

  it('refuses an unsigned ID token (alg: none)', async () => {
    standIn.behaviour = { signing: 'none' };
    const jar = createJar();
    await expectIdTokenRefused(jar, await callback(jar), /alg/);
  });

  it('refuses an ID token whose iss is another issuer', async () => {
    standIn.behaviour = { claims: (claims) => ({ ...claims, iss: 'https://attacker.example' }) };
    const jar = createJar();
    await expectIdTokenRefused(jar, await callback(jar), /iss/);
  });

  it('refuses an ID token without a subject', async () => {
    standIn.behaviour = {
      claims: (claims) => {
        const { sub: _sub, ...rest } = claims;
        return rest as typeof claims;
      },
    };
    const jar = createJar();
    await expectIdTokenRefused(jar, await callback(jar), /sub/);
  });

  it('refuses an ID token replayed from an earlier sign-in (its nonce belongs to that sign-in)', async () => {
    const earlier = createJar();
    expect((await callback(earlier, 'standin-nonce')).status).toBe(302);
    const replayed = standIn.authorizations.at(-1)!.idToken!;
    standIn.behaviour = { idToken: () => replayed };
    const jar = createJar();
    await expectIdTokenRefused(jar, await callback(jar, 'standin-nonce'), /nonce/);
  });

  it('refuses an ID token without a nonce when the sign-in sent one', async () => {
    standIn.behaviour = {
      claims: (claims) => {
        const { nonce: _nonce, ...rest } = claims;
        return rest as typeof claims;
      },
    };
    const jar = createJar();
    await expectIdTokenRefused(jar, await callback(jar, 'standin-nonce'), /nonce/);
  });

  it('refuses an ID token carrying a nonce the sign-in never sent (injected token)', async () => {
    standIn.behaviour = { claims: (claims) => ({ ...claims, nonce: 'injected-nonce' }) };
    const jar = createJar();
    await expectIdTokenRefused(jar, await callback(jar, 'standin'), /nonce/);
  });
});
