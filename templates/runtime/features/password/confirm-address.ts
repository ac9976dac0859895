/**
 * The confirmation link of a password sign-up: GET `<mount>/callback/<id>?token=…&email=…` shows a page, and its
 * POST (with the link's token) confirms the address and signs in.
 */
import { callAdapter } from '../database/adapter.js';
import { hasProvenEmail } from '../database/addresses.js';
import type { RequestContext } from '../../contracts.js';
import { sendHtml } from '../../context.js';
import { csrfTokenOf } from '../../http/csrf.js';
import { emitEvent } from '../../events.js';
import { safeCallbackParam } from '../../http/redirect.js';
import { requestedCallbackUrl } from '../../http/requested-callback-url.js';
import { queryParams } from '../../http/request.js';
import { Verification } from '../email/errors.js';
import { useLinkToken } from '../email/link-token.js';
import { clearRateLimit, consumeClientRateLimit, consumeRateLimit } from '../rate-limit/rate-limit.js';
import { hashPassword, verifyPassword } from './hash.js';
import { type ConfirmPageParams, type PasswordFormErrors, renderConfirmPage } from './pages.js';
import {
  type ResolvedPasswordProvider,
  MAX_PASSWORD_INPUT,
  adapterOf,
  breachedPasswordProblem,
  newPasswordProblem,
  refuseForm,
  restoreLink,
  signInAs,
  textField,
  verifyIdentifier,
  voidLinks,
} from './shared.js';

/**
 * GET `<mount>/callback/<id>?token=…&email=…`: the confirmation link opens a page and changes nothing, since mail
 * scanners and link previews open links. The page confirms by POST and asks for the password chosen at sign-up, or
 * lets the opener choose a new one (which voids the old): opening a link can never confirm a password the opener does
 * not know, nor sign a browser in (login CSRF).
 */
export function confirmationPage(context: RequestContext, provider: ResolvedPasswordProvider): void {
  const query = queryParams(context.req);
  const token = query.get('token');
  const email = query.get('email');
  if (!token || !email) throw new Verification('The confirmation link has no token or no email: it was opened incompletely');
  sendHtml(context, 200, renderConfirmPage(confirmPageParams(context, provider, { token, email, callbackUrl: query.get('callbackUrl') ?? undefined })));
}

function confirmPageParams(context: RequestContext, provider: ResolvedPasswordProvider, link: { token: string; email: string; callbackUrl: string | undefined }, errors: PasswordFormErrors = {}): ConfirmPageParams {
  return { mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme, providerId: provider.id, minLength: provider.minLength, ...link, callbackUrl: safeCallbackParam(context, link.callbackUrl), errors };
}

/**
 * POST `<mount>/callback/<id>` with the link's `token` and `email`: `password` (the one chosen at sign-up) or
 * `newPassword` (replacing it). The address's unproven holder is confirmed and signed in. A wrong or refused password
 * leaves the link usable; an address proven since (a magic link, a reset, a provider) refuses the link, so an unused
 * link never outlives the address being proven another way. Any other failure is `Verification`.
 */
export async function confirmAddress(context: RequestContext, provider: ResolvedPasswordProvider, body: Record<string, unknown>, token: string): Promise<void> {
  const email = textField(body, 'email', 320) ?? '';
  const password = textField(body, 'password', MAX_PASSWORD_INPUT);
  const newPassword = textField(body, 'newPassword', MAX_PASSWORD_INPUT);
  const callbackUrl = requestedCallbackUrl(context, body);
  const refuse = (errors: PasswordFormErrors): void => refuseForm(context, errors, () => renderConfirmPage(confirmPageParams(context, provider, { token, email, callbackUrl }, errors)));
  if (!password && !newPassword) return refuse({ password: 'Enter the password you chose when you signed up, or choose a new one.' });
  const problem = newPassword === undefined || newPassword === '' ? undefined : newPasswordProblem(provider, newPassword, email);
  if (problem) return refuse({ newPassword: problem });
  await consumeClientRateLimit(context, 'credentialsPerClient');
  await consumeRateLimit(context.options, 'credentialsPerUser', email);
  const adapter = adapterOf(context);
  const row = await useLinkToken(adapter, verifyIdentifier(email), token, context.options.secrets);
  if (!row) throw new Verification('The confirmation link is unknown, used or expired');
  const holder = await callAdapter(adapter, 'getUserByEmail', email);
  if (!holder) throw new Verification('Nobody holds the address of this confirmation link any more');
  if (hasProvenEmail(holder)) throw new Verification('The address of this confirmation link was proven another way since: sign in instead');
  let hash: string;
  if (newPassword) {
    const breached = await breachedPasswordProblem(context, provider, newPassword);
    if (breached) {
      await restoreLink(adapter, row);
      return refuse({ newPassword: breached });
    }
    hash = await hashPassword(newPassword);
  } else {
    const stored = await callAdapter(adapter, 'getPasswordHash', holder.id);
    if (!stored) throw new Verification('The address of this confirmation link belongs to a user without a password');
    if (!(await verifyPassword(password!, stored)).valid) {
      await restoreLink(adapter, row);
      return refuse({ password: 'That is not the password chosen at sign-up. Enter it again, or choose a new password below.' });
    }
    hash = stored;
  }
  await clearRateLimit(context.options, 'credentialsPerUser', email);
  if (newPassword) await callAdapter(adapter, 'setPasswordHash', holder.id, hash);
  const user = await callAdapter(adapter, 'updateUser', { id: holder.id, emailVerified: new Date() });
  await emitEvent(context.options, 'updateUser', { user });
  await voidLinks(adapter, verifyIdentifier(email));
  await signInAs(context, provider, user, { isNewUser: true, callbackUrl });
}
