/**
 * `<mount>/reset-password`: the address form and its link (sent to a known address, the same answer for any), then the
 * link's new-password form, which sets the password and ends every session of the user.
 */
import { randomUUID } from 'node:crypto';
import { callAdapter } from '../database/adapter.js';
import { settleAddress } from '../database/addresses.js';
import type { RequestContext, Route } from '../../contracts.js';
import { sendHtml } from '../../context.js';
import { clearChunkedCookie } from '../../http/cookies.js';
import { csrfTokenOf, verifyCsrf } from '../../http/csrf.js';
import { InvalidEmailAddress } from '../../email-address.js';
import { emitEvent, recordSecurityEvent } from '../../events.js';
import { customPageUrl } from '../../http/redirect.js';
import { queryParams, readBody } from '../../http/request.js';
import type { AdapterUser } from '../../types.js';
import { Verification } from '../email/errors.js';
import { useLinkToken } from '../email/link-token.js';
import { clearRateLimit, consumeClientRateLimit, consumeRateLimit } from '../rate-limit/rate-limit.js';
import { consumeRecipientRateLimit } from '../email/recipient-limits.js';
import { hashPassword } from './hash.js';
import { renderNewPasswordPage, renderResetRequestPage } from './pages.js';
import {
  type ResolvedPasswordProvider,
  MAX_PASSWORD_INPUT,
  adapterOf,
  addressOf,
  afterAnswer,
  answerWith,
  breachedPasswordProblem,
  checkYourEmail,
  endSessionsOfUser,
  newPasswordProblem,
  refuseForm,
  resetIdentifier,
  restoreLink,
  sendResetLink,
  textField,
  verifyIdentifier,
  voidLinks,
} from './shared.js';

/** `<mount>/reset-password`: GET shows the address form or, with a link's token, the new-password form. */
export async function resetPasswordRoute(context: RequestContext, route: Route, provider: ResolvedPasswordProvider): Promise<void> {
  const base = { mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme };
  if (route.method === 'GET') {
    const query = queryParams(context.req);
    const token = query.get('token');
    const email = query.get('email');
    // The token is used only when the form is sent: a mail scanner that opens the link does not spend it.
    if (token && email) return sendHtml(context, 200, renderNewPasswordPage({ ...base, token, email, minLength: provider.minLength }));
    return sendHtml(context, 200, renderResetRequestPage(base));
  }
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  const token = textField(body, 'token', 256);
  if (token !== undefined) return resetPassword(context, provider, body, token);
  const typed = textField(body, 'email', 320);
  let email: string;
  try {
    email = addressOf(typed);
  } catch (error) {
    const message = error instanceof InvalidEmailAddress ? error.message : 'Enter a valid email address.';
    return refuseForm(context, { email: message }, () => renderResetRequestPage({ ...base, email: typed?.slice(0, 320), errors: { email: message } }));
  }
  await consumeClientRateLimit(context, 'passwordEmailPerClient');
  await consumeRateLimit(context.options, 'passwordEmailPerAddress', email);
  await consumeRecipientRateLimit(context.options, email);
  const adapter = adapterOf(context);
  const holder = await callAdapter(adapter, 'getUserByEmail', email);
  checkYourEmail(context, provider);
  // The link is stored and sent after the answer: a known address answers as fast as an unknown one.
  if (!holder) return;
  afterAnswer(context, () => sendResetLink(context, provider, email));
}

/**
 * POST `<mount>/reset-password` with a link's token: the link proves the address. Its proven holder gets the new
 * password; an address nobody proved is claimed for a new user (settleAddress), so that a reset never hands a
 * squatted account to the address's owner or the other way round. Every session of the user ends.
 */
async function resetPassword(context: RequestContext, provider: ResolvedPasswordProvider, body: Record<string, unknown>, token: string): Promise<void> {
  const email = textField(body, 'email', 320) ?? '';
  const password = textField(body, 'password', MAX_PASSWORD_INPUT);
  const base = { mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme };
  const refuse = (problem: string): void => refuseForm(context, { password: problem }, () => renderNewPasswordPage({ ...base, token, email, minLength: provider.minLength, errors: { password: problem } }));
  const problem = newPasswordProblem(provider, password, email);
  if (problem) return refuse(problem);
  const adapter = adapterOf(context);
  const row = await useLinkToken(adapter, resetIdentifier(email), token, context.options.secrets);
  if (!row) throw new Verification('The password reset link is unknown, used or expired');
  const breached = await breachedPasswordProblem(context, provider, password!);
  if (breached) {
    await restoreLink(adapter, row);
    return refuse(breached);
  }
  const hash = await hashPassword(password!);
  const outcome = await settleAddress(context.options, adapter, { email, proven: true, joinProvenHolder: true });
  let user: AdapterUser;
  if (outcome.action === 'join') {
    user = outcome.user;
  } else if (outcome.action === 'create') {
    user = await callAdapter(adapter, 'createUser', { id: randomUUID(), email, emailVerified: outcome.emailVerified });
    await emitEvent(context.options, 'createUser', { user });
  } else {
    throw new Verification('The address of this reset link cannot be given to a user');
  }
  const hadPassword = outcome.action === 'join' && (await callAdapter(adapter, 'getPasswordHash', user.id)) !== null;
  await callAdapter(adapter, 'setPasswordHash', user.id, hash);
  // The address is proven now: an unused confirmation link for it is void (F3 of security review 4).
  await voidLinks(adapter, verifyIdentifier(email));
  await endSessionsOfUser(context, user.id);
  await clearRateLimit(context.options, 'credentialsPerUser', email);
  // A user without a password (one who signed up with a provider or a link) sets their first one this way.
  await recordSecurityEvent(context, { type: hadPassword ? 'password-reset' : 'password-set', userId: user.id });
  context.outgoing.push(...clearChunkedCookie(context.cookies, context.cookieOptions.sessionToken));
  const signInPage = context.options.pages.signIn ?? `${context.mountPath}/signin`;
  answerWith(context, customPageUrl(context, signInPage, {}));
}
