/**
 * An organization's page, `<mount>/organizations/<slug>` (SPEC §14), for its members only: anyone else, and a slug
 * that names none, gets the same 404. The membership and its role are read from the database on the request, and
 * each form checks the permission it needs (403 `{ error: 'forbidden', permission }` to a member without it):
 * - GET: the organization, its members and roles; its pending invitations (with `member:invite` or
 *   `invitation:cancel`); its events (with `member:remove`).
 * - POST `action=invite&email&role` (`member:invite`, and every permission of the role; `owner` only by an owner):
 *   a link mailed to the address, never shown; counted per organization and per inviter, and per recipient with
 *   every link the app mails; `maxMembers` counts pending invitations.
 * - `action=cancel-invitation&id` (`invitation:cancel`).
 * - `action=role&userId&role` (`member:role`, and every permission of both the new role and the member's current one:
 *   only an owner makes or demotes an owner).
 * - `action=remove&userId` (`member:remove`; an owner only by an owner): the removed member gets a notice by mail.
 * - `action=update&name` (`organization:update`).
 * - `action=transfer&userId` (an owner): the member becomes an owner, the owner an admin.
 * - `action=delete&confirm=<slug>` (an owner, after a recent authentication): the organization, its memberships,
 *   invitations and events are deleted; no session ends.
 * An organization always keeps an owner: its last one cannot leave, be removed or demoted (400).
 */
import { configuredActionUrl, sendHtml, sendJson } from '../../context.js';
import { InvalidEmailAddress, normalizeEmailAddress } from '../../email-address.js';
import { InvalidRequest } from '../../errors.js';
import { csrfTokenOf } from '../../http/csrf.js';
import { bodyField } from '../../http/request.js';
import { callAdapter } from '../database/adapter.js';
import { askToReauthenticate } from '../database/ask-to-reauthenticate.js';
import { isRecentSignIn } from '../database/signed-in.js';
import { consumeRecipientRateLimit } from '../email/recipient-limits.js';
import { consumeRateLimit } from '../rate-limit/rate-limit.js';
import { membershipIn } from './access.js';
import { organizationEventLabels, recordOrganizationEvent } from './events.js';
import { INVITATIONS } from './invitation-route.js';
import { newInvitationToken } from './invitation-token.js';
import { organizationMailerOf, organizationMessage, sendOrganizationMessageLater } from './mail.js';
import { type OrganizationsRequest, type PageExtras, normalizedAddress, noticeOf, organizationsUrl, sendDone, sendNotFound } from './organizations-view.js';
import { renderOrganizationPage } from './pages.js';
import { type Permission, OWNER, mayGrant, mayInviteAs, roleGrants } from './roles.js';
import type { MemberRecord, Membership } from './storage.js';

declare module '../rate-limit/rate-limit.js' {
  interface RateLimitRules {
    /**
     * Invitations sent per organization: past the limit, 429 until the window ends.
     * @default { window: 86400, max: 50 }
     */
    invitationsPerOrganization: true;
    /**
     * Invitations sent per inviting member, in every organization: past the limit, 429 until the window ends.
     * @default { window: 3600, max: 20 }
     */
    invitationsPerInviter: true;
  }
}

/** The defaults of the invitations' rules (`Feature.rateLimits`). */
export const invitationRateLimits = { invitationsPerOrganization: { window: 24 * 60 * 60, max: 50 }, invitationsPerInviter: { window: 60 * 60, max: 20 } } as const;

/** The events an organization's page lists, newest first. */
const LISTED_EVENTS = 50;
const MAX_NAME_LENGTH = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A request from a member of the organization it names: their membership, read on this request. */
interface MemberRequest extends OrganizationsRequest {
  membership: Membership;
}

/** An organization's name as sent, checked: 1 to 100 characters, no control characters. */
export function checkOrganizationName(value: string | undefined): { ok: true; name: string } | { ok: false; error: string } {
  const name = (value ?? '').trim();
  if (name === '' || name.length > MAX_NAME_LENGTH || /[\p{Cc}\u2028\u2029]/u.test(name)) {
    return { ok: false, error: `Give the organization a name of 1 to ${MAX_NAME_LENGTH} characters, like "Acme Labs".` };
  }
  return { ok: true, name };
}

