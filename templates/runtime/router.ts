/**
 * The route table below the mount path, and the rules that match a request to one of its actions: the methods each
 * action takes and whether it names a provider (`/signin/<provider>`). handler.ts runs the action; routes/ holds one
 * file per action.
 */
import type { RequestContext } from './context.js';
import { InvalidProvider, MethodNotAllowed, UnknownAction } from './errors.js';
import type { ResolvedProvider } from './providers/resolve.js';

/**
 * The routes below the mount path: each action, the methods it accepts, and whether it takes a provider id segment
 * (`none`, `optional` or `required`). The README's route table is checked against it (test/docs.test.ts).
 */
export const routes = {
  providers: { methods: ['GET'], provider: 'none' },
  csrf: { methods: ['GET'], provider: 'none' },
  session: { methods: ['GET', 'POST'], provider: 'none' },
  signin: { methods: ['GET', 'POST'], provider: 'optional' },
  callback: { methods: ['GET', 'POST'], provider: 'required' },
  signout: { methods: ['GET', 'POST'], provider: 'none' },
  sessions: { methods: ['GET', 'POST'], provider: 'none' },
  error: { methods: ['GET'], provider: 'none' },
  'verify-request': { methods: ['GET'], provider: 'none' },
  'webauthn-options': { methods: ['GET'], provider: 'required' },
} as const satisfies Record<string, { methods: readonly string[]; provider: 'none' | 'optional' | 'required' }>;

export type Action = keyof typeof routes;

/** A request matched to its route: the method (HEAD answered as GET) and the provider segment. */
export interface Route {
  method: 'GET' | 'POST';
  providerId: string | undefined;
}

/** Runs one action. */
export type RouteHandler = (context: RequestContext, route: Route) => void | Promise<void>;

/** The action named by the first segment below the mount; `UnknownAction` (404) when there is none. */
export function actionOf(segments: readonly string[]): Action {
  const [name] = segments;
  if (!name || !Object.hasOwn(routes, name)) throw new UnknownAction(`There is no auth route "${segments.join('/')}"`);
  return name as Action;
}

/**
 * The route of `action` for these segments and method: `UnknownAction` (404) for a provider segment the action does
 * not take (or lacks), `MethodNotAllowed` (405, with `Allow`) for a method it does not accept.
 */
export function matchRoute(action: Action, segments: readonly string[], requestMethod: string): Route {
  const [, providerId, ...rest] = segments;
  const spec = routes[action];
  if (rest.length > 0 || (spec.provider === 'none' && providerId !== undefined) || (spec.provider === 'required' && !providerId)) {
    throw new UnknownAction(`There is no auth route "${segments.join('/')}"`);
  }
  const method = requestMethod === 'HEAD' ? 'GET' : requestMethod;
  if (!(spec.methods as readonly string[]).includes(method)) {
    throw new MethodNotAllowed(`${requestMethod} is not allowed here; use ${spec.methods.join(' or ')}`, { allow: spec.methods });
  }
  return { method: method as Route['method'], providerId };
}

/** The configured provider of a provider segment; `InvalidProvider` (404) naming the configured ones otherwise. */
export function findProvider(context: RequestContext, id: string): ResolvedProvider {
  const provider = context.options.providersById.get(id);
  if (!provider) {
    const known = [...context.options.providersById.keys()].join(', ') || 'none';
    throw new InvalidProvider(`Unknown provider "${id}"; configured providers: ${known}`);
  }
  return provider;
}

/** Refuses a provider on a route its type does not serve (400). */
export function unsupportedProvider(provider: ResolvedProvider): never {
  const hint = provider.type === 'webauthn' ? ': passkeys sign in through webauthn-options and a POST to the callback' : '';
  const error = new InvalidProvider(`Provider "${provider.id}" is of type "${provider.type}", which this route does not serve${hint}.`);
  error.status = 400;
  throw error;
}
