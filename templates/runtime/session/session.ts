/**
 * Reading and writing JWT sessions (database sessions are read by the database feature, features/database/). A
 * session that cannot be read for any reason (tampered, expired, another secret, truncated chunks) is no session: it
 * fails closed, and its cookies are cleared where a response exists.
 */
import type { Request } from 'express';
import type { CookieOption, OutgoingCookie, RequestContext, ResolvedConfig, SessionRead, SessionReadParams, SessionResult } from '../contracts.js';
import { sendRedirect } from '../context.js';
import { chunkCookie, clearChunkedCookie, findCookie, readChunkedCookie } from '../http/cookies.js';
import { JWTSessionError } from '../errors.js';
import { emitEvent, recordSecurityEvent } from '../events.js';
import { databaseOf } from '../config.js';
import { providerTokensOf, refreshErrorOfToken } from '../oauth/provider-tokens.js';
import { customPageUrl, resolveRedirect } from '../http/redirect.js';
import { cookieOptionsFor, requestCookies } from '../http/request.js';
import { isoDate } from './iso-date.js';
import { decode, decodeAtOnce, userClaims } from './jwt.js';
import { type SessionClock, jwtTimes, sessionClock } from './session-clock.js';
import type { Account, AdapterUser, JWT, Profile, Session, User } from '../types.js';

function sameToken(a: JWT, b: JWT): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

/**
 * Reads the session of a request. With `write`, an expiring session is re-issued (rolling sessions) and a bad one
 * is cleared; without it (plain `getSession`), nothing is written. A value, not a promise, when the answer needs no
 * waiting (no session cookie; a JWT opened at once, see readJwtSession; a database session read at once).
 */
export function readSession(req: Request, options: ResolvedConfig, params: SessionReadParams): SessionResult | Promise<SessionResult> {
  // Cheap exits first: a request without a session cookie costs no key derivation and no decryption.
  const header = req.headers.cookie;
  if (!header) return { session: null, token: null, cookies: [] };
  const cookieOptions = params.cookieOptions ?? cookieOptionsFor(req, options);
  const sessionCookie = cookieOptions.sessionToken;
  if (!header.includes(sessionCookie.name)) return { session: null, token: null, cookies: [] };
  // A whole cookie is found without parsing the others; chunks (and the cookies a read sets) need them all.
  let cookies = params.cookies;
  let raw = cookies ? readChunkedCookie(cookies, sessionCookie.name) : findCookie(header, sessionCookie.name);
  if (raw === undefined && !cookies) {
    cookies = requestCookies(req);
    raw = readChunkedCookie(cookies, sessionCookie.name);
  }
  const allCookies = (): Map<string, string> => (cookies ??= requestCookies(req));
  const clear = (): SessionResult => ({ session: null, token: null, cookies: params.write ? clearChunkedCookie(allCookies(), sessionCookie) : [] });
  // Chunks without their first part are debris of a cookie the browser partly dropped: no session, and cleared.
  if (raw === undefined) return clear();
  if (options.session.strategy === 'database') {
    const read: SessionRead = { ...params, cookies: allCookies, cookieOptions, clear };
    return databaseOf(options).readSession(options, raw, read);
  }
  return readJwtSession({ options, params, raw, sessionCookie, allCookies, clear });
}

/** A session with the fields the features add (`Feature.session`), read now, in feature order. */
export async function withFeatureFields(req: Request, options: ResolvedConfig, session: Session | null): Promise<Session | null> {
  for (const feature of options.sessionFeatures) if (session) session = { ...session, ...(await feature.session!(session, { options, req })) };
  return session;
}