/** A change refused because it would leave the organization without an owner: 400 JSON `last_owner`, or `page()`. */
export function sendLastOwner(request: OrganizationsRequest, message: string, page: () => Promise<void>): Promise<void> {
  if (request.json) {
    sendJson(request.context, 400, { error: 'last_owner', message });
    return Promise.resolve();
  }
  return page();
}

/** What the member's role lets them do on the page. */
function mayOf(request: MemberRequest) {
  const { settings } = request;
  const { role } = request.membership;
  const grants = (permission: Permission): boolean => roleGrants(settings, role, permission);
  return {
    invite: grants('member:invite'),
    cancel: grants('invitation:cancel'),
    role: grants('member:role'),
    remove: grants('member:remove'),
    update: grants('organization:update'),
    transfer: role === OWNER,
    delete: role === OWNER && grants('organization:delete'),
    events: grants('member:remove'),
  };
}

/** The organization's page (or JSON), at `status`, with a refused form's errors. */
async function sendOrganization(request: MemberRequest, status: number, extras: PageExtras = {}): Promise<void> {
  const { context, adapter, settings } = request;
  const { organization, role } = request.membership;
  const may = mayOf(request);
  const showsInvitations = may.invite || may.cancel;
  const [members, invitations, events] = await Promise.all([
    callAdapter(adapter, 'listMembers', organization.id),
    showsInvitations ? callAdapter(adapter, 'listInvitations', organization.id, new Date()) : [],
    may.events ? callAdapter(adapter, 'listOrganizationEvents', organization.id, LISTED_EVENTS) : [],
  ]);
  if (request.json) {
    const { id, slug, name, createdAt } = organization;
    return sendJson(context, status, {
      organization: { id, slug, name, createdAt },
      role,
      permissions: [...(settings.roles.get(role) ?? [])].sort(),
      members,
      ...(showsInvitations && { invitations }),
      ...(may.events && { events }),
    });
  }
  const grantable = [...settings.roles.keys()].filter((candidate) => mayGrant(settings, role, candidate) || mayInviteAs(settings, role, candidate));
  const page = renderOrganizationPage({
    mountPath: context.mountPath,
    csrfToken: csrfTokenOf(context),
    theme: context.options.theme,
    organization,
    role,
    userId: request.userId,
    may,
    grantable,
    members,
    invitations,
    events,
    eventLabels: organizationEventLabels,
    ...extras,
  });
  sendHtml(context, status, page);
}

/** A refused form: 4xx JSON `{ error, errors }` (or `body` as given), or the page with the errors by field. */
function refuse(request: MemberRequest, status: number, errors: Record<string, string>, sent: Record<string, unknown>, json?: Record<string, unknown>): Promise<void> {
  if (request.json) {
    sendJson(request.context, status, json ?? { error: status === 404 ? 'not_found' : 'InvalidRequest', errors });
    return Promise.resolve();
  }
  return sendOrganization(request, status, { errors, sent });
}

/** 403: the member's role does not grant `permission` (or, for an owner's action, is not `owner`). */
function forbidden(request: MemberRequest, needed: { permission: Permission } | { role: typeof OWNER }, message: string, sent: Record<string, unknown>): Promise<void> {
  return refuse(request, 403, { form: message }, sent, { error: 'forbidden', ...needed, message });
}

/** The member `userId` names, read now, or null. */
async function memberNamed(request: MemberRequest, body: Record<string, unknown>): Promise<MemberRecord | null> {
  const userId = bodyField(body, 'userId') ?? '';
  if (userId === '') return null;
  const members = await callAdapter(request.adapter, 'listMembers', request.membership.organization.id);
  return members.find((member) => member.userId === userId) ?? null;
}

function noSuchMember(request: MemberRequest, body: Record<string, unknown>): Promise<void> {
  return refuse(request, 404, { form: 'There is no such member in this organization.' }, body, { error: 'not_found', message: 'There is no such member in this organization.' });
}

function lastOwner(request: MemberRequest, message: string, body: Record<string, unknown>): Promise<void> {
  return sendLastOwner(request, message, () => sendOrganization(request, 400, { errors: { form: message }, sent: body }));
}

