/**
 * Changing the account's email address (SPEC §13), proven by the new mailbox:
 * - POST `<mount>/account/email` (signed in, recent authentication, CSRF): `newEmail` is normalised and checked
 *   (400 by the field otherwise); the answer is the same whether or not another user has the address (a redirect
 *   with the "check the new address" notice, or 202 JSON), and what differs happens after it: a free address gets a
 *   single-use link (valid `linkMaxAge`, one hour at most; stored as a digest; a newer request replaces the older),
 *   an address another user has gets a notice that someone tried (as sign-up does), and nothing is stored. The old
 *   address is told a change was asked either way, without a link. At most `accountEmailPerUser` requests (5 in 15
 *   minutes) per user, and the new address counts under `emailPerRecipient` and `emailPerRecipientDaily` with every
 *   other link mailed to it: 429 with `Retry-After` past them.
 * - GET `<mount>/account/email/confirm?token=…`: a page that names the account that would move (its address masked)
 *   and, in the requesting user's own signed-in browser, a button; opening the link changes nothing (mail scanners
 *   and previews open links).
 * - POST `<mount>/account/email/confirm` (`token`, CSRF): the token proves the mailbox, and only the requesting user's
 *   own browser, signed in with a recent authentication, proves that the account's holder wants it: a stranger's
 *   click would otherwise move an attacker's account onto the stranger's address (security review 5, A1). Anyone
 *   else is asked to sign in (or refused, signed in as another user) and the link stays unused. When the token is
 *   known and unexpired and no user has the address by now, the address becomes the user's, proven; the token is
 *   gone; every other session of the user is ended, its row deleted, so no app process sees it again;
 *   `email-changed` is recorded.
 */
import type { RequestContext } from '../../contracts.js';
import { actionUrl, configuredActionUrl, sendHtml, sendJson, sendRedirect } from '../../context.js';
import { readChunkedCookie } from '../../http/cookies.js';
import { csrfTokenOf, verifyCsrf } from '../../http/csrf.js';
import { bodyField, prefersJson, queryParams, readBody } from '../../http/request.js';
import { InvalidEmailAddress, maskedAddress, normalizeEmailAddress } from '../../email-address.js';
import { recordSecurityEvent } from '../../events.js';
import { AdapterError } from '../../errors.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import { endSessionRows } from '../database/session.js';
import { currentSignIn } from '../database/signed-in.js';
import { consumeRateLimit } from '../rate-limit/rate-limit.js';
import { consumeRecipientRateLimit } from '../email/recipient-limits.js';
import { hashVerificationToken, newLinkToken } from '../email/link-token.js';
import { refuseForm } from './account-view.js';
import { forgetAddress } from './forget-address.js';
import { type AccountMessage, type AccountMailer, accountMessage } from './mail.js';
import { renderAccountMessagePage, renderConfirmEmailPage } from './pages.js';
import { type AccountRequest, type AccountSettings, recentOrAsk, signedInOrAsk } from './settings.js';
import type { EmailChange } from './storage.js';
import type { AdapterUser } from '../../types.js';

/** Sends a message after the answer; a failure is logged, never shown (it would tell addresses apart). */
function sendLater(context: RequestContext, mailer: AccountMailer, message: AccountMessage): void {
  const { logger } = context.options;
  if (mailer.printsMessages) logger.warn('account-email-printed-to-console');
  setImmediate(() => {
    Promise.resolve()
      .then(() => mailer.send(message))
      .catch((error: unknown) => logger.error(new Error(`Sending the account's "${message.kind}" message failed`, { cause: error })));
  });
}

