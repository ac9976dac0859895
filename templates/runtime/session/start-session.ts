/**
 * The session of a proven sign-in, shared by `completeSignIn` (complete-sign-in.ts) and the two-factor feature,
 * which calls it once the second factor is right.
 */
import type { RequestContext } from '../contracts.js';
import { sendRedirect } from '../context.js';
import { emitEvent } from '../events.js';
import { chunkCookie } from '../http/cookies.js';
import { customPageUrl, resolveRedirect } from '../http/redirect.js';
import type { Account, AdapterUser, Profile, User } from '../types.js';
import { createSessionCookies } from './session.js';

/**
 * The end of a proven sign-in: the session (a database row through the database feature, or the JWT cookie), the
 * `signIn` event and the redirect. Called by `completeSignIn`, and by the second factor once its code is right.
 */
export async function startSession(
  context: RequestContext,
  params: { user: User | AdapterUser; account: Account; profile?: Profile; isNewUser: boolean; callbackUrl: string | undefined },
): Promise<void> {
  const { options } = context;
  const { user, account, profile, isNewUser } = params;
  if (options.session.strategy === 'database' && options.database) {
    const { sessionToken, expires } = await options.database.openSession(context, String(user.id));
    context.outgoing.push(...chunkCookie(context.cookies, context.cookieOptions.sessionToken, sessionToken, { expires }));
  } else {
    const session = await createSessionCookies(options, context.cookies, context.cookieOptions, { user, account, isNewUser, ...(profile && { profile }) });
    context.outgoing.push(...session.cookies);
  }
  await emitEvent(options, 'signIn', { user, account, ...(profile && { profile }), isNewUser });
  const destination = await resolveRedirect(context, params.callbackUrl);
  if (isNewUser && options.pages.newUser) {
    return sendRedirect(context, customPageUrl(context, options.pages.newUser, { callbackUrl: destination }));
  }
  sendRedirect(context, destination);
}
