/**
 * `getAccessToken` with database sessions: the tokens live in the account row, through the adapter's
 * `listAccountsByUserId` and `updateAccountTokens`. The write is a compare-and-set on the refresh token, so no
 * process overwrites newer tokens with older ones. When the adapter counts rate limits in the database
 * (`hitRateLimit`: SqliteAdapter, PostgresAdapter), app processes also take a lease on the refresh there: one process
 * calls the provider, the others wait for its tokens. The rest (freshness, sharing, failures) is the core's
 * access-token.ts.
 */
import type { Request } from 'express';
import { type Adapter, type AccountTokens, type AdapterAccount, callAdapter } from './adapter.js';
import type { ResolvedConfig, ResolvedOAuthProvider } from '../../contracts.js';
import { readChunkedCookie } from '../../http/cookies.js';
import { MissingAdapterMethods, RefreshTokenError } from '../../errors.js';
import { isFresh, noRefreshToken, refreshFailure, refreshKey, refreshTokenGrant, refusedEarlier, rotatedRefreshToken, shared } from '../../oauth/refresh.js';
import { cookieOptionsFor, requestCookies } from '../../http/request.js';
import type { TokenSet } from '../../types.js';

/** How long an app process holds the database lease on a refresh: longer than a provider call may take (10 s). */
const LEASE_SECONDS = 30;

const databaseMethods = ['getSessionAndUser', 'listAccountsByUserId', 'updateAccountTokens'] as const;

/** The access token of the signed-in user's account with `provider`, refreshed and stored when needed. */
export async function databaseAccessToken(req: Request, options: ResolvedConfig, provider: ResolvedOAuthProvider): Promise<string | null> {
  const adapter = options.adapter!;
  const missing = databaseMethods.filter((method) => typeof adapter[method] !== 'function');
  if (missing.length > 0) {
    throw new MissingAdapterMethods(
      `getAccessToken with database sessions needs these adapter methods, which the adapter lacks: ${missing.join(', ')} (not part of Auth.js's Adapter interface; MemoryAdapter, SqliteAdapter and PostgresAdapter have them)`,
    );
  }
  const userId = await signedInUserId(req, options, adapter);
  if (userId === null) return null;
  const account = await accountOf(adapter, userId, provider);
  if (!account) return null;
  if (isWithdrawnAccount(account)) throw refusedEarlier(provider);
  if (isFresh(account)) return account.access_token;
  if (typeof account.access_token !== 'string' && !account.refresh_token) return null;
  const key = refreshKey(options, provider, account.providerAccountId, account.refresh_token ?? '');
  const stored = await shared(key, () => refreshAccount(options, adapter, provider, userId));
  return stored.access_token!;
}

/** The user of the request's database session, or null. */
async function signedInUserId(req: Request, options: ResolvedConfig, adapter: Adapter): Promise<string | null> {
  const sessionToken = readChunkedCookie(requestCookies(req), cookieOptionsFor(req, options).sessionToken.name);
  if (!sessionToken) return null;
  const found = await callAdapter(adapter, 'getSessionAndUser', sessionToken);
  if (!found || found.session.expires.valueOf() <= Date.now()) return null;
  return String(found.user.id);
}

async function accountOf(adapter: Adapter, userId: string, provider: ResolvedOAuthProvider): Promise<AdapterAccount | null> {
  const accounts = await callAdapter(adapter, 'listAccountsByUserId', userId);
  return accounts.find((account) => account.provider === provider.id) ?? null;
}

/**
 * Refreshes the account's tokens and stores them, once per refresh token in this process (see `shared`), and once
 * across processes where the adapter offers a database lease. Returns the account as stored.
 */
