/**
 * What an admin does to a user: POST `<mount>/admin/users/<id>` with `action` (SPEC §15), after the route has checked
 * the admin (a second factor, a recent authentication) and the CSRF token:
 * - `disable&reason`: the user's sessions end in the same transaction (every process sees it at once); sign-in and API
 *   keys are refused from then on (access.ts `refuseDisabled`). `enable` lets them sign in again; no session returns.
 * - `end-sessions`: every session of the user ends.
 * - `remove-two-factor`, `remove-passkey&id` (a credential ID of the user's own passkeys): for a user who lost one.
 * - `send-reset`: the password's reset link, mailed to the user's address (never shown to the admin).
 * - `grant-admin`, `revoke-admin`: an admin by grant; one by the config's addresses is revoked there, not here.
 * - `impersonate&reason`: the admin acts as the user (impersonation.ts).
 * - `delete&confirm=<the user's address>`: the user and everything tied to them, as the user's own deletion does.
 * No admin disables, deletes, revokes or impersonates themselves, so the admin acting is always left; a revocation
 * that would leave no admin (two admins revoking each other at once) is refused by the storage's one statement.
 * Each action is recorded (the user's security event with the admin as actor, and the admins' record); removing a
 * factor, disabling and deleting mail the user. A refusal is the user's page again, 400, with the error by its field
 * (`reason`, `confirm`, `id`, or `action` for the action itself); JSON clients get `{ error: 'InvalidRequest', errors }`.
 */
import type { RequestContext } from '../../contracts.js';
import { actionUrl, sendJson, sendRedirect } from '../../context.js';
import { InvalidRequest, UnknownAction } from '../../errors.js';
import { bodyField } from '../../http/request.js';
import type { AdapterUser } from '../../types.js';
import { forgetAddress } from '../account/delete-account.js';
import { accountPartsOf } from '../account/settings.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import { endSessionRows } from '../database/session.js';
import { consumeRecipientRateLimit } from '../email/recipient-limits.js';
import { deletePasskey } from '../passkey/account.js';
import { passwordProviderIn, sendResetLink } from '../password/shared.js';
import { type AdminAction, type SignedInAdmin, isConfiguredAdmin, recordAdminAction } from './access.js';
import { showUser } from './admin-view.js';
import { startImpersonation } from './impersonation.js';
import { notifyUser } from './mail.js';
import { adminSettingsOf } from './settings.js';

/** The longest reason an admin may give: it is kept with the action and shown to admins. */
const MAX_REASON_LENGTH = 500;

/** An admin's action on one user, as each action is given it. */
interface ActionRequest {
  context: RequestContext;
  adapter: Adapter;
  admin: SignedInAdmin;
  target: AdapterUser;
  body: Record<string, unknown>;
  json: boolean;
}

/** `<mount>/admin/users/<id>`: a user's page. */
function adminUserUrl(context: RequestContext, userId: string): string {
  return `${actionUrl(context, 'admin')}/users/${encodeURIComponent(userId)}`;
}

/**
 * The refused form: the user's page again at 400 with `errors` by field beside the form of the action sent, or
 * `{ error: 'InvalidRequest', errors }`.
 */
function refuse(request: ActionRequest, errors: Record<string, string>): Promise<void> {
  return showUser(request.context, request.admin, request.target.id, request.json, { status: 400, errors, action: bodyField(request.body, 'action') });
}

/** Done: JSON `{ done: <the action sent>, ...extra }`, or back to the user's page with the notice of what was done. */
function done(request: ActionRequest, notice: AdminAction, extra: Record<string, unknown> = {}): void {
  const { context } = request;
  if (request.json) return sendJson(context, 200, { done: bodyField(request.body, 'action'), ...extra });
  sendRedirect(context, `${adminUserUrl(context, request.target.id)}?notice=${notice}`);
}

const isSelf = (request: ActionRequest): boolean => String(request.target.id) === String(request.admin.user.id);

/**
 * The admin's reason as sent: 1 to 500 characters once its white space is collapsed (a pasted line break is a space),
 * without control characters.
 */
function reasonOf(body: Record<string, unknown>): { ok: true; reason: string } | { ok: false; error: string } {
  const reason = (bodyField(body, 'reason') ?? '').replace(/\s+/g, ' ').trim();
  if (reason === '' || reason.length > MAX_REASON_LENGTH || /[\p{Cc}\u2028\u2029]/u.test(reason)) {
    return { ok: false, error: `Give a reason of 1 to ${MAX_REASON_LENGTH} characters, like "Reported for spam (ticket 4521)": it is kept with the action.` };
  }
  return { ok: true, reason };
}

