/**
 * Who may do what in an organization, read from the database on the request that asks (SPEC §14, OWASP ASVS 5.0
 * V8): `getSession(req).organization` (the session's active organization and the role held there),
 * `requirePermission(permission | permissions[], { organization })` for an app's routes and
 * `hasPermission(req, permission, organization?)` inside them. Nothing of a role is taken from a cookie: a removed
 * member or a lowered role loses the access on the next request, on every app process. An organization the user is
 * not a member of is answered 404, as one that does not exist.
 *
 * One query per request finds both memberships a check may need, the active one and the one the route names: the
 * guard says which organization it names before the session is read, and the session's field and the guard share
 * the answer.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { FrameworkAuthConfig, ResolvedConfig } from '../../contracts.js';
import { resolveConfigOnce } from '../../config.js';
import { sendJsonResponse } from '../../context.js';
import { findCookie, readChunkedCookie } from '../../http/cookies.js';
import { cookieOptionsFor, requestCookies } from '../../http/request.js';
import { type RequireAuthOptions, createRequireAuth, getSession } from '../../session/get-session.js';
import type { Session } from '../../types.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import { type OrganizationSettings, type Permission, checkedPermissions, roleGrants } from './roles.js';
import type { Membership } from './storage.js';

/** The active organization as `getSession(req).organization` gives it, with the role the user holds there now. */
export interface SessionOrganization {
  id: string;
  slug: string;
  name: string;
  role: string;
}

const settingsByConfig = new WeakMap<ResolvedConfig, OrganizationSettings>();

/** Remembers the settings of `Organizations()` for its config (its startup check). */
export function useOrganizations(options: ResolvedConfig, settings: OrganizationSettings): void {
  settingsByConfig.set(options, settings);
}

/** The settings of the config's `Organizations()`; a TypeError when it has none. */
export function organizationSettingsOf(options: ResolvedConfig): OrganizationSettings {
  const settings = settingsByConfig.get(options);
  if (!settings) throw new TypeError('The config has no Organizations() in its `features`.');
  return settings;
}

/** A session's fields as this feature reads them: an API key's (features/api-keys/, when the app has it) included. */
type ReadSession = Session & { apiKey?: { organizationId?: string } };

/**
 * What one request has asked: the organization (slug or id) its guard names, said before the session is read so
 * that one query finds both memberships, and the memberships found so far, by the organization asked for (`''`: the
 * active one).
 */
interface RequestLookups {
  named: string | undefined;
  found: Map<string, Promise<Membership | null>>;
}

const lookupsBy = new WeakMap<Request, RequestLookups>();

function lookupsOf(req: Request): RequestLookups {
  let lookups = lookupsBy.get(req);
  if (!lookups) lookupsBy.set(req, (lookups = { named: undefined, found: new Map() }));
  return lookups;
}

/** The session's own token (database sessions), or null for an API key's session or none. */
function sessionTokenOf(req: Request, options: ResolvedConfig, session: ReadSession): string | null {
  const header = req.headers.cookie;
  if (session.apiKey || !header) return null;
  const name = cookieOptionsFor(req, options).sessionToken.name;
  // A whole cookie is found without parsing the others, as the session read does; chunks need them all.
  return findCookie(header, name) ?? readChunkedCookie(requestCookies(req), name) ?? null;
}

/** Whether a membership is of the organization a slug or an id names. */
const isOf = (membership: Membership | null, organization: string): boolean => membership !== null && (membership.organization.slug === organization || membership.organization.id === organization);

/**
 * The user's membership of `organization` (a slug or an id), or of the active organization when undefined, on this
 * request: null when they are not a member. An API key made for an organization (`session.apiKey.organizationId`)
 * acts there alone, as its creator's membership is now; its active organization is that one.
 */
export function membershipFor(req: Request, options: ResolvedConfig, session: ReadSession | null, organization?: string): Promise<Membership | null> {
  const userId = session?.user?.id;
  if (!session || typeof userId !== 'string') return Promise.resolve(null);
  const lookups = lookupsOf(req);
  const { found } = lookups;
  const key = organization ?? '';
  const known = found.get(key);
  if (known) return known;
  const keyOrganization = session.apiKey?.organizationId;
  if (keyOrganization) {
    // Its membership there, read once, answers for any organization asked for: every other one is null.
    let own = found.get('');
    if (!own) found.set('', (own = membershipIn(options.adapter!, userId, keyOrganization).then((named) => (named?.organization.id === keyOrganization ? named : null))));
    if (organization === undefined) return own;
    const lookup = own.then((membership) => (isOf(membership, organization) ? membership : null));
    found.set(key, lookup);
    return lookup;
  }
  const active = found.get('');
  if (organization !== undefined && active) {
    // The active membership was read (by sessionLocals): the named organization may be it.
    const lookup = active.then((membership) => (isOf(membership, organization) ? membership : membershipIn(options.adapter!, userId, organization)));
    found.set(key, lookup);
    return lookup;
  }
  const named = organization ?? lookups.named ?? null;
  const sessionToken = sessionTokenOf(req, options, session);
  // No session row (an API key's session) and no organization named: nothing to read.
  if (sessionToken === null && named === null) {
    const none = Promise.resolve(null);
    found.set('', none);
    return none;
  }
  const both = callAdapter(options.adapter!, 'findMemberships', userId, { sessionToken, organization: named });
  const activeOne = both.then((result) => result.active);
  found.set('', activeOne);
  if (named === null) return activeOne;
  const namedOne = both.then((result) => result.named);
  found.set(named, namedOne);
  return organization === undefined ? activeOne : namedOne;
}

