/**
 * When a session's user last authenticated, and when the session ends for good (`session.absoluteMaxAge`): one
 * computation for JWT and database sessions and every reader; a renewal moves neither. A JWT keeps the time in
 * `auth_time`, a database session in its token (features/database/session-token.ts), which every adapter keeps.
 * Where nothing says (a cookie issued by Auth.js, a row an Auth.js adapter stored before), it is unknown: never recent.
 */
import type { JWT } from '../types.js';

/** Seconds since the epoch: the authentication and the start (undefined when unknown), and the absolute end. */
export interface SessionClock {
  authTime: number | undefined;
  startedAt: number | undefined;
  /** `startedAt + absoluteMaxAge`; Infinity when the start is unknown. */
  endsAt: number;
}

/** The clock of a session authenticated at `authTime` and started at `startedAt`. */
export function sessionClock(authTime: number | undefined, startedAt: number | undefined, absoluteMaxAge: number): SessionClock {
  return { authTime, startedAt, endsAt: startedAt === undefined ? Number.POSITIVE_INFINITY : startedAt + absoluteMaxAge };
}

/** A JWT's `auth_time`, its authentication and start; without it (Auth.js's), `session_start` once re-issued, else `iat`. */
export function jwtTimes(claims: JWT, now: number): [authTime: number | undefined, startedAt: number] {
  if (typeof claims.auth_time === 'number') return [claims.auth_time, claims.auth_time];
  return [undefined, typeof claims.session_start === 'number' ? claims.session_start : typeof claims.iat === 'number' && claims.iat > 0 ? claims.iat : now];
}
