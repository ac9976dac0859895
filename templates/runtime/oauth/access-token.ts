/**
 * `getAccessToken` (the refresh itself: refresh.ts). Where the tokens live follows the session strategy:
 *
 * - JWT sessions: in the session cookie. A refresh re-issues the cookie on this request's response (`req.res`,
 *   which Express sets), so call it before the response is sent. A browser that sends several requests with the old
 *   cookie gets the same new tokens on each: refreshes of one refresh token share one request to the provider, and
 *   its result is remembered for {@link RECENT_REFRESH_MS} in this process.
 * - Database sessions: in the account row (the database feature's access-token.ts).
 */
import type { Request, Response } from 'express';
import type { FrameworkAuthConfig, ResolvedConfig, ResolvedOAuthProvider } from '../contracts.js';
import { databaseOf, resolveConfigOnce } from '../config.js';
import { flushCookies, noStore } from '../context.js';
import { chunkCookie, isChunkOf } from '../http/cookies.js';
import { InvalidProvider, RefreshTokenError } from '../errors.js';
import { MAX_SHARED_REFRESHES, isFresh, noRefreshToken, refreshFailure, refreshKey, refreshTokenGrant, refusedEarlier, rotatedRefreshToken, shared } from './refresh.js';
import { isOAuthProvider } from '../providers/resolve.js';
import { cookieOptionsFor, requestCookies } from '../http/request.js';
import { readSession } from '../session/session.js';
import type { JWT, ProviderTokens, TokenSet } from '../types.js';

/** How long a refresh's result answers other requests that still carry the refresh token it used (JWT sessions). */
const RECENT_REFRESH_MS = 60_000;

/** Recent refreshes' results by their refresh token's key, oldest first: new tokens, or a refusal that rotated it. */
const recentRefreshes = new Map<string, { result: TokenSet | Error; until: number }>();

/** The session JWT that a refresh wrote during a request, so that a second call in that request starts from it. */
const writtenInRequest = new WeakMap<Request, JWT>();

/**
 * A valid access token of the signed-in user's account with an OAuth or OpenID Connect provider, refreshed when it
 * has expired or expires within `ACCESS_TOKEN_SKEW_SECONDS`; null when nobody is signed in or the user has no tokens
 * of that provider (see the top of this file). Rejects with `RefreshTokenError` (`reason` `refused` or
 * `no-refresh-token`: sign in again; `failed`: try later), `InvalidProvider`, and with database sessions
 * `MissingAdapterMethods` (Auth.js adapters) or `AdapterError`.
 * @example
 * const accessToken = await getAccessToken(req, 'github', authConfig)
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-6
 */
export async function getAccessToken(req: Request, providerId: string, config: FrameworkAuthConfig): Promise<string | null> {
  const options = resolveConfigOnce(config);
  const provider = options.providersById.get(providerId);
  if (!provider || !isOAuthProvider(provider) || provider.protocol) {
    const oauthIds = options.providers.filter((candidate) => isOAuthProvider(candidate) && !candidate.protocol).map((candidate) => candidate.id);
    throw new InvalidProvider(
      `getAccessToken: "${providerId}" is not a configured OAuth 2 or OpenID Connect provider (OAuth 1.0a tokens do not expire); configured: ${oauthIds.join(', ') || 'none'}`,
    );
  }
  return options.session.strategy === 'database' ? databaseOf(options).accessToken(req, options, provider) : jwtAccessToken(req, options, provider);
}

/** Keeps a refresh's result for late requests that still carry the refresh token it used. */
function rememberRefresh(key: string, result: TokenSet | Error): void {
  const now = Date.now();
  for (const [oldKey, entry] of recentRefreshes) {
    if (entry.until > now && recentRefreshes.size < MAX_SHARED_REFRESHES) break;
    recentRefreshes.delete(oldKey);
  }
  recentRefreshes.set(key, { result, until: now + RECENT_REFRESH_MS });
}

// JWT sessions --------------------------------------------------------------------------------------------------

