/**
 * Database sessions: the cookie holds the session token, the adapter holds the row (`session.strategy: 'database'`,
 * the default with an adapter).
 */
import { type Adapter, callAdapter, callAdapterAtOnce, isPromiseLike } from './adapter.js';
import type { ResolvedConfig, OutgoingCookie, SessionRead, SessionResult } from '../../contracts.js';
import { chunkCookie } from '../../http/cookies.js';
import { JWTSessionError } from '../../errors.js';
import { emitEvent } from '../../events.js';
import { isWithdrawnAccount } from './access-token.js';
import { sessionUserOf } from './signed-in.js';
import type { SessionClock } from '../../session/session-clock.js';
import { isoDate } from '../../session/iso-date.js';
import { databaseClock } from './session-token.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import type { AdapterSession, AdapterUser, Awaitable, DefaultSession, Session } from '../../types.js';

/** A database session's `lastSeenAt` is written when a request reads it at least this long after the last write. */
const LAST_SEEN_INTERVAL_MS = 5 * 60_000;

/** What a built-in adapter's `getSessionAndUserForRead` answers, or Auth.js's `getSessionAndUser` (no `withdrawnTokens`). */
type FoundSession = { session: AdapterSession; user: AdapterUser; withdrawnTokens?: boolean };

/**
 * A database session: the cookie holds the session token, the adapter holds the row. An unknown or expired row is
 * no session (and is cleared); a row older than `updateAge` gets its expiry extended. When the database is down the
 * session is absent for this request but the cookie is kept, so that users are not signed out by an outage.
 * A value, not a promise, when the adapter answered at once (SQLite) and there is nothing to write or call: a guard
 * then answers without waiting for a turn of the event loop.
 */
export function readDatabaseSession(options: ResolvedConfig, sessionToken: string, params: SessionRead): SessionResult | Promise<SessionResult> {
  const adapter = options.adapter!;
  // A built-in adapter reads the session, its user and whether `session.error` is due in one query. Not through
  // callAdapter: an adapter that answers at once (better-sqlite3) gives a value, not a promise.
  const method = typeof adapter.getSessionAndUserForRead === 'function' ? 'getSessionAndUserForRead' : 'getSessionAndUser';
  let found: Awaitable<FoundSession | null>;
  try {
    found = callAdapterAtOnce(adapter, method, sessionToken);
  } catch (error) {
    return unreadable(options, error as Error);
  }
  if (isPromiseLike(found)) {
    return Promise.resolve(found).then(
      (answered) => readFoundSession(options, sessionToken, params, answered),
      (error: unknown) => unreadable(options, error as Error),
    );
  }
  return readFoundSession(options, sessionToken, params, found);
}

/** The database could not be read: no session for this request, and the cookie is kept. */
function unreadable(options: ResolvedConfig, error: Error): SessionResult {
  options.logger.error(error);
  return { session: null, token: null, cookies: [] };
}

function readFoundSession(options: ResolvedConfig, sessionToken: string, params: SessionRead, found: FoundSession | null): SessionResult | Promise<SessionResult> {
  if (!found) return params.clear();
  const row = found.session;
  const now = Date.now();
  // The absolute lifetime counts from the authentication (session-clock.ts); unknown, it has no end but the expiry.
  const clock = databaseClock(sessionToken, row, options.session.absoluteMaxAge);
  if (row.expires.valueOf() <= now || clock.endsAt * 1000 <= now) return endExpiredSession(options, sessionToken, params);
  const dueForUpdate = row.expires.valueOf() - options.session.maxAge * 1000 + options.session.updateAge * 1000 <= now;
  const extend = params.write && (dueForUpdate || params.trigger === 'update');
  // An adapter that lists sessions keeps their "last seen" time, written at most every LAST_SEEN_INTERVAL_MS.
  const seen = typeof options.adapter!.listSessionsByUserId === 'function' && now - (row.lastSeenAt?.valueOf() ?? 0) >= LAST_SEEN_INTERVAL_MS;
  // Most reads write nothing, list no accounts and call nothing of the app's: they need not wait for anything.
  if (!extend && !seen && found.withdrawnTokens !== undefined && !options.source.callbacks?.session && !options.events.session) {
    return sessionResultOf(sessionOf(found.user, row.expires, refreshErrorOfRead(options, found.withdrawnTokens)), [], clock);
  }
  return readSessionWithWrites(options, sessionToken, params, found, { now, extend, seen, clock });
}

/** An expired row is no session; a read that may write deletes it. */
async function endExpiredSession(options: ResolvedConfig, sessionToken: string, params: SessionRead): Promise<SessionResult> {
  if (params.write) await callAdapter(options.adapter!, 'deleteSession', sessionToken).catch((error: Error) => options.logger.error(error));
  return params.clear();
}

/** The session shown to the app (`session.user` holds only the user's public fields). */
function sessionOf(user: AdapterUser, expires: Date, error: DefaultSession['error']): Session {
  const session: Session = { user: sessionUserOf(user), expires: isoDate(expires) };
  if (error) session.error = error;
  return session;
}

function sessionResultOf(session: Session, cookies: OutgoingCookie[], clock: SessionClock): SessionResult {
  const result: SessionResult = { session, token: null, cookies };
  if (clock.authTime !== undefined) result.authTime = clock.authTime;
  return result;
}

/** The rest of a read: the expiry extended and "last seen" written, `session.error` read, the app's callback and event. */
async function readSessionWithWrites(
  options: ResolvedConfig,
  sessionToken: string,
  params: SessionRead,
  found: FoundSession,
  due: { now: number; extend: boolean; seen: boolean; clock: SessionClock },
): Promise<SessionResult> {
  const { session: row, user } = found;
  const { now, extend, seen } = due;
  let expires = row.expires;
  const outgoing: OutgoingCookie[] = [];
  if (extend || seen) {
    const renewed = new Date(Math.min(now + options.session.maxAge * 1000, due.clock.endsAt * 1000));
    const update = { sessionToken, ...(extend && { expires: renewed }), ...(seen && { lastSeenAt: new Date(now) }) };
    try {
      await callAdapter(options.adapter!, 'updateSession', update);
      if (update.expires) {
        expires = update.expires;
        outgoing.push(...chunkCookie(params.cookies(), params.cookieOptions.sessionToken, sessionToken, { expires }));
      }
    } catch (error) {
      options.logger.error(error as Error);
    }
  }
  const error = found.withdrawnTokens === undefined ? await refreshErrorOfUser(options, String(user.id)) : refreshErrorOfRead(options, found.withdrawnTokens);
  let session = sessionOf(user, expires, error);
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
  return sessionResultOf(session, outgoing, due.clock);
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
