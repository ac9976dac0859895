/**
 * `FrameworkAuth(config)`: the Express middleware that serves every route below the mount path. Protocol logic
 * lives in plain functions (oauth/, session.ts, csrf.ts, email-sign-in.ts, webauthn.ts); this file maps requests
 * to them and every error to a 4xx or the error page. Nothing falls through to a 500.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { type FrameworkAuthConfig, type ResolvedConfig, resolveConfigOnce } from './config.js';
import { type RequestContext, actionUrl, createContext, noStore, sendHtml, sendJson, sendRedirect, setCookie } from './context.js';
import { chunkCookie, clearChunkedCookie, readChunkedCookie } from './cookies.js';
import { createCsrfToken, safeEqual, verifyCsrfCookie } from './csrf.js';
import { InvalidEmailAddress } from './email-address.js';
import { emailIdentifier, sendVerificationLink, useVerificationLink } from './email-sign-in.js';
import {
  AccessDenied,
  CallbackRouteError,
  CredentialsSignin,
  InvalidProvider,
  MethodNotAllowed,
  MissingCSRF,
  RateLimited,
  UnknownAction,
  isAuthError,
  publicErrorType,
} from './errors.js';
import { createAuthorizationUrl } from './oauth/authorization-url.js';
import { handleOAuthCallback, proxiedCallbackTarget } from './oauth/callback.js';
import { createOAuth1AuthorizationUrl, handleOAuth1Callback, usesOAuth1 } from './oauth1/flow.js';
import { pageContentSecurityPolicy } from './pages/csp.js';
import { renderErrorPage, renderSignOutPage, renderVerifyRequestPage } from './pages/other.js';
import { renderSignInPage, signInPageScriptHashes } from './pages/signin.js';
import type {
  ResolvedCredentialsProvider,
  ResolvedEmailProvider,
  ResolvedOAuthProvider,
  ResolvedProvider,
  ResolvedWebAuthnProvider,
} from './providers/resolve.js';
import { sameOriginUrl, resolveRedirect } from './redirect.js';
import { bodyField, prefersJson, queryParams, readBody, routeRequest } from './request.js';
import { callAdapter } from './adapter.js';
import { emitEvent } from './events.js';
import { clearRateLimit, clientAddress, consumeRateLimit, credentialsUserName } from './rate-limit.js';
import { createSessionCookies, readSession } from './session.js';
import { type SignInResolution, existingUserOf, resolveEmailSignIn, resolveSignIn, resolveWebAuthnSignIn } from './sign-in.js';
import type { Account, AdapterUser, JWT, Profile, User } from './types.js';
import { sendWebAuthnOptions, verifyWebAuthnResponse } from './webauthn.js';

/** The Express middleware returned by `FrameworkAuth`. */
export type FrameworkAuthHandler = (req: Request, res: Response, next: NextFunction) => Promise<void>;

/**
 * The routes below the mount path: each action, the methods it accepts, and whether it takes a provider id segment
 * (`/signin/<provider>`). The README's route table is checked against it (test/docs.test.ts).
 */
export const routes = {
  providers: { methods: ['GET'], provider: 'none' },
  csrf: { methods: ['GET'], provider: 'none' },
  session: { methods: ['GET', 'POST'], provider: 'none' },
  signin: { methods: ['GET', 'POST'], provider: 'optional' },
  callback: { methods: ['GET', 'POST'], provider: 'required' },
  signout: { methods: ['GET', 'POST'], provider: 'none' },
  error: { methods: ['GET'], provider: 'none' },
  'verify-request': { methods: ['GET'], provider: 'none' },
  'webauthn-options': { methods: ['GET'], provider: 'required' },
} as const satisfies Record<string, { methods: readonly string[]; provider: 'none' | 'optional' | 'required' }>;

type Action = keyof typeof routes;

