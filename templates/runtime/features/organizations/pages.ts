/**
 * The organizations' pages, in the theme of the built-in pages and without JavaScript: the user's organizations
 * (`<mount>/organizations`: each with its role, the active one marked, Switch and Leave; the invitations to their
 * address; the create form), an organization's page (`<mount>/organizations/<slug>`: its members with the forms the
 * viewer's role allows, the invite form, the pending invitations, rename, delete and the organization's events), and
 * the page an invitation's link opens (Accept and Decline, only for the invited address; opening it changes nothing).
 *
 * Every form POSTs with the CSRF token. A refused form is the one `sent.action` names (and, for a member's or an
 * invitation's buttons, `sent.userId` or `sent.id`): its errors, keyed by the form's field names (`name`, `slug`,
 * `email`, `role`, `confirm`, ...), are shown beside its controls (`aria-invalid`, `aria-describedby`); an error the
 * page cannot place is shown at the top.
 */
import type { Theme } from '../../contracts.js';
import { formStyles } from '../../pages/form-styles.js';
import { type SafeHtml, html } from '../../pages/html.js';
import { layout } from '../../pages/layout.js';
import { OWNER } from './roles.js';
import type { InvitationRecord, InvitationWithOrganization, MemberRecord, Membership, OrganizationEventRecord, OrganizationRecord } from './storage.js';

/** What `<mount>/organizations` shows. */
export interface OrganizationsPage {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  /** The user's memberships; `active`: the session's active organization. */
  memberships: readonly (Membership & { active: boolean })[];
  /** The unexpired invitations to the user's address (their links are not stored: they are accepted from the email). */
  invitations: readonly InvitationWithOrganization[];
  /** Whether the user may create an organization (`allowUserToCreate`): the create form is shown only then. */
  mayCreate: boolean;
  /**
   * A refused form's errors by field: `name`, `slug` (create), `organization` (switch, leave: beside that
   * organization's buttons, as `sent.organization` names it by id or slug); others at the top.
   */
  errors?: Readonly<Record<string, string>>;
  /** What the refused form sent (`action` and its fields), kept in its fields. */
  sent?: Readonly<Record<string, unknown>>;
  /** What a form post did, shown once at the top. */
  notice?: string;
}

/** What `<mount>/organizations/<slug>` shows to a member. */
export interface OrganizationPage {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  organization: OrganizationRecord;
  /** The viewer's role in the organization. */
  role: string;
  /** The viewer's user id: their own row gets no buttons (they leave from `<mount>/organizations`). */
  userId: string;
  /** What the viewer's role allows: each form is shown only when its action would be allowed. */
  may: { invite: boolean; cancel: boolean; role: boolean; remove: boolean; update: boolean; transfer: boolean; delete: boolean; events: boolean };
  /** The roles the viewer may give (`mayGrant`), in the config's order: the invite form's and the role forms' choices. */
  grantable: readonly string[];
  members: readonly MemberRecord[];
  invitations: readonly InvitationRecord[];
  events: readonly OrganizationEventRecord[];
  /** What the events' types are called (`Feature.securityEventLabels`); an unlabelled type shows as "Organization event". */
  eventLabels: Readonly<Record<string, string>>;
  /**
   * A refused form's errors by field: `email`, `role` (invite), `role` or `userId` (a member's forms, as
   * `sent.userId` names the member), `id` (an invitation's Cancel), `name` (rename), `confirm` (delete); others at
   * the top.
   */
  errors?: Readonly<Record<string, string>>;
  /** What the refused form sent (`action` and its fields), kept in its fields. */
  sent?: Readonly<Record<string, unknown>>;
  /** What a form post did, shown once at the top. */
  notice?: string;
}

/** What the page of an invitation's link (`<mount>/organizations/invitations/<token>`) shows. */
export interface InvitationPage {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  /** The invitation, or null when it is unknown, used, cancelled or expired. */
  invitation: InvitationWithOrganization | null;
  /** The signed-in user's address and whether it is the invited one; null when signed out. */
  signedIn: { email: string; matches: boolean } | null;
  /** Sign in, then back to this page. */
  signInUrl: string;
  /** Sign up, then back to this page; null when the app offers no sign-up. */
  signUpUrl: string | null;
  /** Why an accept or a decline was refused. */
  error?: string;
}