/** GET and POST `<mount>/organizations/<slug>`. */
export async function organizationRoute(request: OrganizationsRequest, slug: string, body: Record<string, unknown> | undefined): Promise<void> {
  // `invitations` alone is no organization: its slug is reserved for the invitations' links below it.
  const membership = slug === INVITATIONS ? null : await membershipIn(request.adapter, request.userId, slug);
  if (!membership) return sendNotFound(request);
  const member: MemberRequest = { ...request, membership };
  if (!body) {
    const notice = noticeOf(request.context);
    return sendOrganization(member, 200, notice === undefined ? {} : { notice });
  }
  const action = bodyField(body, 'action');
  if (action === 'invite') return invite(member, body);
  if (action === 'cancel-invitation') return cancelInvitation(member, body);
  if (action === 'role') return changeRole(member, body);
  if (action === 'remove') return removeMember(member, body);
  if (action === 'update') return rename(member, body);
  if (action === 'transfer') return transfer(member, body);
  if (action === 'delete') return deleteOrganization(member, body);
  throw new InvalidRequest('Unknown action: send action=invite, cancel-invitation, role, remove, update, transfer or delete.');
}

/** POST `action=invite&email&role`. */
async function invite(request: MemberRequest, body: Record<string, unknown>): Promise<void> {
  const { context, adapter, settings, signedIn, userId } = request;
  const { organization, role: actorRole } = request.membership;
  const { options } = context;
  if (!roleGrants(settings, actorRole, 'member:invite')) return forbidden(request, { permission: 'member:invite' }, 'Your role in this organization does not let you invite members.', body);
  const errors: Record<string, string> = {};
  let email = '';
  try {
    email = normalizeEmailAddress(bodyField(body, 'email') ?? '');
  } catch (error) {
    if (!(error instanceof InvalidEmailAddress)) throw error;
    errors['email'] = error.message;
  }
  const role = bodyField(body, 'role') ?? '';
  if (!settings.roles.has(role)) errors['role'] = `Choose one of the roles: ${[...settings.roles.keys()].join(', ')}.`;
  if (Object.keys(errors).length > 0) return refuse(request, 400, errors, body);
  // An invitation grants its role once accepted: no one invites as a role whose permissions they do not hold.
  if (!mayInviteAs(settings, actorRole, role)) {
    const message = role === OWNER ? 'Only an owner invites an owner.' : `Your role in this organization cannot give the role "${role}".`;
    return refuse(request, 403, { role: message }, body, { error: 'forbidden', role, message });
  }
  const mailer = organizationMailerOf(options);
  if (!mailer) return refuse(request, 400, { email: 'Inviting needs an email service, and this app has none configured (AUTH_EMAIL_SERVER).' }, body);
  const members = await callAdapter(adapter, 'listMembers', organization.id);
  if (members.some((member) => normalizedAddress(member.email) === email)) return refuse(request, 400, { email: 'This address is already a member of the organization.' }, body);
  // The link is built on the configured origin only (AUTH_URL or trustHost), never a Host header: before anything is stored.
  const linkBase = configuredActionUrl(context, `organizations/${INVITATIONS}`);
  await consumeRateLimit(options, 'invitationsPerOrganization', organization.id);
  await consumeRateLimit(options, 'invitationsPerInviter', userId);
  // Any address can be typed: what one mailbox receives is capped across the app's links.
  await consumeRecipientRateLimit(options, email);
  const { token, digest } = newInvitationToken();
  const createdAt = new Date();
  const expiresAt = new Date(createdAt.valueOf() + settings.invitationExpiresInDays * DAY_MS);
  const id = crypto.randomUUID();
  const stored = await callAdapter(adapter, 'createInvitation', { id, organizationId: organization.id, email, role, inviterId: userId, digest, createdAt, expiresAt }, settings.maxMembers);
  if (!stored) {
    return refuse(request, 400, { form: `The organization has ${settings.maxMembers} members and pending invitations, the most it may have: cancel an invitation or remove a member first.` }, body);
  }
  const message = organizationMessage('invitation', {
    to: email,
    origin: new URL(linkBase).origin,
    theme: options.theme,
    organization: organization.name,
    url: `${linkBase}/${token}`,
    inviter: signedIn.user.name ?? null,
    role,
    expiresAt,
  });
  sendOrganizationMessageLater(context, mailer, message);
  await recordOrganizationEvent(context, { type: 'member-invited', organizationId: organization.id, actorId: userId, detail: role });
  sendDone(request, 201, { invitation: { id, email, role, expiresAt } }, { slug: organization.slug, notice: 'invited' });
}

