/**
 * Database sessions: the cookie holds the session token, the adapter holds the row (`session.strategy: 'database'`,
 * the default with an adapter).
 */
import { type Adapter, callAdapter } from './adapter.js';
import type { ResolvedConfig, OutgoingCookie, SessionRead, SessionResult } from '../../contracts.js';
import { chunkCookie } from '../../http/cookies.js';
import { JWTSessionError } from '../../errors.js';
import { emitEvent } from '../../events.js';
import { isWithdrawnAccount } from './access-token.js';
import { sessionUserOf } from './signed-in.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import type { AdapterSession, AdapterUser, DefaultSession, Session } from '../../types.js';

/** A database session's `lastSeenAt` is written when a request reads it at least this long after the last write. */
const LAST_SEEN_INTERVAL_MS = 5 * 60_000;

/**
 * A database session: the cookie holds the session token, the adapter holds the row. An unknown or expired row is
 * no session (and is cleared); a row older than `updateAge` gets its expiry extended. When the database is down the
 * session is absent for this request but the cookie is kept, so that users are not signed out by an outage.
 */
export async function readDatabaseSession(options: ResolvedConfig, sessionToken: string, params: SessionRead): Promise<SessionResult> {
  const { cookies, cookieOptions, clear } = params;
  const adapter = options.adapter!;
  let found: { session: AdapterSession; user: AdapterUser; withdrawnTokens?: boolean } | null;
  try {
    // A built-in adapter reads the session, its user and whether `session.error` is due in one query.
    found =
      typeof adapter.getSessionAndUserForRead === 'function'
        ? await callAdapter(adapter, 'getSessionAndUserForRead', sessionToken)
        : await callAdapter(adapter, 'getSessionAndUser', sessionToken);
  } catch (error) {
    options.logger.error(error as Error);
    return { session: null, token: null, cookies: [] };
  }
  if (!found) return clear();
  const { session: row, user } = found;
  const now = Date.now();
  // The absolute lifetime counts from the row's creation (an Auth.js adapter's rows have no createdAt: none).
  const endsAt = row.createdAt ? row.createdAt.valueOf() + options.session.absoluteMaxAge * 1000 : Number.POSITIVE_INFINITY;
  if (row.expires.valueOf() <= now || endsAt <= now) {
    if (params.write) await callAdapter(adapter, 'deleteSession', sessionToken).catch((error: Error) => options.logger.error(error));
    return clear();
  }
  let expires = row.expires;
  const outgoing: OutgoingCookie[] = [];
  const dueForUpdate = row.expires.valueOf() - options.session.maxAge * 1000 + options.session.updateAge * 1000 <= now;
  const extend = params.write && (dueForUpdate || params.trigger === 'update');
  // An adapter that lists sessions keeps their "last seen" time, written at most every LAST_SEEN_INTERVAL_MS.
  const seen = typeof adapter.listSessionsByUserId === 'function' && now - (row.lastSeenAt?.valueOf() ?? 0) >= LAST_SEEN_INTERVAL_MS;
  if (extend || seen) {
    const renewed = new Date(Math.min(now + options.session.maxAge * 1000, endsAt));
    const update = { sessionToken, ...(extend && { expires: renewed }), ...(seen && { lastSeenAt: new Date(now) }) };
    try {
      await callAdapter(adapter, 'updateSession', update);
      if (update.expires) {
        expires = update.expires;
        outgoing.push(...chunkCookie(cookies, cookieOptions.sessionToken, sessionToken, { expires }));
      }
    } catch (error) {
      options.logger.error(error as Error);
    }
  }
  const sessionUser = sessionUserOf(user);
  const error = found.withdrawnTokens === undefined ? await refreshErrorOfUser(options, String(user.id)) : refreshErrorOfRead(options, found.withdrawnTokens);
  let session: Session = { user: sessionUser, expires: expires.toISOString(), ...(error && { error }) };
  // The default callback returns the session as it is: it is called only when the app sets one.
  if (options.source.callbacks?.session) {
    try {
      session = (await options.callbacks.session({
        session,
        // Database sessions have no JWT; an empty token keeps `token.x` reads from throwing in shared callbacks.
        token: {},
        user,
        ...(params.trigger && { trigger: params.trigger, newSession: params.newSession }),
      })) as Session;
    } catch (error) {
      options.logger.error(new JWTSessionError('The session callback failed', { cause: error instanceof Error ? error : undefined }));
      return { session: null, token: null, cookies: [] };
    }
  }
  if (options.events.session) await emitEvent(options, 'session', { session, token: {} });
  return { session, token: null, cookies: outgoing, ...(row.createdAt && { authTime: Math.floor(row.createdAt.valueOf() / 1000) }) };
}

/**
 * `'RefreshTokenError'` when `getAccessToken` withdrew the tokens of one of the user's accounts (provider-tokens.ts).
 * Read only when OAuth providers are configured and the adapter can list accounts; a failed read shows no error.
 */
async function refreshErrorOfUser(options: ResolvedConfig, userId: string): Promise<DefaultSession['error']> {
  const adapter = options.adapter!;
  if (typeof adapter.listAccountsByUserId !== 'function' || !options.providers.some(isOAuthProvider)) return undefined;
  try {
    const accounts = await callAdapter(adapter, 'listAccountsByUserId', userId);
    return accounts.some(isWithdrawnAccount) ? 'RefreshTokenError' : undefined;
  } catch (error) {
    options.logger.error(error as Error);
    return undefined;
  }
}

/** The same as {@link refreshErrorOfUser}, from what `getSessionAndUserForRead` answered. */
function refreshErrorOfRead(options: ResolvedConfig, withdrawnTokens: boolean): DefaultSession['error'] {
  return withdrawnTokens && options.providers.some(isOAuthProvider) ? 'RefreshTokenError' : undefined;
}

/** Deletes the session's row at sign-out, so that it ends everywhere; an outage is logged and ends only this cookie. */
export async function endDatabaseSession(options: ResolvedConfig, sessionToken: string): Promise<AdapterSession | null> {
  try {
    return (await callAdapter(options.adapter!, 'deleteSession', sessionToken)) ?? null;
  } catch (error) {
    options.logger.error(error as Error);
    return null;
  }
}

/** Ends these session rows: each is deleted and emits the `signOut` event. Returns how many. */
export async function endSessionRows(options: ResolvedConfig, adapter: Adapter, rows: readonly AdapterSession[]): Promise<number> {
  for (const row of rows) {
    const deleted = await callAdapter(adapter, 'deleteSession', row.sessionToken);
    await emitEvent(options, 'signOut', { session: deleted ?? row });
  }
  return rows.length;
}