/** The user's membership of one organization alone (a slug or an id), read now, or null. */
export function membershipIn(adapter: Adapter, userId: string, organization: string): Promise<Membership | null> {
  return callAdapter(adapter, 'findMemberships', userId, { sessionToken: null, organization }).then((result) => result.named);
}

/** The session's `organization` field (`Feature.session`): the active organization and the role held there, or null. */
export function sessionOrganization(session: Session, context: { options: ResolvedConfig; req: Request }): Promise<{ organization: SessionOrganization | null }> {
  return membershipFor(context.req, context.options, session).then((membership) => ({ organization: membership ? shown(membership) : null }));
}

function shown(membership: Membership): SessionOrganization {
  const { id, slug, name } = membership.organization;
  return { id, slug, name, role: membership.role };
}

/** The organizations where the user's role grants `api-key:create` (`Feature.apiKeyOrganizations`), read now. */
export async function keyOrganizations(context: { options: ResolvedConfig }, userId: string): Promise<{ id: string; slug: string; name: string }[]> {
  const settings = organizationSettingsOf(context.options);
  const memberships = await callAdapter(context.options.adapter!, 'listMemberships', userId);
  return memberships.filter((membership) => roleGrants(settings, membership.role, 'api-key:create')).map(({ organization: { id, slug, name } }) => ({ id, slug, name }));
}

/**
 * The roles that memberships hold and the config no longer defines (they grant nothing), with how many hold each:
 * logged at startup and named by `doctor`.
 */
export async function undefinedRoles(options: ResolvedConfig): Promise<{ role: string; members: number }[]> {
  const settings = organizationSettingsOf(options);
  return (await callAdapter(options.adapter!, 'countMembersByRole')).filter((count) => !settings.roles.has(count.role));
}

/** Options of `requirePermission`. */
export interface RequirePermissionOptions extends Pick<RequireAuthOptions, 'redirectTo'> {
  /**
   * The organization the route is about, from the request (a slug or an id: `(req) => req.params.slug`); the
   * session's active organization when absent or when it returns undefined. Anything else but a slug or an id (an
   * empty string, a wildcard's list) names no organization: 404.
   */
  organization?: (req: Request) => string | string[] | undefined;
}

/**
 * A guard for an organization's routes: it passes a signed-in member of the organization whose role grants every
 * permission named, and sets `res.locals.organization` (`{ id, slug, name, role }`) for the route. Otherwise: signed
 * out, as `requireAuth` (a redirect to sign in, or 401 JSON); not a member (or no active organization), 404
 * `{ error: 'not_found' }`; a member without a permission, 403 `{ error: 'forbidden', permission }`. A permission no
 * role of the config grants is refused when the guard is made (a typo is never a silent 403).
 */
export function createRequirePermission(config: FrameworkAuthConfig, permissions: Permission | readonly Permission[], guardOptions: RequirePermissionOptions = {}): RequestHandler {
  const options = resolveConfigOnce(config);
  const settings = organizationSettingsOf(options);
  const needed = checkedPermissions(settings, permissions, 'requirePermission');
  // Keys made for an organization pass here alone: this guard checks their organization.
  const signedIn = createRequireAuth(config, { organizationKeys: true, ...(guardOptions.redirectTo === undefined ? {} : { redirectTo: guardOptions.redirectTo }) });
  async function check(req: Request, res: Response, next: NextFunction, organization: string | null | undefined): Promise<void> {
    const membership = organization === null ? null : await membershipFor(req, options, res.locals['session'] as Session, organization);
    if (!membership) return sendJsonResponse(res, 404, { error: 'not_found', message: 'There is no such organization.' });
    const missing = needed.find((permission) => !roleGrants(settings, membership.role, permission));
    if (missing !== undefined) return sendJsonResponse(res, 403, { error: 'forbidden', permission: missing, message: `Your role in this organization does not grant ${missing}.` });
    res.locals['organization'] = shown(membership);
    next();
  }
  return function requirePermission(req: Request, res: Response, next: NextFunction): void | Promise<void> {
    const named = guardOptions.organization?.(req);
    // Never the active organization in place of one the route named wrongly.
    const organization = named === undefined ? undefined : typeof named === 'string' && named !== '' ? named : null;
    if (typeof organization === 'string') lookupsOf(req).named = organization;
    return signedIn(req, res, (error?: unknown) => {
      if (error !== undefined) return next(error);
      check(req, res, next, organization).catch(next);
    }) as void | Promise<void>;
  };
}

/**
 * Whether the signed-in user's role in `organization` (a slug or an id; the active organization when absent) grants
 * `permission`, read now: false signed out, for a non-member, or without it.
 */
export async function hasPermissionFor(req: Request, config: FrameworkAuthConfig, permission: Permission, organization?: string): Promise<boolean> {
  const options = resolveConfigOnce(config);
  const settings = organizationSettingsOf(options);
  const [checked] = checkedPermissions(settings, permission, 'hasPermission');
  if (organization !== undefined) lookupsOf(req).named = organization;
  const session = (await getSession(req, config)) as Session | null;
  const membership = await membershipFor(req, options, session, organization);
  return membership !== null && roleGrants(settings, membership.role, checked!);
}
