/**
 * `<mount>/callback/<provider>`: the provider's answer. OAuth providers answer with a GET redirect, or a POST for
 * `response_mode=form_post`; a redirect-proxy callback for another origin is forwarded there. Other providers run
 * their own flow (credentials and passkeys take POST only, with the CSRF token; email takes its link).
 */
import type { RequestContext, Route } from '../contracts.js';
import { sendRedirect, setCookie } from '../context.js';
import { completeSignIn } from '../complete-sign-in.js';
import { type OAuthProtocol, flowOf } from '../flow.js';
import { handleOAuthCallback, proxiedCallbackTarget } from '../oauth/callback.js';
import { isOAuthProvider } from '../providers/resolve.js';
import { queryParams, readBody } from '../http/request.js';
import { findProvider, unsupportedProvider } from '../router.js';

export async function callbackRoute(context: RequestContext, route: Route): Promise<void> {
  const provider = findProvider(context, route.providerId!);
  if (!isOAuthProvider(provider)) {
    const flow = flowOf(provider);
    if (!flow.callback) return unsupportedProvider(provider);
    return flow.callback(context, provider, route.method);
  }
  const parameters = route.method === 'GET' ? queryParams(context.req) : new URLSearchParams(Object.entries(await readBody(context.req)).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const forwardTo = await proxiedCallbackTarget(context, parameters);
  if (forwardTo) return sendRedirect(context, forwardTo);
  const callbackCookie = context.cookieOptions.callbackUrl;
  const callbackUrl = context.cookies.get(callbackCookie.name);
  if (callbackUrl !== undefined) setCookie(context, callbackCookie, null);
  const protocol = provider.protocol as OAuthProtocol | undefined;
  const { user, account, profile } = protocol
    ? await protocol.callback(context, provider, parameters)
    : await handleOAuthCallback(context, provider, parameters);
  await completeSignIn(context, { user, account, profile, callbackUrl, allowDangerousEmailAccountLinking: provider.allowDangerousEmailAccountLinking });
}
