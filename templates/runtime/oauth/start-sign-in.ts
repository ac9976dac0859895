import type { RequestContext, ResolvedOAuthProvider } from '../contracts.js';
import { sendRedirect, setCookie } from '../context.js';
import type { OAuthProtocol } from '../flow.js';
import { resolveRedirect } from '../http/redirect.js';
import { createAuthorizationUrl } from './authorization-url.js';

/**
 * Starts an OAuth sign-in, for the sign-in route and the database feature's re-authentication route: keeps
 * `callbackUrl` in its cookie for the callback and sends the browser to the provider's authorization URL (`params`:
 * extra parameters such as `prompt`).
 */
export async function startOAuthSignIn(context: RequestContext, provider: ResolvedOAuthProvider, params: URLSearchParams, callbackUrl: string | undefined): Promise<void> {
  if (callbackUrl) {
    setCookie(context, context.cookieOptions.callbackUrl, await resolveRedirect(context, callbackUrl));
  }
  const protocol = provider.protocol as OAuthProtocol | undefined;
  const url = protocol ? await protocol.authorizationUrl(context, provider, params) : await createAuthorizationUrl(context, provider, params);
  sendRedirect(context, url);
}