/** When a JWT session ends and when its cookie is due again, from its claims and the token the `jwt` callback gave. */
function sessionTimes(options: ResolvedConfig, params: SessionReadParams, decoded: JWT, token: JWT) {
  const now = Math.floor(Date.now() / 1000);
  const issuedAt = typeof decoded.iat === 'number' ? decoded.iat : 0;
  // The authentication time and the session's start outlive every re-issue (session-clock.ts).
  const clock = sessionClock(...jwtTimes(decoded, now), options.session.absoluteMaxAge);
  const refresh = params.write === true && (params.trigger === 'update' || !sameToken(decoded, token) || now - issuedAt >= options.session.updateAge);
  const renewedAt = Math.min(now + options.jwt.maxAge, clock.endsAt);
  const expiresAt = refresh ? renewedAt : typeof decoded.exp === 'number' ? decoded.exp : renewedAt;
  return { now, clock, ended: now >= clock.endsAt, refresh, expiresAt };
}

/** Writes the clock into a token being re-issued, so that the next read finds the same times. */
function keepClock(token: JWT, clock: SessionClock): void {
  if (clock.authTime !== undefined) token.auth_time = clock.authTime;
  else token.session_start = clock.startedAt!;
}

/** The session the `session` callback is given: the user from the token's claims, the expiry (seconds), a refresh error. */
function defaultSession(token: JWT, expiresAt: number): Session {
  const user: User = {};
  if (token.sub !== undefined) user.id = token.sub;
  if (token.name !== undefined) user.name = token.name;
  if (token.email !== undefined) user.email = token.email;
  if (token.picture !== undefined) user.image = token.picture;
  const error = refreshErrorOfToken(token);
  return { user, expires: isoDate(expiresAt * 1000), ...(error && { error }) };
}

/** What readSession hands its JWT half: the raw cookie, its option, and the request's cookies and clearing. */
interface JwtRead {
  options: ResolvedConfig;
  params: SessionReadParams;
  raw: string;
  sessionCookie: CookieOption;
  allCookies: () => Map<string, string>;
  clear: () => SessionResult;
}

/**
 * The JWT half of readSession: decrypts the cookie, runs the callbacks, and re-issues it when due. A token `decode`
 * opens without waiting (jwt.ts's `decodeAtOnce`: a remembered token, or ours once its key is derived), read with the
 * default `decode` and callbacks and no `session` event, and not due to be re-issued, is answered at once: nothing in
 * it waits, so nothing returns a promise.
 */
function readJwtSession(read: JwtRead): SessionResult | Promise<SessionResult> {
  const { options, params, raw, sessionCookie, clear } = read;
  const custom = options.source.callbacks;
  if (options.jwt.decode !== decode || custom?.jwt || custom?.session || options.events.session || params.trigger) return readJwtSessionAsync(read);
  let decoded: JWT | undefined;
  try {
    decoded = decodeAtOnce(raw, options.secrets, sessionCookie.name);
  } catch (error) {
    return rejected(options, error, clear);
  }
  if (!decoded) return readJwtSessionAsync(read);
  const times = sessionTimes(options, params, decoded, decoded);
  if (times.ended) return clear();
  if (times.refresh) return readJwtSessionAsync(read);
  keepClock(decoded, times.clock);
  return { session: defaultSession(decoded, times.expiresAt), token: decoded, cookies: [], authTime: times.clock.authTime };
}

/** A session cookie that did not open: no session (logged at debug level, by the error's name only). */
function rejected(options: ResolvedConfig, error: unknown, clear: () => SessionResult): SessionResult {
  options.logger.debug('session cookie rejected', { reason: error instanceof Error ? error.name : 'unknown' });
  return clear();
}

