/**
 * The signed-in user of an account page (sessions, re-authentication, two-factor, password change): who it is,
 * whether they authenticated recently (`session.reauthMaxAge`), and the answer that asks a visitor to sign in.
 */
import { type Adapter, callAdapter } from './adapter.js';
import type { RequestContext, ResolvedConfig } from '../../contracts.js';
import { sendJson, sendRedirect } from '../../context.js';
import { readChunkedCookie } from '../../http/cookies.js';
import { customPageUrl } from '../../http/redirect.js';
import { jwtTimes, sessionClock } from '../../session/session-clock.js';
import { databaseClock } from './session-token.js';
import type { AdapterUser, User } from '../../types.js';

declare module '../../contracts.js' {
  interface SessionOptions {
    /**
     * Seconds a sign-in counts as recent: what turns a session into a lasting credential or changes how the account
     * signs in (a passkey, a linked account, two-factor on or off, new recovery codes, a new password) needs a sign-in
     * or re-authentication (`<mount>/reauth`) at most this long ago, measured from that authentication, not from the
     * session's renewals. `requireRecentAuth()` guards an app's own routes the same way. Needs an adapter; read
     * from the config by `reauthMaxAgeOf`.
     * @default 600 (10 minutes)
     */
    reauthMaxAge?: number;
  }
}

/** Seconds a sign-in counts as recent when the config does not say (`session.reauthMaxAge`). */
const DEFAULT_REAUTH_MAX_AGE = 10 * 60;

/** The config's `session.reauthMaxAge`, checked: the database feature's startup check reads it first. */
export function reauthMaxAgeOf(options: ResolvedConfig): number {
  const seconds = options.source.session?.reauthMaxAge ?? DEFAULT_REAUTH_MAX_AGE;
  if (!Number.isFinite(seconds) || seconds <= 0) throw new TypeError(`session.reauthMaxAge must be a positive number of seconds (got ${String(seconds)})`);
  return seconds;
}

/** Whether an authentication at `authTime` (seconds since the epoch) is at most `maxAge` seconds old. */
export function isRecentAuth(authTime: number | undefined, maxAge: number, now: number = Date.now()): boolean {
  if (authTime === undefined || !Number.isFinite(authTime)) return false;
  const age = now / 1000 - authTime;
  // A time in the future is a clock that moved back, not a fresh sign-in; a second of skew is allowed.
  return age >= -1 && age <= maxAge;
}

/** What a session shows of a stored user (`session.user`): its id as a string, and its name, email and image. */
export function sessionUserOf(user: AdapterUser): User {
  const shown: User = { id: String(user.id) };
  if (user.name !== undefined) shown.name = user.name;
  if (user.email !== undefined) shown.email = user.email;
  if (user.image !== undefined) shown.image = user.image;
  return shown;
}

/** The signed-in user of a request, and when they last authenticated (seconds; undefined when unknown: never recent). */
export interface SignedIn {
  user: AdapterUser;
  authTime: number | undefined;
}

/**
 * The user of the request's current session and when they last authenticated, or null: a session past its expiry
 * or its absolute end (`session.absoluteMaxAge`) is no session here either.
 */
export async function currentSignIn(context: RequestContext, adapter: Adapter): Promise<SignedIn | null> {
  const { options } = context;
  const cookie = context.cookieOptions.sessionToken;
  const raw = readChunkedCookie(context.cookies, cookie.name);
  if (!raw) return null;
  const now = Date.now();
  if (options.session.strategy === 'database') {
    const found = await callAdapter(adapter, 'getSessionAndUser', raw);
    if (!found || found.session.expires.valueOf() <= now) return null;
    const clock = databaseClock(raw, found.session, options.session.absoluteMaxAge);
    if (clock.endsAt * 1000 <= now) return null;
    return { user: found.user, authTime: clock.authTime };
  }
  const token = await options.jwt.decode({ token: raw, secret: options.secrets, salt: cookie.name }).catch(() => null);
  if (!token?.sub) return null;
  const clock = sessionClock(...jwtTimes(token, Math.floor(now / 1000)), options.session.absoluteMaxAge);
  if (clock.endsAt * 1000 <= now) return null;
  const user = await callAdapter(adapter, 'getUser', token.sub);
  return user ? { user, authTime: clock.authTime } : null;
}

/** Whether the signed-in user authenticated within `session.reauthMaxAge`. */
export function isRecentSignIn(context: RequestContext, signedIn: SignedIn): boolean {
  return isRecentAuth(signedIn.authTime, reauthMaxAgeOf(context.options));
}

/**
 * The answer of a page for signed-in users to a request without a session: 401 JSON with `message`, or the sign-in
 * page with a way back to `<mount>/<action>`.
 */
export function askToSignIn(context: RequestContext, json: boolean, back: { action: string; message: string }): void {
  if (json) return sendJson(context, 401, { error: 'Unauthorized', message: back.message });
  const signIn = context.options.pages.signIn ?? `${context.mountPath}/signin`;
  sendRedirect(context, customPageUrl(context, signIn, { callbackUrl: `${context.origin}${context.mountPath}/${back.action}` }));
}
