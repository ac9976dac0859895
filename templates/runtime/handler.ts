/**
 * `FrameworkAuth(config)`: the Express middleware that serves every route below the mount path. It matches the
 * request to an action (router.ts) and runs it (routes/, one file per core action; features bring theirs); every
 * error becomes a 4xx or the error page in respond-with-error.ts.
 */
import type { NextFunction, Request, Response } from 'express';
import type { FrameworkAuthConfig, ResolvedConfig, RequestContext, RouteEntry, RouteHandler } from './contracts.js';
import { resolveConfigOnce } from './config.js';
import { createContext } from './context.js';
import { routeRequest } from './http/request.js';
import { respondWithError } from './http/respond-with-error.js';
import { type Action, entryOf, matchRoute, routes } from './router.js';
import { callbackRoute } from './routes/callback.js';
import { csrfRoute } from './routes/csrf.js';
import { errorRoute } from './routes/error.js';
import { providersRoute } from './routes/providers.js';
import { sessionRoute } from './routes/session.js';
import { signInRoute } from './routes/signin.js';
import { signOutRoute } from './routes/signout.js';

/** The Express middleware returned by `FrameworkAuth`. */
export type FrameworkAuthHandler = (req: Request, res: Response, next: NextFunction) => Promise<void>;

/** Each core action's route. */
const coreRoutes: Record<Action, RouteHandler> = {
  providers: providersRoute,
  csrf: csrfRoute,
  session: sessionRoute,
  signin: signInRoute,
  callback: callbackRoute,
  signout: signOutRoute,
  error: errorRoute,
};

/** The routes this app serves: the core's and its features' (a feature's route may not shadow another). */
function routeTable(options: ResolvedConfig): Record<string, RouteEntry> {
  const table: Record<string, RouteEntry> = {};
  for (const [action, spec] of Object.entries(routes)) table[action] = { ...spec, run: coreRoutes[action as Action] };
  for (const feature of options.features) {
    for (const [action, entry] of Object.entries(feature.routes ?? {})) {
      if (Object.hasOwn(table, action)) throw new TypeError(`Feature "${feature.id}" brings a route "${action}" that the app already has`);
      table[action] = entry;
    }
  }
  return table;
}

/**
 * Creates the auth middleware. The config is checked once, here: a missing or short `AUTH_SECRET` throws now, at
 * startup. Mount it on a wildcard path: `app.use('/auth/*splat', FrameworkAuth(config))` (Express 5),
 * `app.use('/auth/*', …)` (Express 4) or `app.use('/auth', …)`. Features add their own routes (`Feature.routes`).
 * @example
 * app.set('trust proxy', true)
 * app.use('/auth/*splat', FrameworkAuth({ providers: [GitHub] }))
 */
export function FrameworkAuth(config: FrameworkAuthConfig): FrameworkAuthHandler {
  const options = resolveConfigOnce(config);
  const table = routeTable(options);
  return async function frameworkAuth(req: Request, res: Response, next: NextFunction): Promise<void> {
    let context: RequestContext | undefined;
    let entry: RouteEntry | undefined;
    // The route's way of answering errors once the guards passed: a guard's refusal is a page or JSON, never a redirect.
    let errors: RouteEntry['errors'] | undefined;
    try {
      const request = routeRequest(req, options.basePath);
      if (!request) return next();
      const found = entryOf(table, request.segments);
      entry = found.entry;
      const route = matchRoute(entry, request.segments, req.method);
      // An API key reads its session (GET <mount>/session) and nothing else here: what manages the account is the user's.
      const bearer = found.action === 'session' && route.method === 'GET' ? undefined : options.bearer?.resultOf(req, options);
      if (bearer) return options.bearer!.refuse(res, await bearer, { message: `An API key cannot use ${request.mountPath}/${found.action}: sign in to manage the account.` });
      context = createContext(req, res, options, request.mountPath);
      for (const feature of options.features) await feature.beforeRoute?.(context, found.action, route);
      errors = entry.errors;
      await entry.run(context, route);
    } catch (error) {
      respondWithError(req, res, options, context, errors ?? (context ? 'page' : entry?.errors), error);
    }
  };
}