/** Errors answered where they happen rather than by a redirect: their message is safe to show. */
const requestErrors = new Set(['InvalidRequest', 'UnknownAction', 'InvalidProvider', 'MethodNotAllowed', 'UntrustedHost', 'RateLimited']);

/** Public error types shown on the sign-in page (the user can simply try again) rather than the error page. */
const signInPageErrors = new Set([
  'OAuthCallbackError',
  'OAuthSignInError',
  'OAuthAccountNotLinked',
  'AccountNotLinked',
  'CredentialsSignin',
  'MissingCSRF',
  'EmailSignInError',
  'WebAuthnVerificationError',
]);

/** Actions whose failures send the browser to the sign-in or error page (they are form posts and provider redirects). */
const redirectingActions = new Set<Action>(['signin', 'callback', 'signout']);

/**
 * Creates the auth middleware. The config is checked once, here: a missing or short `AUTH_SECRET` throws now, at
 * startup. Mount it on a wildcard path: `app.use('/auth/*splat', FrameworkAuth(config))` (Express 5),
 * `app.use('/auth/*', …)` (Express 4) or `app.use('/auth', …)`.
 * @example
 * app.set('trust proxy', true)
 * app.use('/auth/*splat', FrameworkAuth({ providers: [GitHub] }))
 */
export function FrameworkAuth(config: FrameworkAuthConfig): FrameworkAuthHandler {
  const options = resolveConfigOnce(config);
  return async function frameworkAuth(req: Request, res: Response, next: NextFunction): Promise<void> {
    let context: RequestContext | undefined;
    let action: Action | undefined;
    try {
      const route = routeRequest(req, options.basePath);
      if (!route) return next();
      const [name, providerId, ...rest] = route.segments;
      if (!name || !Object.hasOwn(routes, name)) throw new UnknownAction(`There is no auth route "${route.segments.join('/')}"`);
      action = name as Action;
      const spec = routes[action];
      if (rest.length > 0 || (spec.provider === 'none' && providerId !== undefined) || (spec.provider === 'required' && !providerId)) {
        throw new UnknownAction(`There is no auth route "${route.segments.join('/')}"`);
      }
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      if (!(spec.methods as readonly string[]).includes(method)) {
        res.setHeader('Allow', spec.methods.join(', '));
        throw new MethodNotAllowed(`${req.method} is not allowed here; use ${spec.methods.join(' or ')}`);
      }
      context = createContext(req, res, options, route.mountPath);
      await dispatch(context, action, method as 'GET' | 'POST', providerId);
    } catch (error) {
      respondWithError(req, res, options, context, action, error);
    }
  };
}

async function dispatch(context: RequestContext, action: Action, method: 'GET' | 'POST', providerId: string | undefined): Promise<void> {
  switch (action) {
    case 'providers':
      return sendJson(context, 200, listProviders(context));
    case 'csrf':
      return sendJson(context, 200, { csrfToken: csrfToken(context) });
    case 'session':
      return method === 'GET' ? sessionRoute(context) : updateSessionRoute(context);
    case 'signin':
      if (method === 'GET') return signInPage(context);
      if (!providerId) throw new InvalidProvider('Name the provider: POST <mount>/signin/<provider>');
      return signInRoute(context, findProvider(context, providerId));
    case 'callback':
      return callbackRoute(context, findProvider(context, providerId!), method);
    case 'signout':
      return method === 'GET' ? signOutPage(context) : signOutRoute(context);
    case 'error':
      return errorPage(context);
    case 'verify-request':
      return verifyRequestPage(context);
    case 'webauthn-options': {
      const provider = findProvider(context, providerId!);
      if (provider.type !== 'webauthn') return unsupportedProvider(provider);
      await consumeRateLimit(context.options.rateLimit, 'passkeyOptionsPerClient', clientAddress(context.req));
      return sendWebAuthnOptions(context, provider);
    }
  }
}

