// The OpenID Foundation's relying-party certification cases of the Basic (response_type=code) and Config profiles,
// played by a misbehaving OpenID provider on loopback (support/oidc-stand-in.ts) against the scaffold-shaped app:
// each test is one case, driven through the real sign-in (POST /auth/signin/<id>) and callback, and handled the way
// the certification expects. The test ids are the certification's (rp-…); SECURITY.md lists them in a table.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import OIDC from '../../templates/runtime/providers/oidc.js';
import type { OIDCUserConfig } from '../../templates/runtime/contracts.js';
import type { TokenSet } from '../../templates/runtime/types.js';
import { createJar, formBody } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';

import { pendingCallbackViaStandIn, startOAuthSignIn } from './support/oauth-flow.js';
import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn, StandInClaims } from './support/oidc-stand-in.js';
import { MOUNT, csrfToken, expectNoSession, expectPageRenders, expectRefusalRedirect, sessionOf, startScaffoldApp } from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';

let op: OidcStandIn;
let app: ScaffoldApp;
const cleanups: (() => Promise<void>)[] = [];

/** The providers of the shared app, all on the one stand-in: nonce sent, code flow without nonce, userinfo profile. */
function providers(standIn: OidcStandIn, extra: Partial<OIDCUserConfig> = {}) {
  const common = { issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret, ...extra };
  return [
    OIDC({ id: 'op', name: 'OP', ...common, checks: ['pkce', 'nonce'] }),
    OIDC({ id: 'op-code', name: 'OP (code flow, no nonce)', ...common, checks: ['pkce'] }),
    OIDC({ id: 'op-userinfo', name: 'OP (userinfo)', ...common, checks: ['pkce', 'nonce'], idToken: false }),
  ];
}

beforeAll(async () => {
  op = await startOidcStandIn();
  app = await startScaffoldApp({ providers: providers(op) });
});
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await app?.close();
  await op?.close();
});
beforeEach(() => {
  op.reset();
  app.log.clear();
});

/**
 * A provider and an app of their own, for the cases that depend on what the app has cached (the JWKS, the
 * discovery document): `prepare` shapes the provider before the app has seen it.
 */
async function isolated(
  prepare: (standIn: OidcStandIn) => Promise<void> | void = () => {},
  extra: (standIn: OidcStandIn) => Partial<OIDCUserConfig> = () => ({}),
) {
  const standIn = await startOidcStandIn();
  await prepare(standIn);
  const own = await startScaffoldApp({ providers: providers(standIn, extra(standIn)) });
  cleanups.push(() => standIn.close(), () => own.close());
  return { standIn, app: own };
}

/** Sign-in → the provider (instant approval) → the callback: the app's answer. */
async function signInThrough(target: ScaffoldApp, jar: CookieJar, providerId = 'op'): Promise<Response> {
  const callbackUrl = await pendingCallbackViaStandIn(target.url, jar, providerId);
  return jar.fetch(callbackUrl);
}

/** Accepted: redirected to the callbackUrl with a session for the stand-in's account. */
async function expectAccepted(target: ScaffoldApp, jar: CookieJar, response: Response): Promise<void> {
  expect(target.log.errors).toEqual([]);
  expect(response.status).toBe(302);
  expect(response.headers.get('location')).toBe(`${target.url}/me`);
  expect(await sessionOf(target.url, jar)).toMatchObject({ user: { email: 'stan@example.test', name: 'Stan Din' } });
}

/** Refused at the callback: the sign-in page with OAuthCallbackError, no session, the reason in the log. */
async function expectRefused(target: ScaffoldApp, jar: CookieJar, response: Response, reason: { message?: RegExp; cause: RegExp }): Promise<void> {
  const location = expectRefusalRedirect(response, target.url, { page: 'signin', error: 'OAuthCallbackError' });
  await expectNoSession(target.url, jar, response);
  await expectPageRenders(jar, location, 'Sign-in with this provider did not complete');
  expect(target.log.types()).toEqual(['OAuthCallbackError']);
  const error = target.log.errors[0] as Error & { cause?: { err?: Error } };
  if (reason.message) expect(error.message).toMatch(reason.message);
  expect(error.cause?.err?.message).toMatch(reason.cause);
}

const withoutClaim = (name: string) => (claims: StandInClaims): StandInClaims => {
  const { [name]: _dropped, ...rest } = claims;
  return rest as StandInClaims;
};

const signatureRefused = /ID token signature did not verify/;

