/**
 * `<mount>/organizations` and the paths below it (SPEC §14), JSON to a client that prefers it, pages otherwise:
 * - GET `organizations` (signed in): the user's organizations and roles, the invitations to their proven address, the
 *   create form; JSON `{ organizations: [{ id, slug, name, role, active }], invitations, mayCreate }`.
 * - POST `organizations`: `action=create&name&slug?` → 201 `{ id, slug, name }` (or the organization's page), the
 *   creator its owner and the session's active organization; `action=switch&organization` (id or slug) → the active
 *   organization; `action=leave&organization` → no longer a member (refused to its last owner).
 * - GET and POST `organizations/<slug>`: an organization's page and its forms (organization-route.ts).
 * - GET and POST `organizations/invitations/<token>`: an invitation's page and its answer (invitation-route.ts).
 * Every POST needs the CSRF token and a cookie session (handler.ts refuses API keys below the mount); an organization
 * the user is not a member of is answered 404, as one that does not exist.
 */
import type { RequestContext, Route } from '../../contracts.js';
import { sendJson } from '../../context.js';
import { InvalidRequest } from '../../errors.js';
import { verifyCsrf } from '../../http/csrf.js';
import { bodyField, prefersJson, readBody } from '../../http/request.js';
import { callAdapter } from '../database/adapter.js';
import { askToSignIn, currentSignIn } from '../database/signed-in.js';
import { membershipIn, organizationSettingsOf } from './access.js';
import { recordOrganizationEvent } from './events.js';
import { INVITATIONS, invitationRoute } from './invitation-route.js';
import { checkOrganizationName, organizationRoute, sendLastOwner } from './organization-route.js';
import { type OrganizationsRequest, type PageExtras, noticeOf, sendDone, sendNotFound, sendOrganizations, sessionTokenOf } from './organizations-view.js';
import type { OrganizationRecord } from './storage.js';

/** The paths below `<mount>/organizations` (`RouteSpec.subpaths`): an organization's slug, an invitation's token. */
export const organizationsSubpaths = ['*', `${INVITATIONS}/*`] as const;

/** A slug: lowercase letters, digits and `-`, 2 to 48 characters, starting and ending with a letter or digit. */
const slugPattern = /^[a-z0-9][a-z0-9-]{0,46}[a-z0-9]$/;
/**
 * The shape of an organization's id (a UUID): no slug may have it, since a route names an organization by its slug or
 * its id, and a slug equal to another organization's id would let an app that reads by the raw value reach it.
 */
const idShaped = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A slug made from a name: accents dropped, lowercase, every run of other characters one `-`. */
function slugFrom(name: string): string {
  const plain = name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return plain.replace(/^-+/, '').slice(0, 48).replace(/-+$/, '');
}

/** A new organization's name and slug as sent, checked; each refusal names its field. */
function checkNewOrganization(body: Record<string, unknown>): { ok: true; name: string; slug: string } | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const name = checkOrganizationName(bodyField(body, 'name'));
  if (!name.ok) errors['name'] = name.error;
  const typed = (bodyField(body, 'slug') ?? '').trim();
  const slug = typed === '' && name.ok ? slugFrom(name.name) : typed;
  if (!slugPattern.test(slug)) {
    errors['slug'] = typed === '' && name.ok ? 'Choose a slug for the organization’s address: 2 to 48 lowercase letters, digits and "-".' : 'A slug has 2 to 48 lowercase letters, digits and "-", and starts and ends with a letter or digit (like "acme-labs").';
  } else if (slug === INVITATIONS) {
    errors['slug'] = `"${INVITATIONS}" is reserved: choose another slug.`;
  } else if (idShaped.test(slug)) {
    errors['slug'] = 'A slug cannot have the shape of an organization’s id: choose a name-like slug (like "acme-labs").';
  }
  if (!name.ok || errors['slug'] !== undefined) return { ok: false, errors };
  return { ok: true, name: name.name, slug };
}