/** POST `<mount>/account/email`. */
export async function requestEmailChangeRoute(request: AccountRequest, body: Record<string, unknown>): Promise<void> {
  const { context, settings } = request;
  const user = request.signedIn.user;
  const typed = bodyField(body, 'newEmail') ?? '';
  const mailer = settings.mailer;
  if (!mailer) return refuseForm(request, { newEmail: 'Changing the email address needs an email service, and this app has none configured (AUTH_EMAIL_SERVER).' }, typed);
  let newEmail: string;
  try {
    newEmail = normalizeEmailAddress(typed);
  } catch (error) {
    if (error instanceof InvalidEmailAddress) return refuseForm(request, { newEmail: error.message }, typed);
    throw error;
  }
  if (newEmail === user.email) return refuseForm(request, { newEmail: 'This is already your email address.' }, typed);
  // Each request mails two addresses, one of them chosen by the user: a bounded number per user (429 past it).
  await consumeRateLimit(context.options, 'accountEmailPerUser', String(user.id));
  // Any address can be typed: what one mailbox receives is capped across accounts and features, before the lookup.
  await consumeRecipientRateLimit(context.options, newEmail);
  // Built before the answer: a link is made only on a configured origin (AUTH_URL or trustHost), never a Host header.
  const confirmUrl = configuredActionUrl(context, 'account/email/confirm');
  const origin = new URL(confirmUrl).origin;
  const theme = context.options.theme;
  // Whether the address is taken decides what is sent, after the answer, so that its timing does not tell.
  setImmediate(() => {
    sendChangeMessages(request, mailer, { newEmail, confirmUrl, origin }).catch((error: unknown) => context.options.logger.error(error instanceof Error ? error : new Error(String(error))));
  });
  if (user.email) sendLater(context, mailer, accountMessage('address-change-requested', { to: user.email, origin, theme, newEmail }));
  if (request.json) return sendJson(context, 202, { sent: true });
  sendRedirect(context, `${actionUrl(context, 'account')}?notice=email-sent`);
}

/** Stores the link and sends it to a free address, or tells an address that has an account that someone tried. */
async function sendChangeMessages(request: AccountRequest, mailer: AccountMailer, params: { newEmail: string; confirmUrl: string; origin: string }): Promise<void> {
  const { context, adapter, settings } = request;
  const theme = context.options.theme;
  const taken = (await callAdapter(adapter, 'getUserByEmail', params.newEmail)) !== null;
  const token = newLinkToken();
  // Both branches replace the user's pending change, so that whether an earlier link still works tells nothing: for
  // a taken address with a change to no address, under the digest of a token nobody is sent.
  const change: EmailChange = {
    userId: String(request.signedIn.user.id),
    newEmail: taken ? '' : params.newEmail,
    digest: hashVerificationToken(token, context.options.secrets[0]!),
    expires: new Date(Date.now() + settings.linkMaxAge * 1000),
  };
  await callAdapter(adapter, 'setEmailChange', change);
  if (taken) return sendLater(context, mailer, accountMessage('address-change-attempt', { to: params.newEmail, origin: params.origin, theme }));
  const url = `${params.confirmUrl}?${new URLSearchParams({ token })}`;
  const account = accountNameOf(request.signedIn.user);
  sendLater(context, mailer, accountMessage('confirm-new-address', { to: params.newEmail, origin: params.origin, theme, url, account }));
}

/** How the mail and the confirmation page name an account: its address masked, else its name. */
function accountNameOf(user: AdapterUser): string {
  if (user.email) return maskedAddress(user.email);
  return user.name ? `“${user.name}”` : 'without an email address';
}

