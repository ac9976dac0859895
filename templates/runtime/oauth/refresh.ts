/**
 * The refresh token grant, by oauth4webapi with the sign-in's token endpoint and client authentication (server.ts), and
 * what the JWT session's access-token.ts and the database feature's share around it: when a token needs a refresh, one
 * refresh per token at a time, and the `RefreshTokenError` of each way it fails.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-6
 */
import { createHmac } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { InvalidEndpoints, RefreshTokenError } from '../errors.js';
import type { ResolvedConfig, ResolvedOAuthProvider } from '../contracts.js';
import type { TokenSet } from '../types.js';
import { credentialsIn, normaliseTokens, tokenAnswer, withoutIdToken, withoutSecrets } from './callback.js';
import { authorizationServer, httpOptions, oauthClient, withProviderTimeout } from './server.js';

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
  const { answer, response } = await withProviderTimeout(async (signal) =>
    tokenAnswer(await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, httpOptions(provider, as.token_endpoint, signal))),
  );
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

/** An access token that expires within this many seconds is refreshed before it is given out. */
export const ACCESS_TOKEN_SKEW_SECONDS = 60;

/** At most this many refreshes are in flight, and this many recent results remembered; beyond, nothing is shared. */
export const MAX_SHARED_REFRESHES = 1000;

/** Refreshes in flight in this process, by `refreshKey`: concurrent callers share one request to the provider. */
const inFlight = new Map<string, Promise<unknown>>();

/** True while the access token is usable for at least the skew. A token without `expires_at` never expires here. */
export function isFresh(tokens: Pick<TokenSet, 'access_token' | 'expires_at'>): tokens is { access_token: string; expires_at?: number } {
  if (typeof tokens.access_token !== 'string') return false;
  return typeof tokens.expires_at !== 'number' || tokens.expires_at - ACCESS_TOKEN_SKEW_SECONDS > Date.now() / 1000;
}

/** A keyed hash that names one refresh token of one account, so that no token is ever a map key or a database key. */
export function refreshKey(options: ResolvedConfig, provider: ResolvedOAuthProvider, providerAccountId: string, refreshToken: string): string {
  return createHmac('sha256', options.secrets[0]!).update(`${provider.id}\u0000${providerAccountId}\u0000${refreshToken}`).digest('base64url');
}

/** Runs `refresh` once per key at a time: a caller that finds one in flight shares its result (or its failure). */
export function shared<Result>(key: string, refresh: () => Promise<Result>): Promise<Result> {
  const pending = inFlight.get(key) as Promise<Result> | undefined;
  if (pending) return pending;
  const started = refresh();
  if (inFlight.size < MAX_SHARED_REFRESHES) {
    inFlight.set(key, started);
    const forget = (): void => void inFlight.delete(key);
    started.then(forget, forget);
  }
  return started;
}

/** The `RefreshTokenError` of a failed refresh: `refused` only for the provider's `invalid_grant`. */
export function refreshFailure(options: ResolvedConfig, provider: ResolvedOAuthProvider, error: unknown): RefreshTokenError {
  const cause = error instanceof Error ? error : undefined;
  if (error instanceof RefreshTokenError) return error;
  if (error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant') {
    options.logger.debug('refresh token refused', { provider: provider.id });
    return new RefreshTokenError(`Provider "${provider.id}" refused the refresh token (invalid_grant): the user must sign in with it again`, { provider: provider.id, reason: 'refused' }, { cause });
  }
  const answer = error instanceof oauth.ResponseBodyError ? `answered "${error.error}"` : 'could not be completed';
  const failed = new RefreshTokenError(`Refreshing the access token of provider "${provider.id}" ${answer}`, { provider: provider.id, reason: 'failed' }, { cause });
  options.logger.error(failed);
  return failed;
}

/** The `RefreshTokenError` of tokens withdrawn after an earlier refused refresh: the user must sign in again. */
export function refusedEarlier(provider: ResolvedOAuthProvider): RefreshTokenError {
  const message = `The tokens of provider "${provider.id}" were withdrawn after a refused refresh: the user must sign in with it again`;
  return new RefreshTokenError(message, { provider: provider.id, reason: 'refused' });
}

/** The `RefreshTokenError` of an expired access token that came without a refresh token. */
export function noRefreshToken(provider: ResolvedOAuthProvider): RefreshTokenError {
  return new RefreshTokenError(
    `The access token of provider "${provider.id}" expired and the provider gave no refresh token (ask for offline access, e.g. the offline_access scope): the user must sign in with it again`,
    { provider: provider.id, reason: 'no-refresh-token' },
  );
}
