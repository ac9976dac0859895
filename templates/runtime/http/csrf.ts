/**
 * CSRF protection by double-submit cookie, as Auth.js: the cookie holds `token|sha256hex(token + secret)`, so only
 * the server can mint a valid pair, and every state-changing POST must echo `token` in its body.
 * @see https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html#signed-double-submit-cookie-recommended
 */
import { hash, randomBytes } from 'node:crypto';
import type { RequestContext } from '../contracts.js';
import { setCookie } from '../context.js';
import { MissingCSRF } from '../errors.js';
import { bodyField } from './request.js';
import { safeEqual } from './safe-equal.js';

function hashToken(token: string, secret: string): string {
  return hash('sha256', `${token}${secret}`, 'hex');
}

/** The token of a CSRF cookie whose hash matches one of the secrets, or null. */
function verifyCsrfCookie(cookieValue: string | undefined, secrets: readonly string[]): string | null {
  if (!cookieValue) return null;
  const separator = cookieValue.indexOf('|');
  if (separator <= 0) return null;
  const token = cookieValue.slice(0, separator);
  const hash = cookieValue.slice(separator + 1);
  for (const secret of secrets) {
    if (safeEqual(hash, hashToken(token, secret))) return token;
  }
  return null;
}

/** The CSRF token of the request's valid CSRF cookie, or a new one (queued as a cookie, signed with the newest secret). */
export function csrfTokenOf(context: RequestContext): string {
  const option = context.cookieOptions.csrfToken;
  const existing = verifyCsrfCookie(context.cookies.get(option.name), context.options.secrets);
  if (existing) return existing;
  const token = randomBytes(32).toString('hex');
  const value = `${token}|${hashToken(token, context.options.secrets[0]!)}`;
  // A second ask in this request (a page and its banner) gets the same token.
  context.cookies.set(option.name, value);
  setCookie(context, option, value);
  return token;
}

/** Refuses a POST whose `csrfToken` does not match the CSRF cookie. */
export function verifyCsrf(context: RequestContext, body: Record<string, unknown>): void {
  const expected = verifyCsrfCookie(context.cookies.get(context.cookieOptions.csrfToken.name), context.options.secrets);
  const submitted = bodyField(body, 'csrfToken');
  if (!expected || !submitted || !safeEqual(expected, submitted)) {
    throw new MissingCSRF(expected ? 'The csrfToken in the body does not match the CSRF cookie' : 'The CSRF cookie is missing or invalid');
  }
}