describe('Basic profile: response type and client authentication', () => {
  it('rp-response_type-code: signs in with response_type=code and the authorization code flow', async () => {
    const jar = createJar();
    const authorizationUrl = await startOAuthSignIn(app.url, jar, 'op');
    expect(authorizationUrl.searchParams.get('response_type')).toBe('code');
    const answer = await jar.fetch(authorizationUrl);
    await expectAccepted(app, jar, await jar.fetch(answer.headers.get('location')!));
  });

  it('rp-token_endpoint-client_secret_basic: authenticates at the token endpoint with HTTP Basic (the stand-in refuses anything else)', async () => {
    const jar = createJar();
    await expectAccepted(app, jar, await signInThrough(app, jar));
    expect(op.authorizations.at(-1)!.redeemed).toBe(true);
  });

  it('rp-scope-userinfo-claims: asks for the profile and email scopes and takes those claims from userinfo', async () => {
    op.behaviour = { account: { sub: 'stand-in-sub', name: 'Stan Din', email: 'stan@example.test', given_name: 'Stan' } };
    const jar = createJar();
    const authorizationUrl = await startOAuthSignIn(app.url, jar, 'op-userinfo');
    expect(authorizationUrl.searchParams.get('scope')?.split(' ')).toEqual(['openid', 'profile', 'email']);
    const answer = await jar.fetch(authorizationUrl);
    await expectAccepted(app, jar, await jar.fetch(answer.headers.get('location')!));
    expect(op.requests).toContain('GET /userinfo');
  });

  it('rp-userinfo-bearer-header: sends the access token to userinfo in an Authorization: Bearer header', async () => {
    const jar = createJar();
    const before = op.userinfoAuthorizations.length;
    await expectAccepted(app, jar, await signInThrough(app, jar, 'op-userinfo'));
    expect(op.userinfoAuthorizations.slice(before)).toEqual([expect.stringMatching(/^Bearer at-[0-9a-f]{16}$/)]);
  });
});

describe('Basic profile: ID token signature', () => {
  it('rp-id_token-sig-rs256: accepts an ID token signed with RS256 by the key in the JWKS, after fetching the JWKS', async () => {
    const { standIn, app: own } = await isolated();
    const jar = createJar();
    await expectAccepted(own, jar, await signInThrough(own, jar));
    expect(standIn.requests).toContain('GET /jwks');
  });

  it('rp-id_token-bad-sig-rs256: refuses an ID token signed by another key under the kid of the JWKS key', async () => {
    op.behaviour = { signing: 'foreign-key' };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { message: signatureRefused, cause: /signature verification failed/ });
  });

  it('rp-id_token-bad-sig-rs256 (tampered payload): refuses an ID token whose claims were changed after signing', async () => {
    op.behaviour = { signing: 'tampered' };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { message: signatureRefused, cause: /signature verification failed/ });
  });

  it('rp-id_token-sig-none: refuses an unsigned ID token (alg: none) when the provider announces only RS256', async () => {
    op.behaviour = { signing: 'none' };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { cause: /unexpected JWT "alg" header parameter/ });
  });

  it('rp-id_token-sig-none: refuses an unsigned ID token even when the provider announces none among its algorithms', async () => {
    const { app: own } = await isolated((standIn) => {
      standIn.behaviour = { metadata: (metadata) => ({ ...metadata, id_token_signing_alg_values_supported: ['RS256', 'none'] }), signing: 'none' };
    });
    const jar = createJar();
    await expectRefused(own, jar, await signInThrough(own, jar), { message: signatureRefused, cause: /"alg" \(Algorithm\) Header Parameter value not allowed/ });
  });

  it('rp-id_token-sig-hs256 / rp-id_token-bad-sig-hs256: refuses an HS256 ID token even when the provider announces HS256', async () => {
    const { app: own } = await isolated((standIn) => {
      standIn.behaviour = { metadata: (metadata) => ({ ...metadata, id_token_signing_alg_values_supported: ['RS256', 'HS256'] }), signing: 'hs256' };
    });
    const jar = createJar();
    await expectRefused(own, jar, await signInThrough(own, jar), { message: signatureRefused, cause: /"alg" \(Algorithm\) Header Parameter value not allowed/ });
  });

  it('rp-id_token-kid-absent-single-jwks: accepts an ID token without kid when the JWKS holds a single key', async () => {
    op.behaviour = { omitKid: true };
    const jar = createJar();
    await expectAccepted(app, jar, await signInThrough(app, jar));
  });

  it('rp-id_token-kid-absent-multiple-jwks: refuses an ID token without kid when several JWKS keys could have signed it', async () => {
    const { app: own } = await isolated(async (standIn) => {
      await standIn.addKey('RSA');
      standIn.behaviour = { omitKid: true };
    });
    const jar = createJar();
    await expectRefused(own, jar, await signInThrough(own, jar), { message: signatureRefused, cause: /multiple matching keys/ });
  });

  it('rp-id_token-kid-absent-multiple-jwks (one key per algorithm): accepts an ID token without kid when exactly one JWKS key fits its alg', async () => {
    const { app: own } = await isolated(async (standIn) => {
      await standIn.addKey('EC');
      standIn.behaviour = { omitKid: true };
    });
    const jar = createJar();
    await expectAccepted(own, jar, await signInThrough(own, jar));
  });
});

