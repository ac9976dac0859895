/**
 * Recent authentication ("sudo mode"): what turns a session into a lasting credential, or changes how the account
 * signs in, asks who is there. A session is recent while its last authentication (the sign-in or re-authentication
 * that made it, `auth_time` in a JWT or the time a database session's token carries; never a renewal) is at most
 * `session.reauthMaxAge` old; an unknown time is never recent. Otherwise the user confirms who they are at `<mount>/reauth`, which signs them in again and comes back.
 * @see OWASP ASVS 5.0 V7.5 (re-authentication before sensitive changes)
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { DEFAULT_BASE_PATH } from '../../http/base-path.js';
import type { FrameworkAuthConfig } from '../../contracts.js';
import { resolveConfigOnce } from '../../config.js';
import { flushCookies, noStore, sendJsonResponse, sendRedirectResponse } from '../../context.js';
import { type ErrorResponse, type ErrorType, AuthError, clientSafe } from '../../errors.js';
import { prefersJson } from '../../http/request.js';
import { readSession } from '../../session/session.js';
import { reauthUrl, reauthenticationJson } from './reauth-route.js';
import { isRecentAuth, reauthMaxAgeOf } from './signed-in.js';

declare module '../../errors.js' {
  interface FeatureErrorTypes {
    ReauthenticationRequired: true;
  }
}

/**
 * What was asked turns a session into a lasting credential or changes how the account signs in (a passkey, a linked
 * account), and the session's last authentication is older than `session.reauthMaxAge`: the user signs in again.
 */
export class ReauthenticationRequired extends AuthError {
  static type: ErrorType = 'ReauthenticationRequired';
  static override response: ErrorResponse = clientSafe(
    'ReauthenticationRequired',
    401,
    'signIn',
    'For this change, confirm it is you: sign in again, then try once more.',
    'Confirm it is you',
  );
}

/** Options of `createRequireRecentAuth`. */
export interface RequireRecentAuthOptions {
  /** Seconds the last authentication may be old. @default session.reauthMaxAge (600) */
  maxAge?: number;
}

/**
 * A guard for an app's sensitive routes: it passes a session whose last authentication (sign-in or
 * re-authentication) is at most `maxAge` seconds old. Otherwise a browser is sent to `<mount>/reauth` with a way
 * back, and a client that prefers JSON gets 401 `{ error: 'reauthentication_required', url }`; a visitor without a
 * session is sent to sign in (401 JSON `Unauthorized`), as `requireAuth` does.
 * @example
 * app.post('/billing/card', createRequireRecentAuth(authConfig), changeCard)
 */
export function createRequireRecentAuth(config: FrameworkAuthConfig, guardOptions: RequireRecentAuthOptions = {}): RequestHandler {
  const options = resolveConfigOnce(config);
  const maxAge = guardOptions.maxAge ?? reauthMaxAgeOf(options);
  if (!Number.isFinite(maxAge) || maxAge <= 0) throw new TypeError(`requireRecentAuth({ maxAge }) must be a positive number of seconds (got ${String(maxAge)})`);
  const mountPath = options.basePath ?? DEFAULT_BASE_PATH;
  async function guard(req: Request, res: Response, next: NextFunction): Promise<void> {
    // An API key is no recent authentication: it proves a key, not who is there.
    const bearer = options.bearer?.resultOf(req, options);
    if (bearer) return options.bearer!.refuse(res, await bearer, { message: 'An API key cannot do this: it needs a recent sign-in in a browser.' });
    let result;
    try {
      result = await readSession(req, options, { write: true });
    } catch (error) {
      options.logger.error(error instanceof Error ? error : new Error(String(error)));
      result = { session: null, token: null, cookies: [] };
    }
    res.locals['session'] = result.session;
    if (result.cookies.length > 0 && !res.headersSent) {
      res.setHeader('Cache-Control', noStore);
      flushCookies(res, result.cookies);
    }
    const returnTo = req.originalUrl ?? req.url;
    const json = prefersJson(req);
    if (!result.session?.user) {
      const signIn = options.pages.signIn ?? `${mountPath}/signin`;
      if (json) return sendJsonResponse(res, 401, { error: 'Unauthorized', message: 'Sign in to access this resource.' });
      return sendRedirectResponse(res, `${signIn}${signIn.includes('?') ? '&' : '?'}callbackUrl=${encodeURIComponent(returnTo)}`);
    }
    if (isRecentAuth(result.authTime, maxAge)) return next();
    const url = reauthUrl(mountPath, returnTo);
    if (json) return sendJsonResponse(res, 401, reauthenticationJson(url));
    sendRedirectResponse(res, url);
  }
  return function requireRecentAuth(req: Request, res: Response, next: NextFunction): Promise<void> {
    return guard(req, res, next);
  };
}