/** POST `action=cancel-invitation&id`. */
async function cancelInvitation(request: MemberRequest, body: Record<string, unknown>): Promise<void> {
  const { adapter, settings, userId } = request;
  const { organization, role } = request.membership;
  if (!roleGrants(settings, role, 'invitation:cancel')) return forbidden(request, { permission: 'invitation:cancel' }, 'Your role in this organization does not let you cancel invitations.', body);
  const id = bodyField(body, 'id') ?? '';
  const pending = (await callAdapter(adapter, 'listInvitations', organization.id, new Date())).find((invitation) => invitation.id === id);
  const cancelled = id !== '' && (await callAdapter(adapter, 'deleteInvitation', organization.id, id));
  if (!cancelled) return refuse(request, 404, { form: 'There is no such invitation.' }, body, { error: 'not_found', message: 'There is no such invitation.' });
  await recordOrganizationEvent(request.context, { type: 'invitation-cancelled', organizationId: organization.id, actorId: userId, detail: pending?.role ?? null });
  sendDone(request, 200, { cancelled: true }, { slug: organization.slug, notice: 'invitation-cancelled' });
}

/** POST `action=role&userId&role`. */
async function changeRole(request: MemberRequest, body: Record<string, unknown>): Promise<void> {
  const { adapter, settings, userId } = request;
  const { organization, role: actorRole } = request.membership;
  if (!roleGrants(settings, actorRole, 'member:role')) return forbidden(request, { permission: 'member:role' }, 'Your role in this organization does not let you change roles.', body);
  const role = bodyField(body, 'role') ?? '';
  if (!settings.roles.has(role)) return refuse(request, 400, { role: `Choose one of the roles: ${[...settings.roles.keys()].join(', ')}.` }, body);
  const target = await memberNamed(request, body);
  if (!target) return noSuchMember(request, body);
  // Both ends of the change: no one gives a role they do not hold, nor takes one away (only owners touch owners).
  for (const touched of [role, target.role]) {
    if (!mayGrant(settings, actorRole, touched)) {
      const message = touched === OWNER ? 'Only an owner makes or demotes an owner.' : `Your role in this organization cannot give or take the role "${touched}".`;
      return refuse(request, 403, { role: message }, body, { error: 'forbidden', role: touched, message });
    }
  }
  const outcome = await callAdapter(adapter, 'changeMemberRole', organization.id, target.userId, role);
  if (outcome === 'not-member') return noSuchMember(request, body);
  if (outcome === 'last-owner') return lastOwner(request, `${organization.name} would have no owner left: make another member an owner first, or transfer ownership.`, body);
  await recordOrganizationEvent(request.context, { type: 'member-role-changed', organizationId: organization.id, actorId: userId, subjectId: target.userId, detail: `${target.role} → ${role}` });
  sendDone(request, 200, { userId: target.userId, role }, { slug: organization.slug, notice: 'role-changed' });
}

