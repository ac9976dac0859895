/**
 * `<mount>/reauth`: re-authentication before a sensitive change (SPEC §13). GET shows the signed-in user every way to
 * sign in again (the password form with their address, a passkey, an email link, each OAuth provider), and POST
 * `provider` (default: the password provider) with its fields starts one: the password (then the code, with
 * two-factor on) of the signed-in user's address, a link to that address, or the OAuth provider again with
 * `prompt=login` (and `max_age=0` for OpenID Connect) so that it asks for the user's credentials rather than reusing
 * its own session. Whatever signs in opens a new session whose authentication is now, then returns to `callbackUrl`.
 */
import type { RequestContext, Route } from '../../contracts.js';
import { sendHtml, sendJson, sendRedirect, setCookie } from '../../context.js';
import { csrfTokenOf, verifyCsrf } from '../../http/csrf.js';
import { InvalidProvider } from '../../errors.js';
import { flowOf } from '../../flow.js';
import { renderSignInPage, signInPageScriptHashes } from '../../pages/signin.js';
import { customPageUrl, resolveRedirect, safeCallbackParam } from '../../http/redirect.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import { bodyField, prefersJson, queryParams, readBody } from '../../http/request.js';
import { findProvider, unsupportedProvider } from '../../router.js';
import { startOAuthSignIn } from '../../oauth/start-sign-in.js';
import { currentSignIn } from './signed-in.js';

export async function reauthRoute(context: RequestContext, route: Route): Promise<void> {
  const signedIn = await currentSignIn(context, context.options.adapter!);
  const signIn = context.options.pages.signIn ?? `${context.mountPath}/signin`;
  if (route.method === 'GET') {
    const callbackUrl = safeCallbackParam(context, queryParams(context.req).get('callbackUrl'));
    // Nobody to confirm: an ordinary sign-in is the authentication.
    if (!signedIn) return sendRedirect(context, customPageUrl(context, signIn, { callbackUrl }));
    if (callbackUrl) setCookie(context, context.cookieOptions.callbackUrl, await resolveRedirect(context, callbackUrl));
    const page = renderSignInPage({
      providers: context.options.providers,
      mountPath: context.mountPath,
      csrfToken: csrfTokenOf(context),
      callbackUrl,
      error: undefined,
      email: signedIn.user.email ?? undefined,
      reauth: { who: signedIn.user.email ?? signedIn.user.name ?? 'your account' },
      theme: context.options.theme,
      messages: context.options.pageMessages,
    });
    return sendHtml(context, 200, page, signInPageScriptHashes(context.options.providers));
  }
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  if (!signedIn) {
    if (prefersJson(context.req)) return sendJson(context, 401, { error: 'Unauthorized', message: 'Sign in first: there is no session to confirm.' });
    return sendRedirect(context, customPageUrl(context, signIn, { callbackUrl: safeCallbackParam(context, bodyField(body, 'callbackUrl')) }));
  }
  const provider = findProvider(context, bodyField(body, 'provider') ?? defaultProviderId(context));
  const callbackUrl = bodyField(body, 'callbackUrl');
  if (isOAuthProvider(provider)) {
    // Ask the provider to authenticate the user again rather than answer from its own session (OIDC Core §3.1.2.1).
    return startOAuthSignIn(context, provider, new URLSearchParams({ prompt: 'login', ...(provider.type === 'oidc' && { max_age: '0' }) }), callbackUrl);
  }
  const flow = flowOf(provider);
  if (!flow.signIn) return unsupportedProvider(provider);
  // The signed-in user's own address: re-authentication confirms this user, it does not switch to another.
  const email = signedIn.user.email;
  await flow.signIn(context, provider, email ? { ...body, email } : body);
}

/** The provider a POST without `provider` re-authenticates with: the first password-like one (a credentials type). */
function defaultProviderId(context: RequestContext): string {
  const provider = context.options.providers.find((candidate) => !isOAuthProvider(candidate) && candidate.type === 'credentials');
  if (!provider) throw new InvalidProvider('Name the provider to sign in again with: provider=<id>.');
  return provider.id;
}

/** The re-authentication page below `mountPath`, coming back to `returnTo`. */
export function reauthUrl(mountPath: string, returnTo: string): string {
  return `${mountPath}/reauth?${new URLSearchParams({ callbackUrl: returnTo })}`;
}

/** The 401 JSON answer that asks for re-authentication at `url`. */
export function reauthenticationJson(url: string): { error: 'reauthentication_required'; message: string; url: string } {
  return { error: 'reauthentication_required', message: 'Confirm it is you: sign in again to continue.', url };
}
