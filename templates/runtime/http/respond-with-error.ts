/**
 * The one place errors become responses, by the error table (`errorResponses` and `ErrorResponse` in errors.ts): only
 * client-safe types reach a URL, the full error goes to `logger.error`, and nothing falls through to a 500.
 */
import type { Request, Response } from 'express';
import type { ResolvedConfig, RequestContext, ErrorAnswer } from '../contracts.js';
import { actionUrl, sendHtmlResponse, sendJsonResponse, sendRedirect } from '../context.js';
import { CallbackRouteError, CredentialsSignin, errorResponseOf, isAuthError } from '../errors.js';
import { renderErrorPage } from '../pages/other.js';
import { prefersJson } from './request.js';

/** Answers `thrown` by how the route answers errors (`answer`, undefined before the route was known). */
export function respondWithError(
  req: Request,
  res: Response,
  options: ResolvedConfig,
  context: RequestContext | undefined,
  answer: ErrorAnswer | undefined,
  thrown: unknown,
): void {
  const error = isAuthError(thrown)
    ? thrown
    : new CallbackRouteError('Unexpected error in the auth handler', { cause: thrown instanceof Error ? thrown : undefined });
  // Of a burst of refused attempts, only the first is an error in the log; the rest would flood it.
  if (error.status === 404 || error.status === 405 || error.quiet) options.logger.debug(error.message);
  else options.logger.error(error);
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const response = errorResponseOf(error);
  const inline = response.page === 'inline';
  const type = response.shownAs;
  if (context && answer === 'redirect' && !inline) {
    context.outgoing = context.outgoing.filter((cookie) => cookie.options.maxAge === 0);
    const params = new URLSearchParams({ error: type });
    if (error instanceof CredentialsSignin || error.type === 'CredentialsSignin') params.set('code', (error as CredentialsSignin).code ?? 'credentials');
    const pageKind = error.kind === 'signIn' || response.page === 'signIn' ? 'signIn' : 'error';
    const custom = options.pages[pageKind];
    const base = custom ? new URL(custom, `${context.origin}/`).href : actionUrl(context, pageKind === 'signIn' ? 'signin' : 'error');
    return sendRedirect(context, `${base}${base.includes('?') ? '&' : '?'}${params}`);
  }
  // 5xx never reaches a client, except "busy, try again" (a full password-hash queue: 503 with Retry-After).
  const busy = error.status === 503 && error.headers?.['Retry-After'] !== undefined;
  const status = (error.status >= 400 && error.status < 500) || busy ? error.status : 400;
  const message = inline ? error.message : undefined;
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  // A refused attempt from a client that follows no redirects (the passkey script's fetch) is answered in JSON.
  const fetchClient = error.status === 429 && req.headers['x-auth-return-redirect'] !== undefined;
  if (prefersJson(req) || fetchClient || !answer || answer === 'json') {
    return sendJsonResponse(res, status, { error: inline ? error.type : type, ...(message && { message }) });
  }
  const page = renderErrorPage({
    error: type,
    requestProblem: message,
    mountPath: context?.mountPath ?? options.basePath ?? '',
    theme: options.theme,
    messages: options.pageMessages,
  });
  sendHtmlResponse(res, options, status, page.body);
}