/**
 * Mails the user what an admin did, to their proven address only: an address nobody proved may be someone else's,
 * who has no account to be told about.
 */
function notify(request: ActionRequest, kind: Parameters<typeof notifyUser>[1]): void {
  const { target } = request;
  if (target.email && target.emailVerified) notifyUser(request.context, kind, target.email);
}

/** POST `<mount>/admin/users/<id>`: the user, read now (404 when there is none), and the action the body names. */
export async function runAdminAction(context: RequestContext, admin: SignedInAdmin, userId: string, body: Record<string, unknown>, json: boolean): Promise<void> {
  const adapter = context.options.adapter!;
  const target = await callAdapter(adapter, 'getUser', userId);
  if (!target) throw new UnknownAction('There is no such user');
  const request: ActionRequest = { context, adapter, admin, target, body, json };
  const action = bodyField(body, 'action');
  if (action === 'disable') return disable(request);
  if (action === 'enable') return enable(request);
  if (action === 'end-sessions') return endSessions(request);
  if (action === 'remove-two-factor') return removeTwoFactor(request);
  if (action === 'remove-passkey') return removePasskey(request);
  if (action === 'send-reset') return sendReset(request);
  if (action === 'grant-admin') return grantAdmin(request);
  if (action === 'revoke-admin') return revokeAdmin(request);
  if (action === 'impersonate') return impersonate(request);
  if (action === 'delete') return deleteUser(request);
  throw new InvalidRequest('Unknown action: send action=disable, enable, end-sessions, remove-two-factor, remove-passkey, send-reset, grant-admin, revoke-admin, impersonate or delete.');
}

/** `action=disable&reason`. */
async function disable(request: ActionRequest): Promise<void> {
  const { context, adapter, admin, target } = request;
  if (isSelf(request)) return refuse(request, { action: 'You cannot disable your own account: another admin can.' });
  const checked = reasonOf(request.body);
  if (!checked.ok) return refuse(request, { reason: checked.error });
  const state = await callAdapter(adapter, 'getAdminState', target.id);
  if (state.disabledAt) return refuse(request, { action: 'This account is already disabled.' });
  const sessionsEnded = await callAdapter(adapter, 'disableUser', target.id, { at: new Date(), reason: checked.reason });
  await recordAdminAction(context, admin.user, target.id, 'disabled', checked.reason);
  notify(request, 'disabled');
  done(request, 'disabled', { sessionsEnded });
}

/** `action=enable`. */
async function enable(request: ActionRequest): Promise<void> {
  const { context, adapter, admin, target } = request;
  const state = await callAdapter(adapter, 'getAdminState', target.id);
  if (!state.disabledAt) return refuse(request, { action: 'This account is not disabled.' });
  await callAdapter(adapter, 'enableUser', target.id);
  await recordAdminAction(context, admin.user, target.id, 'enabled');
  done(request, 'enabled');
}

/** `action=end-sessions`: each row deleted (and `signOut` emitted), as a user's own "sign out everywhere". */
async function endSessions(request: ActionRequest): Promise<void> {
  const { context, adapter, admin, target } = request;
  const sessionsEnded = await endSessionRows(context.options, adapter, await callAdapter(adapter, 'listSessionsByUserId', target.id));
  await recordAdminAction(context, admin.user, target.id, 'sessions-ended');
  done(request, 'sessions-ended', { sessionsEnded });
}

/** `action=remove-two-factor`: the secret and the recovery codes; the user may turn it on again. */
async function removeTwoFactor(request: ActionRequest): Promise<void> {
  const { context, adapter, admin, target } = request;
  const record = typeof adapter.getTwoFactor === 'function' ? await callAdapter(adapter, 'getTwoFactor', target.id) : null;
  if (!record?.enabledAt) return refuse(request, { action: 'This user has no two-factor authentication turned on.' });
  await callAdapter(adapter, 'deleteTwoFactor', target.id);
  await recordAdminAction(context, admin.user, target.id, 'two-factor-removed');
  notify(request, 'two-factor-removed');
  done(request, 'two-factor-removed');
}

/** `action=remove-passkey&id`: one of the user's own passkeys (another user's credential ID is refused as unknown). */
async function removePasskey(request: ActionRequest): Promise<void> {
  const { context, adapter, admin, target } = request;
  const id = bodyField(request.body, 'id') ?? '';
  const authenticators = typeof adapter.listAuthenticatorsByUserId === 'function' ? await callAdapter(adapter, 'listAuthenticatorsByUserId', target.id) : [];
  const authenticator = authenticators.find((candidate) => candidate.credentialID === id);
  if (!authenticator) return refuse(request, { id: id === '' ? 'Name the passkey to remove by its id.' : 'This user has no passkey with this id.' });
  await deletePasskey(adapter, authenticator, await callAdapter(adapter, 'listAccountsByUserId', target.id));
  await recordAdminAction(context, admin.user, target.id, 'passkey-removed');
  notify(request, 'passkey-removed');
  done(request, 'passkey-removed', { id: authenticator.credentialID });
}