async function readJwtSessionAsync({ options, params, raw, sessionCookie, allCookies, clear }: JwtRead): Promise<SessionResult> {
  let decoded: JWT | null;
  try {
    decoded = await options.jwt.decode({ token: raw, secret: options.secrets, salt: sessionCookie.name });
  } catch (error) {
    return rejected(options, error, clear);
  }
  if (!decoded) return clear();

  let token: JWT | null;
  try {
    token = await options.callbacks.jwt({
      token: decoded,
      ...(params.trigger && { trigger: params.trigger, session: params.newSession }),
    });
  } catch (error) {
    options.logger.error(new JWTSessionError('The jwt callback failed', { cause: error instanceof Error ? error : undefined }));
    return clear();
  }
  if (!token) return clear();

  const { now, clock, ended, refresh, expiresAt } = sessionTimes(options, params, decoded, token);
  if (ended) return clear();
  keepClock(token, clock);
  let session: Session;
  try {
    session = (await options.callbacks.session({
      session: defaultSession(token, expiresAt),
      token,
      ...(params.trigger && { trigger: params.trigger, newSession: params.newSession }),
    })) as Session;
  } catch (error) {
    options.logger.error(new JWTSessionError('The session callback failed', { cause: error instanceof Error ? error : undefined }));
    return clear();
  }

  const outgoing: OutgoingCookie[] = [];
  if (refresh) {
    const encoded = await options.jwt.encode({ token, secret: options.secrets, salt: sessionCookie.name, maxAge: expiresAt - now });
    outgoing.push(...chunkCookie(allCookies(), sessionCookie, encoded, { expires: new Date(expiresAt * 1000) }));
  }
  if (options.events.session) await emitEvent(options, 'session', { session, token });
  return { session, token, cookies: outgoing, authTime: clock.authTime };
}

/**
 * The end of a proven sign-in: the session (a database row through the database feature, or the JWT cookie: the
 * default token through the `jwt` callback, encrypted and chunked), the `sign-in` security event, `afterSignIn`, the
 * `signIn` event and the redirect. Called by `completeSignIn`, and by the second factor once its code is right.
 */
export async function startSession(
  context: RequestContext,
  params: { user: User | AdapterUser; account: Account; profile?: Profile; isNewUser: boolean; callbackUrl: string | undefined },
): Promise<void> {
  const { options } = context;
  const { user, account, profile, isNewUser } = params;
  const sessionCookie = context.cookieOptions.sessionToken;
  // A `jwt` callback that returns null opens no session: no sign-in to record.
  let opened = true;
  if (options.session.strategy === 'database' && options.database) {
    const { sessionToken, expires } = await options.database.openSession(context, String(user.id));
    context.outgoing.push(...chunkCookie(context.cookies, sessionCookie, sessionToken, { expires }));
  } else {
    const initial = userClaims(user);
    initial.auth_time = Math.floor(Date.now() / 1000);
    const providerTokens = providerTokensOf(account);
    if (providerTokens) initial.providerTokens = { [account.provider]: providerTokens };
    const token = await options.callbacks.jwt({ token: initial, user, account, ...(profile && { profile }), trigger: isNewUser ? 'signUp' : 'signIn', isNewUser });
    if (!token) {
      opened = false;
      context.outgoing.push(...clearChunkedCookie(context.cookies, sessionCookie));
    } else {
      const maxAge = Math.min(options.jwt.maxAge, options.session.absoluteMaxAge);
      const encoded = await options.jwt.encode({ token, secret: options.secrets, salt: sessionCookie.name, maxAge });
      context.outgoing.push(...chunkCookie(context.cookies, sessionCookie, encoded, { expires: new Date(Date.now() + maxAge * 1000) }));
    }
  }
  if (opened) await recordSecurityEvent(context, { type: 'sign-in', userId: String(user.id), method: account.provider });
  for (const feature of opened ? options.features : []) await Promise.resolve().then(() => feature.afterSignIn?.({ user, account, isNewUser }, context)).catch((error: Error) => options.logger.error(error));
  await emitEvent(options, 'signIn', { user, account, ...(profile && { profile }), isNewUser });
  const destination = await resolveRedirect(context, params.callbackUrl);
  if (isNewUser && options.pages.newUser) {
    return sendRedirect(context, customPageUrl(context, options.pages.newUser, { callbackUrl: destination }));
  }
  sendRedirect(context, destination);
}