describe('Basic profile: ID token claims', () => {
  it('rp-id_token-issuer-mismatch: refuses an ID token whose iss is not the issuer', async () => {
    op.behaviour = { claims: (claims) => ({ ...claims, iss: 'https://attacker.example' }) };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { cause: /"iss"/ });
  });

  it('rp-id_token-aud: refuses an ID token issued to another client', async () => {
    op.behaviour = { claims: (claims) => ({ ...claims, aud: 'some-other-client' }) };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { cause: /"aud"/ });
  });

  it('rp-id_token-aud (several audiences): refuses an ID token for several audiences without azp', async () => {
    op.behaviour = { claims: (claims) => ({ ...claims, aud: [op.client.id, 'some-other-client'] }) };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { cause: /additional untrusted audiences/ });
  });

  it('rp-id_token-sub: refuses an ID token without sub', async () => {
    op.behaviour = { claims: withoutClaim('sub') };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { cause: /"sub" \(subject\) claim missing/ });
  });

  it('rp-id_token-iat: refuses an ID token without iat', async () => {
    op.behaviour = { claims: withoutClaim('iat') };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { cause: /"iat" \(issued at\) claim missing/ });
  });

  it('rp-id_token-iat (stale): refuses an ID token issued before the sign-in started, beyond the 30 s clock tolerance', async () => {
    op.behaviour = { claims: (claims) => ({ ...claims, iat: claims.iat - 120 }) };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { cause: /"iat".*older than this sign-in/ });
  });

  it('accepts an ID token issued within the clock tolerance before the sign-in started (a provider clock a little behind)', async () => {
    op.behaviour = { claims: (claims) => ({ ...claims, iat: claims.iat - 20 }) };
    const jar = createJar();
    await expectAccepted(app, jar, await signInThrough(app, jar));
  });

  it('refuses an expired ID token', async () => {
    op.behaviour = { claims: (claims) => ({ ...claims, exp: claims.iat - 60 }) };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { cause: /"exp"/ });
  });
});

describe('Basic profile: nonce', () => {
  it('rp-nonce-invalid: refuses an ID token whose nonce is not the one the sign-in sent', async () => {
    op.behaviour = { claims: (claims) => ({ ...claims, nonce: 'not-the-nonce-we-sent' }) };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { cause: /"nonce"/ });
  });

  it('rp-nonce-invalid (missing): refuses an ID token without the nonce the sign-in sent', async () => {
    op.behaviour = { claims: withoutClaim('nonce') };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar), { cause: /"nonce"/ });
  });

  it('rp-nonce-unless-code-flow: a code-flow sign-in without the nonce check sends no nonce and accepts an ID token without one', async () => {
    const jar = createJar();
    const authorizationUrl = await startOAuthSignIn(app.url, jar, 'op-code');
    expect(authorizationUrl.searchParams.has('nonce')).toBe(false);
    const answer = await jar.fetch(authorizationUrl);
    await expectAccepted(app, jar, await jar.fetch(answer.headers.get('location')!));
  });
});

describe('Basic profile: userinfo', () => {
  it('rp-userinfo-bad-sub-claim: refuses a userinfo answer whose sub is not the ID token sub', async () => {
    op.behaviour = {
      userinfo: { status: 200, contentType: 'application/json', body: JSON.stringify({ sub: 'someone-else', name: 'Mallory', email: 'mallory@example.test' }) },
    };
    const jar = createJar();
    await expectRefused(app, jar, await signInThrough(app, jar, 'op-userinfo'), { message: /reading the user profile failed/, cause: /"sub"/ });
  });
});

