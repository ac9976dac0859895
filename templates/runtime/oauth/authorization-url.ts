/**
 * Starting an OAuth 2 / OpenID Connect sign-in: the authorization URL with PKCE, state and nonce as the provider's
 * `checks` require, and the cookies that remember them (each bound to the provider, see check-cookies.ts).
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1
 * @see https://www.rfc-editor.org/rfc/rfc7636
 */
import * as oauth from 'oauth4webapi';
import type { RequestContext, ResolvedOAuthProvider } from '../contracts.js';
import { actionUrl, configuredActionUrl } from '../context.js';
import { InvalidEndpoints } from '../errors.js';
import { writeCheckCookie } from './check-cookies.js';
import { authorizationServer, oauthClient } from './server.js';

/** Parameters a sign-in request may not override: they carry the security of the flow. */
const reservedParameters = new Set(['client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'state', 'nonce', 'request', 'request_uri']);

/** The callback URL the provider redirects to: this app's, or the redirect proxy's. */
export function redirectUri(context: RequestContext, provider: ResolvedOAuthProvider): string {
  if (provider.redirectProxyUrl) return `${provider.redirectProxyUrl.replace(/\/+$/, '')}/callback/${provider.id}`;
  return actionUrl(context, `callback/${provider.id}`);
}

/**
 * Builds the authorization URL and queues the check cookies. `extraParams` are the sign-in request's query
 * parameters (`login_hint`, `prompt`, …), passed on except the reserved ones.
 */
export async function createAuthorizationUrl(
  context: RequestContext,
  provider: ResolvedOAuthProvider,
  extraParams: URLSearchParams,
): Promise<string> {
  const as = await authorizationServer(provider);
  const { client } = oauthClient(provider);
  if (!as.authorization_endpoint) {
    throw new InvalidEndpoints(`Provider "${provider.id}" has no authorization endpoint`);
  }
  const url = new URL(as.authorization_endpoint);
  const params = url.searchParams;
  const defaults: Record<string, string> = provider.type === 'oidc' ? { scope: 'openid profile email' } : {};
  for (const [key, value] of Object.entries({ ...defaults, ...provider.authorization.params })) params.set(key, value);
  for (const [key, value] of extraParams) {
    if (!reservedParameters.has(key) && key !== 'callbackUrl' && key !== 'csrfToken') params.set(key, value);
  }
  params.set('response_type', 'code');
  params.set('client_id', client.client_id);
  params.set('redirect_uri', redirectUri(context, provider));

  const { cookieOptions } = context;
  if (provider.checks.includes('pkce')) {
    const verifier = oauth.generateRandomCodeVerifier();
    params.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    params.set('code_challenge_method', 'S256');
    await writeCheckCookie(context, cookieOptions.pkceCodeVerifier, provider.id, { value: verifier });
  }
  if (provider.checks.includes('state')) {
    let state = oauth.generateRandomState();
    if (provider.redirectProxyUrl) {
      // The proxy has none of this origin's cookies: the state itself carries where to forward the callback,
      // encrypted with the shared secret so that it cannot be forged, and built on the configured origin so that
      // no Host header can send someone's authorization code elsewhere.
      state = await context.options.jwt.encode({
        token: { random: state, origin: configuredActionUrl(context, `callback/${provider.id}`) },
        secret: context.options.secrets,
        salt: cookieOptions.state.name,
        maxAge: cookieOptions.state.options.maxAge ?? 900,
      });
    }
    params.set('state', state);
    await writeCheckCookie(context, cookieOptions.state, provider.id, { value: state });
  }
  if (provider.checks.includes('nonce')) {
    const nonce = oauth.generateRandomNonce();
    params.set('nonce', nonce);
    await writeCheckCookie(context, cookieOptions.nonce, provider.id, { value: nonce });
  }
  context.options.logger.debug('authorization url created', { provider: provider.id, checks: provider.checks });
  return url.href;
}
