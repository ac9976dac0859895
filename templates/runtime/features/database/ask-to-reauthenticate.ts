/** Asking a signed-in user to confirm who they are before a sensitive change (passkeys, two-factor, password). */
import type { RequestContext } from '../../contracts.js';
import { sendJson, sendRedirect } from '../../context.js';
import { prefersJson } from '../../http/request.js';
import { reauthUrl, reauthenticationJson } from './reauth-route.js';

/**
 * Answers a request whose session is not recent enough: 401 JSON `{ error: 'reauthentication_required', url }`, or
 * a redirect to `<mount>/reauth` that comes back to `returnTo` (a URL on this app).
 */
export function askToReauthenticate(context: RequestContext, returnTo: string): void {
  const url = `${context.origin}${reauthUrl(context.mountPath, returnTo)}`;
  if (prefersJson(context.req) || context.req.headers['x-auth-return-redirect']) {
    return sendJson(context, 401, reauthenticationJson(url));
  }
  sendRedirect(context, url);
}
