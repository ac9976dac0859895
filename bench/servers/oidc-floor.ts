/**
 * The floor of an OpenID Connect code + PKCE sign-in on Express, not an auth library: bare Express 5, oauth4webapi,
 * jose and our runtime's session `encode`/`decode` (jose's A256CBC-HS512, as the SPEC fixes the cookies), answering
 * the three requests of the bench's `oidcSignIn` as ours does:
 * - `GET /auth/csrf`: 32 random bytes, one SHA-256 of the token and AUTH_SECRET, the cookie and the JSON (as bare.ts's
 *   `/csrf`);
 * - `POST /auth/signin/oidc`: the CSRF double submit checked in constant time, a PKCE verifier and its challenge
 *   (oauth4webapi), the verifier encrypted into its cookie, the same-origin callbackUrl in a plain cookie, and a 302
 *   to the authorization endpoint (discovered once at start);
 * - `GET /auth/callback/oidc`: the verifier cookie decrypted and deleted, the authorization response validated, the
 *   code exchanged and the token answer processed by oauth4webapi with the calls our runtime makes, the ID token's
 *   signature checked by jose against the provider's key set (as id-token.ts does), the session cookie encrypted with
 *   `sub`, `name`, `email` and `picture`, and a 302 to the callbackUrl.
 * Left out: config resolution, state and nonce, the provider recorded in the check cookie, the ID token's age check,
 * timeouts, callbacks, events, account linking, error mapping and pages (any failure answers 400 with a short text).
 * AUTH_URL names its origin (the bench picks the port first), as the scaffolded app's does.
 */
import { timingSafeEqual } from 'node:crypto';
import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { compactVerify, createRemoteJWKSet } from 'jose';
import * as oauth from 'oauth4webapi';
import { decode, encode } from '../../templates/runtime/session/jwt.js';
import { serve } from './child.js';
import { cookieOf, csrfHash, sendCsrfToken } from './floor-parts.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
};
const secret = env('AUTH_SECRET');
const origin = new URL(env('AUTH_URL')).origin;
const issuer = new URL(env('AUTH_OIDC_ISSUER'));
const client: oauth.Client = { client_id: env('AUTH_OIDC_ID') };
const clientAuth = oauth.ClientSecretBasic(env('AUTH_OIDC_SECRET'));
const redirectUri = `${origin}/auth/callback/oidc`;
// The bench's provider listens on plain HTTP on 127.0.0.1.
const http = { [oauth.allowInsecureRequests]: true };

const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...http, algorithm: 'oidc' }));
const { authorization_endpoint: authorizationEndpoint, jwks_uri: jwksUri } = as;
if (!authorizationEndpoint || !jwksUri) throw new Error('the provider announces no authorization endpoint or jwks_uri');
const keys = createRemoteJWKSet(new URL(jwksUri));
const algorithms = (as.id_token_signing_alg_values_supported ?? ['RS256']).filter((alg) => alg !== 'none' && !/^HS\d+$/.test(alg));

const CSRF = 'authjs.csrf-token';
const VERIFIER = 'authjs.pkce.code_verifier';
const CALLBACK_URL = 'authjs.callback-url';
const SESSION = 'authjs.session-token';
const SESSION_MAX_AGE = 30 * 24 * 60 * 60;

const cookie = (name: string, value: string, maxAge?: number): string =>
  `${name}=${value}; Path=/; HttpOnly; SameSite=Lax${maxAge === undefined ? '' : `; Max-Age=${maxAge}`}`;
const sameText = (a: string, b: string): boolean => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** `url` resolved against this app's origin, or undefined when it leads elsewhere. */
function sameOrigin(url: string): string | undefined {
  const target = URL.canParse(url, origin) ? new URL(url, origin) : undefined;
  return target?.origin === origin ? target.href : undefined;
}

function refuse(res: Response, text: string): void {
  res.status(400).type('text/plain').send(text);
}

const app = express();
app.get('/auth/csrf', (_req, res) => {
  sendCsrfToken(res, secret);
});

app.post('/auth/signin/oidc', express.urlencoded({ extended: false }), async (req, res) => {
  const body = (req.body ?? {}) as { csrfToken?: unknown; callbackUrl?: unknown };
  const [cookieToken = '', cookieHash = ''] = (cookieOf(req, CSRF) ?? '').split('%7C');
  const sent = typeof body.csrfToken === 'string' ? body.csrfToken : '';
  if (!cookieToken || !sameText(sent, cookieToken) || !sameText(cookieHash, csrfHash(cookieToken, secret))) return refuse(res, 'the CSRF token does not match');
  const callbackUrl = sameOrigin(typeof body.callbackUrl === 'string' ? body.callbackUrl : '/');
  if (!callbackUrl) return refuse(res, 'the callbackUrl is not on this origin');

  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(authorizationEndpoint);
  const parameters = {
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid profile email',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  };
  for (const [key, value] of Object.entries(parameters)) url.searchParams.set(key, value);
  res.append('Set-Cookie', cookie(VERIFIER, await encode({ token: { value: verifier }, secret, salt: VERIFIER, maxAge: 900 }), 900));
  res.append('Set-Cookie', cookie(CALLBACK_URL, encodeURIComponent(callbackUrl)));
  res.redirect(302, url.href);
});

app.get('/auth/callback/oidc', async (req, res) => {
  const sealed = cookieOf(req, VERIFIER);
  // Single use: deleted whatever happens next.
  res.append('Set-Cookie', cookie(VERIFIER, '', 0));
  const check = sealed ? await decode<{ value?: unknown }>({ token: sealed, secret, salt: VERIFIER }) : null;
  if (typeof check?.value !== 'string') return refuse(res, 'the PKCE verifier cookie is missing');

  const parameters = oauth.validateAuthResponse(as, client, new URL(req.url, origin), oauth.skipStateCheck);
  const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, parameters, redirectUri, check.value, http);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: oauth.expectNoNonce, requireIdToken: true });
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  if (!claims || !tokens.id_token) return refuse(res, 'the provider answered no ID token');
  // oauth4webapi validates the claims, not the signature (OpenID Connect Core §3.1.3.7): ours checks it, so does the floor.
  await compactVerify(tokens.id_token, keys, { algorithms });

  const session = { sub: claims.sub, name: claims['name'], email: claims['email'], picture: claims['picture'] };
  res.append('Set-Cookie', cookie(SESSION, await encode({ token: session, secret, salt: SESSION, maxAge: SESSION_MAX_AGE }), SESSION_MAX_AGE));
  const target = cookieOf(req, CALLBACK_URL);
  res.redirect(302, (target && sameOrigin(decodeURIComponent(target))) ?? origin);
});

// oauth4webapi's and jose's refusals, a cookie that does not decrypt: one short answer, never a 500.
app.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => refuse(res, 'the OIDC sign-in failed'));

serve(app);