/**
 * `action=send-reset`: the reset link goes to the user's address, as the reset form sends it (only the newest link
 * works); the admin never sees it. Counted with the app's other links to that address.
 */
async function sendReset(request: ActionRequest): Promise<void> {
  const { context, admin, target } = request;
  const provider = passwordProviderIn(context.options);
  if (!provider) return refuse(request, { action: 'This app has no password sign-in, so there is no password to reset.' });
  if (!target.email) return refuse(request, { action: 'This user has no email address to send a reset link to.' });
  await consumeRecipientRateLimit(context.options, target.email);
  await sendResetLink(context, provider, target.email);
  await recordAdminAction(context, admin.user, target.id, 'reset-sent');
  done(request, 'reset-sent');
}

/** `action=grant-admin`. */
async function grantAdmin(request: ActionRequest): Promise<void> {
  const { context, adapter, admin, target } = request;
  const granted = await callAdapter(adapter, 'grantAdmin', { userId: target.id, grantedBy: admin.user.id, at: new Date() });
  if (!granted) return refuse(request, { action: 'This user is already an admin by grant.' });
  await recordAdminAction(context, admin.user, target.id, 'granted');
  done(request, 'granted');
}

/** `action=revoke-admin`: a grant only, and never the last admin's. */
async function revokeAdmin(request: ActionRequest): Promise<void> {
  const { context, adapter, admin, target } = request;
  if (isSelf(request)) return refuse(request, { action: 'You cannot revoke your own admin rights: another admin can.' });
  if (isConfiguredAdmin(context.options, target)) {
    return refuse(request, { action: 'This user is an admin by the app\'s configuration: remove the address from AUTH_ADMINS (or Admin({ admins })) instead.' });
  }
  const outcome = await callAdapter(adapter, 'revokeAdmin', target.id, [...adminSettingsOf(context.options).admins]);
  if (outcome === 'not-granted') return refuse(request, { action: 'This user is not an admin by grant.' });
  if (outcome === 'last-admin') return refuse(request, { action: 'There must always be one admin: grant another user admin rights first.' });
  await recordAdminAction(context, admin.user, target.id, 'revoked');
  done(request, 'revoked');
}

/**
 * `action=impersonate&reason`: the rules (never an admin, yourself or a disabled user) and the answer are
 * impersonation.ts's; a refusal comes back as errors by field.
 */
async function impersonate(request: ActionRequest): Promise<void> {
  const checked = reasonOf(request.body);
  if (!checked.ok) return refuse(request, { reason: checked.error });
  const refused = await startImpersonation(request.context, request.admin, request.target, checked.reason, request.json);
  if (refused) return refuse(request, refused);
}

/**
 * `action=delete&confirm=<the user's address>` (their id when they have none), as the user's own deletion deletes
 * (features/account/delete-account.ts): each session row, the user (the rest cascades), what is kept under the
 * address. A feature that refuses the deletion (an organization's only owner) is answered by the field.
 */
async function deleteUser(request: ActionRequest): Promise<void> {
  const { context, adapter, admin, target } = request;
  const { options } = context;
  if (isSelf(request)) return refuse(request, { confirm: 'You cannot delete your own account here: another admin can, or you can from your account page.' });
  const expected = target.email ?? target.id;
  if ((bodyField(request.body, 'confirm') ?? '').trim() !== expected) {
    return refuse(request, { confirm: `Type the user's ${target.email ? 'address' : 'id'}, ${expected}, exactly to confirm.` });
  }
  for (const part of accountPartsOf(options)) {
    const refusal = await part.beforeDelete?.({ context, adapter, user: target });
    if (refusal) return refuse(request, { confirm: `The account cannot be deleted yet. Its user would be told: ${refusal}` });
  }
  // Before the deletion: the user's events go with the user; `onSecurityEvent` and the admins' record keep this one.
  await recordAdminAction(context, admin.user, target.id, 'deleted');
  await endSessionRows(options, adapter, await callAdapter(adapter, 'listSessionsByUserId', target.id));
  await callAdapter(adapter, 'deleteUser', target.id);
  if (target.email) await forgetAddress(options, adapter, target.email);
  notify(request, 'deleted');
  if (request.json) return sendJson(context, 200, { done: 'delete' });
  sendRedirect(context, `${actionUrl(context, 'admin')}?notice=deleted`);
}
