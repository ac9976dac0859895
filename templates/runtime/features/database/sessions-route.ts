/**
 * `<mount>/sessions` (database strategy): GET lists the signed-in user's sessions, as JSON or, to a browser, as a
 * page; POST with the CSRF token ends one (`action=end&id=…`), the others (`action=end-others`) or all of them
 * (`action=end-all`). A form post is redirected back to the page; a JSON client gets `{ ended }`.
 */
import type { RequestContext, Route } from '../../contracts.js';
import { sendHtml, sendJson, sendRedirect } from '../../context.js';
import { clearChunkedCookie } from '../../http/cookies.js';
import { csrfTokenOf, verifyCsrf } from '../../http/csrf.js';
import { InvalidRequest } from '../../errors.js';
import { renderSessionsPage } from './sessions-page.js';
import { bodyField, prefersJson, readBody } from '../../http/request.js';
import { type EndSessions, endSessionsOf, listSessionsOf } from './session-management.js';
import { askToSignIn } from './signed-in.js';

export async function sessionsRoute(context: RequestContext, route: Route): Promise<void> {
  const json = prefersJson(context.req) || !acceptsPage(context);
  if (route.method === 'GET') {
    const sessions = await listSessionsOf(context.req, context.options);
    if (!sessions) return notSignedIn(context, json);
    if (json) return sendJson(context, 200, { sessions });
    const signedInPages = context.options.features.flatMap((feature) => feature.signedInPage ?? []);
    return sendHtml(context, 200, renderSessionsPage({ mountPath: context.mountPath, csrfToken: csrfTokenOf(context), sessions, theme: context.options.theme, signedInPages }));
  }
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  const result = await endSessionsOf(context.req, context.options, endRequestOf(body));
  if (!result) return notSignedIn(context, json);
  if (result.endedCurrent) context.outgoing.push(...clearChunkedCookie(context.cookies, context.cookieOptions.sessionToken));
  if (json) return sendJson(context, 200, { ended: result.ended });
  sendRedirect(context, result.endedCurrent ? `${context.origin}/` : `${context.origin}${context.mountPath}/sessions`);
}

/** Which sessions a POST asks to end; a 400 naming the valid actions otherwise. */
function endRequestOf(body: Record<string, unknown>): EndSessions {
  const action = bodyField(body, 'action');
  if (action === 'end-others') return 'others';
  if (action === 'end-all') return 'all';
  if (action === 'end') return { id: bodyField(body, 'id') ?? '' };
  throw new InvalidRequest('Unknown action: send action=end with the id of a session, action=end-others or action=end-all.');
}

/** A browser navigating here (it asks for HTML) gets the page; any other client gets JSON. */
function acceptsPage(context: RequestContext): boolean {
  return String(context.req.headers.accept ?? '').includes('text/html');
}

function notSignedIn(context: RequestContext, json: boolean): void {
  askToSignIn(context, json, { action: 'sessions', message: 'Sign in to see your sessions.' });
}
