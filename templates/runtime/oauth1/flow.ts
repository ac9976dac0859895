/**
 * The OAuth 1.0a sign-in (a provider with `version: '1.0A'`; of the built-in ones only the microblog network):
 * temporary credentials (request token) → the user authorizes → token credentials (access token) → a signed
 * userinfo request. The request token's secret travels in the encrypted state cookie, and the callback must bring
 * back the same request token, which binds it to the browser that started the sign-in.
 * @see https://www.rfc-editor.org/rfc/rfc5849#section-2
 */
import type { RequestContext, ResolvedOAuthProvider } from '../contracts.js';
import { actionUrl } from '../context.js';
import { safeEqual } from '../http/safe-equal.js';
import type { OAuthProtocol } from '../flow.js';
import { AccessDenied, InvalidCheck, InvalidEndpoints, OAuthCallbackError, OAuthProfileParseError, OAuthSignInError } from '../errors.js';
import type { OAuthCallbackResult } from '../oauth/callback.js';
import { consumeCheckCookie, writeCheckCookie } from '../oauth/check-cookies.js';
import { PROVIDER_TIMEOUT_MS, isSecureOrLoopback } from '../oauth/server.js';
import type { Account, Profile, TokenSet, User } from '../types.js';
import { authorizationHeader, signRequest } from './signature.js';

interface Credentials {
  consumerKey: string;
  consumerSecret: string;
}

function credentialsOf(provider: ResolvedOAuthProvider): Credentials {
  if (!provider.clientId) throw new OAuthSignInError(`Provider "${provider.id}" has no client id: set ${provider.env.id} in .env`);
  if (!provider.clientSecret) throw new OAuthSignInError(`Provider "${provider.id}" has no client secret: set ${provider.env.secret} in .env`);
  return { consumerKey: provider.clientId, consumerSecret: provider.clientSecret };
}

function endpoint(provider: ResolvedOAuthProvider, name: string, url: string | undefined): URL {
  if (!url) throw new InvalidEndpoints(`Provider "${provider.id}" (OAuth 1.0a) has no ${name} URL`);
  const parsed = new URL(url);
  // The same rule as for OAuth 2: plain HTTP only for a provider on this machine.
  if (!isSecureOrLoopback(url)) {
    throw new InvalidEndpoints(`Provider "${provider.id}": the ${name} URL must use https (got ${parsed.origin})`);
  }
  return parsed;
}

