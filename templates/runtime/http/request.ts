/**
 * Reading what the runtime needs from an Express request: the mount path and action, cookies, whether cookies are
 * secure, and a size-limited form or JSON body. The origin is origin.ts's.
 */
import type { Request } from 'express';
import type { CookiesOptions, ResolvedConfig } from '../contracts.js';
import { parseCookieHeader } from './cookies.js';
import { InvalidRequest } from '../errors.js';

function withStatus(error: InvalidRequest, status: number): InvalidRequest {
  error.status = status;
  return error;
}

/** Bodies of sign-in forms are small; anything larger is refused with 413. */
const MAX_BODY_BYTES = 64 * 1024;

/** The cookies of this request: with `Secure` and the `__Secure-`/`__Host-` names on HTTPS (or as `useSecureCookies` says). */
export function cookieOptionsFor(req: Request, options: ResolvedConfig): CookiesOptions {
  const secure = options.useSecureCookies ?? (options.envOrigin ? options.envOrigin.startsWith('https:') : req.protocol === 'https');
  return secure ? options.cookies.secure : options.cookies.plain;
}

/** The request's path and its query string (without the `?`), as sent. */
function splitRequestUrl(req: Request): [pathname: string, query: string] {
  const url = req.originalUrl ?? req.url ?? '/';
  const index = url.indexOf('?');
  return index === -1 ? [url, ''] : [url.slice(0, index), url.slice(index + 1)];
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidRequest('The request path is not valid percent-encoding.');
  }
}

/**
 * Splits the path into the mount path as the browser sees it (`/auth`, `''` at the root) and the decoded segments
 * below it (`['callback', 'github']`). The mount comes from `basePath` when configured; otherwise from the wildcard
 * parameter (`/auth/*splat` on Express 5, `/auth/*` on Express 4), whose segment count is taken off the end of the
 * raw path; otherwise from `req.baseUrl` (`app.use('/auth', handler)`). Because the action is never searched for by
 * name, a mount path that contains an action name (`/providers/auth`) still routes correctly.
 */
export function routeRequest(req: Request, basePath: string | undefined): { mountPath: string; segments: string[] } | null {
  const [pathname] = splitRequestUrl(req);
  const trimmed = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if (basePath !== undefined) {
    if (trimmed !== basePath && !trimmed.startsWith(`${basePath}/`)) return null;
    return { mountPath: basePath, segments: splitSegments(trimmed.slice(basePath.length)) };
  }
  const params = (req.params ?? {}) as Record<string, unknown>;
  const wildcard = params['splat'] ?? params[0];
  const rawSegments = splitSegments(trimmed, false);
  if (wildcard !== undefined) {
    const count = Array.isArray(wildcard) ? wildcard.filter((part) => part !== '').length : String(wildcard).split('/').filter(Boolean).length;
    const mountSegments = rawSegments.slice(0, Math.max(0, rawSegments.length - count));
    return { mountPath: mountSegments.length ? `/${mountSegments.join('/')}` : '', segments: rawSegments.slice(mountSegments.length).map(decodeSegment) };
  }
  const baseUrl = (req.baseUrl ?? '').replace(/\/+$/, '');
  const mountCount = splitSegments(baseUrl, false).length;
  return { mountPath: baseUrl, segments: rawSegments.slice(mountCount).map(decodeSegment) };
}

function splitSegments(path: string, decode = true): string[] {
  const segments = path.split('/').filter(Boolean);
  return decode ? segments.map(decodeSegment) : segments;
}

/** The request's query parameters as single strings (the first of repeated ones). */
export function queryParams(req: Request): URLSearchParams {
  return new URLSearchParams(splitRequestUrl(req)[1]);
}

/** The request's cookies. */
export function requestCookies(req: Request): Map<string, string> {
  return parseCookieHeader(req.headers.cookie);
}

function parseBodyText(text: string, contentType: string): Record<string, unknown> {
  if (contentType.includes('application/json')) {
    if (!text.trim()) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new InvalidRequest('The request body is not valid JSON.');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new InvalidRequest('The request body must be a JSON object.');
    }
    return parsed as Record<string, unknown>;
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/**
 * The POST body: whatever a body parser mounted before the handler put on `req.body`, or the raw form/JSON body read
 * here (so the handler works without `express.urlencoded()`), limited to 64 KiB. Read single fields with `bodyField`.
 */
export async function readBody(req: Request): Promise<Record<string, unknown>> {
  const contentType = String(req.headers['content-type'] ?? '').toLowerCase();
  const parsed: unknown = req.body;
  if (parsed !== undefined && parsed !== null) {
    if (typeof parsed === 'string') return parseBodyText(parsed, contentType);
    if (Buffer.isBuffer(parsed)) return parseBodyText(parsed.toString('utf8'), contentType);
    // Express 4's body-parser sets `req.body = {}` even over a body it did not parse (a form behind express.json()).
    if (typeof parsed === 'object' && !Array.isArray(parsed) && (req.readableEnded || Object.keys(parsed).length > 0)) return parsed as Record<string, unknown>;
  }
  if (req.readableEnded || req.method === 'GET' || req.method === 'HEAD') return {};
  if (contentType && !contentType.includes('application/x-www-form-urlencoded') && !contentType.includes('application/json')) {
    throw withStatus(new InvalidRequest('Send the form as application/x-www-form-urlencoded or application/json.'), 415);
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw withStatus(new InvalidRequest('The request body is too large.'), 413);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw withStatus(new InvalidRequest('The request body is too large.'), 413);
    chunks.push(buffer);
  }
  return parseBodyText(Buffer.concat(chunks).toString('utf8'), contentType);
}

/** A body field as a string (the first of repeated ones); anything else is absent. */
export function bodyField(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

/** True when the client asked for JSON rather than a page. */
export function prefersJson(req: Request): boolean {
  const accept = String(req.headers.accept ?? '');
  if (!accept) return false;
  const json = accept.indexOf('application/json');
  const html = accept.indexOf('text/html');
  return json !== -1 && (html === -1 || json < html);
}