// Wider than the sign-in card: the organization's page has a table. Selects look like the inputs; the delete button
// is outlined in the error colours, as on the account page (they reach 4.5:1 on the card in both schemes).
const styles =
  formStyles +
  'main{max-width:680px}h2{font-size:1.1rem;margin:28px 0 8px}select{width:100%;min-height:44px;padding:10px 12px;border:1px solid var(--field);border-radius:8px;background:var(--card);color:var(--text);font:inherit}select:focus-visible{outline:3px solid var(--focus);outline-offset:2px;border-color:var(--focus)}.list{list-style:none;padding:0;margin:0}.list>li{border-top:1px solid var(--line);padding:10px 0}.list>li:first-child{border-top:0}.row{display:flex;flex-wrap:wrap;gap:8px 10px;align-items:center;justify-content:space-between}.row .buttons{display:flex;gap:8px}.row button{margin-top:0;width:auto}.row form+form{margin-top:0}.badge{display:inline-block;border:1px solid var(--field);border-radius:999px;padding:0 8px;font-size:.85rem;margin-left:6px}table{width:100%;border-collapse:collapse;font-size:.95rem}th,td{text-align:left;vertical-align:top;padding:8px 6px;border-top:1px solid var(--line)}thead th{border-top:0}td form+form{margin-top:8px}td button{margin-top:8px;white-space:nowrap;padding:8px 12px}td select{min-width:8em}.nowrap{white-space:nowrap}.visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}.danger button{background:transparent;color:var(--error-text);border-color:var(--error-line)}.notice{border:1px solid var(--line);border-radius:8px;padding:12px 14px;margin:0 0 20px}.notice p{margin:0}.error p+p{margin-top:6px}';

/** A date as `2026-11-24`. */
function shownDay(date: Date): string {
  return new Date(date).toISOString().slice(0, 10);
}