function findProvider(context: RequestContext, id: string): ResolvedProvider {
  const provider = context.options.providersById.get(id);
  if (!provider) {
    const known = [...context.options.providersById.keys()].join(', ') || 'none';
    throw new InvalidProvider(`Unknown provider "${id}"; configured providers: ${known}`);
  }
  return provider;
}

function unsupportedProvider(provider: ResolvedProvider): never {
  const hint = provider.type === 'webauthn' ? ': passkeys sign in through webauthn-options and a POST to the callback' : '';
  const error = new InvalidProvider(`Provider "${provider.id}" is of type "${provider.type}", which this route does not serve${hint}.`);
  error.status = 400;
  throw error;
}

function listProviders(context: RequestContext): Record<string, { id: string; name: string; type: string; signinUrl: string; callbackUrl: string }> {
  const providers: Record<string, { id: string; name: string; type: string; signinUrl: string; callbackUrl: string }> = {};
  for (const provider of context.options.providers) {
    providers[provider.id] = {
      id: provider.id,
      name: provider.name,
      type: provider.type,
      signinUrl: actionUrl(context, `signin/${provider.id}`),
      callbackUrl: actionUrl(context, `callback/${provider.id}`),
    };
  }
  return providers;
}

/** The CSRF token of the request's valid CSRF cookie, or a new one (queued as a cookie). */
function csrfToken(context: RequestContext): string {
  const option = context.cookieOptions.csrfToken;
  const existing = verifyCsrfCookie(context.cookies.get(option.name), context.options.secrets);
  if (existing) return existing;
  const created = createCsrfToken(context.options.secrets[0]!);
  setCookie(context, option, created.cookieValue);
  return created.token;
}

/** Refuses a POST whose `csrfToken` does not match the CSRF cookie. */
function verifyCsrf(context: RequestContext, body: Record<string, unknown>): void {
  const expected = verifyCsrfCookie(context.cookies.get(context.cookieOptions.csrfToken.name), context.options.secrets);
  const submitted = bodyField(body, 'csrfToken');
  if (!expected || !submitted || !safeEqual(expected, submitted)) {
    throw new MissingCSRF(expected ? 'The csrfToken in the body does not match the CSRF cookie' : 'The CSRF cookie is missing or invalid');
  }
}

async function sessionRoute(context: RequestContext): Promise<void> {
  const result = await readSession(context.req, context.options, { write: true, cookies: context.cookies, cookieOptions: context.cookieOptions });
  context.outgoing.push(...result.cookies);
  sendJson(context, 200, result.session);
}

async function updateSessionRoute(context: RequestContext): Promise<void> {
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  const result = await readSession(context.req, context.options, {
    write: true,
    cookies: context.cookies,
    cookieOptions: context.cookieOptions,
    trigger: 'update',
    newSession: body['data'],
  });
  context.outgoing.push(...result.cookies);
  sendJson(context, 200, result.session);
}

/** A configured custom page (`pages.*`) as an absolute URL with query parameters. */
function customPageUrl(context: RequestContext, page: string, params: Record<string, string | undefined>): string {
  const url = new URL(page, `${context.origin}/`);
  for (const [key, value] of Object.entries(params)) if (value) url.searchParams.set(key, value);
  return url.href;
}

/** A `callbackUrl` from the query or body, kept only when same-origin (the page re-posts it). */
function safeCallbackParam(context: RequestContext, value: string | null | undefined): string | undefined {
  return value ? (sameOriginUrl(value, context.origin) ?? undefined) : undefined;
}

function signInPage(context: RequestContext): void {
  const query = queryParams(context.req);
  const callbackUrl = safeCallbackParam(context, query.get('callbackUrl'));
  const error = query.get('error') ?? undefined;
  const code = query.get('code') ?? undefined;
  if (context.options.pages.signIn) {
    return sendRedirect(context, customPageUrl(context, context.options.pages.signIn, { callbackUrl, error, code }));
  }
  const page = renderSignInPage({
    providers: context.options.providers,
    mountPath: context.mountPath,
    csrfToken: csrfToken(context),
    callbackUrl,
    error,
    code,
    theme: context.options.theme,
  });
  sendHtml(context, 200, page, signInPageScriptHashes(context.options.providers));
}

