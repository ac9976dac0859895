/**
 * A database session's token carries its authentication time (`<token>~t<seconds>`): every adapter stores and looks up
 * the token whole, an Auth.js one too, so the time cannot be lost, and nobody can change it without the token no
 * longer matching its row (session/session-clock.ts).
 */
import type { AdapterSession } from '../../types.js';

const AUTH_TIME = /~t(\d{1,12})$/;

/** A new session token: what `session.generateSessionToken` made, and when its user authenticated. */
export function newSessionToken(generated: string, authTime: Date): string {
  return `${generated}~t${Math.floor(authTime.valueOf() / 1000)}`;
}

/**
 * A session's authentication time and start: the time its token carries, else the row's `createdAt` (a built-in
 * adapter's row from before, made at the sign-in), else unknown. `sessionToken` is the token looked up: a read may
 * not select the token column.
 */
export function databaseTimes(sessionToken: string, row: Pick<AdapterSession, 'createdAt'>): [authTime: number | undefined, startedAt: number | undefined] {
  const carried = AUTH_TIME.exec(sessionToken)?.[1];
  if (carried !== undefined) return [Number(carried), Number(carried)];
  const createdAt = row.createdAt ? row.createdAt.valueOf() / 1000 : undefined;
  return [createdAt === undefined ? undefined : Math.floor(createdAt), createdAt];
}
