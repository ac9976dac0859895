/**
 * An invitation's link, `<mount>/organizations/invitations/<token>` (SPEC §14):
 * - GET: its page (the organization, who invited, the role; Accept and Decline for the invited user); it changes
 *   nothing, since mail scanners and previews open links. Signed out, the page asks to sign in or sign up first, and
 *   comes back here. An unknown, expired, used or cancelled link: 404, "no longer valid".
 * - POST `action=accept` or `action=decline` (CSRF, signed in): answered only for a user whose proven address
 *   (`emailVerified` set) is the invited one; anyone else gets 403 and the invitation stays usable. Accepting makes
 *   the user a member with the invitation's role (a member keeps theirs) and the organization the session's active
 *   one; declining deletes the invitation. Either is the acting user's event.
 * The token is compared by its SHA-256 digest, in constant time, and never logged.
 */
import type { RequestContext } from '../../contracts.js';
import { actionUrl, sendHtml, sendJson, sendRedirect } from '../../context.js';
import { InvalidRequest } from '../../errors.js';
import { csrfTokenOf, verifyCsrf } from '../../http/csrf.js';
import { customPageUrl } from '../../http/redirect.js';
import { bodyField, prefersJson, readBody } from '../../http/request.js';
import { safeEqual } from '../../http/safe-equal.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import { type SignedIn, askToSignIn, currentSignIn } from '../database/signed-in.js';
import { membershipIn } from './access.js';
import { recordOrganizationEvent } from './events.js';
import { invitationDigest } from './invitation-token.js';
import { organizationsUrl, provenAddressOf, sessionTokenOf } from './organizations-view.js';
import { type InvitationPage, renderInvitationPage } from './pages.js';
import type { InvitationWithOrganization } from './storage.js';

/** The path segment below `<mount>/organizations` that the invitations' links live under (no organization's slug). */
export const INVITATIONS = 'invitations';

const NO_LONGER_VALID = 'This invitation is no longer valid: it was used, cancelled or replaced, or it expired. Ask for a new one.';

/** The unexpired invitation whose link holds `token`, or null. */
async function validInvitation(adapter: Adapter, token: string): Promise<(InvitationWithOrganization & { digest: string }) | null> {
  const digest = invitationDigest(token);
  if (digest === undefined) return null;
  const found = await callAdapter(adapter, 'getInvitation', digest);
  if (!found || !safeEqual(found.digest, digest) || found.expiresAt.valueOf() <= Date.now()) return null;
  return found;
}

/** Whether the signed-in user may answer the invitation: their proven address is the invited one. */
function isInvited(signedIn: SignedIn, invitation: InvitationWithOrganization): boolean {
  return provenAddressOf(signedIn.user) === invitation.email;
}

/** GET and POST `<mount>/organizations/invitations/<token>`. */
export async function invitationRoute(context: RequestContext, method: 'GET' | 'POST', token: string): Promise<void> {
  const adapter = context.options.adapter!;
  const json = prefersJson(context.req);
  const body = method === 'POST' ? await readBody(context.req) : undefined;
  if (body) verifyCsrf(context, body);
  const here = `${actionUrl(context, `organizations/${INVITATIONS}`)}/${encodeURIComponent(token)}`;
  const signedIn = await currentSignIn(context, adapter);
  if (body && !signedIn) return askToSignIn(context, json, { action: `organizations/${INVITATIONS}/${encodeURIComponent(token)}`, message: 'Sign in with the invited address to answer the invitation.' });
  const invitation = await validInvitation(adapter, token);
  const page = (status: number, extras: Pick<InvitationPage, 'error'> = {}): void => {
    const signIn = customPageUrl(context, context.options.pages.signIn ?? `${context.mountPath}/signin`, { callbackUrl: here });
    // Sign-up, where the app has it (the password provider's page), comes back here too once the address is confirmed.
    const signsUp = context.options.features.some((feature) => feature.routes !== undefined && Object.hasOwn(feature.routes, 'signup'));
    const rendered = renderInvitationPage({
      mountPath: context.mountPath,
      csrfToken: csrfTokenOf(context),
      theme: context.options.theme,
      invitation,
      signedIn: signedIn && invitation ? { email: signedIn.user.email ?? '', matches: isInvited(signedIn, invitation) } : null,
      signInUrl: signIn,
      signUpUrl: signsUp ? customPageUrl(context, `${context.mountPath}/signup`, { callbackUrl: here }) : null,
      ...extras,
    });
    sendHtml(context, status, rendered);
  };
  if (!invitation) {
    if (json) return sendJson(context, 404, { error: 'not_found', message: NO_LONGER_VALID });
    return page(404, { error: NO_LONGER_VALID });
  }
  if (!body) {
    if (!json) return page(200);
    // Not the invited address: the link may be opened by someone else (a forwarded mail), who learns no address from it.
    const { organization, inviterName, role, expiresAt } = invitation;
    return sendJson(context, 200, { invitation: { organization: { slug: organization.slug, name: organization.name }, inviterName, role, expiresAt }, mayAnswer: signedIn ? isInvited(signedIn, invitation) : false });
  }
  const user = signedIn!;
  if (!isInvited(user, invitation)) {
    const message = 'This invitation is for another email address, or yours is not confirmed yet: sign in with the invited address, confirmed, to answer it.';
    if (json) return sendJson(context, 403, { error: 'forbidden', message });
    return page(403, { error: message });
  }
  const action = bodyField(body, 'action');
  const userId = String(user.user.id);
  const { organization } = invitation;
  if (action === 'accept') {
    if (!(await callAdapter(adapter, 'acceptInvitation', invitation.digest, userId, new Date()))) {
      if (json) return sendJson(context, 404, { error: 'not_found', message: NO_LONGER_VALID });
      return page(404, { error: NO_LONGER_VALID });
    }
    const sessionToken = sessionTokenOf(context);
    if (sessionToken !== undefined) await callAdapter(adapter, 'setActiveOrganization', sessionToken, organization.id);
    const joined = await membershipIn(adapter, userId, organization.id);
    await recordOrganizationEvent(context, { type: 'member-joined', organizationId: organization.id, actorId: userId, subjectId: userId, detail: joined?.role ?? invitation.role });
    if (json) return sendJson(context, 200, { organization: { id: organization.id, slug: organization.slug, name: organization.name }, role: joined?.role ?? invitation.role });
    return sendRedirect(context, `${organizationsUrl(context, organization.slug)}?notice=joined`);
  }
  if (action === 'decline') {
    await callAdapter(adapter, 'deleteInvitation', organization.id, invitation.id);
    await recordOrganizationEvent(context, { type: 'invitation-declined', organizationId: organization.id, actorId: userId, detail: invitation.role });
    if (json) return sendJson(context, 200, { declined: true });
    return sendRedirect(context, `${organizationsUrl(context)}?notice=declined`);
  }
  throw new InvalidRequest('Unknown action: send action=accept or action=decline.');
}