/** The `callbackUrl` of a sign-in form post: the body's, the query's, or the one kept in the callback-url cookie. */
function requestedCallbackUrl(context: RequestContext, body: Record<string, unknown>): string | undefined {
  return bodyField(body, 'callbackUrl') ?? queryParams(context.req).get('callbackUrl') ?? context.cookies.get(context.cookieOptions.callbackUrl.name);
}

/** POST `<mount>/signin/<email provider>`: a malformed address is answered 400, anything else sends a link. */
async function emailSignIn(context: RequestContext, provider: ResolvedEmailProvider, body: Record<string, unknown>): Promise<void> {
  const typed = bodyField(body, 'email') ?? '';
  let identifier: string;
  try {
    identifier = emailIdentifier(provider, typed);
  } catch (error) {
    return refuseEmailAddress(context, typed, error, body);
  }
  // The client first: its limit also caps how many address counters one client can create.
  await consumeRateLimit(context.options.rateLimit, 'emailPerClient', clientAddress(context.req));
  await consumeRateLimit(context.options.rateLimit, 'emailPerAddress', identifier);
  await sendVerificationLink(context, provider, { identifier, callbackUrl: requestedCallbackUrl(context, body) });
}

/**
 * A malformed address is bad input, answered 400 where it was typed: the sign-in page with the reason and the
 * address to correct (JSON for clients that ask for it). A custom sign-in page gets a redirect with
 * `error=EmailSignInError`.
 */
function refuseEmailAddress(context: RequestContext, typed: string, error: unknown, body: Record<string, unknown>): void {
  // Only our own reasons are shown: a custom normalizeIdentifier's message could say anything.
  const message = error instanceof InvalidEmailAddress ? error.message : 'Enter a valid email address.';
  context.options.logger.debug('email address refused', { reason: message });
  if (prefersJson(context.req) || context.req.headers['x-auth-return-redirect']) {
    return sendJson(context, 400, { error: 'EmailSignInError', message });
  }
  const callbackUrl = safeCallbackParam(context, bodyField(body, 'callbackUrl'));
  if (context.options.pages.signIn) {
    return sendRedirect(context, customPageUrl(context, context.options.pages.signIn, { callbackUrl, error: 'EmailSignInError' }));
  }
  const page = renderSignInPage({
    providers: context.options.providers,
    mountPath: context.mountPath,
    csrfToken: csrfToken(context),
    callbackUrl,
    error: 'EmailSignInError',
    errorMessage: message,
    email: typed.slice(0, 320),
    theme: context.options.theme,
  });
  sendHtml(context, 400, page, signInPageScriptHashes(context.options.providers));
}

async function signInRoute(context: RequestContext, provider: ResolvedProvider): Promise<void> {
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  if (provider.type === 'credentials') return credentialsCallback(context, provider, body);
  if (provider.type === 'email') return emailSignIn(context, provider, body);
  if (provider.type !== 'oauth' && provider.type !== 'oidc') return unsupportedProvider(provider);
  const query = queryParams(context.req);
  const callbackUrl = bodyField(body, 'callbackUrl') ?? query.get('callbackUrl') ?? undefined;
  if (callbackUrl) {
    setCookie(context, context.cookieOptions.callbackUrl, await resolveRedirect(context, callbackUrl));
  }
  const url = usesOAuth1(provider) ? await createOAuth1AuthorizationUrl(context, provider) : await createAuthorizationUrl(context, provider, query);
  sendRedirect(context, url);
}

