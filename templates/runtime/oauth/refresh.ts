/**
 * The refresh token grant, by oauth4webapi, against the token endpoint and with the client authentication that the
 * sign-in uses (discovered or configured: server.ts).
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-6
 */
import * as oauth from 'oauth4webapi';
import { InvalidEndpoints } from '../errors.js';
import type { ResolvedOAuthProvider } from '../contracts.js';
import type { TokenSet } from '../types.js';
import { credentialsIn, normaliseTokens, tokenAnswer, withoutIdToken, withoutSecrets } from './callback.js';
import { authorizationServer, httpOptions, oauthClient } from './server.js';

/** The refresh token of a refused answer, by the error thrown for it (see `rotatedRefreshToken`). */
const rotatedBy = new WeakMap<Error, string>();

/**
 * The new refresh token of a refresh answer that was refused after the provider had rotated the refresh token (HTTP
 * 200 with a `refresh_token` but, say, no `access_token` or a `token_type` oauth4webapi does not support): the one
 * sent is spent, so the caller stores this one. It is kept beside the error, not in it: no error holds a token.
 */
export function rotatedRefreshToken(error: unknown): string | undefined {
  return error instanceof Error ? rotatedBy.get(error) : undefined;
}

/**
 * Exchanges `refreshToken` for new tokens, mapped by the provider's `account()` as at sign-in, with `expires_at`
 * computed. Throws oauth4webapi's `ResponseBodyError` when the provider answers with an OAuth error
 * (`invalid_grant`: the refresh token is no longer valid), and other errors when it cannot be reached or answers
 * something else; an answer's errors are copies without its tokens (`withoutSecrets`).
 */
export async function refreshTokenGrant(provider: ResolvedOAuthProvider, refreshToken: string): Promise<TokenSet> {
  const as = await authorizationServer(provider);
  if (!as.token_endpoint) throw new InvalidEndpoints(`Provider "${provider.id}" has no token endpoint to refresh tokens at`);
  const { client, clientAuth } = oauthClient(provider);
  const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, httpOptions(provider, as.token_endpoint));
  const answer = await tokenAnswer(response);
  try {
    // Without its ID token: `getAccessToken` needs the access token, and the account keeps the ID token of the
    // sign-in, whose signature and nonce were checked. An unused ID token is not validated, so a plain OAuth 2
    // provider that sends one it cannot be checked against does not fail the refresh either.
    const processed = await oauth.processRefreshTokenResponse(as, client, withoutIdToken(response, answer));
    const tokens = normaliseTokens(processed as TokenSet);
    const kept = normaliseTokens((provider.account(tokens) ?? {}) as TokenSet);
    if (typeof kept.access_token !== 'string') throw new Error(`provider "${provider.id}": its account() kept no access_token of the refresh answer`);
    return kept;
  } catch (error) {
    const secrets = [refreshToken, provider.clientSecret, ...credentialsIn(answer)];
    const refused = withoutSecrets(error, secrets) ?? new Error(`provider "${provider.id}": the refresh answer was refused`);
    if (response.ok && typeof answer?.['refresh_token'] === 'string') rotatedBy.set(refused, answer['refresh_token']);
    throw refused;
  }
}