/** A date as `2026-11-24 12:30 UTC`. */
function shownDate(date: Date): string {
  const iso = new Date(date).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The CSRF token and the form's other hidden fields. */
function hiddenFields(csrfToken: string, fields: Readonly<Record<string, string>>): SafeHtml {
  return html`<input type="hidden" name="csrfToken" value="${csrfToken}">${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}`;
}

function fieldError(id: string, error: string | undefined): SafeHtml | string {
  return error ? html`<p class="field-error" id="${id}-error">${error}</p>` : '';
}

/** `aria-invalid` and `aria-describedby` of a control whose form was refused (`hint`: its hint's id, always described). */
function invalid(id: string, error: string | undefined, hint?: string): SafeHtml | string {
  if (error) return html` aria-invalid="true" aria-describedby="${hint ? `${hint} ` : ''}${id}-error"`;
  return hint ? html` aria-describedby="${hint}"` : '';
}

/** A button's `aria-describedby` when its form was refused (`aria-invalid` belongs to fields, not buttons). */
function describedBy(id: string, error: string | undefined): SafeHtml | string {
  return error ? html` aria-describedby="${id}-error"` : '';
}

/**
 * The refused form's errors, handed out to the form they belong to: `of(action, match)` gives the errors when the
 * sent form was `action` (and sent each field of `match` with that value) and marks them shown; `unplaced()` is what
 * no form took, for the top of the page.
 */
function errorPlacer(errors: Readonly<Record<string, string>> | undefined, sent: Readonly<Record<string, unknown>> | undefined) {
  const shown = new Set<string>();
  const none: Readonly<Record<string, string>> = {};
  return {
    of(action: string, match: Readonly<Record<string, readonly string[]>> = {}, fields?: readonly string[]): Readonly<Record<string, string>> {
      if (!errors || sent?.['action'] !== action) return none;
      const matches = Object.entries(match).every(([field, values]) => typeof sent[field] === 'string' && values.includes(sent[field]));
      if (!matches) return none;
      const taken = Object.fromEntries(Object.entries(errors).filter(([field]) => !fields || fields.includes(field)));
      for (const field of Object.keys(taken)) shown.add(field);
      return taken;
    },
    unplaced(): string[] {
      return Object.entries(errors ?? {}).flatMap(([field, error]) => (shown.has(field) ? [] : [error]));
    },
  };
}

/** The alert at the top of a refused page: the unplaced errors, or where to look. */
function refusal(errors: Readonly<Record<string, string>> | undefined, unplaced: readonly string[]): SafeHtml | string {
  if (!errors || Object.keys(errors).length === 0) return '';
  const lines = unplaced.length > 0 ? unplaced : ['The form was not accepted: see the field below.'];
  return html`<div class="error" role="alert">${lines.map((line) => html`<p>${line}</p>`)}</div>`;
}

function noticeOf(notice: string | undefined): SafeHtml | string {
  return notice ? html`<div class="notice" role="status"><p>${notice}</p></div>` : '';
}

/** What a refused form sent in `field`, or `fallback` when that form was not the one sent. */
function sentValue(sent: Readonly<Record<string, unknown>> | undefined, action: string, field: string, fallback = ''): string {
  const value = sent?.['action'] === action ? sent[field] : undefined;
  return typeof value === 'string' ? value : fallback;
}

/** A select of roles, `selected` chosen. */
function roleOptions(roles: readonly string[], selected: string): SafeHtml[] {
  return roles.map((role) => html`<option value="${role}"${role === selected ? html` selected` : ''}>${role}</option>`);
}

/** `<mount>/organizations`: the user's organizations, the invitations to them, and the create form. */
export function renderOrganizationsPage(params: OrganizationsPage): string {
  const { mountPath, csrfToken, sent } = params;
  const action = `${mountPath}/organizations`;
  const placer = errorPlacer(params.errors, sent);

  const memberships = params.memberships.map((membership, index) => {
    const { organization } = membership;
    const id = `membership-${String(index)}`;
    const error = Object.values(placer.of('switch', { organization: [organization.id, organization.slug] })).concat(Object.values(placer.of('leave', { organization: [organization.id, organization.slug] })))[0];
    const switchForm = membership.active
      ? ''
      : html`<form action="${action}" method="POST">${hiddenFields(csrfToken, { action: 'switch', organization: organization.id })}<button type="submit" class="secondary" aria-label="Switch to ${organization.name}"${describedBy(id, error)}>Switch</button></form>`;
    const leaveForm = html`<form action="${action}" method="POST">${hiddenFields(csrfToken, { action: 'leave', organization: organization.id })}<button type="submit" class="secondary" aria-label="Leave ${organization.name}"${describedBy(id, error)}>Leave</button></form>`;
    return html`<li><div class="row"><span><a href="${mountPath}/organizations/${encodeURIComponent(organization.slug)}">${organization.name}</a> <span class="muted">(${membership.role})</span>${membership.active ? html`<span class="badge">active</span>` : ''}</span><span class="buttons">${switchForm}${leaveForm}</span></div>${fieldError(id, error)}</li>`;
  });
  const mine = memberships.length > 0 ? html`<ul class="list">${memberships}</ul>` : html`<p class="muted">You belong to no organization yet.</p>`;

  const invitations = params.invitations.length
    ? html`<ul class="list">${params.invitations.map(
        (invitation) =>
          html`<li><strong>${invitation.organization.name}</strong> <span class="muted">(${invitation.role})</span><p class="hint">${invitation.inviterName ? html`Invited by ${invitation.inviterName} · ` : ''}expires ${shownDate(invitation.expiresAt)}</p></li>`,
      )}</ul><p class="hint">To accept an invitation, open the link in the email it came with.</p>`
    : html`<p class="muted">No invitations to your address.</p>`;

  let create: SafeHtml | string = '';
  if (params.mayCreate) {
    const errors = placer.of('create', {}, ['name', 'slug']);
    create = html`<h2>New organization</h2><form action="${action}" method="POST">${hiddenFields(csrfToken, { action: 'create' })}<label for="org-name">Name</label><input id="org-name" name="name" type="text" maxlength="100" required value="${sentValue(sent, 'create', 'name')}"${invalid('org-name', errors['name'])}>${fieldError('org-name', errors['name'])}<label for="org-slug">Address (optional)</label><input id="org-slug" name="slug" type="text" maxlength="48" autocapitalize="none" spellcheck="false" value="${sentValue(sent, 'create', 'slug')}"${invalid('org-slug', errors['slug'], 'org-slug-hint')}><p class="hint" id="org-slug-hint">Lowercase letters, digits and hyphens, as in <code>${mountPath}/organizations/acme</code>. Made from the name when left empty.</p>${fieldError('org-slug', errors['slug'])}<button type="submit">Create organization</button></form>`;
  }

  const body = html`<h1>Your organizations</h1>${noticeOf(params.notice)}${refusal(params.errors, placer.unplaced())}${mine}<h2>Invitations to you</h2>${invitations}${create}<p class="actions"><a href="${mountPath}/account">Your account</a></p>`;
  return layout({ title: 'Your organizations', theme: params.theme, body, styles });
}

/** A member's or former member's name as the events show it: their name, else their address while a member. */
function personName(params: OrganizationPage, id: string | null, name: string | null): string {
  if (name) return name;
  const member = id === null ? undefined : params.members.find((candidate) => candidate.userId === id);
  return member?.email ?? (id === null ? 'a deleted account' : 'a former member');
}

function membersTable(params: OrganizationPage, placer: ReturnType<typeof errorPlacer>): SafeHtml {
  const { mountPath, csrfToken, organization } = params;
  const action = `${mountPath}/organizations/${encodeURIComponent(organization.slug)}`;
  const viewerIsOwner = params.role === OWNER;
  const rows = params.members.map((member, index) => {
    const id = `member-${String(index)}`;
    const who = member.name ?? member.email;
    const self = member.userId === params.userId;
    // Only an owner touches an owner; a role is changed only by one who may give it and the role it replaces.
    const touchable = !self && (member.role !== OWNER || viewerIsOwner);
    const byUser = { userId: [member.userId] };
    let role: SafeHtml | string = html`${member.role}${self ? html` <span class="muted">(you)</span>` : ''}`;
    if (params.may.role && touchable && params.grantable.includes(member.role)) {
      const errors = placer.of('role', byUser);
      const error = errors['role'] ?? errors['userId'];
      role = html`<form action="${action}" method="POST">${hiddenFields(csrfToken, { action: 'role', userId: member.userId })}<label class="visually-hidden" for="${id}-role">Role of ${who}</label><select id="${id}-role" name="role"${invalid(`${id}-role`, error)}>${roleOptions(params.grantable, params.sent?.['userId'] === member.userId ? sentValue(params.sent, 'role', 'role', member.role) : member.role)}</select>${fieldError(`${id}-role`, error)}<button type="submit" class="secondary" aria-label="Change role of ${who}">Change role</button></form>`;
    }
    const buttonErrors = { ...placer.of('remove', byUser), ...placer.of('transfer', byUser) };
    const buttonError = Object.values(buttonErrors)[0];
    const remove =
      params.may.remove && touchable
        ? html`<form action="${action}" method="POST">${hiddenFields(csrfToken, { action: 'remove', userId: member.userId })}<button type="submit" class="secondary" aria-label="Remove ${who}"${describedBy(id, buttonError)}>Remove</button></form>`
        : '';
    const transfer =
      params.may.transfer && !self && member.role !== OWNER
        ? html`<form action="${action}" method="POST">${hiddenFields(csrfToken, { action: 'transfer', userId: member.userId })}<button type="submit" class="secondary" aria-label="Transfer ownership to ${who}"${describedBy(id, buttonError)}>Transfer ownership</button></form>`
        : '';
    const actions = remove || transfer ? html`${remove}${transfer}${fieldError(id, buttonError)}` : html`<span class="muted">—</span>`;
    return html`<tr><td>${member.name ? html`${member.name}<br><span class="hint">${member.email}</span>` : member.email}</td><td>${role}</td><td class="nowrap">${shownDay(member.joinedAt)}</td><td>${actions}</td></tr>`;
  });
  return html`<table><thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">Joined</th><th scope="col">Actions</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function inviteForm(params: OrganizationPage, action: string, placer: ReturnType<typeof errorPlacer>): SafeHtml | string {
  if (!params.may.invite || params.grantable.length === 0) return '';
  const errors = placer.of('invite', {}, ['email', 'role']);
  // The least role by default: the last one the config lists that the viewer may give.
  const role = sentValue(params.sent, 'invite', 'role', params.grantable.includes('member') ? 'member' : (params.grantable.at(-1) ?? ''));
  return html`<h2>Invite someone</h2><form action="${action}" method="POST">${hiddenFields(params.csrfToken, { action: 'invite' })}<label for="invite-email">Email address</label><input id="invite-email" name="email" type="email" autocomplete="off" required value="${sentValue(params.sent, 'invite', 'email')}"${invalid('invite-email', errors['email'])}>${fieldError('invite-email', errors['email'])}<label for="invite-role">Role</label><select id="invite-role" name="role"${invalid('invite-role', errors['role'])}>${roleOptions(params.grantable, role)}</select>${fieldError('invite-role', errors['role'])}<p class="hint">We email them a link. It works once, for the address it was sent to.</p><button type="submit">Send invitation</button></form>`;
}

function pendingInvitations(params: OrganizationPage, action: string, placer: ReturnType<typeof errorPlacer>): SafeHtml | string {
  if (params.invitations.length === 0) return params.may.invite ? html`<h2>Pending invitations</h2><p class="muted">No pending invitations.</p>` : '';
  const items = params.invitations.map((invitation, index) => {
    const id = `invitation-${String(index)}`;
    const error = Object.values(placer.of('cancel-invitation', { id: [invitation.id] }))[0];
    const cancel = params.may.cancel
      ? html`<form action="${action}" method="POST">${hiddenFields(params.csrfToken, { action: 'cancel-invitation', id: invitation.id })}<button type="submit" class="secondary" aria-label="Cancel the invitation to ${invitation.email}"${describedBy(id, error)}>Cancel</button></form>`
      : '';
    return html`<li><div class="row"><span>${invitation.email} <span class="muted">(${invitation.role})</span><br><span class="hint">expires ${shownDate(invitation.expiresAt)}</span></span>${cancel}</div>${fieldError(id, error)}</li>`;
  });
  return html`<h2>Pending invitations</h2><ul class="list">${items}</ul>`;
}

function renameForm(params: OrganizationPage, action: string, placer: ReturnType<typeof errorPlacer>): SafeHtml | string {
  if (!params.may.update) return '';
  const error = placer.of('update', {}, ['name'])['name'];
  return html`<h2>Rename</h2><form action="${action}" method="POST">${hiddenFields(params.csrfToken, { action: 'update' })}<label for="org-name">Name</label><input id="org-name" name="name" type="text" maxlength="100" required value="${sentValue(params.sent, 'update', 'name', params.organization.name)}"${invalid('org-name', error)}>${fieldError('org-name', error)}<button type="submit">Rename</button></form>`;
}

function deleteForm(params: OrganizationPage, action: string, placer: ReturnType<typeof errorPlacer>): SafeHtml | string {
  if (!params.may.delete) return '';
  const error = placer.of('delete', {}, ['confirm'])['confirm'];
  const { slug } = params.organization;
  return html`<h2>Delete this organization</h2><p class="muted">This deletes the organization, its memberships, invitations and events. Its members keep their accounts. It cannot be undone, and needs a recent sign-in: if you signed in a while ago, you are asked to sign in again first.</p><form class="danger" action="${action}" method="POST">${hiddenFields(params.csrfToken, { action: 'delete' })}<label for="org-delete-confirm">Type <code>${slug}</code> to confirm</label><input id="org-delete-confirm" name="confirm" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" required${invalid('org-delete-confirm', error)}>${fieldError('org-delete-confirm', error)}<button type="submit">Delete ${params.organization.name}</button></form>`;
}

function eventsList(params: OrganizationPage): SafeHtml | string {
  if (!params.may.events) return '';
  if (params.events.length === 0) return html`<h2>Activity</h2><p class="muted">No events yet.</p>`;
  const items = params.events.map((event) => {
    // Own keys only: a stored type such as "constructor" is not a label.
    const label = Object.hasOwn(params.eventLabels, event.type) ? params.eventLabels[event.type] : 'Organization event';
    // Whom it concerned, unless it was the actor (a member who joined or left).
    const subject = (event.subjectId === null && event.subjectName === null) || event.subjectId === event.actorId ? '' : html` · ${personName(params, event.subjectId, event.subjectName)}`;
    return html`<li><strong>${label}</strong>${event.detail ? html` <span class="muted">(${event.detail})</span>` : ''}<br><span class="hint">by ${personName(params, event.actorId, event.actorName)}${subject} · ${shownDate(event.at)}</span></li>`;
  });
  return html`<h2>Activity</h2><ul class="list">${items}</ul>`;
}

/** `<mount>/organizations/<slug>`: what a member sees, with the forms their role allows. */
export function renderOrganizationPage(params: OrganizationPage): string {
  const { organization } = params;
  const action = `${params.mountPath}/organizations/${encodeURIComponent(organization.slug)}`;
  const placer = errorPlacer(params.errors, params.sent);
  // Built before the alert at the top, which shows what no form took.
  const sections = html`<h2>Members</h2>${membersTable(params, placer)}${inviteForm(params, action, placer)}${pendingInvitations(params, action, placer)}${renameForm(params, action, placer)}${deleteForm(params, action, placer)}${eventsList(params)}`;
  const body = html`<h1>${organization.name}</h1>${noticeOf(params.notice)}${refusal(params.errors, placer.unplaced())}<p class="center muted">Your role: ${params.role}</p>${sections}<p class="actions"><a href="${params.mountPath}/organizations">Your organizations</a></p>`;
  return layout({ title: organization.name, theme: params.theme, body, styles });
}

/**
 * The page an invitation's link opens. Its forms have no `action`: they POST to the page's own address, so the
 * link's token is in no attribute of the page. The invited address is shown to no one but its owner.
 */
export function renderInvitationPage(params: InvitationPage): string {
  const { invitation, signedIn } = params;
  if (!invitation) {
    const body = html`<h1>Invitation</h1><div class="error" role="alert"><p>This invitation is no longer valid: it was used, cancelled or has expired. Ask for a new one.</p></div><p class="actions"><a href="${params.mountPath}/organizations">Your organizations</a></p>`;
    return layout({ title: 'Invitation', theme: params.theme, body, styles });
  }
  const { organization } = invitation;
  const what = html`<p>${invitation.inviterName ? html`${invitation.inviterName} invited you` : 'You are invited'} to join <strong>${organization.name}</strong> as <strong>${invitation.role}</strong>.</p><p class="hint">The invitation expires ${shownDate(invitation.expiresAt)}.</p>`;
  const error = params.error ? html`<div class="error" role="alert"><p>${params.error}</p></div>` : '';
  let answer: SafeHtml;
  if (!signedIn) {
    answer = html`<p>Sign in with the address this invitation was sent to, then come back to this page to accept it.</p><p class="actions"><a class="button" href="${params.signInUrl}">Sign in</a>${params.signUpUrl ? html`<a href="${params.signUpUrl}">New here? Create an account with that address</a>` : ''}</p>`;
  } else if (!signedIn.matches) {
    answer = html`<p>You are signed in as ${signedIn.email}. This invitation was sent to another address. Sign in with the invited address.</p><p class="actions"><a href="${params.signInUrl}">Sign in with another account</a></p>`;
  } else {
    const form = (value: 'accept' | 'decline', label: string, secondary: boolean): SafeHtml =>
      html`<form method="POST">${hiddenFields(params.csrfToken, { action: value })}<button type="submit"${secondary ? html` class="secondary"` : ''}>${label}</button></form>`;
    answer = html`<p class="hint">Signed in as ${signedIn.email}.</p>${form('accept', 'Accept invitation', false)}${form('decline', 'Decline', true)}`;
  }
  const body = html`<h1>Join ${organization.name}</h1>${error}${what}${answer}`;
  return layout({ title: `Join ${organization.name}`, theme: params.theme, body, styles });
}
