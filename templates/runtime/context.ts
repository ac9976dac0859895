/**
 * The per-request state every route shares: the resolved config, origin, mount path, cookies read and cookies to
 * write, and the helpers that answer (JSON, HTML, redirects that honour `X-Auth-Return-Redirect`).
 */
import type { Request, Response } from 'express';
import type { CookieOption, OutgoingCookie, RequestContext, ResolvedConfig } from './contracts.js';
import { expiredCookie, serializeCookie } from './http/cookies.js';
import { pageContentSecurityPolicy } from './pages/csp.js';
import { UntrustedHost } from './errors.js';
import { requestOrigin } from './http/origin.js';
import { cookieOptionsFor, requestCookies } from './http/request.js';

/** Builds the context of a request below the mount path. */
export function createContext(req: Request, res: Response, options: ResolvedConfig, mountPath: string): RequestContext {
  return {
    req,
    res,
    options,
    ...requestOrigin(req, options),
    mountPath,
    cookieOptions: cookieOptionsFor(req, options),
    cookies: requestCookies(req),
    outgoing: [],
  };
}

/** `<origin><mount>/<action>`. */
export function actionUrl(context: RequestContext, action: string): string {
  return `${context.origin}${context.mountPath}/${action}`;
}

/**
 * `<configured origin><mount>/<action>`: for URLs that carry a sign-in secret away from this request (emailed links,
 * redirect-proxy targets), built only on a configured origin. Startup already refuses an email provider or redirect
 * proxy without one; this keeps the rule where the URL is built.
 */
export function configuredActionUrl(context: RequestContext, action: string): string {
  if (context.linkOrigin === undefined) {
    throw new UntrustedHost('Links that carry sign-in secrets are built only on AUTH_URL or a trustHost-listed host, never on a Host header alone.');
  }
  return `${context.linkOrigin}${context.mountPath}/${action}`;
}

/** Queues a cookie with the options of `option` (or deletes it when `value` is null). */
export function setCookie(context: RequestContext, option: CookieOption, value: string | null): void {
  context.outgoing.push(value === null ? expiredCookie(option.name, option.options) : { name: option.name, value, options: { ...option.options } });
}

/** Writes the queued cookies onto the response. */
export function flushCookies(res: Response, cookies: OutgoingCookie[]): void {
  if (cookies.length === 0) return;
  const existing = res.getHeader('Set-Cookie');
  const previous = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  res.setHeader('Set-Cookie', [...previous, ...cookies.map(serializeCookie)]);
}

/** What every auth response and every response that sets or may show a session says to caches: never store it. */
export const noStore = 'private, no-cache, no-store';

/** Answers JSON (with the queued cookies). */
export function sendJson(context: RequestContext, status: number, body: unknown): void {
  flushCookies(context.res, context.outgoing);
  sendJsonResponse(context.res, status, body);
}

/** JSON on a bare response (also used where no context exists). */
export function sendJsonResponse(res: Response, status: number, body: unknown): void {
  answer(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

/** Answers an HTML page (with the queued cookies), allowing the inline scripts of `scriptHashes` (see csp.ts). */
export function sendHtml(context: RequestContext, status: number, page: string, scriptHashes: readonly string[] = []): void {
  flushCookies(context.res, context.outgoing);
  sendHtmlResponse(context.res, context.options, status, context.banner ? page.replace('<body>', `<body>${context.banner}`) : page, scriptHashes);
}

/** An HTML page on a bare response (also used where no context exists). */
export function sendHtmlResponse(res: Response, options: ResolvedConfig, status: number, page: string, scriptHashes: readonly string[] = []): void {
  res.setHeader('Content-Security-Policy', pageContentSecurityPolicy(options.formAction, scriptHashes));
  answer(res, status, 'text/html; charset=utf-8', page);
}

/**
 * Redirects with 302, a Location and a Content-Type (Auth.js omits it). With `X-Auth-Return-Redirect` the URL is
 * answered as `200 { url }` instead, for clients that navigate themselves.
 */
export function sendRedirect(context: RequestContext, url: string): void {
  if (context.req.headers['x-auth-return-redirect']) return sendJson(context, 200, { url });
  sendRedirectResponse(context.res, url, context.outgoing);
}

/** A redirect on a bare response (also used where no context exists). */
export function sendRedirectResponse(res: Response, url: string, cookies: OutgoingCookie[] = []): void {
  flushCookies(res, cookies);
  res.setHeader('Location', url);
  const escaped = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  answer(res, 302, 'text/html; charset=utf-8', `<!DOCTYPE html><meta charset="utf-8"><title>Redirecting</title><p>Redirecting to <a href="${escaped}">${escaped}</a></p>`);
}

// Every answer of the runtime's own, never the app's: they echo names and user agents, which must not be sniffed as HTML.
function answer(res: Response, status: number, contentType: string, body: string): void {
  res.status(status);
  res.setHeader('Cache-Control', noStore);
  res.setHeader('Content-Type', contentType);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(body);
}
