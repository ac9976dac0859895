/**
 * POST `<mount>/account/delete` (signed in, recent authentication, CSRF): `confirm=yes`, or `email` equal to the
 * user's address (400 by the field otherwise), deletes the user and everything tied to it (GDPR art. 17):
 * - every session first, row by row (each emits `signOut`), so that no app process finds one afterwards;
 * - the user: the SQL adapters' `user_id` foreign keys cascade to accounts, sessions, the password hash, two-factor
 *   and recovery codes, passkeys, API keys, the pending address change and the security events; the memory adapter
 *   forgets the same (`FeatureStorage.memory`'s `forgetUser`);
 * - what is keyed by the address, not the user (no cascade reaches it): its email-link tokens, other users' pending
 *   changes to it, and what each feature keeps under it (`Feature.account.forgetAddress`: the password's
 *   confirmation and reset links).
 * An adapter without `listSessionsByUserId` or `deleteVerificationTokens` (an Auth.js one) skips those steps.
 * Rate-limit counters need nothing: their keys are keyed hashes, never an address in clear (rate-limit.ts).
 * A feature may refuse the deletion first (`Feature.account.beforeDelete`): 400 with its reason by the delete form.
 * Then the cookie is cleared, a notice goes to the address, and the browser goes home (`/`, or a same-origin
 * `callbackUrl`).
 */
import { resolveRedirect } from '../../http/redirect.js';
import { bodyField } from '../../http/request.js';
import { clearChunkedCookie } from '../../http/cookies.js';
import type { ResolvedConfig } from '../../contracts.js';
import { sendJson, sendRedirect } from '../../context.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import { endSessionRows } from '../database/session.js';
import { partRequestOf, refuseForm } from './account-view.js';
import { accountMessage } from './mail.js';
import { type AccountRequest, accountPartsOf } from './settings.js';

/**
 * Deletes what is keyed by an address rather than a user, so that nothing keeps an address its user no longer has:
 * its email-link tokens (stored under the address itself), other users' pending changes to it, and what each
 * feature keeps under it (`Feature.account.forgetAddress`: the password's confirmation and reset links).
 */
export async function forgetAddress(options: ResolvedConfig, adapter: Adapter, email: string): Promise<void> {
  if (typeof adapter.deleteVerificationTokens === 'function') await callAdapter(adapter, 'deleteVerificationTokens', email);
  // The account's own table: absent when an admin deletes a user in an app without the account (features/admin/).
  if (typeof adapter.deleteEmailChangesTo === 'function') await callAdapter(adapter, 'deleteEmailChangesTo', email);
  for (const part of accountPartsOf(options)) await part.forgetAddress?.(options, adapter, email);
}

/** POST `<mount>/account/delete`. */
export async function deleteAccountRoute(request: AccountRequest, body: Record<string, unknown>): Promise<void> {
  const { context, adapter } = request;
  const { options } = context;
  const user = request.signedIn.user;
  for (const part of accountPartsOf(options)) {
    const refusal = await part.beforeDelete?.(partRequestOf(request));
    if (refusal) return refuseForm(request, { confirm: refusal });
  }
  const typed = bodyField(body, 'email')?.trim().toLowerCase();
  const confirmed = bodyField(body, 'confirm') === 'yes' || (typed !== undefined && typed !== '' && typed === user.email?.toLowerCase());
  if (!confirmed) {
    return refuseForm(request, { confirm: user.email ? 'Type your email address exactly as shown above to delete your account.' : 'Tick the box to confirm that you want to delete your account.' });
  }
  const userId = String(user.id);
  if (typeof adapter.listSessionsByUserId === 'function') await endSessionRows(options, adapter, await callAdapter(adapter, 'listSessionsByUserId', userId));
  await callAdapter(adapter, 'deleteUser', userId);
  if (user.email) await forgetAddress(options, adapter, user.email);
  context.outgoing.push(...clearChunkedCookie(context.cookies, context.cookieOptions.sessionToken));
  const mailer = request.settings.mailer;
  if (user.email && mailer && context.linkOrigin) {
    const message = accountMessage('account-deleted', { to: user.email, origin: context.linkOrigin, theme: options.theme });
    if (mailer.printsMessages) options.logger.warn('account-email-printed-to-console');
    await Promise.resolve()
      .then(() => mailer.send(message))
      .catch((error: unknown) => options.logger.error(new Error('Sending the account-deleted notice failed', { cause: error })));
  }
  if (request.json) return sendJson(context, 200, { deleted: true });
  const callbackUrl = bodyField(body, 'callbackUrl');
  sendRedirect(context, await resolveRedirect(context, callbackUrl ?? `${context.origin}/`));
}