/** The route of `<mount>/organizations` (`Feature.routes`): each path below it to its own function. */
export async function organizationsRoute(context: RequestContext, route: Route): Promise<void> {
  const { subpath } = route;
  if (subpath?.startsWith(`${INVITATIONS}/`)) return invitationRoute(context, route.method, subpath.slice(INVITATIONS.length + 1));
  const adapter = context.options.adapter!;
  const json = prefersJson(context.req);
  const body = route.method === 'POST' ? await readBody(context.req) : undefined;
  if (body) verifyCsrf(context, body);
  const signedIn = await currentSignIn(context, adapter);
  if (!signedIn) {
    const action = subpath === undefined ? 'organizations' : `organizations/${encodeURIComponent(subpath)}`;
    return askToSignIn(context, json, { action, message: 'Sign in to see your organizations.' });
  }
  const request: OrganizationsRequest = { context, adapter, settings: organizationSettingsOf(context.options), signedIn, userId: String(signedIn.user.id), json };
  if (subpath !== undefined) return organizationRoute(request, subpath, body);
  if (!body) {
    const notice = noticeOf(context);
    return sendOrganizations(request, 200, notice === undefined ? {} : { notice });
  }
  const action = bodyField(body, 'action');
  if (action === 'create') return createOrganization(request, body);
  if (action === 'switch') return switchOrganization(request, body);
  if (action === 'leave') return leaveOrganization(request, body);
  throw new InvalidRequest('Unknown action: send action=create with a name, or action=switch or action=leave with an organization.');
}

/** A refused form of the list page: 4xx JSON `{ error, errors }`, or the page with the errors by field. */
function refuse(request: OrganizationsRequest, status: number, error: string, errors: Record<string, string>, body: Record<string, unknown>): Promise<void> {
  if (request.json) {
    sendJson(request.context, status, { error, errors });
    return Promise.resolve();
  }
  const extras: PageExtras = { errors, sent: body };
  return sendOrganizations(request, status, extras);
}

/** POST `action=create&name&slug?`. */
async function createOrganization(request: OrganizationsRequest, body: Record<string, unknown>): Promise<void> {
  const { context, adapter, settings, signedIn, userId } = request;
  if (!(await settings.allowUserToCreate(signedIn.user))) return refuse(request, 403, 'forbidden', { form: 'This app does not let your account create organizations.' }, body);
  const checked = checkNewOrganization(body);
  if (!checked.ok) return refuse(request, 400, 'InvalidRequest', checked.errors, body);
  const organization: OrganizationRecord = { id: crypto.randomUUID(), slug: checked.slug, name: checked.name, createdAt: new Date() };
  if (!(await callAdapter(adapter, 'createOrganization', organization, userId))) {
    return refuse(request, 400, 'InvalidRequest', { slug: `The slug "${checked.slug}" is taken: choose another.` }, body);
  }
  const sessionToken = sessionTokenOf(context);
  if (sessionToken !== undefined) await callAdapter(adapter, 'setActiveOrganization', sessionToken, organization.id);
  await recordOrganizationEvent(context, { type: 'organization-created', organizationId: organization.id, actorId: userId, detail: organization.name });
  sendDone(request, 201, { id: organization.id, slug: organization.slug, name: organization.name }, { slug: organization.slug, notice: 'created' });
}

/** The user's membership of the organization the body names (`organization`: an id or a slug), or null. */
async function namedMembership(request: OrganizationsRequest, body: Record<string, unknown>) {
  const named = bodyField(body, 'organization') ?? '';
  if (named === '') return null;
  return membershipIn(request.adapter, request.userId, named);
}

/** POST `action=switch&organization`: a member's organization becomes the session's active one. */
async function switchOrganization(request: OrganizationsRequest, body: Record<string, unknown>): Promise<void> {
  const membership = await namedMembership(request, body);
  if (!membership) return sendNotFound(request);
  const sessionToken = sessionTokenOf(request.context);
  if (sessionToken !== undefined) await callAdapter(request.adapter, 'setActiveOrganization', sessionToken, membership.organization.id);
  const { id, slug, name } = membership.organization;
  sendDone(request, 200, { active: { id, slug, name, role: membership.role } }, { notice: 'switched' });
}

/** POST `action=leave&organization`: the user is no longer a member, unless they are its last owner. */
async function leaveOrganization(request: OrganizationsRequest, body: Record<string, unknown>): Promise<void> {
  const membership = await namedMembership(request, body);
  if (!membership) return sendNotFound(request);
  const { organization } = membership;
  const outcome = await callAdapter(request.adapter, 'removeMember', organization.id, request.userId);
  if (outcome === 'not-member') return sendNotFound(request);
  if (outcome === 'last-owner') {
    const message = `You are the last owner of ${organization.name}: make another member its owner (transfer ownership) or delete the organization before you leave.`;
    return sendLastOwner(request, message, () => sendOrganizations(request, 400, { errors: { form: message } }));
  }
  await recordOrganizationEvent(request.context, { type: 'member-left', organizationId: organization.id, actorId: request.userId, subjectId: request.userId });
  sendDone(request, 200, { left: true }, { notice: 'left' });
}
