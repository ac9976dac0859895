/**
 * A stand-in for the organizations' pages (written in parallel by another change, which replaces this file): the
 * same exports and parameters, each page plain but complete enough to use: the lists, the forms with the CSRF token,
 * the errors by field and the notice.
 */
import type { Theme } from '../../contracts.js';
import { type SafeHtml, html } from '../../pages/html.js';
import { formStyles } from '../../pages/form-styles.js';
import { layout } from '../../pages/layout.js';
import type { InvitationRecord, InvitationWithOrganization, MemberRecord, Membership, OrganizationEventRecord, OrganizationRecord } from './storage.js';

export interface OrganizationsPage {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  memberships: readonly (Membership & { active: boolean })[];
  invitations: readonly InvitationWithOrganization[];
  mayCreate: boolean;
  errors?: Readonly<Record<string, string>>;
  sent?: Readonly<Record<string, unknown>>;
  notice?: string;
}

export interface OrganizationPage {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  organization: OrganizationRecord;
  role: string;
  userId: string;
  may: { invite: boolean; cancel: boolean; role: boolean; remove: boolean; update: boolean; transfer: boolean; delete: boolean; events: boolean };
  grantable: readonly string[];
  members: readonly MemberRecord[];
  invitations: readonly InvitationRecord[];
  events: readonly OrganizationEventRecord[];
  eventLabels: Readonly<Record<string, string>>;
  errors?: Readonly<Record<string, string>>;
  sent?: Readonly<Record<string, unknown>>;
  notice?: string;
}

export interface InvitationPage {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  invitation: InvitationWithOrganization | null;
  signedIn: { email: string; matches: boolean } | null;
  signInUrl: string;
  signUpUrl: string | null;
  error?: string;
}

function messages(errors: Readonly<Record<string, string>> | undefined, notice: string | undefined): SafeHtml {
  const listed = Object.entries(errors ?? {}).map(([field, text]) => html`<p class="field-error" data-field="${field}">${text}</p>`);
  return html`${notice ? html`<p role="status">${notice}</p>` : ''}${listed.length ? html`<div class="error" role="alert">${listed}</div>` : ''}`;
}

function form(action: string, csrfToken: string, fields: Record<string, string>, label: string, inputs: SafeHtml | string = ''): SafeHtml {
  return html`<form action="${action}" method="POST"><input type="hidden" name="csrfToken" value="${csrfToken}">${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}${inputs}<button type="submit">${label}</button></form>`;
}

export function renderOrganizationsPage(params: OrganizationsPage): string {
  const action = `${params.mountPath}/organizations`;
  const list = params.memberships.map(
    (membership) => html`<li><a href="${action}/${membership.organization.slug}">${membership.organization.name}</a> (${membership.role})${membership.active ? ' · active' : form(action, params.csrfToken, { action: 'switch', organization: membership.organization.id }, 'Make active')}</li>`,
  );
  const invitations = params.invitations.map((invitation) => html`<li>${invitation.organization.name} invites you as ${invitation.role}: open the link in the invitation's email.</li>`);
  const name = typeof params.sent?.['name'] === 'string' ? params.sent['name'] : '';
  const create = params.mayCreate
    ? form(action, params.csrfToken, { action: 'create' }, 'Create organization', html`<label for="org-name">Name</label><input id="org-name" name="name" value="${name}" required><label for="org-slug">Slug</label><input id="org-slug" name="slug">`)
    : '';
  const body = html`<h1>Your organizations</h1>${messages(params.errors, params.notice)}<ul>${list}</ul>${invitations.length ? html`<h2>Invitations</h2><ul>${invitations}</ul>` : ''}${create}`;
  return layout({ title: 'Your organizations', theme: params.theme, body, styles: formStyles });
}

export function renderOrganizationPage(params: OrganizationPage): string {
  const action = `${params.mountPath}/organizations/${params.organization.slug}`;
  const members = params.members.map(
    (member) =>
      html`<li>${member.name ?? member.email} &lt;${member.email}&gt; (${member.role})${params.may.remove && member.userId !== params.userId ? form(action, params.csrfToken, { action: 'remove', userId: member.userId }, 'Remove') : ''}</li>`,
  );
  const invitations = params.invitations.map(
    (invitation) => html`<li>${invitation.email} (${invitation.role})${params.may.cancel ? form(action, params.csrfToken, { action: 'cancel-invitation', id: invitation.id }, 'Cancel') : ''}</li>`,
  );
  const events = params.events.map((event) => html`<li>${params.eventLabels[event.type] ?? event.type}: ${event.actorName ?? ''} ${event.subjectName ?? ''} ${event.detail ?? ''}</li>`);
  const invite = params.may.invite
    ? form(action, params.csrfToken, { action: 'invite' }, 'Invite', html`<label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required><label for="invite-role">Role</label><select id="invite-role" name="role">${params.grantable.map((role) => html`<option>${role}</option>`)}</select>`)
    : '';
  const remove = params.may.delete ? form(action, params.csrfToken, { action: 'delete' }, 'Delete organization', html`<label for="confirm">Type ${params.organization.slug}</label><input id="confirm" name="confirm">`) : '';
  const body = html`<h1>${params.organization.name}</h1><p>Your role: ${params.role}</p>${messages(params.errors, params.notice)}<h2>Members</h2><ul>${members}</ul>${invitations.length ? html`<h2>Invitations</h2><ul>${invitations}</ul>` : ''}${invite}${events.length ? html`<h2>Events</h2><ul>${events}</ul>` : ''}${remove}`;
  return layout({ title: params.organization.name, theme: params.theme, body, styles: formStyles });
}

export function renderInvitationPage(params: InvitationPage): string {
  const { invitation } = params;
  if (!invitation) {
    return layout({ title: 'Invitation', theme: params.theme, body: html`<h1>Invitation</h1><p>This invitation is no longer valid.</p>`, styles: formStyles });
  }
  const answer = !params.signedIn
    ? html`<p>Sign in or sign up first with the invited address.</p><p><a href="${params.signInUrl}">Sign in</a>${params.signUpUrl ? html` <a href="${params.signUpUrl}">Sign up</a>` : ''}</p>`
    : params.signedIn.matches
      ? html`<form method="POST"><input type="hidden" name="csrfToken" value="${params.csrfToken}"><button name="action" value="accept">Accept</button><button name="action" value="decline">Decline</button></form>`
      : html`<p>You are signed in as ${params.signedIn.email}, which is not the invited, confirmed address.</p>`;
  const body = html`<h1>Join ${invitation.organization.name}</h1>${params.error ? html`<div class="error" role="alert"><p>${params.error}</p></div>` : ''}<p>${invitation.inviterName ?? 'A member'} invites you as ${invitation.role}.</p>${answer}`;
  return layout({ title: 'Invitation', theme: params.theme, body, styles: formStyles });
}
