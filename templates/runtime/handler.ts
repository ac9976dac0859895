/**
 * `FrameworkAuth(config)`: the Express middleware that serves every route below the mount path. It matches the
 * request to an action (router.ts) and runs it (routes/, one file per action); every error becomes a 4xx or the
 * error page in respond-with-error.ts.
 */
import type { NextFunction, Request, Response } from 'express';
import { type FrameworkAuthConfig, resolveConfigOnce } from './config.js';
import { type RequestContext, createContext } from './context.js';
import { routeRequest } from './request.js';
import { respondWithError } from './respond-with-error.js';
import { UnknownAction } from './errors.js';
import { type Action, type RouteHandler, actionOf, matchRoute } from './router.js';
import { callbackRoute } from './routes/callback.js';
import { csrfRoute } from './routes/csrf.js';
import { errorRoute } from './routes/error.js';
import { providersRoute } from './routes/providers.js';
import { sessionRoute } from './routes/session.js';
import { signInRoute } from './routes/signin.js';
import { signOutRoute } from './routes/signout.js';
import { verifyRequestRoute } from './routes/verify-request.js';
import { webauthnOptionsRoute } from './routes/webauthn-options.js';

export { routes } from './router.js';

/** The Express middleware returned by `FrameworkAuth`. */
export type FrameworkAuthHandler = (req: Request, res: Response, next: NextFunction) => Promise<void>;

/**
 * The actions whose route is copied only with the feature that needs it, and handed to `FrameworkAuth` by the
 * generated src/auth/index.ts: `sessions` (session-management.ts) with a database adapter.
 */
export type OptionalAction = 'sessions';

/** The second argument of `FrameworkAuth`: the routes of optional actions this app has. */
export interface FrameworkAuthOptions {
  routes?: Partial<Record<OptionalAction, RouteHandler>>;
}

/** Each built-in action's route. */
const actions: Record<Exclude<Action, OptionalAction>, RouteHandler> = {
  providers: providersRoute,
  csrf: csrfRoute,
  session: sessionRoute,
  signin: signInRoute,
  callback: callbackRoute,
  signout: signOutRoute,
  error: errorRoute,
  'verify-request': verifyRequestRoute,
  'webauthn-options': webauthnOptionsRoute,
};

/**
 * Creates the auth middleware. The config is checked once, here: a missing or short `AUTH_SECRET` throws now, at
 * startup. Mount it on a wildcard path: `app.use('/auth/*splat', FrameworkAuth(config))` (Express 5),
 * `app.use('/auth/*', …)` (Express 4) or `app.use('/auth', …)`. `handlerOptions.routes.sessions` serves
 * `<mount>/sessions`: pass `sessionsRoute` from routes/sessions.ts (copied with a database adapter).
 * @example
 * app.set('trust proxy', true)
 * app.use('/auth/*splat', FrameworkAuth({ providers: [GitHub] }))
 */
export function FrameworkAuth(config: FrameworkAuthConfig, handlerOptions: FrameworkAuthOptions = {}): FrameworkAuthHandler {
  const options = resolveConfigOnce(config);
  const routeOf = (action: Action): RouteHandler => {
    const handler = action === 'sessions' ? handlerOptions.routes?.sessions : actions[action];
    if (!handler) throw new UnknownAction(`There is no auth route "${action}" in this app (it comes with database sessions)`);
    return handler;
  };
  return async function frameworkAuth(req: Request, res: Response, next: NextFunction): Promise<void> {
    let context: RequestContext | undefined;
    let action: Action | undefined;
    try {
      const request = routeRequest(req, options.basePath);
      if (!request) return next();
      action = actionOf(request.segments);
      const run = routeOf(action);
      const route = matchRoute(action, request.segments, req.method);
      context = createContext(req, res, options, request.mountPath);
      await run(context, route);
    } catch (error) {
      respondWithError(req, res, options, context, action, error);
    }
  };
}
