/**
 * Sessions a user can see and end (database strategy): the list of their sessions (created, last seen, browser),
 * ending one, all the others, or all ("sign out everywhere"). Every ended session's row is deleted, so the next
 * request with its cookie, on any app process sharing the database, has no session.
 *
 * A session is named by `id`, a SHA-256 digest of its token: the token itself is the session's secret and never
 * leaves the server, so a listed id cannot be used as a cookie.
 */
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { type Adapter, callAdapter } from './adapter.js';
import type { FrameworkAuthConfig, ResolvedConfig } from '../../contracts.js';
import { resolveConfigOnce } from '../../config.js';
import { readChunkedCookie } from '../../http/cookies.js';
import { InvalidRequest, MissingAdapterMethods, UnsupportedStrategy } from '../../errors.js';
import { recordSecurityEvent } from '../../events.js';
import { cookieOptionsFor, requestCookies } from '../../http/request.js';
import type { AdapterSession } from '../../types.js';
import { endSessionRows } from './session.js';

/** One of the signed-in user's sessions, as listed to them. */
export interface SessionSummary {
  /** Names the session in `endSession`; a digest of its token, not the token. */
  id: string;
  /** True for the session of the request that asked. */
  current: boolean;
  /** ISO dates; null for a session made before they were stored. */
  createdAt: string | null;
  lastSeenAt: string | null;
  expires: string;
  /** The browser's `User-Agent` at sign-in, or null. */
  userAgent: string | null;
}

/** Which sessions to end: one by its id, every one but the current, or all of them. */
export type EndSessions = { id: string } | 'others' | 'all';

/** The signed-in user's session row and the adapter that holds it. */
interface CurrentSession {
  adapter: Adapter;
  row: AdapterSession;
}

/** The id a session is listed under: the SHA-256 digest of its token, base64url. */
export function sessionIdOf(sessionToken: string): string {
  return createHash('sha256').update(sessionToken).digest('base64url');
}

/** The adapter when this config can manage sessions; throws naming what is missing otherwise. */
function managingAdapter(options: ResolvedConfig): Adapter {
  if (options.session.strategy !== 'database' || !options.adapter) {
    throw new UnsupportedStrategy('Listing and ending sessions needs database sessions: set `adapter` (and keep `session.strategy` "database").');
  }
  const missing = (['listSessionsByUserId', 'deleteSession', 'getSessionAndUser'] as const).filter((method) => typeof options.adapter![method] !== 'function');
  if (missing.length > 0) throw new MissingAdapterMethods(`Listing and ending sessions needs these adapter methods, which the adapter lacks: ${missing.join(', ')}`);
  return options.adapter;
}

/** The request's own session row, or null when it has none (no cookie, unknown, or expired). */
async function currentSession(req: Request, options: ResolvedConfig): Promise<CurrentSession | null> {
  const adapter = managingAdapter(options);
  const sessionToken = readChunkedCookie(requestCookies(req), cookieOptionsFor(req, options).sessionToken.name);
  if (sessionToken === undefined) return null;
  const found = await callAdapter(adapter, 'getSessionAndUser', sessionToken);
  if (!found || found.session.expires.valueOf() <= Date.now()) return null;
  return { adapter, row: found.session };
}

function summaryOf(row: AdapterSession, current: AdapterSession): SessionSummary {
  return {
    id: sessionIdOf(row.sessionToken),
    current: row.sessionToken === current.sessionToken,
    createdAt: row.createdAt?.toISOString() ?? null,
    lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
    expires: row.expires.toISOString(),
    userAgent: row.userAgent ?? null,
  };
}

/** The live session rows of the current user, the current one first, then the most recently seen. */
async function liveRowsOf(current: CurrentSession): Promise<AdapterSession[]> {
  const now = Date.now();
  const rows = await callAdapter(current.adapter, 'listSessionsByUserId', current.row.userId);
  const seen = (row: AdapterSession) => (row.lastSeenAt ?? row.createdAt ?? new Date(0)).valueOf();
  return rows
    .filter((row) => row.expires.valueOf() > now)
    .sort((a, b) => Number(b.sessionToken === current.row.sessionToken) - Number(a.sessionToken === current.row.sessionToken) || seen(b) - seen(a));
}

/** The current user's sessions, or null when the request has no session. */
export async function listSessionsOf(req: Request, options: ResolvedConfig): Promise<SessionSummary[] | null> {
  const current = await currentSession(req, options);
  if (!current) return null;
  return (await liveRowsOf(current)).map((row) => summaryOf(row, current.row));
}

/**
 * Ends sessions of the current user: their rows are deleted, each one emits the `signOut` event, and the user gets one
 * `session-ended` security event (how many ended). Returns how many were ended and whether the request's own session
 * was one of them, or null when the request has no session. An id that is not one of the user's live sessions ends
 * nothing: a user can only end their own sessions.
 */
export async function endSessionsOf(req: Request, options: ResolvedConfig, which: EndSessions): Promise<{ ended: number; endedCurrent: boolean } | null> {
  const current = await currentSession(req, options);
  if (!current) return null;
  if (typeof which === 'object' && (typeof which.id !== 'string' || which.id === '')) throw new InvalidRequest('Name the session to end by its id.');
  const rows = await liveRowsOf(current);
  const chosen = rows.filter((row) => {
    if (which === 'all') return true;
    if (which === 'others') return row.sessionToken !== current.row.sessionToken;
    return sessionIdOf(row.sessionToken) === which.id;
  });
  const ended = await endSessionRows(options, current.adapter, chosen);
  if (ended > 0) await recordSecurityEvent({ req, options }, { type: 'session-ended', userId: String(current.row.userId), detail: String(ended) });
  return { ended, endedCurrent: chosen.some((row) => row.sessionToken === current.row.sessionToken) };
}

/**
 * The signed-in user's sessions (database strategy), the current one first, or null when nobody is signed in.
 * Throws `UnsupportedStrategy` with JWT sessions, and `MissingAdapterMethods` for an adapter without
 * `listSessionsByUserId` (Auth.js's adapters lack it).
 * @example const sessions = await listSessions(req, authConfig)
 */
export function listSessions(req: Request, config: FrameworkAuthConfig): Promise<SessionSummary[] | null> {
  return listSessionsOf(req, resolveConfigOnce(config));
}

/** Ends one of the signed-in user's sessions by its listed id; true when it was theirs and live. */
export async function endSession(req: Request, id: string, config: FrameworkAuthConfig): Promise<boolean> {
  return ((await endSessionsOf(req, resolveConfigOnce(config), { id }))?.ended ?? 0) > 0;
}

/** Ends every session of the signed-in user except the request's own ("sign out other devices"); how many ended. */
export async function endOtherSessions(req: Request, config: FrameworkAuthConfig): Promise<number> {
  return (await endSessionsOf(req, resolveConfigOnce(config), 'others'))?.ended ?? 0;
}

/**
 * Ends every session of the signed-in user, the request's own included ("sign out everywhere"); how many ended.
 * The browser still holds its cookie until the next response that reads the session clears it.
 */
export async function endAllSessions(req: Request, config: FrameworkAuthConfig): Promise<number> {
  return (await endSessionsOf(req, resolveConfigOnce(config), 'all'))?.ended ?? 0;
}
