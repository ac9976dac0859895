/**
 * Finishing an OAuth 2 / OpenID Connect sign-in: the authorization response is validated (state, `iss`), the code
 * exchanged with the PKCE verifier, the ID token checked (its signature: id-token.ts), the profile read from the ID
 * token or the userinfo endpoint, and mapped to a user and an account. Every protocol step is oauth4webapi's.
 * @see https://openid.net/specs/openid-connect-core-1_0.html#CodeFlowAuth
 */
import * as oauth from 'oauth4webapi';
import type { RequestContext, ResolvedOAuthProvider } from '../contracts.js';
import { isTrustedOrigin } from '../http/origin.js';
import { AccessDenied, InvalidCheck, InvalidEndpoints, OAuthCallbackError, OAuthProfileParseError } from '../errors.js';
import type { Account, Profile, TokenSet, User } from '../types.js';
import { consumeCheckCookie } from './check-cookies.js';
import { redirectUri } from './authorization-url.js';
import { verifyIdTokenSignature } from './id-token.js';
import { authorizationServer, httpOptions, oauthClient, withProviderTimeout } from './server.js';

/** What a completed OAuth callback yields. */
export interface OAuthCallbackResult {
  user: User;
  account: Account;
  profile: Profile;
}

/** Fields that hold credentials: left out of the copies `withoutSecrets` makes. */
const secretFields: readonly string[] = ['access_token', 'refresh_token', 'id_token', 'code_verifier', 'client_secret'];

/** The credentials of a token answer, for `withoutSecrets`. */
export function credentialsIn(answer: unknown): string[] {
  if (!answer || typeof answer !== 'object') return [];
  return secretFields.map((field) => (answer as Record<string, unknown>)[field]).filter((value): value is string => typeof value === 'string');
}

/**
 * A copy of `error`, to keep as the `cause` of ours (and so in logs), that holds no token, authorization code or
 * client secret. oauth4webapi's errors carry what they refused: the token answer's JSON, its `Response`, the
 * callback's parameters, a JWE. Kept down the `cause` chain: each error's class, `name`, `message`, `code` and
 * plain fields, and plain objects' fields; left out: credential fields, other objects (`Response`,
 * `URLSearchParams`), and `secrets` in any string (an `error_description` may quote what the provider was sent).
 */
export function withoutSecrets(error: unknown, secrets: ReadonlyArray<string | undefined> = []): Error | undefined {
  const copyOf = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return secrets.reduce<string>((text, secret) => (secret ? text.replaceAll(secret, '[redacted]') : text), value);
    if (typeof value === 'number' || typeof value === 'boolean') return value;
    if (typeof value !== 'object' || value === null || depth > 8) return undefined;
    const prototype = Object.getPrototypeOf(value) as object | null;
    if (!(value instanceof Error) && !Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return undefined;
    const fields: Record<string, PropertyDescriptor> = Object.getOwnPropertyDescriptors(value);
    if (value instanceof Error) {
      // JSON.parse's SyntaxError quotes the text it could not parse: a token answer in another format.
      const message = value instanceof SyntaxError ? '(left out: it quotes the text that did not parse)' : value.message;
      const frames = value.stack?.includes('\n    at ') ? value.stack.slice(value.stack.indexOf('\n    at ')) : '';
      const texts = { name: value.name, message, stack: `${value.name}: ${message}${frames}` };
      for (const [key, text] of Object.entries(texts)) fields[key] = { value: text, writable: true, configurable: true, enumerable: false };
    }
    // A DOMException (a timeout) reads its name and message from internal slots, which a copy does not have.
    const copy: object = Array.isArray(value) ? [] : Object.create(value instanceof DOMException ? Error.prototype : prototype);
    for (const [key, field] of Object.entries(fields)) {
      const kept = secretFields.includes(key) ? undefined : copyOf(field.value, depth + 1);
      if (kept !== undefined) Object.defineProperty(copy, key, { ...field, value: kept });
    }
    return copy;
  };
  const copy = copyOf(error, 0);
  return copy instanceof Error ? copy : undefined;
}

