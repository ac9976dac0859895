/**
 * A database session's token carries its authentication time (`<token>~t<seconds>`): every adapter stores and looks up
 * the token whole, an Auth.js one too, so the time cannot be lost, and nobody can change it without the token no
 * longer matching its row (session/session-clock.ts).
 */
import { type SessionClock, sessionClock } from '../../session/session-clock.js';
import type { AdapterSession } from '../../types.js';

const AUTH_TIME = /~t(\d{1,12})$/;
/**
 * An admin acting as the user (features/admin/impersonation.ts writes `<token>~i<seconds>`): the session ends for good
 * at that time however it is renewed, and it never counts as a recent authentication.
 */
const IMPERSONATION = /~i(\d{1,12})$/;

/** A new session token: what `session.generateSessionToken` made, and when its user authenticated. */
export function newSessionToken(generated: string, authTime: Date): string {
  return `${generated}~t${Math.floor(authTime.valueOf() / 1000)}`;
}

/**
 * A session's clock: the authentication time its token carries, else the row's `createdAt` (a built-in adapter's row
 * from before, made at the sign-in), else unknown; an impersonation's end. `sessionToken` is the token looked up: a
 * read may not select the token column.
 */
export function databaseClock(sessionToken: string, row: Pick<AdapterSession, 'createdAt'>, absoluteMaxAge: number): SessionClock {
  const carried = AUTH_TIME.exec(sessionToken)?.[1];
  if (carried !== undefined) return sessionClock(Number(carried), Number(carried), absoluteMaxAge);
  const endsAt = IMPERSONATION.exec(sessionToken)?.[1];
  if (endsAt !== undefined) return { authTime: undefined, startedAt: undefined, endsAt: Number(endsAt) };
  const createdAt = row.createdAt ? row.createdAt.valueOf() / 1000 : undefined;
  return sessionClock(createdAt === undefined ? undefined : Math.floor(createdAt), createdAt, absoluteMaxAge);
}