async function refreshAccount(options: ResolvedConfig, adapter: Adapter, provider: ResolvedOAuthProvider, userId: string): Promise<AdapterAccount> {
  const deadline = Date.now() + LEASE_SECONDS * 1000;
  // Read again: a request of this process may have stored a refresh since the caller read the row.
  let account = await currentAccount(adapter, userId, provider);
  for (let delay = 25; ; delay = Math.min(delay * 2, 500)) {
    if (isFresh(account)) return account;
    if (!account.refresh_token) {
      await withdraw(adapter, account, null);
      throw noRefreshToken(provider);
    }
    const key = refreshKey(options, provider, account.providerAccountId, account.refresh_token);
    if (await claimLease(adapter, key)) break;
    // Another app process holds the lease on this refresh token: wait for the tokens it stores.
    if (Date.now() > deadline) {
      const message = `Another app process has been refreshing the tokens of provider "${provider.id}" for ${LEASE_SECONDS} s without storing any`;
      throw new RefreshTokenError(message, { provider: provider.id, reason: 'failed' });
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    const previous = account.refresh_token;
    account = await currentAccount(adapter, userId, provider);
    if (account.refresh_token !== previous && typeof account.access_token === 'string') return account;
  }

  const refreshToken = account.refresh_token;
  let tokens: TokenSet;
  try {
    tokens = await refreshTokenGrant(provider, refreshToken);
  } catch (error) {
    const failure = refreshFailure(options, provider, error);
    if (failure.reason === 'refused') {
      // Withdrawn only if nobody stored newer tokens meanwhile; if someone did, those are the answer.
      if (await withdraw(adapter, account, refreshToken)) throw failure;
      const latest = await currentAccount(adapter, userId, provider);
      if (typeof latest.access_token === 'string' && latest.refresh_token !== refreshToken) return latest;
      throw failure;
    }
    // A refused answer that rotated the refresh token: the new one is kept, the access token is due for a refresh.
    const rotated = rotatedRefreshToken(error);
    if (rotated) {
      const tokens = refreshedAccountTokens(account, { refresh_token: rotated });
      await callAdapter(adapter, 'updateAccountTokens', { provider: account.provider, providerAccountId: account.providerAccountId, tokens, expectedRefreshToken: refreshToken });
    }
    // Let a waiting process try at once rather than when the lease ends.
    if (typeof adapter.resetRateLimit === 'function') await callAdapter(adapter, 'resetRateLimit', leaseKey(refreshKey(options, provider, account.providerAccountId, refreshToken))).catch(() => undefined);
    throw failure;
  }
  const refreshed = refreshedAccountTokens(account, tokens);
  const store = (expectedRefreshToken: string | null) =>
    callAdapter(adapter, 'updateAccountTokens', { provider: account.provider, providerAccountId: account.providerAccountId, tokens: refreshed, expectedRefreshToken });
  const stored = await store(refreshToken);
  if (stored) return stored;
  // Another process used the same refresh token (an adapter without the lease). If it stored a refresh first, its
  // tokens stay and are the answer: these are dropped rather than written over them. If its refresh was refused
  // (the provider saw the token used twice) and it withdrew the tokens, these are newer than that refusal.
  const latest = await accountOf(adapter, userId, provider);
  if (latest && isWithdrawnAccount(latest)) {
    const restored = await store(null);
    if (restored) return restored;
  }
  const current = await currentAccount(adapter, userId, provider);
  if (typeof current.access_token === 'string') return current;
  throw noRefreshToken(provider);
}

async function currentAccount(adapter: Adapter, userId: string, provider: ResolvedOAuthProvider): Promise<AdapterAccount> {
  const account = await accountOf(adapter, userId, provider);
  if (!account) throw new RefreshTokenError(`The account of provider "${provider.id}" was unlinked during the refresh`, { provider: provider.id, reason: 'refused' });
  if (isWithdrawnAccount(account)) throw refusedEarlier(provider);
  return account;
}

function leaseKey(key: string): string {
  return `token-refresh:${key}`;
}

/**
 * True when this process may refresh: the first hit on the refresh token's key in the database's rate-limit table
 * within {@link LEASE_SECONDS} (`hitRateLimit` is atomic across processes). Without it, the compare-and-set write
 * alone keeps the stored tokens consistent.
 */
async function claimLease(adapter: Adapter, key: string): Promise<boolean> {
  if (typeof adapter.hitRateLimit !== 'function') return true;
  const hit = await callAdapter(adapter, 'hitRateLimit', leaseKey(key), LEASE_SECONDS);
  return hit.count === 1;
}

/** Clears the access and refresh tokens of an account (see `isWithdrawnAccount`); false when its refresh token changed. */
async function withdraw(adapter: Adapter, account: AdapterAccount, expectedRefreshToken: string | null): Promise<boolean> {
  const fields: Record<string, unknown> = {
    expires_at: account.expires_at ?? Math.floor(Date.now() / 1000),
    id_token: account.id_token,
    scope: account.scope,
    token_type: account.token_type,
  };
  const stored = await callAdapter(adapter, 'updateAccountTokens', {
    provider: account.provider,
    providerAccountId: account.providerAccountId,
    tokens: definedFields(fields),
    expectedRefreshToken,
  });
  return stored !== null;
}

function definedFields(fields: Record<string, unknown>): AccountTokens {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as AccountTokens;
}

/** The row's tokens after a refresh: the new ones, the old refresh token when none came back, the sign-in's ID token. */
function refreshedAccountTokens(account: AdapterAccount, tokens: TokenSet): AccountTokens {
  const fields: Record<string, unknown> = {
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token ?? account.refresh_token,
    expires_at: tokens.expires_at,
    id_token: account.id_token,
    scope: tokens.scope ?? account.scope,
    token_type: tokens.token_type ?? account.token_type,
  };
  return definedFields(fields);
}

/**
 * True for an OAuth/OIDC account row whose tokens `getAccessToken` withdrew after a refused refresh: it keeps when
 * its access token expired (`expires_at`) but no longer an access or a refresh token. A provider always returns an
 * access token at sign-in, so a row like this comes only from that withdrawal; a new sign-in stores tokens again.
 */
export function isWithdrawnAccount(account: AdapterAccount): boolean {
  if (account.type !== 'oauth' && account.type !== 'oidc') return false;
  const absent = (value: unknown): boolean => value === undefined || value === null;
  return absent(account.access_token) && absent(account.refresh_token) && !absent(account.expires_at);
}