/** Adds `expires_at` (seconds since the epoch) from `expires_in`, and lowercases `token_type`. */
export function normaliseTokens(tokens: TokenSet): TokenSet {
  const normalised: Record<string, unknown> = { ...tokens };
  if (typeof tokens.expires_in === 'number' && tokens.expires_at === undefined) {
    normalised['expires_at'] = Math.floor(Date.now() / 1000) + tokens.expires_in;
  }
  if (typeof tokens.token_type === 'string') normalised['token_type'] = tokens.token_type.toLowerCase();
  return normalised as TokenSet;
}

/**
 * A token answer read once: its JSON object, or null (not JSON, not an object), for `withoutIdToken` and the secrets,
 * and the same answer unread for oauth4webapi (cheaper than `clone()`, whose two streams Node 20 builds slowly).
 */
export async function tokenAnswer(response: Response): Promise<{ answer: Record<string, unknown> | null; response: Response }> {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: oauth4webapi says what is wrong with it.
  }
  const answer = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  const init = { status: response.status, headers: response.headers };
  return { answer, response: new Response([204, 205, 304].includes(response.status) ? null : text, init) };
}

/** `response` without the `id_token` of its `answer` (when a successful answer has one), for an ID token not validated. */
export function withoutIdToken(response: Response, answer: Record<string, unknown> | null): Response {
  if (!response.ok || !answer || !('id_token' in answer)) return response;
  const { id_token: _unvalidated, ...rest } = answer;
  return new Response(JSON.stringify(rest), { status: response.status, headers: response.headers });
}

/**
 * The userinfo answer of a plain OAuth 2 provider. Only OpenID Connect requires a `sub` claim; GitHub, Discord,
 * GitLab and the microblog network answer with their own JSON (`id`, or `data.id`), as Auth.js reads it.
 */
async function readOAuthProfile(response: Response): Promise<Profile> {
  if (response.status !== 200) throw new Error(`the userinfo endpoint answered HTTP ${response.status}`);
  const body: unknown = await response.json();
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('the userinfo endpoint did not answer a JSON object');
  return body as Profile;
}

/** When the sign-in started: the earliest issue time (`iat`) of its check cookies, if they carry one. */
function startOf(cookies: ReadonlyArray<Record<string, unknown> | undefined>): number | undefined {
  const times = cookies.map((cookie) => cookie?.['iat']).filter((iat): iat is number => typeof iat === 'number' && Number.isFinite(iat));
  return times.length > 0 ? Math.min(...times) : undefined;
}

/**
 * An ID token issued before this sign-in started (beyond oauth4webapi's clock tolerance, 30 s unless
 * `client[oauth.clockTolerance]` says otherwise) was not minted for it: OpenID Connect Core §3.1.3.7 rule 10 lets the
 * client bound `iat`, and the start of the flow is the tightest bound there is. oauth4webapi checks that `iat` is
 * present and a number, not how old it is.
 */
function refuseStaleIdToken(claims: oauth.IDToken, client: oauth.Client, signInStartedAt: number | undefined): void {
  const tolerance = client[oauth.clockTolerance];
  const leeway = typeof tolerance === 'number' && Number.isFinite(tolerance) && tolerance >= 0 ? tolerance : 30;
  if (signInStartedAt !== undefined && claims.iat < signInStartedAt - leeway) {
    throw new Error(`the ID token "iat" (issued at ${claims.iat}) is older than this sign-in (started at ${signInStartedAt})`);
  }
}