/** POST `action=remove&userId`. */
async function removeMember(request: MemberRequest, body: Record<string, unknown>): Promise<void> {
  const { context, adapter, settings, userId } = request;
  const { organization, role: actorRole } = request.membership;
  if (!roleGrants(settings, actorRole, 'member:remove')) return forbidden(request, { permission: 'member:remove' }, 'Your role in this organization does not let you remove members.', body);
  const target = await memberNamed(request, body);
  if (!target) return noSuchMember(request, body);
  if (target.role === OWNER && actorRole !== OWNER) return forbidden(request, { role: OWNER }, 'Only an owner removes an owner.', body);
  const outcome = await callAdapter(adapter, 'removeMember', organization.id, target.userId);
  if (outcome === 'not-member') return noSuchMember(request, body);
  if (outcome === 'last-owner') return lastOwner(request, `${organization.name} would have no owner left: transfer ownership or delete the organization instead.`, body);
  const self = target.userId === userId;
  await recordOrganizationEvent(context, { type: self ? 'member-left' : 'member-removed', organizationId: organization.id, actorId: userId, subjectId: target.userId });
  const mailer = organizationMailerOf(context.options);
  // A notice without a link; its host is the configured origin, so without one there is none.
  if (!self && mailer && context.linkOrigin) {
    sendOrganizationMessageLater(context, mailer, organizationMessage('member-removed', { to: target.email, origin: context.linkOrigin, theme: context.options.theme, organization: organization.name }));
  }
  if (self) return sendDone(request, 200, { removed: true }, { notice: 'left' });
  sendDone(request, 200, { removed: true }, { slug: organization.slug, notice: 'removed' });
}

/** POST `action=update&name`. */
async function rename(request: MemberRequest, body: Record<string, unknown>): Promise<void> {
  const { adapter, settings, userId } = request;
  const { organization, role } = request.membership;
  if (!roleGrants(settings, role, 'organization:update')) return forbidden(request, { permission: 'organization:update' }, 'Your role in this organization does not let you rename it.', body);
  const checked = checkOrganizationName(bodyField(body, 'name'));
  if (!checked.ok) return refuse(request, 400, { name: checked.error }, body);
  await callAdapter(adapter, 'updateOrganization', organization.id, checked.name);
  await recordOrganizationEvent(request.context, { type: 'organization-updated', organizationId: organization.id, actorId: userId, detail: checked.name });
  sendDone(request, 200, { id: organization.id, slug: organization.slug, name: checked.name }, { slug: organization.slug, notice: 'updated' });
}

/** POST `action=transfer&userId`: the member becomes an owner and the owner who asks an admin. */
async function transfer(request: MemberRequest, body: Record<string, unknown>): Promise<void> {
  const { adapter, settings, userId } = request;
  const { organization, role } = request.membership;
  if (role !== OWNER) return forbidden(request, { role: OWNER }, 'Only an owner transfers ownership.', body);
  const target = await memberNamed(request, body);
  if (!target) return noSuchMember(request, body);
  if (target.userId === userId) return refuse(request, 400, { form: 'Choose another member to make the owner.' }, body);
  // `admin` unless the config has none (every config has: it replaces the default's permissions, never the name).
  const formerRole = settings.roles.has('admin') ? 'admin' : 'member';
  if (!(await callAdapter(adapter, 'transferOwnership', organization.id, userId, target.userId, formerRole))) return noSuchMember(request, body);
  await recordOrganizationEvent(request.context, { type: 'ownership-transferred', organizationId: organization.id, actorId: userId, subjectId: target.userId });
  sendDone(request, 200, { owner: target.userId, role: formerRole }, { slug: organization.slug, notice: 'transferred' });
}

/** POST `action=delete&confirm=<slug>`: after a recent authentication. */
async function deleteOrganization(request: MemberRequest, body: Record<string, unknown>): Promise<void> {
  const { context, adapter, settings, signedIn, userId } = request;
  const { organization, role } = request.membership;
  if (role !== OWNER || !roleGrants(settings, role, 'organization:delete')) return forbidden(request, { permission: 'organization:delete' }, 'Only an owner deletes the organization.', body);
  if (bodyField(body, 'confirm') !== organization.slug) return refuse(request, 400, { confirm: `Type the organization’s slug, ${organization.slug}, to confirm.` }, body);
  // What cannot be undone asks who is there (a copied session cookie alone cannot delete an organization).
  if (!isRecentSignIn(context, signedIn)) return askToReauthenticate(context, organizationsUrl(context, organization.slug));
  if (!(await callAdapter(adapter, 'deleteOrganization', organization.id))) return sendNotFound(request);
  await recordOrganizationEvent(context, { type: 'organization-deleted', organizationId: organization.id, actorId: userId, detail: organization.name });
  sendDone(request, 200, { deleted: true }, { notice: 'deleted' });
}