/** GET and POST `<mount>/account/email/confirm`. */
export async function confirmEmailChangeRoute(context: RequestContext, method: 'GET' | 'POST', adapter: Adapter, settings: AccountSettings): Promise<void> {
  const json = prefersJson(context.req);
  const theme = context.options.theme;
  const accountLink = { href: `${context.mountPath}/account`, label: 'Your account' };
  const refuse = (status: number, error: string, message: string): void => {
    if (json) return sendJson(context, status, { error, message });
    sendHtml(context, status, renderAccountMessagePage({ theme, heading: 'The address was not changed', message, link: accountLink, alert: true }));
  };
  const invalidLink = (): void => refuse(400, 'InvalidToken', 'This link is not valid: it was used, replaced by a newer one, or it expired. Ask for a new one on your account page.');
  if (method === 'GET') {
    const token = queryParams(context.req).get('token');
    if (!token) return sendHtml(context, 400, renderAccountMessagePage({ theme, heading: 'Link incomplete', message: 'This link has no token: open the whole link from the email.', link: accountLink, alert: true }));
    const change = await findChange(adapter, token, context.options.secrets);
    const requester = change ? await callAdapter(adapter, 'getUser', change.userId) : null;
    if (!change || !requester) return invalidLink();
    const signedIn = await currentSignIn(context, adapter);
    const signIn = context.options.pages.signIn ?? `${context.mountPath}/signin`;
    return sendHtml(
      context,
      200,
      renderConfirmEmailPage({
        mountPath: context.mountPath,
        csrfToken: csrfTokenOf(context),
        theme,
        token,
        newEmail: change.newEmail,
        account: accountNameOf(requester),
        host: new URL(context.origin).host,
        // Only the requesting user's own browser gets the button; anyone else is told how the change is made.
        confirmable: signedIn !== null && String(signedIn.user.id) === change.userId,
        signInUrl: signIn,
      }),
    );
  }
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  // Who is there comes first, and the link stays unused until it is the user who asked, recently authenticated.
  const signedIn = await signedInOrAsk(context, adapter, json, 'Sign in to the account that asked for this change, in this browser, then open the link from the email again.');
  if (!signedIn || !recentOrAsk({ context, adapter, settings, signedIn, json }, 'account')) return;
  const token = bodyField(body, 'token') ?? '';
  const found = token ? await findChange(adapter, token, context.options.secrets) : null;
  if (!found || found.newEmail === '' || found.expires.valueOf() < Date.now()) return invalidLink();
  if (found.userId !== String(signedIn.user.id)) {
    return refuse(403, 'WrongAccount', 'This link asks to move another account to this address, and only that account, signed in, can confirm it. Nothing was changed.');
  }
  const change = await callAdapter(adapter, 'useEmailChange', found.digest);
  // Used by a concurrent confirmation, or replaced by a newer request, since it was found.
  if (!change || change.userId !== found.userId || change.newEmail !== found.newEmail) return invalidLink();
  const holder = await callAdapter(adapter, 'getUserByEmail', change.newEmail);
  if (holder) return refuse(409, 'EmailTaken', 'Another account has this email address now, so it cannot become yours. Ask for a change to another address.');
  const user = signedIn.user;
  try {
    await callAdapter(adapter, 'updateUser', { id: user.id, email: change.newEmail, emailVerified: new Date() });
  } catch (error) {
    // The unique address: another user took it between the check and the write. Any other failure is the database's.
    if (error instanceof AdapterError && (await callAdapter(adapter, 'getUserByEmail', change.newEmail))) {
      return refuse(409, 'EmailTaken', 'Another account has this email address now, so it cannot become yours.');
    }
    throw error;
  }
  await endOtherSessions(context, adapter, String(user.id));
  await recordSecurityEvent(context, { type: 'email-changed', userId: String(user.id) });
  if (user.email) {
    // The old address's links (sign-in, reset) no longer belong to the account; its owner hears what happened.
    await forgetAddress(context.options, adapter, user.email);
    const { mailer } = settings;
    if (mailer && context.linkOrigin) sendLater(context, mailer, accountMessage('address-changed', { to: user.email, origin: context.linkOrigin, theme, newEmail: change.newEmail }));
  }
  if (json) return sendJson(context, 200, { changed: true, email: change.newEmail });
  sendRedirect(context, `${actionUrl(context, 'account')}?notice=email-changed`);
}

/** The change of a token (its digest under any of the secrets, so that a rotation keeps links working), left in place. */
async function findChange(adapter: Adapter, token: string, secrets: readonly string[]): Promise<EmailChange | null> {
  for (const secret of secrets) {
    const change = await callAdapter(adapter, 'findEmailChange', hashVerificationToken(token, secret));
    if (change) return change;
  }
  return null;
}

/** Ends every session of the user except this browser's (database sessions: the rows are deleted, for every app process). */
async function endOtherSessions(context: RequestContext, adapter: Adapter, userId: string): Promise<void> {
  if (context.options.session.strategy !== 'database' || typeof adapter.listSessionsByUserId !== 'function') return;
  const current = readChunkedCookie(context.cookies, context.cookieOptions.sessionToken.name);
  const rows = await callAdapter(adapter, 'listSessionsByUserId', userId);
  await endSessionRows(context.options, adapter, rows.filter((row) => row.sessionToken !== current));
}