/** Runs the callback of `provider` with the authorization response `parameters`. */
export async function handleOAuthCallback(
  context: RequestContext,
  provider: ResolvedOAuthProvider,
  parameters: URLSearchParams,
): Promise<OAuthCallbackResult> {
  const { cookieOptions, options } = context;
  const as = await authorizationServer(provider);
  const { client, clientAuth } = oauthClient(provider);

  const checks: { state?: string; code_verifier?: string; nonce?: string } = {};
  // Every check cookie is read and deleted before the first failure is thrown, so that a callback refused for one
  // check cannot leave the others behind to be replayed.
  const wanted = ([
    { name: 'state', option: cookieOptions.state, check: 'state' },
    { name: 'code_verifier', option: cookieOptions.pkceCodeVerifier, check: 'PKCE verifier' },
    { name: 'nonce', option: cookieOptions.nonce, check: 'nonce' },
  ] as const).filter(({ name }) => provider.checks.includes(name === 'code_verifier' ? 'pkce' : name));
  const results = await Promise.allSettled(wanted.map(({ option, check }) => consumeCheckCookie(context, option, check, provider.id)));
  const consumed: Record<string, unknown>[] = [];
  for (const [index, result] of results.entries()) {
    if (result.status === 'rejected') throw result.reason;
    checks[wanted[index]!.name] = String(result.value['value'] ?? '');
    consumed.push(result.value);
  }
  const signInStartedAt = startOf(consumed);
  // Left out of the errors (see withoutSecrets), with the tokens once they are known.
  const secrets = [parameters.get('code') ?? undefined, provider.clientSecret, checks.code_verifier];

  const received = new URLSearchParams(parameters);
  if (!provider.issuer && !provider.wellKnown) {
    // Explicit endpoints without a configured issuer: there is nothing to compare `iss` with.
    received.delete('iss');
  }
  let callbackParameters: URLSearchParams;
  try {
    callbackParameters = oauth.validateAuthResponse(as, client, received, checks.state ?? oauth.skipStateCheck);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      const ErrorClass = error.error === 'access_denied' ? AccessDenied : OAuthCallbackError;
      throw new ErrorClass(`Provider "${provider.id}" answered the sign-in with "${error.error}"`, { cause: withoutSecrets(error, secrets) });
    }
    throw new InvalidCheck(`Provider "${provider.id}": the authorization response failed validation`, { cause: withoutSecrets(error, secrets) });
  }

  const redirect_uri = redirectUri(context, provider);
  let tokens: TokenSet;
  let idTokenClaims: oauth.IDToken | undefined;
  const processOptions: oauth.ProcessAuthorizationCodeResponseOptions = {
    expectedNonce: checks.nonce ?? oauth.expectNoNonce,
    requireIdToken: provider.type === 'oidc',
  };
  try {
    let processed: oauth.TokenEndpointResponse | undefined;
    if (provider.token.request) {
      const result = await provider.token.request({
        checks,
        params: { ...Object.fromEntries(callbackParameters), redirect_uri },
        provider: provider.config,
      });
      tokens = result.tokens;
      secrets.push(...credentialsIn(tokens));
      if (provider.type === 'oidc') {
        // A custom token request still gets its ID token validated like any other.
        const response = new Response(JSON.stringify(tokens), { status: 200, headers: { 'content-type': 'application/json' } });
        processed = await oauth.processAuthorizationCodeResponse(as, client, response, processOptions);
      }
    } else {
      if (!as.token_endpoint) throw new InvalidEndpoints(`Provider "${provider.id}" has no token endpoint`);
      const { answer, response } = await withProviderTimeout(async (signal) =>
        tokenAnswer(await oauth.authorizationCodeGrantRequest(as, client, clientAuth, callbackParameters, redirect_uri, checks.code_verifier ?? oauth.nopkce, httpOptions(provider, as.token_endpoint, signal))),
      );
      secrets.push(...credentialsIn(answer));
      // A plain OAuth 2 provider without a configured issuer or without a JWKS may still return an ID token (some do,
      // unasked). With nothing to validate it against, it is dropped rather than trusted or wrongly refused.
      const verifiable = Boolean(provider.issuer || provider.wellKnown) && Boolean(as.jwks_uri);
      const accepted = provider.type === 'oauth' && !verifiable ? withoutIdToken(response, answer) : response;
      processed = await oauth.processAuthorizationCodeResponse(as, client, accepted, processOptions);
      tokens = processed as TokenSet;
    }
    idTokenClaims = processed && oauth.getValidatedIdTokenClaims(processed);
    if (processed?.id_token) {
      const idToken = processed.id_token;
      await verifyIdTokenSignature(provider, as, client, idToken).catch((error: unknown) => {
        throw new OAuthCallbackError(`Provider "${provider.id}": the ID token signature did not verify against the provider's keys (jwks_uri)`, { cause: withoutSecrets(error, [idToken]) });
      });
    }
    if (idTokenClaims) refuseStaleIdToken(idTokenClaims, client, signInStartedAt);
  } catch (error) {
    if (error instanceof InvalidEndpoints || error instanceof OAuthCallbackError) throw error;
    throw new OAuthCallbackError(`Provider "${provider.id}": the token exchange failed`, { cause: withoutSecrets(error, secrets) });
  }
  tokens = normaliseTokens(tokens);

  let profile: Profile;
  try {
    if (provider.userinfo.request) {
      profile = await provider.userinfo.request({ tokens, provider: provider.config });
    } else if (provider.type === 'oidc' && provider.idToken && idTokenClaims) {
      profile = { ...idTokenClaims } as Profile;
    } else {
      if (!as.userinfo_endpoint) throw new InvalidEndpoints(`Provider "${provider.id}" has no userinfo endpoint`);
      if (!tokens.access_token) throw new OAuthCallbackError(`Provider "${provider.id}" returned no access token`);
      const response = await oauth.userInfoRequest(as, client, tokens.access_token, httpOptions(provider, as.userinfo_endpoint));
      profile = provider.type === 'oidc'
        ? ((await oauth.processUserInfoResponse(as, client, idTokenClaims?.sub ?? oauth.skipSubjectCheck, response)) as Profile)
        : await readOAuthProfile(response);
    }
  } catch (error) {
    if (error instanceof InvalidEndpoints || error instanceof OAuthCallbackError) throw error;
    throw new OAuthCallbackError(`Provider "${provider.id}": reading the user profile failed`, { cause: withoutSecrets(error, secrets) });
  }

  let user: User;
  try {
    user = await provider.profile(profile, tokens);
  } catch (error) {
    throw new OAuthProfileParseError(`Provider "${provider.id}": profile() failed`, { cause: withoutSecrets(error, secrets) });
  }
  if (!user || user.id === undefined || user.id === null || String(user.id) === '') {
    throw new OAuthProfileParseError(`Provider "${provider.id}": profile() returned no id`);
  }
  user = { ...user, id: String(user.id) };
  const account: Account = {
    ...normaliseTokens((provider.account(tokens) ?? {}) as TokenSet),
    provider: provider.id,
    type: provider.type,
    providerAccountId: user.id as string,
  };
  options.logger.debug('oauth callback completed', { provider: provider.id });
  return { user, account, profile };
}

/**
 * On the redirect proxy: a callback whose (encrypted, so unforgeable) state names another origin's callback URL is
 * forwarded there with its parameters. Returns that URL, or null when the callback is for this app. The target
 * must be on this app's `trustHost` list: the parameters carry an authorization code, so the proxy forwards only to
 * origins it was told about, whatever the state says.
 */
export async function proxiedCallbackTarget(context: RequestContext, parameters: URLSearchParams): Promise<string | null> {
  const state = parameters.get('state');
  if (!state || state.split('.').length !== 5) return null;
  let origin: string | undefined;
  try {
    const payload = await context.options.jwt.decode({ token: state, secret: context.options.secrets, salt: context.cookieOptions.state.name });
    origin = typeof payload?.['origin'] === 'string' ? payload['origin'] : undefined;
  } catch {
    return null;
  }
  if (!origin || !URL.canParse(origin)) return null;
  const target = new URL(origin);
  if (target.origin === context.origin) return null;
  if (!isTrustedOrigin(context.options.trustedHosts, target.origin)) {
    throw new InvalidCheck(`The redirect proxy does not forward to ${target.origin}: it is not on the trustHost list`);
  }
  target.search = parameters.toString();
  return target.href;
}