async function jwtAccessToken(req: Request, options: ResolvedConfig, provider: ResolvedOAuthProvider): Promise<string | null> {
  let token = writtenInRequest.get(req);
  if (!token) {
    const read = await readSession(req, options, { write: false });
    if (!read.session || !read.token) return null;
    token = read.token;
  }
  const record = token.providerTokens?.[provider.id];
  if (!record || typeof record !== 'object') return null;
  if (record.error) throw refusedEarlier(provider);
  if (isFresh(record)) return record.access_token;

  const refreshToken = record.refresh_token;
  if (!refreshToken) {
    await markWithdrawn(req, options, provider, token, record);
    throw noRefreshToken(provider);
  }
  // Checked before the provider is asked: a refresh whose new tokens cannot be stored would be lost, and with it
  // a rotated refresh token.
  responseFor(req, provider);
  const key = refreshKey(options, provider, record.providerAccountId, refreshToken);
  let tokens: TokenSet;
  try {
    tokens = await shared(key, async () => {
      const recent = recentRefreshes.get(key);
      if (recent && recent.until > Date.now()) {
        if (recent.result instanceof Error) throw recent.result;
        return recent.result;
      }
      const refreshed = await refreshTokenGrant(provider, refreshToken).catch((error: unknown) => {
        // The old refresh token is spent: late requests that carry it get this error and the new one, too.
        if (rotatedRefreshToken(error)) rememberRefresh(key, error as Error);
        throw error;
      });
      rememberRefresh(key, refreshed);
      return refreshed;
    });
  } catch (error) {
    const failure = refreshFailure(options, provider, error);
    const rotated = rotatedRefreshToken(error);
    if (rotated) await writeSessionToken(req, options, provider, token, refreshedRecord(record, { refresh_token: rotated }));
    else if (failure.reason === 'refused') await markWithdrawn(req, options, provider, token, record);
    throw failure;
  }
  const updated = refreshedRecord(record, tokens);
  await writeSessionToken(req, options, provider, token, updated);
  return updated.access_token!;
}

/** The record after a refresh: a rotated refresh token replaces the old one, which stays when none came back. */
function refreshedRecord(record: ProviderTokens, tokens: TokenSet): ProviderTokens {
  const updated: ProviderTokens = { providerAccountId: record.providerAccountId };
  const refreshToken = tokens.refresh_token ?? record.refresh_token;
  if (tokens.access_token !== undefined) updated.access_token = tokens.access_token;
  if (refreshToken !== undefined) updated.refresh_token = refreshToken;
  if (tokens.expires_at !== undefined) updated.expires_at = tokens.expires_at;
  const tokenType = tokens.token_type ?? record.token_type;
  if (tokenType !== undefined) updated.token_type = tokenType;
  const scope = tokens.scope ?? record.scope;
  if (scope !== undefined) updated.scope = scope;
  return updated;
}

/**
 * Drops the provider's tokens from the session and sets its `error`, so that the session shows `RefreshTokenError`.
 * Best effort: when the response is already sent, the caller's rejection still says what happened.
 */
async function markWithdrawn(req: Request, options: ResolvedConfig, provider: ResolvedOAuthProvider, token: JWT, record: ProviderTokens): Promise<void> {
  const withdrawn: ProviderTokens = {
    providerAccountId: record.providerAccountId,
    ...(record.expires_at !== undefined && { expires_at: record.expires_at }),
    error: 'RefreshTokenError',
  };
  await writeSessionToken(req, options, provider, token, withdrawn).catch((error: unknown) => {
    options.logger.debug('the refused provider tokens could not be dropped from the session cookie', { provider: provider.id, reason: error instanceof Error ? error.message : 'unknown' });
  });
}

/** This request's response, which must still be able to take a cookie. */
function responseFor(req: Request, provider: ResolvedOAuthProvider): Response {
  const res = req.res;
  if (!res || res.headersSent) {
    throw new RefreshTokenError(
      `getAccessToken("${provider.id}") must be called before the response is sent: with JWT sessions the refreshed tokens are stored in the session cookie`,
      { provider: provider.id, reason: 'failed' },
    );
  }
  return res;
}

/**
 * Re-issues the session cookie (`session` with the provider's `record`) on this request's response; one queued earlier
 * in the request (`sessionLocals`' rolling renewal, an earlier refresh) is dropped, so the browser keeps this one.
 */
async function writeSessionToken(req: Request, options: ResolvedConfig, provider: ResolvedOAuthProvider, session: JWT, record: ProviderTokens): Promise<void> {
  const token: JWT = { ...session, providerTokens: { ...session.providerTokens, [provider.id]: record } };
  const res = responseFor(req, provider);
  const cookie = cookieOptionsFor(req, options).sessionToken;
  const encoded = await options.jwt.encode({ token, secret: options.secrets, salt: cookie.name, maxAge: options.jwt.maxAge });
  const expires = new Date(Date.now() + options.jwt.maxAge * 1000);
  const queued = res.getHeader('Set-Cookie');
  if (queued !== undefined) {
    const kept = (Array.isArray(queued) ? queued : [String(queued)]).filter((header) => !isChunkOf(header.slice(0, header.indexOf('=')), cookie.name));
    if (kept.length > 0) res.setHeader('Set-Cookie', kept);
    else res.removeHeader('Set-Cookie');
  }
  res.setHeader('Cache-Control', noStore);
  flushCookies(res, chunkCookie(requestCookies(req), cookie, encoded, { expires }));
  writtenInRequest.set(req, token);
}
