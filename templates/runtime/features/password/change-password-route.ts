/**
 * `<mount>/password`: a signed-in user changes their password (after a recent authentication); their other sessions
 * end and this browser's session gets a new token.
 */
import { callAdapter } from '../database/adapter.js';
import { openSession } from '../database/sign-in.js';
import { askToSignIn, currentSignIn, isRecentSignIn } from '../database/signed-in.js';
import type { RequestContext, Route } from '../../contracts.js';
import { actionUrl, sendHtml, sendJson, sendRedirect } from '../../context.js';
import { askToReauthenticate } from '../database/ask-to-reauthenticate.js';
import { chunkCookie, readChunkedCookie } from '../../http/cookies.js';
import { csrfTokenOf, verifyCsrf } from '../../http/csrf.js';
import { recordSecurityEvent } from '../../events.js';
import { prefersJson, queryParams, readBody } from '../../http/request.js';
import { clearRateLimit, consumeRateLimit } from '../rate-limit/rate-limit.js';
import { hashPassword, verifyPassword } from './hash.js';
import { type PasswordFormErrors, renderChangePasswordPage } from './pages.js';
import {
  type ResolvedPasswordProvider,
  MAX_PASSWORD_INPUT,
  adapterOf,
  breachedPasswordProblem,
  endSessionsOfUser,
  newPasswordProblem,
  refuseForm,
  resetIdentifier,
  textField,
  voidLinks,
} from './shared.js';

/**
 * `<mount>/password`: a signed-in user changes their password, after a recent authentication (a copied session cookie
 * alone must not change how the account signs in). The user's other sessions end, the current one gets a new token
 * (a copy of the old cookie stops working), and an unused reset link is void.
 */
export async function changePasswordRoute(context: RequestContext, route: Route, provider: ResolvedPasswordProvider): Promise<void> {
  const adapter = adapterOf(context);
  const signedIn = await currentSignIn(context, adapter);
  const json = prefersJson(context.req);
  if (!signedIn) return askToSignIn(context, json, { action: 'password', message: 'Sign in to change your password.' });
  if (!isRecentSignIn(context, signedIn)) return askToReauthenticate(context, actionUrl(context, 'password'));
  const { user } = signedIn;
  const page = (errors: PasswordFormErrors, changed: boolean): string =>
    renderChangePasswordPage({ mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme, email: user.email ?? undefined, minLength: provider.minLength, changed, errors });
  if (route.method === 'GET') return sendHtml(context, 200, page({}, queryParams(context.req).get('changed') === '1'));
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  const current = textField(body, 'currentPassword', MAX_PASSWORD_INPUT);
  const next = textField(body, 'newPassword', MAX_PASSWORD_INPUT);
  await consumeRateLimit(context.options, 'credentialsPerUser', user.email ?? user.id);
  const stored = await callAdapter(adapter, 'getPasswordHash', user.id);
  const check = await verifyPassword(current ?? '', stored, { request: context.req });
  if (!check.valid) {
    const message = stored ? 'The current password is not correct.' : 'Your account has no password yet: set one with "Forgot your password?" on the sign-in page.';
    return refuseForm(context, { currentPassword: message }, () => page({ currentPassword: message }, false));
  }
  const problem = newPasswordProblem(provider, next, user.email ?? undefined) ?? (await breachedPasswordProblem(context, provider, next!));
  if (problem) return refuseForm(context, { newPassword: problem }, () => page({ newPassword: problem }, false));
  await clearRateLimit(context.options, 'credentialsPerUser', user.email ?? user.id);
  await callAdapter(adapter, 'setPasswordHash', user.id, await hashPassword(next!));
  if (user.email) await voidLinks(adapter, resetIdentifier(user.email));
  const ended = await endSessionsOfUser(context, user.id, readChunkedCookie(context.cookies, context.cookieOptions.sessionToken.name));
  await renewCurrentSession(context, user.id);
  await recordSecurityEvent(context, { type: 'password-changed', userId: user.id });
  if (json) return sendJson(context, 200, { changed: true, endedSessions: ended });
  sendRedirect(context, `${context.origin}${context.mountPath}/password?changed=1`);
}

/**
 * Gives the current browser a new database session in place of its row, as a sign-in would (the user has just proved
 * their password): a copy of the old cookie stops working. A JWT session cannot be revoked (README, "Sessions").
 */
async function renewCurrentSession(context: RequestContext, userId: string): Promise<void> {
  if (context.options.session.strategy !== 'database') return;
  const session = await openSession(context, userId);
  context.outgoing.push(...chunkCookie(context.cookies, context.cookieOptions.sessionToken, session.sessionToken, { expires: session.expires }));
}