/** A signed request to the provider; returns the response body, or throws naming the step and the HTTP status. */
async function signedRequest(
  provider: ResolvedOAuthProvider,
  step: string,
  request: { method: 'GET' | 'POST'; url: URL; token?: string; tokenSecret?: string; oauthParams?: Record<string, string> },
): Promise<string> {
  const oauthParams = signRequest({ ...credentialsOf(provider), ...request });
  const init: RequestInit = {
    method: request.method,
    headers: { authorization: authorizationHeader(oauthParams), accept: 'application/json, application/x-www-form-urlencoded' },
    signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
  };
  const response = await (provider.customFetch ?? fetch)(request.url.href, init);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${step} answered HTTP ${response.status}`);
  return body;
}

/**
 * Step 1 (POST `<mount>/signin/<provider>`): obtains a request token for this app's callback URL, stores its secret
 * in the state cookie and returns the provider's authorization URL. `redirectProxyUrl` does not apply: the callback
 * has no state through which a proxy could forward it.
 */
export async function createOAuth1AuthorizationUrl(context: RequestContext, provider: ResolvedOAuthProvider): Promise<string> {
  const requestTokenUrl = endpoint(provider, 'request token', provider.config.requestTokenUrl);
  const authorizationUrl = endpoint(provider, 'authorization', provider.authorization.url);
  let temporary: URLSearchParams;
  try {
    const body = await signedRequest(provider, 'The request token endpoint', {
      method: 'POST',
      url: requestTokenUrl,
      oauthParams: { oauth_callback: actionUrl(context, `callback/${provider.id}`) },
    });
    temporary = new URLSearchParams(body);
  } catch (error) {
    if (error instanceof OAuthSignInError) throw error;
    throw new OAuthSignInError(`Provider "${provider.id}": obtaining a request token failed`, { cause: error instanceof Error ? error : undefined });
  }
  const token = temporary.get('oauth_token');
  const tokenSecret = temporary.get('oauth_token_secret');
  // §2.1: a provider that did not confirm the callback would send the user elsewhere.
  if (!token || !tokenSecret || temporary.get('oauth_callback_confirmed') !== 'true') {
    throw new OAuthSignInError(`Provider "${provider.id}": the request token answer lacks oauth_token, oauth_token_secret or oauth_callback_confirmed=true`);
  }
  await writeCheckCookie(context, context.cookieOptions.state, provider.id, { oauth_token: token, oauth_token_secret: tokenSecret });
  const url = new URL(authorizationUrl);
  for (const [key, value] of Object.entries(provider.authorization.params)) url.searchParams.set(key, value);
  url.searchParams.set('oauth_token', token);
  context.options.logger.debug('oauth 1.0a authorization url created', { provider: provider.id });
  return url.href;
}

/**
 * Steps 2 and 3 (GET `<mount>/callback/<provider>?oauth_token=…&oauth_verifier=…`): exchanges the verifier for
 * the access token and its secret, reads the profile with a signed GET of the userinfo URL, and maps it. The
 * account holds `oauth_token` and `oauth_token_secret` (unless the provider's `account()` says otherwise).
 */
export async function handleOAuth1Callback(
  context: RequestContext,
  provider: ResolvedOAuthProvider,
  parameters: URLSearchParams,
): Promise<OAuthCallbackResult> {
  const stored = await consumeCheckCookie(context, context.cookieOptions.state, 'OAuth 1.0a request token', provider.id);
  const storedToken = typeof stored['oauth_token'] === 'string' ? stored['oauth_token'] : '';
  const storedSecret = typeof stored['oauth_token_secret'] === 'string' ? stored['oauth_token_secret'] : '';
  // The microblog network answers a cancelled authorization with `denied=<request token>`.
  if (parameters.has('denied')) throw new AccessDenied(`Provider "${provider.id}": the user did not authorize the app`);
  const token = parameters.get('oauth_token') ?? '';
  const verifier = parameters.get('oauth_verifier');
  if (!storedToken || !safeEqual(token, storedToken)) {
    throw new InvalidCheck(`Provider "${provider.id}": the callback's oauth_token is not the request token of this browser's sign-in`);
  }
  if (!verifier) throw new OAuthCallbackError(`Provider "${provider.id}": the callback has no oauth_verifier`);

  let tokens: TokenSet;
  try {
    const body = await signedRequest(provider, 'The access token endpoint', {
      method: 'POST',
      url: endpoint(provider, 'access token', provider.token.url),
      token: storedToken,
      tokenSecret: storedSecret,
      oauthParams: { oauth_verifier: verifier },
    });
    tokens = Object.fromEntries(new URLSearchParams(body)) as TokenSet;
  } catch (error) {
    if (error instanceof InvalidEndpoints || error instanceof OAuthSignInError) throw error;
    throw new OAuthCallbackError(`Provider "${provider.id}": the access token request failed`, { cause: error instanceof Error ? error : undefined });
  }
  if (!tokens.oauth_token || !tokens.oauth_token_secret) {
    throw new OAuthCallbackError(`Provider "${provider.id}": the access token answer lacks oauth_token or oauth_token_secret`);
  }

  let profile: Profile;
  try {
    const body = await signedRequest(provider, 'The userinfo endpoint', {
      method: 'GET',
      url: endpoint(provider, 'userinfo', provider.userinfo.url),
      token: tokens.oauth_token,
      tokenSecret: tokens.oauth_token_secret,
    });
    const parsed: unknown = JSON.parse(body);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the userinfo endpoint did not answer a JSON object');
    profile = parsed as Profile;
  } catch (error) {
    if (error instanceof InvalidEndpoints || error instanceof OAuthSignInError) throw error;
    throw new OAuthCallbackError(`Provider "${provider.id}": reading the user profile failed`, { cause: error instanceof Error ? error : undefined });
  }

  let user: User;
  try {
    user = await provider.profile(profile, tokens);
  } catch (error) {
    throw new OAuthProfileParseError(`Provider "${provider.id}": profile() failed`, { cause: error instanceof Error ? error : undefined });
  }
  if (!user || user.id === undefined || user.id === null || String(user.id) === '') {
    throw new OAuthProfileParseError(`Provider "${provider.id}": profile() returned no id`);
  }
  user = { ...user, id: String(user.id) };
  // The default account() keeps OAuth 2 fields; OAuth 1.0a's tokens are these two (seed §5 rule 6).
  const kept = provider.config.account ? (provider.config.account(tokens) ?? {}) : { oauth_token: tokens.oauth_token, oauth_token_secret: tokens.oauth_token_secret };
  const account: Account = { ...kept, provider: provider.id, type: provider.type, providerAccountId: user.id as string };
  context.options.logger.debug('oauth 1.0a callback completed', { provider: provider.id });
  return { user, account, profile };
}

/** The OAuth 1.0a flow, which the microblog provider brings for `version: '1.0A'`. */
export const oauth1Protocol: OAuthProtocol = {
  authorizationUrl: (context, provider) => createOAuth1AuthorizationUrl(context, provider),
  callback: handleOAuth1Callback,
};
