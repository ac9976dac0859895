/** `getSession(req, config)` and the two middlewares built on it, `createSessionLocals` and `createRequireAuth`. */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { DEFAULT_BASE_PATH } from '../http/base-path.js';
import type { BearerResult, FrameworkAuthConfig, ResolvedConfig, SessionResult } from '../contracts.js';
import { resolveConfigOnce } from '../config.js';
import { flushCookies, noStore, sendJsonResponse, sendRedirectResponse } from '../context.js';
import { prefersJson } from '../http/request.js';
import { readSession, withFeatureFields } from './session.js';
import type { GetSessionResult, Session } from '../types.js';

/**
 * The current session, or null when there is none. Never throws for a bad cookie: a tampered, expired or foreign
 * session is simply no session. Writes nothing; use `createSessionLocals` to keep rolling sessions alive. With API
 * keys (`ApiKeys()`), a request with `Authorization: Bearer <key>` is the key's user (`session.apiKey`), or null.
 * @example
 * const session = await getSession(req, authConfig)
 * if (!session?.user) return res.redirect('/login')
 */
export async function getSession(req: Request, config: FrameworkAuthConfig): GetSessionResult {
  const options = resolveConfigOnce(config);
  const bearer = options.bearer?.resultOf(req, options);
  if (bearer) return (await bearer).session;
  try {
    const { session } = await readSession(req, options, { write: false });
    return options.sessionFeatures.length > 0 ? await withFeatureFields(req, options, session) : session;
  } catch (error) {
    return noSession(options, error).session;
  }
}

/** A failed read, logged: the request goes on as one without a session. */
function noSession(options: ResolvedConfig, error: unknown): SessionResult {
  options.logger.error(error instanceof Error ? error : new Error(String(error)));
  return { session: null, token: null, cookies: [] };
}

/**
 * Reads the session (`write`: a rolling one is re-issued) with the features' fields and hands it to `then`: in the same
 * turn when read at once (a JWT opened at once, a SQLite row: see readSession) and no feature adds fields: no promise.
 */
function readSessionThen(req: Request, options: ResolvedConfig, write: boolean, then: (result: SessionResult) => void): void | Promise<void> {
  let read: ReturnType<typeof readSession>;
  try {
    read = readSession(req, options, { write });
    if (options.sessionFeatures.length > 0) read = Promise.resolve(read).then(async (result) => ({ ...result, session: await withFeatureFields(req, options, result.session) }));
  } catch (error) {
    return then(noSession(options, error));
  }
  if (read instanceof Promise) return read.then(then, (error: unknown) => then(noSession(options, error)));
  then(read);
}

/**
 * Middleware that stores the session (or null) in `res.locals['session']` for the routes after it, and re-issues the
 * session cookie when `session.updateAge` has passed, so that active users stay signed in.
 */
export function createSessionLocals(config: FrameworkAuthConfig): RequestHandler {
  const options = resolveConfigOnce(config);
  return function sessionLocals(req: Request, res: Response, next: NextFunction): void | Promise<void> {
    const bearer = options.bearer?.resultOf(req, options);
    if (bearer instanceof Promise) return bearer.then((result) => void (res.locals['session'] = result.session)).then(next);
    if (bearer) {
      res.locals['session'] = bearer.session;
      return next();
    }
    // SPEC §8: a request without a session cookie (most public pages) goes on synchronously, with no promise.
    if (!mayHaveSessionCookie(req, options)) {
      res.locals['session'] = null;
      return next();
    }
    return readSessionThen(req, options, true, (result) => {
      if (!res.headersSent && (result.cookies.length > 0 || result.session)) {
        // A response that sets a session cookie or may show the session must never be stored by a shared cache.
        res.setHeader('Cache-Control', noStore);
        flushCookies(res, result.cookies);
      }
      res.locals['session'] = result.session;
      next();
    });
  };
}

/**
 * False when the request certainly carries no session cookie (whole or chunked, plain or `__Secure-`), so that
 * there is nothing to read. A false positive only costs the full read.
 */
function mayHaveSessionCookie(req: Request, options: ResolvedConfig): boolean {
  const header = req.headers.cookie;
  if (!header) return false;
  return header.includes(options.cookies.plain.sessionToken.name) || header.includes(options.cookies.secure.sessionToken.name);
}

/** Options of `createRequireAuth`. */
export interface RequireAuthOptions {
  /**
   * Where to send visitors without a session (they get `?callbackUrl=<the page they asked for>`).
   * @default the sign-in page (`pages.signIn`, or `<basePath>/signin`)
   */
  redirectTo?: string;
  /**
   * What a request with an API key (`Authorization: Bearer`) must be allowed to do: a key without each of these scopes
   * is answered 403 `insufficient_scope`. A cookie session is its user and holds every scope.
   */
  scopes?: readonly string[];
  /** Lets a key made for an organization through (only `requirePermission`, which checks that organization, does). */
  organizationKeys?: boolean;
}

/**
 * A guard for routes or routers: with no `session.user` it redirects to the sign-in page with a `callbackUrl`, or
 * answers 401 JSON when the request prefers JSON; otherwise it calls `next()`. It reads `res.locals['session']` when
 * `sessionLocals` ran before it, and `getSession` otherwise. A request with an API key is answered 401, 403 or 429 with
 * `WWW-Authenticate` (RFC 6750) unless the key is good and holds `scopes`, never redirected.
 * @example
 * app.get('/me', createRequireAuth(authConfig), (req, res) => res.json({ user: res.locals['session'].user }))
 */
export function createRequireAuth(config: FrameworkAuthConfig, guardOptions: RequireAuthOptions = {}): RequestHandler {
  const options = resolveConfigOnce(config);
  const signInPath = guardOptions.redirectTo ?? options.pages.signIn ?? `${options.basePath ?? DEFAULT_BASE_PATH}/signin`;
  /** Lets a session with a user through; `res.locals['session']` already holds it. */
  function guard(req: Request, res: Response, next: NextFunction, session: Session | null): void {
    if (session?.user) return next();
    if (prefersJson(req)) {
      // RFC 9110: a 401 names the scheme that would be accepted; with API keys, a bearer key is.
      if (options.bearer) res.setHeader('WWW-Authenticate', 'Bearer');
      return sendJsonResponse(res, 401, { error: 'Unauthorized', message: 'Sign in to access this resource.' });
    }
    const separator = signInPath.includes('?') ? '&' : '?';
    sendRedirectResponse(res, `${signInPath}${separator}callbackUrl=${encodeURIComponent(req.originalUrl ?? req.url)}`);
  }
  const scopes = guardOptions.scopes ?? [];
  function guardBearer(res: Response, next: NextFunction, result: BearerResult): void {
    if (!result.session || !scopes.every((scope) => result.scopes.includes(scope)) || (result.organizationId !== undefined && !guardOptions.organizationKeys)) return options.bearer!.refuse(res, result, { scopes });
    res.locals['session'] = result.session;
    next();
  }
  return function requireAuth(req: Request, res: Response, next: NextFunction): void | Promise<void> {
    const bearer = options.bearer?.resultOf(req, options);
    if (bearer instanceof Promise) return bearer.then((result) => guardBearer(res, next, result));
    if (bearer) return guardBearer(res, next, bearer);
    const session = res.locals['session'] as Session | null | undefined;
    if (session !== undefined) return guard(req, res, next, session);
    // getSession's read (without the API key), when sessionLocals did not run before: a value without a session cookie.
    return readSessionThen(req, options, false, (result) => guard(req, res, next, (res.locals['session'] = result.session)));
  };
}
