/**
 * When a session's user last authenticated, and when the session ends for good (`session.absoluteMaxAge`): computed
 * here for JWT and database sessions alike, and for every reader (the session read, the account pages, linking).
 *
 * The authentication time is kept where nothing can lose it: in a JWT, its `auth_time` claim; for a database session,
 * inside the session token itself (`<token>~t<seconds>`), which every adapter stores and looks up whole, so that an
 * Auth.js adapter, whose rows have no `createdAt`, keeps it too, and nobody can change it without the token no longer
 * matching its row. A renewal never moves it. Where nothing says when the user authenticated (a cookie issued by
 * Auth.js, a row stored before this version by an Auth.js adapter), the time is unknown, and an unknown time is never
 * recent (`isRecentAuth`).
 */
import type { AdapterSession, JWT } from '../types.js';

/** Marks the authentication time appended to a database session token. */
const AUTH_TIME_MARK = '~t';
const AUTH_TIME_DIGITS = /^\d{1,12}$/;

/** A session's authentication time and end, in seconds since the epoch. */
export interface SessionClock {
  /** When the user last authenticated (sign-in or re-authentication): undefined when nothing says. */
  authTime: number | undefined;
  /** When the session started, from which `absoluteMaxAge` counts: undefined when unknown (no absolute end). */
  startedAt: number | undefined;
  /** When the session ends whatever its renewals: `startedAt + absoluteMaxAge`, or Infinity when unknown. */
  endsAt: number;
}

function clockOf(authTime: number | undefined, startedAt: number | undefined, absoluteMaxAge: number): SessionClock {
  return { authTime, startedAt, endsAt: startedAt === undefined ? Number.POSITIVE_INFINITY : startedAt + absoluteMaxAge };
}

/**
 * A JWT session's clock: `auth_time` is both its authentication and its start. A token without it (issued by Auth.js)
 * has no known authentication; its start is `session_start` once we re-issued it, else its `iat` at the first read.
 */
export function jwtSessionClock(claims: JWT, absoluteMaxAge: number, now: number): SessionClock {
  if (typeof claims.auth_time === 'number') return clockOf(claims.auth_time, claims.auth_time, absoluteMaxAge);
  const startedAt = typeof claims.session_start === 'number' ? claims.session_start : typeof claims.iat === 'number' && claims.iat > 0 ? claims.iat : now;
  return clockOf(undefined, startedAt, absoluteMaxAge);
}

/** Writes a JWT session's clock into the token it re-issues, so that the next read finds the same times. */
export function keepJwtSessionClock(token: JWT, clock: SessionClock): void {
  if (clock.authTime !== undefined) token.auth_time = clock.authTime;
  else if (clock.startedAt !== undefined) token.session_start = clock.startedAt;
}

/**
 * A database session's clock: the authentication time its token carries, else the row's `createdAt` (a built-in
 * adapter's row from before tokens carried it: the sign-in that made the row). `sessionToken` is the token looked up,
 * since a read may not select the row's token column.
 */
export function databaseSessionClock(sessionToken: string, row: Pick<AdapterSession, 'createdAt'>, absoluteMaxAge: number): SessionClock {
  const inToken = authTimeInToken(sessionToken);
  if (inToken !== undefined) return clockOf(inToken, inToken, absoluteMaxAge);
  if (!row.createdAt) return clockOf(undefined, undefined, absoluteMaxAge);
  const createdAt = row.createdAt.valueOf() / 1000;
  return clockOf(Math.floor(createdAt), createdAt, absoluteMaxAge);
}

/** A new database session token that carries when its user authenticated (`authTime`, seconds since the epoch). */
export function sessionTokenWithAuthTime(generated: string, authTime: number): string {
  return `${generated}${AUTH_TIME_MARK}${Math.floor(authTime)}`;
}

/** The authentication time a database session token carries, or undefined (a token from before, or of Auth.js). */
export function authTimeInToken(sessionToken: string): number | undefined {
  const at = sessionToken.lastIndexOf(AUTH_TIME_MARK);
  if (at < 0) return undefined;
  const digits = sessionToken.slice(at + AUTH_TIME_MARK.length);
  return AUTH_TIME_DIGITS.test(digits) ? Number(digits) : undefined;
}
