/**
 * The start of an OAuth sign-in, shared by the sign-in route and the database feature's re-authentication route:
 * the `callbackUrl` cookie, then the browser sent to the provider.
 */
import type { RequestContext, ResolvedOAuthProvider } from '../contracts.js';
import { sendRedirect, setCookie } from '../context.js';
import type { OAuthProtocol } from '../flow.js';
import { resolveRedirect } from '../http/redirect.js';
import { createAuthorizationUrl } from './authorization-url.js';

/**
 * Sends the browser to an OAuth provider's authorization URL (`params`: extra parameters such as `prompt`), keeping
 * `callbackUrl` in its cookie for the callback.
 */
export async function startOAuthSignIn(context: RequestContext, provider: ResolvedOAuthProvider, params: URLSearchParams, callbackUrl: string | undefined): Promise<void> {
  if (callbackUrl) {
    setCookie(context, context.cookieOptions.callbackUrl, await resolveRedirect(context, callbackUrl));
  }
  const protocol = provider.protocol as OAuthProtocol | undefined;
  const url = protocol ? await protocol.authorizationUrl(context, provider, params) : await createAuthorizationUrl(context, provider, params);
  sendRedirect(context, url);
}