async function callbackRoute(context: RequestContext, provider: ResolvedProvider, method: 'GET' | 'POST'): Promise<void> {
  if (provider.type === 'credentials') {
    if (method !== 'POST') {
      context.res.setHeader('Allow', 'POST');
      throw new MethodNotAllowed('Credentials are submitted with POST');
    }
    const body = await readBody(context.req);
    verifyCsrf(context, body);
    return credentialsCallback(context, provider, body);
  }
  if (provider.type === 'email') return emailCallback(context, provider);
  if (provider.type === 'webauthn') {
    if (method !== 'POST') {
      context.res.setHeader('Allow', 'POST');
      throw new MethodNotAllowed('Passkey responses are submitted with POST');
    }
    const body = await readBody(context.req);
    verifyCsrf(context, body);
    return webAuthnCallback(context, provider, body);
  }
  // Providers answer with a GET redirect, or a POST for `response_mode=form_post`.
  const parameters = method === 'GET' ? queryParams(context.req) : new URLSearchParams(stringEntries(await readBody(context.req)));
  const forwardTo = await proxiedCallbackTarget(context, parameters);
  if (forwardTo) return sendRedirect(context, forwardTo);
  await oauthCallback(context, provider, parameters);
}

function stringEntries(body: Record<string, unknown>): [string, string][] {
  return Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
}

async function oauthCallback(context: RequestContext, provider: ResolvedOAuthProvider, parameters: URLSearchParams): Promise<void> {
  const callbackCookie = context.cookieOptions.callbackUrl;
  const callbackUrl = context.cookies.get(callbackCookie.name);
  if (callbackUrl !== undefined) setCookie(context, callbackCookie, null);
  const { user, account, profile } = usesOAuth1(provider)
    ? await handleOAuth1Callback(context, provider, parameters)
    : await handleOAuthCallback(context, provider, parameters);
  await completeSignIn(context, { user, account, profile, callbackUrl, allowDangerousEmailAccountLinking: provider.allowDangerousEmailAccountLinking });
}

/** GET `<mount>/callback/<email provider>?token=…&email=…`: the link of the message, usable once. */
async function emailCallback(context: RequestContext, provider: ResolvedEmailProvider): Promise<void> {
  const link = await useVerificationLink(context, provider, queryParams(context.req));
  await completeSignIn(context, {
    user: link.user,
    account: link.account,
    storedUser: link.storedUser,
    callbackUrl: link.callbackUrl ?? context.cookies.get(context.cookieOptions.callbackUrl.name),
    resolve: () => resolveEmailSignIn(context, { identifier: link.identifier }),
  });
}

/** POST `<mount>/callback/<webauthn provider>`: a verified registration or authentication signs the user in. */
async function webAuthnCallback(context: RequestContext, provider: ResolvedWebAuthnProvider, body: Record<string, unknown>): Promise<void> {
  const verified = await verifyWebAuthnResponse(context, provider, body);
  await completeSignIn(context, {
    user: verified.user,
    account: verified.account,
    storedUser: verified.storedUser,
    callbackUrl: requestedCallbackUrl(context, body),
    resolve: () =>
      resolveWebAuthnSignIn(context, { user: verified.user, account: verified.account, ...(verified.authenticator && { authenticator: verified.authenticator }) }),
  });
}

async function credentialsCallback(context: RequestContext, provider: ResolvedCredentialsProvider, body: Record<string, unknown>): Promise<void> {
  const { csrfToken: _csrf, callbackUrl, ...credentials } = body;
  // Counted before authorize() for every user name alike, so a refusal says nothing about whether the user exists.
  const userName = credentialsUserName(provider.credentials, credentials);
  await consumeRateLimit(context.options.rateLimit, 'credentialsPerClient', clientAddress(context.req));
  if (userName !== undefined) await consumeRateLimit(context.options.rateLimit, 'credentialsPerUser', userName);
  let user: User | null;
  try {
    user = await provider.authorize(credentials, context.req);
  } catch (error) {
    if (isAuthError(error)) throw error;
    throw new CallbackRouteError(`authorize() of provider "${provider.id}" threw`, { cause: error instanceof Error ? error : undefined });
  }
  if (!user) throw new CredentialsSignin(`authorize() of provider "${provider.id}" returned no user`);
  if (userName !== undefined) await clearRateLimit(context.options.rateLimit, 'credentialsPerUser', userName);
  const id = user.id !== undefined && user.id !== null && String(user.id) !== '' ? String(user.id) : randomUUID();
  const signedIn: User = { ...user, id };
  const account: Account = { providerAccountId: id, type: 'credentials', provider: provider.id };
  await completeSignIn(context, {
    user: signedIn,
    account,
    credentials,
    callbackUrl: typeof callbackUrl === 'string' ? callbackUrl : context.cookies.get(context.cookieOptions.callbackUrl.name),
  });
}

