/**
 * `<mount>/signout`: GET shows the sign-out page (or redirects to `pages.signOut`); POST with the CSRF token ends
 * the session (its database row too) and redirects to `callbackUrl`.
 */
import { databaseOf } from '../config.js';
import type { RequestContext, Route } from '../contracts.js';
import { sendHtml, sendRedirect } from '../context.js';
import { clearChunkedCookie, readChunkedCookie } from '../http/cookies.js';
import { csrfTokenOf, verifyCsrf } from '../http/csrf.js';
import { emitEvent, recordSecurityEvent } from '../events.js';
import { renderSignOutPage } from '../pages/other.js';
import { customPageUrl, resolveRedirect, safeCallbackParam } from '../http/redirect.js';
import { bodyField, queryParams, readBody } from '../http/request.js';

export async function signOutRoute(context: RequestContext, route: Route): Promise<void> {
  if (route.method === 'GET') return signOutPage(context);
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  const { options } = context;
  const sessionCookie = context.cookieOptions.sessionToken;
  const raw = readChunkedCookie(context.cookies, sessionCookie.name);
  context.outgoing.push(...clearChunkedCookie(context.cookies, sessionCookie));
  if (options.session.strategy === 'database') {
    const session = raw === undefined ? null : await databaseOf(options).endSession(options, raw);
    if (session) await recordSecurityEvent(context, { type: 'sign-out', userId: String(session.userId) });
    await emitEvent(options, 'signOut', { session });
  } else {
    const decoded = raw === undefined ? null : options.jwt.decode({ token: raw, secret: options.secrets, salt: sessionCookie.name });
    const token = (await decoded?.catch(() => null)) ?? null;
    if (token?.sub) await recordSecurityEvent(context, { type: 'sign-out', userId: token.sub });
    await emitEvent(options, 'signOut', { token });
  }
  sendRedirect(context, await resolveRedirect(context, bodyField(body, 'callbackUrl')));
}

function signOutPage(context: RequestContext): void {
  const callbackUrl = safeCallbackParam(context, queryParams(context.req).get('callbackUrl'));
  if (context.options.pages.signOut) {
    return sendRedirect(context, customPageUrl(context, context.options.pages.signOut, { callbackUrl }));
  }
  sendHtml(context, 200, renderSignOutPage({ mountPath: context.mountPath, csrfToken: csrfTokenOf(context), callbackUrl, theme: context.options.theme }));
}
