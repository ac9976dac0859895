/**
 * The refresh token grant, by oauth4webapi, against the token endpoint and with the client authentication that the
 * sign-in uses (discovered or configured: server.ts).
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-6
 */
import * as oauth from 'oauth4webapi';
import { InvalidEndpoints } from '../errors.js';
import type { ResolvedOAuthProvider } from '../providers/resolve.js';
import type { TokenSet } from '../types.js';
import { normaliseTokens } from './callback.js';
import { authorizationServer, httpOptions, oauthClient } from './server.js';

/**
 * The refresh answer without its ID token. `getAccessToken` needs the access token; the account keeps the ID token
 * of the sign-in, whose signature and nonce were checked. An unused ID token is not validated, so a plain OAuth 2
 * provider that sends one it cannot be checked against does not fail the refresh either.
 */
async function withoutIdToken(response: Response): Promise<Response> {
  if (!response.ok) return response;
  const body = (await response.clone().json().catch(() => null)) as Record<string, unknown> | null;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('id_token' in body)) return response;
  const { id_token: _unused, ...rest } = body;
  return new Response(JSON.stringify(rest), { status: response.status, headers: response.headers });
}

/**
 * Exchanges `refreshToken` for new tokens, mapped by the provider's `account()` as at sign-in, with `expires_at`
 * computed. Throws oauth4webapi's `ResponseBodyError` when the provider answers with an OAuth error
 * (`invalid_grant`: the refresh token is no longer valid), and other errors when it cannot be reached or answers
 * something else.
 */
export async function refreshTokenGrant(provider: ResolvedOAuthProvider, refreshToken: string): Promise<TokenSet> {
  const as = await authorizationServer(provider);
  if (!as.token_endpoint) throw new InvalidEndpoints(`Provider "${provider.id}" has no token endpoint to refresh tokens at`);
  const { client, clientAuth } = oauthClient(provider);
  const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, httpOptions(provider, as.token_endpoint));
  const processed = await oauth.processRefreshTokenResponse(as, client, await withoutIdToken(response));
  const tokens = normaliseTokens(processed as TokenSet);
  const kept = normaliseTokens((provider.account(tokens) ?? {}) as TokenSet);
  if (typeof kept.access_token !== 'string') throw new Error(`provider "${provider.id}": its account() kept no access_token of the refresh answer`);
  return kept;
}
