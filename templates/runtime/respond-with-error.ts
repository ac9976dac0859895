/**
 * The one place errors become responses, by the error table (`errorResponses` in errors.ts). Form posts and
 * provider callbacks redirect to the sign-in page or the error page, with only client-safe types in the URL;
 * `inline` errors are answered on the spot (JSON or HTML). The full error goes to `logger.error`; nothing falls
 * through to a 500.
 */
import type { Request, Response } from 'express';
import type { ResolvedConfig } from './config.js';
import { type RequestContext, actionUrl, noStore, sendRedirect } from './context.js';
import { CallbackRouteError, CredentialsSignin, MethodNotAllowed, RateLimited, errorResponseOf, isAuthError } from './errors.js';
import { pageContentSecurityPolicy } from './pages/csp.js';
import { renderErrorPage } from './pages/other.js';
import { prefersJson } from './request.js';
import type { Action } from './router.js';

/** Actions whose failures send the browser to the sign-in or error page (they are form posts and provider redirects). */
const redirectingActions: ReadonlySet<Action> = new Set<Action>(['signin', 'callback', 'signout']);

/** Actions that answer JSON, so their errors are JSON too. */
const jsonActions: ReadonlySet<Action> = new Set<Action>(['providers', 'csrf', 'session', 'webauthn-options']);

/** Answers `thrown` for a request of `action` (undefined before the route was known). */
export function respondWithError(
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
  if (error instanceof MethodNotAllowed) res.setHeader('Allow', error.allow.join(', '));
  const response = errorResponseOf(error);
  const inline = response.page === 'inline';
  const type = response.shownAs;
  if (context && action && redirectingActions.has(action) && !inline) {
    context.outgoing = context.outgoing.filter((cookie) => cookie.options.maxAge === 0);
    const params = new URLSearchParams({ error: type });
    if (error instanceof CredentialsSignin || error.type === 'CredentialsSignin') params.set('code', (error as CredentialsSignin).code ?? 'credentials');
    const pageKind = error.kind === 'signIn' || response.page === 'signIn' ? 'signIn' : 'error';
    const custom = options.pages[pageKind];
    const base = custom ? new URL(custom, `${context.origin}/`).href : actionUrl(context, pageKind === 'signIn' ? 'signin' : 'error');
    return sendRedirect(context, `${base}${base.includes('?') ? '&' : '?'}${params}`);
  }
  const status = error.status >= 400 && error.status < 500 ? error.status : 400;
  const message = inline ? error.message : undefined;
  res.status(status);
  res.setHeader('Cache-Control', noStore);
  if (error instanceof RateLimited) res.setHeader('Retry-After', String(error.retryAfter));
  const fetchClient = error instanceof RateLimited && req.headers['x-auth-return-redirect'] !== undefined;
  if (prefersJson(req) || fetchClient || !action || jsonActions.has(action)) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(JSON.stringify({ error: inline ? error.type : type, ...(message && { message }) }));
    return;
  }
  const page = renderErrorPage({ error: type, requestProblem: message, mountPath: context?.mountPath ?? options.basePath ?? '', theme: options.theme });
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Security-Policy', pageContentSecurityPolicy());
  res.end(page.body);
}
