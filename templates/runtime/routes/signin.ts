/**
 * `<mount>/signin`: GET shows the sign-in page (or redirects to `pages.signIn`); POST `<mount>/signin/<provider>`
 * with the CSRF token starts a sign-in: the provider's authorization URL for OAuth, or the provider's own flow.
 */
import type { RequestContext, Route } from '../contracts.js';
import { sendHtml, sendRedirect, setCookie } from '../context.js';
import { csrfTokenOf, verifyCsrf } from '../http/csrf.js';
import { InvalidProvider } from '../errors.js';
import { flowOf } from '../flow.js';
import { startOAuthSignIn } from '../oauth/start-sign-in.js';
import { renderSignInPage, signInPageScriptHashes } from '../pages/signin.js';
import { customPageUrl, resolveRedirect, safeCallbackParam } from '../http/redirect.js';
import { isOAuthProvider } from '../providers/resolve.js';
import { bodyField, queryParams, readBody } from '../http/request.js';
import { readSession } from '../session/session.js';
import { findProvider, unsupportedProvider } from '../router.js';

export async function signInRoute(context: RequestContext, route: Route): Promise<void> {
  if (route.method === 'GET') return signInPage(context);
  if (!route.providerId) throw new InvalidProvider('Name the provider: POST <mount>/signin/<provider>');
  const provider = findProvider(context, route.providerId);
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  if (!isOAuthProvider(provider)) {
    const flow = flowOf(provider);
    if (!flow.signIn) return unsupportedProvider(provider);
    return flow.signIn(context, provider, body);
  }
  const query = queryParams(context.req);
  await startOAuthSignIn(context, provider, query, bodyField(body, 'callbackUrl') ?? query.get('callbackUrl') ?? undefined);
}

/**
 * The sign-in page. Like Auth.js, it keeps where to go after signing in in the callback-url cookie (the
 * `callbackUrl` parameter or else the cookie's own value, through the `redirect` callback; else the origin), so
 * that a client that reads the cookie, or a form posted without `callbackUrl`, finds it.
 */
async function signInPage(context: RequestContext): Promise<void> {
  const query = queryParams(context.req);
  const callbackUrl = safeCallbackParam(context, query.get('callbackUrl'));
  const cookieOption = context.cookieOptions.callbackUrl;
  const remembered = context.cookies.get(cookieOption.name);
  const requested = callbackUrl ?? remembered;
  const target = requested ? await resolveRedirect(context, requested) : context.origin;
  if (target !== remembered) setCookie(context, cookieOption, target);
  const error = query.get('error') ?? undefined;
  const code = query.get('code') ?? undefined;
  if (context.options.pages.signIn) {
    return sendRedirect(context, customPageUrl(context, context.options.pages.signIn, { callbackUrl, error, code }));
  }
  // Signed in already, with features' pages for signed-in users (the account): the page says who and links each.
  const pages = context.options.features.flatMap((feature) => feature.signedInPage ?? []);
  const session = pages.length > 0 ? (await readSession(context.req, context.options, { write: false, cookies: context.cookies, cookieOptions: context.cookieOptions })).session : null;
  const page = renderSignInPage({
    providers: context.options.providers,
    mountPath: context.mountPath,
    csrfToken: csrfTokenOf(context),
    callbackUrl,
    error,
    code,
    theme: context.options.theme,
    messages: context.options.pageMessages,
    signedIn: session?.user ? { who: session.user.email ?? session.user.name ?? 'you', pages } : undefined,
  });
  sendHtml(context, 200, page, signInPageScriptHashes(context.options.providers));
}