describe('Config profile', () => {
  it('rp-discovery-openid-configuration: reads the endpoints from /.well-known/openid-configuration of the issuer', async () => {
    const { standIn, app: own } = await isolated();
    const jar = createJar();
    await expectAccepted(own, jar, await signInThrough(own, jar));
    expect(standIn.requests.slice(0, 2)).toEqual(['GET /.well-known/openid-configuration', 'GET /authorize']);
  });

  it('rp-discovery-jwks_uri-keys: verifies ID tokens with the keys at the jwks_uri the discovery document names', async () => {
    const { standIn, app: own } = await isolated((provider) => {
      provider.behaviour = { metadata: (metadata) => ({ ...metadata, jwks_uri: `${provider.issuer}/keys/elsewhere` }) };
    });
    const jar = createJar();
    await expectAccepted(own, jar, await signInThrough(own, jar));
    expect(standIn.requests).toContain('GET /keys/elsewhere');
    expect(standIn.requests).not.toContain('GET /jwks');
  });

  it('rp-discovery-issuer-not-matching-config: refuses to start a sign-in when the discovery document names another issuer', async () => {
    const { standIn, app: own } = await isolated((provider) => {
      provider.behaviour = { metadata: (metadata) => ({ ...metadata, issuer: 'https://attacker.example' }) };
    });
    const jar = createJar();
    const response = await jar.fetch(`${own.url}${MOUNT}/signin/op`, { method: 'POST', ...formBody({ csrfToken: await csrfToken(own.url, jar), callbackUrl: '/me' }) });
    const location = expectRefusalRedirect(response, own.url, { page: 'signin', error: 'OAuthSignInError' });
    await expectPageRenders(jar, location, 'Sign-in could not start with this provider');
    expect(own.log.types()).toEqual(['OAuthSignInError']);
    const cause = (own.log.errors[0] as Error & { cause?: { err?: Error } }).cause?.err;
    expect(cause?.message).toMatch(/"issuer" property does not match the expected value/);
    expect(standIn.requests).toEqual(['GET /.well-known/openid-configuration']);
  });

  it('rp-key-rotation-op-sign-key: accepts an ID token signed by a new key after the JWKS was cached, fetching the JWKS again', async () => {
    const { standIn, app: own } = await isolated();
    const first = createJar();
    await expectAccepted(own, first, await signInThrough(own, first));
    const jwksFetches = () => standIn.requests.filter((request) => request === 'GET /jwks').length;
    expect(jwksFetches()).toBe(1);

    await standIn.rotateSigningKey();
    const second = createJar();
    await expectAccepted(own, second, await signInThrough(own, second));
    expect(jwksFetches()).toBe(2);

    const third = createJar();
    await expectAccepted(own, third, await signInThrough(own, third));
    expect(jwksFetches(), 'the rotated set is cached in turn').toBe(2);
  });

  it('refuses an ID token whose kid is in no JWKS, even after fetching the JWKS again', async () => {
    const { standIn, app: own } = await isolated();
    const first = createJar();
    await expectAccepted(own, first, await signInThrough(own, first));
    await standIn.rotateSigningKey({ publish: false });
    const jar = createJar();
    await expectRefused(own, jar, await signInThrough(own, jar), { message: signatureRefused, cause: /no applicable key found/ });
    expect(standIn.requests.filter((request) => request === 'GET /jwks')).toHaveLength(2);
  });
});

describe('ID tokens from a custom token.request', () => {
  /** A custom token request that redeems the code at the stand-in itself, as a user's handler might. */
  function customTokenRequest(standIn: OidcStandIn): Partial<OIDCUserConfig> {
    return {
      token: {
        url: `${standIn.issuer}/token`,
        async request({ params, checks }) {
          const body = new URLSearchParams({ grant_type: 'authorization_code', code: params['code'] ?? '', redirect_uri: params.redirect_uri, code_verifier: checks.code_verifier ?? '' });
          const basic = Buffer.from(`${standIn.client.id}:${standIn.client.secret}`).toString('base64');
          const response = await fetch(`${standIn.issuer}/token`, { method: 'POST', body, headers: { authorization: `Basic ${basic}` } });
          return { tokens: (await response.json()) as TokenSet };
        },
      },
    };
  }

  it('accepts an ID token from a custom token.request that the provider signed', async () => {
    const { app: own } = await isolated(() => {}, customTokenRequest);
    const jar = createJar();
    await expectAccepted(own, jar, await signInThrough(own, jar));
  });

  it('refuses an ID token from a custom token.request that a key outside the JWKS signed', async () => {
    const { app: own } = await isolated((standIn) => {
      standIn.behaviour = { signing: 'foreign-key' };
    }, customTokenRequest);
    const jar = createJar();
    await expectRefused(own, jar, await signInThrough(own, jar), { message: signatureRefused, cause: /signature verification failed/ });
  });
});
