/**
 * What the organizations' routes share: who is asking (signed in, their proven address), the session's token (its
 * row holds the active organization), the list of the user's organizations (page or JSON), the answer for an
 * organization the user is not a member of (404, the same as for none), and the notices a redirect asks a page to
 * show.
 */
import type { RequestContext } from '../../contracts.js';
import { actionUrl, sendHtml, sendJson, sendRedirect } from '../../context.js';
import { InvalidEmailAddress, normalizeEmailAddress } from '../../email-address.js';
import { readChunkedCookie } from '../../http/cookies.js';
import { csrfTokenOf } from '../../http/csrf.js';
import { queryParams } from '../../http/request.js';
import type { AdapterUser } from '../../types.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import type { SignedIn } from '../database/signed-in.js';
import { renderOrganizationsPage } from './pages.js';
import type { OrganizationSettings } from './roles.js';

/** A request to the organizations' routes from a signed-in user. */
export interface OrganizationsRequest {
  context: RequestContext;
  adapter: Adapter;
  settings: OrganizationSettings;
  signedIn: SignedIn;
  userId: string;
  /** Whether the client wants JSON rather than a page. */
  json: boolean;
}

/** What a page shows beside its data: the errors of a refused form by field, what was sent, a notice. */
export interface PageExtras {
  errors?: Readonly<Record<string, string>>;
  sent?: Readonly<Record<string, unknown>>;
  notice?: string;
}

/** The session's own token (database sessions: its row holds the active organization). */
export function sessionTokenOf(context: RequestContext): string | undefined {
  return readChunkedCookie(context.cookies, context.cookieOptions.sessionToken.name) ?? undefined;
}

/** An address normalised as invitations store theirs (email-address.ts), or null when it is not one plain address. */
export function normalizedAddress(address: string): string | null {
  try {
    return normalizeEmailAddress(address);
  } catch (error) {
    if (error instanceof InvalidEmailAddress) return null;
    throw error;
  }
}

/**
 * The user's address when it is proven (`emailVerified` set), normalised; null otherwise. Only a proven address
 * sees or accepts invitations: anyone can type an address at sign-up.
 */
export function provenAddressOf(user: AdapterUser): string | null {
  return user.emailVerified && user.email ? normalizedAddress(user.email) : null;
}

/** The notices a redirect may ask for (`?notice=`): a page shows only these, never text from the URL. */
const notices: Readonly<Record<string, string>> = {
  created: 'The organization was created. It is now your active organization.',
  switched: 'Your active organization changed.',
  left: 'You left the organization.',
  invited: 'The invitation was sent.',
  'invitation-cancelled': 'The invitation was cancelled.',
  'role-changed': 'The member’s role changed.',
  removed: 'The member was removed.',
  updated: 'The organization was renamed.',
  transferred: 'Ownership was transferred.',
  deleted: 'The organization was deleted.',
  joined: 'You joined the organization. It is now your active organization.',
  declined: 'You declined the invitation.',
};

/** The notice the request's `?notice=` names, if it is one. */
export function noticeOf(context: RequestContext): string | undefined {
  const key = queryParams(context.req).get('notice');
  return key !== null && Object.hasOwn(notices, key) ? notices[key] : undefined;
}

/** `<mount>/organizations`, or an organization's page below it. */
export function organizationsUrl(context: RequestContext, slug?: string): string {
  return `${actionUrl(context, 'organizations')}${slug === undefined ? '' : `/${encodeURIComponent(slug)}`}`;
}

/** A change made: JSON `body`, or a redirect to `<mount>/organizations[/<slug>]` with its notice. */
export function sendDone(request: OrganizationsRequest, status: number, body: unknown, where: { slug?: string; notice: keyof typeof notices & string }): void {
  if (request.json) return sendJson(request.context, status, body);
  sendRedirect(request.context, `${organizationsUrl(request.context, where.slug)}?notice=${where.notice}`);
}

/**
 * `<mount>/organizations`: the user's memberships (the active one marked), the unexpired invitations to their proven
 * address, and whether they may create one; JSON `{ organizations, invitations, mayCreate }`, or the page (a refused
 * form's at `status`, with its errors: JSON clients get those from the route itself).
 */
export async function sendOrganizations(request: OrganizationsRequest, status: number, extras: PageExtras = {}): Promise<void> {
  const { context, adapter, settings, signedIn, userId } = request;
  const sessionToken = sessionTokenOf(context) ?? null;
  const [memberships, found] = await Promise.all([callAdapter(adapter, 'listMemberships', userId), callAdapter(adapter, 'findMemberships', userId, { sessionToken, organization: null })]);
  const activeId = found.active?.organization.id;
  const address = provenAddressOf(signedIn.user);
  const invitations = address === null ? [] : await callAdapter(adapter, 'listInvitationsByEmail', address, new Date());
  const mayCreate = await settings.allowUserToCreate(signedIn.user);
  const listed = memberships.map((membership) => ({ ...membership, active: membership.organization.id === activeId }));
  if (request.json) {
    return sendJson(context, status, {
      organizations: listed.map(({ organization: { id, slug, name }, role, active }) => ({ id, slug, name, role, active })),
      invitations: invitations.map(({ id, role, expiresAt, inviterName, organization: { slug, name } }) => ({ id, role, expiresAt, inviterName, organization: { slug, name } })),
      mayCreate,
    });
  }
  const page = renderOrganizationsPage({ mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme, memberships: listed, invitations, mayCreate, ...extras });
  sendHtml(context, status, page);
}

/** The answer for an organization the user is not a member of, and for one that does not exist: the same 404. */
export function sendNotFound(request: OrganizationsRequest): Promise<void> {
  const message = 'There is no such organization.';
  if (request.json) {
    sendJson(request.context, 404, { error: 'not_found', message });
    return Promise.resolve();
  }
  return sendOrganizations(request, 404, { errors: { form: message } });
}
