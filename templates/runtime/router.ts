/** The core's route table, and the rules that match a request to one of its actions; handler.ts runs the action. */
import type { RequestContext, ResolvedProvider, Route, RouteEntry, RouteSpec } from './contracts.js';
import { InvalidProvider, MethodNotAllowed, UnknownAction } from './errors.js';

/**
 * The core's routes below the mount path, each action's spec (`RouteSpec`). Features add theirs (`Feature` in
 * contracts.ts); the docs' route table is checked against both (test/docs.test.ts).
 */
export const routes = {
  providers: { methods: ['GET'], provider: 'none', errors: 'json' },
  csrf: { methods: ['GET'], provider: 'none', errors: 'json' },
  session: { methods: ['GET', 'POST'], provider: 'none', errors: 'json' },
  signin: { methods: ['GET', 'POST'], provider: 'optional', errors: 'redirect' },
  callback: { methods: ['GET', 'POST'], provider: 'required', errors: 'redirect' },
  signout: { methods: ['GET', 'POST'], provider: 'none', errors: 'redirect' },
  error: { methods: ['GET'], provider: 'none', errors: 'page' },
} as const satisfies Record<string, RouteSpec>;

/** A core action. */
export type Action = keyof typeof routes;

/** The action named by the first segment below the mount, and its entry; `UnknownAction` (404) when there is none. */
export function entryOf(table: Readonly<Record<string, RouteEntry>>, segments: readonly string[]): { action: string; entry: RouteEntry } {
  const [name] = segments;
  const entry = name && Object.hasOwn(table, name) ? table[name] : undefined;
  if (!name || !entry) throw new UnknownAction(`There is no auth route "${segments.join('/')}"`);
  return { action: name, entry };
}

/**
 * The route of `spec` for these segments and method (HEAD is GET): `UnknownAction` (404) for a provider segment the
 * action does not take (or lacks), or a path below it not among its `subpaths` (`<mount>/account/email/confirm`);
 * `MethodNotAllowed` (405, with `Allow`) for a method it does not accept.
 */
export function matchRoute(spec: RouteSpec, segments: readonly string[], requestMethod: string): Route {
  const [, providerId, ...rest] = segments;
  const subpath = spec.subpaths && segments.length > 1 ? segments.slice(1).join('/') : undefined;
  const unknown = spec.subpaths
    ? subpath !== undefined && !spec.subpaths.some((pattern) => isSubpath(pattern.split('/'), subpath.split('/')))
    : rest.length > 0 || (spec.provider === 'none' && providerId !== undefined) || (spec.provider === 'required' && !providerId);
  if (unknown) throw new UnknownAction(`There is no auth route "${segments.join('/')}"`);
  const method = requestMethod === 'HEAD' ? 'GET' : requestMethod;
  if (!(spec.methods as readonly string[]).includes(method)) {
    throw new MethodNotAllowed(`${requestMethod} is not allowed here; use ${spec.methods.join(' or ')}`, { allow: spec.methods });
  }
  const allowed = method as Route['method'];
  return spec.subpaths ? { method: allowed, providerId: undefined, subpath } : { method: allowed, providerId };
}

/** Whether a path below an action is the one a `subpaths` pattern names, where `*` is any one segment (`invitations/*`). */
const isSubpath = (want: string[], have: string[]): boolean => want.length === have.length && want.every((part, index) => part === have[index] || (part === '*' && have[index] !== ''));

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