/**
 * The shared end of every sign-in: the `signIn` callback, the user and account in the database (with an adapter),
 * the session (cookie or database row), the event, and the redirect (`pages.newUser` for a new user).
 */
async function completeSignIn(
  context: RequestContext,
  params: {
    user: User;
    account: Account;
    profile?: Profile;
    credentials?: Record<string, unknown>;
    callbackUrl: string | undefined;
    allowDangerousEmailAccountLinking?: boolean;
    /** The stored user, when the flow already looked it up (email, passkeys): shown to the `signIn` callback. */
    storedUser?: AdapterUser | null;
    /** How the user and session are resolved with an adapter; OAuth's linking rules when absent. */
    resolve?: () => Promise<SignInResolution>;
  },
): Promise<void> {
  const { options } = context;
  const { account, profile } = params;
  const storedUser = params.storedUser !== undefined ? params.storedUser : account.type === 'credentials' ? null : await existingUserOf(options, account);
  let allowed: boolean | string;
  try {
    allowed = await options.callbacks.signIn({
      user: storedUser ?? params.user,
      account,
      ...(profile && { profile }),
      ...(params.credentials && { credentials: params.credentials }),
    });
  } catch (error) {
    throw new AccessDenied('The signIn callback threw', { cause: error instanceof Error ? error : undefined });
  }
  if (allowed === false) throw new AccessDenied('The signIn callback refused the sign-in');
  if (typeof allowed === 'string') return sendRedirect(context, await resolveRedirect(context, allowed));

  const resolved: SignInResolution =
    account.type === 'credentials'
      ? { user: params.user, isNewUser: false, session: undefined }
      : params.resolve
        ? await params.resolve()
        : await resolveSignIn(context, { user: params.user, account, ...(profile && { profile }), allowDangerousEmailAccountLinking: params.allowDangerousEmailAccountLinking ?? false });
  const { user, isNewUser } = resolved;
  if (resolved.session) {
    const { sessionToken, expires } = resolved.session;
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

function signOutPage(context: RequestContext): void {
  const callbackUrl = safeCallbackParam(context, queryParams(context.req).get('callbackUrl'));
  if (context.options.pages.signOut) {
    return sendRedirect(context, customPageUrl(context, context.options.pages.signOut, { callbackUrl }));
  }
  sendHtml(context, 200, renderSignOutPage({ mountPath: context.mountPath, csrfToken: csrfToken(context), callbackUrl, theme: context.options.theme }));
}

async function signOutRoute(context: RequestContext): Promise<void> {
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  const { options } = context;
  const sessionCookie = context.cookieOptions.sessionToken;
  const raw = readChunkedCookie(context.cookies, sessionCookie.name);
  context.outgoing.push(...clearChunkedCookie(context.cookies, sessionCookie));
  if (options.session.strategy === 'database' && options.adapter) {
    let session: unknown = null;
    if (raw !== undefined) {
      // The row is deleted so that the session ends everywhere; an outage still clears this browser's cookie.
      session = await callAdapter(options.adapter, 'deleteSession', raw).catch((error: Error) => {
        options.logger.error(error);
        return null;
      });
    }
    await emitEvent(options, 'signOut', { session });
  } else {
    let token: JWT | null = null;
    if (raw !== undefined) {
      token = await options.jwt.decode({ token: raw, secret: options.secrets, salt: sessionCookie.name }).catch(() => null);
    }
    await emitEvent(options, 'signOut', { token });
  }
  sendRedirect(context, await resolveRedirect(context, bodyField(body, 'callbackUrl')));
}

function errorPage(context: RequestContext): void {
  const query = queryParams(context.req);
  const error = query.get('error') ?? undefined;
  const code = query.get('code') ?? undefined;
  if (context.options.pages.error) {
    return sendRedirect(context, customPageUrl(context, context.options.pages.error, { error, code }));
  }
  const page = renderErrorPage({ error, code, mountPath: context.mountPath, theme: context.options.theme });
  sendHtml(context, page.status, page.body);
}

function verifyRequestPage(context: RequestContext): void {
  if (context.options.pages.verifyRequest) {
    // As Auth.js: the custom page learns which provider sent the link.
    const query = queryParams(context.req);
    const params = { provider: query.get('provider') ?? undefined, type: query.get('type') ?? undefined };
    return sendRedirect(context, customPageUrl(context, context.options.pages.verifyRequest, params));
  }
  sendHtml(context, 200, renderVerifyRequestPage({ origin: context.origin, theme: context.options.theme }));
}

/**
 * The one place errors become responses. Form posts and provider callbacks redirect to the sign-in page (errors
 * of kind `signIn`) or the error page, with only client-safe types in the URL; request errors are answered on the
 * spot (JSON or HTML). The full error goes to `logger.error`.
 */
function respondWithError(
  req: Request,
  res: Response,
  options: ResolvedConfig,
  context: RequestContext | undefined,
  action: Action | undefined,
  thrown: unknown,
): void {
  const error = isAuthError(thrown)
    ? thrown
    : new CallbackRouteError('Unexpected error in the auth handler', { cause: thrown instanceof Error ? thrown : undefined });
  // Of a burst of refused attempts, only the first is an error in the log; the rest would flood it.
  if (error.status === 404 || error.status === 405 || (error instanceof RateLimited && !error.firstRefusal)) options.logger.debug(error.message);
  else options.logger.error(error);
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const type = publicErrorType(error);
  if (context && action && redirectingActions.has(action) && !requestErrors.has(error.type)) {
    context.outgoing = context.outgoing.filter((cookie) => cookie.options.maxAge === 0);
    const params = new URLSearchParams({ error: type });
    if (error instanceof CredentialsSignin || error.type === 'CredentialsSignin') params.set('code', (error as CredentialsSignin).code ?? 'credentials');
    const pageKind = error.kind === 'signIn' || signInPageErrors.has(type) ? 'signIn' : 'error';
    const custom = options.pages[pageKind];
    const base = custom ? new URL(custom, `${context.origin}/`).href : actionUrl(context, pageKind === 'signIn' ? 'signin' : 'error');
    return sendRedirect(context, `${base}${base.includes('?') ? '&' : '?'}${params}`);
  }
  const status = error.status >= 400 && error.status < 500 ? error.status : 400;
  const message = requestErrors.has(error.type) ? error.message : undefined;
  res.status(status);
  res.setHeader('Cache-Control', noStore);
  if (error instanceof RateLimited) res.setHeader('Retry-After', String(error.retryAfter));
  const fetchClient = error instanceof RateLimited && req.headers['x-auth-return-redirect'] !== undefined;
  if (prefersJson(req) || fetchClient || !action || ['providers', 'csrf', 'session', 'webauthn-options'].includes(action)) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(JSON.stringify({ error: requestErrors.has(error.type) ? error.type : type, ...(message && { message }) }));
    return;
  }
  const page = renderErrorPage({ error: type, requestProblem: message, mountPath: context?.mountPath ?? options.basePath ?? '', theme: options.theme });
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Security-Policy', pageContentSecurityPolicy());
  res.end(page.body);
}

