/**
 * PKCE verifier, state and nonce travel between sign-in and callback in short-lived cookies, each encrypted with
 * the session scheme (salt = its cookie name) so that they can be neither read nor forged by the browser.
 */
import type { CookieOption } from '../cookies.js';
import { type RequestContext, setCookie } from '../context.js';
import { InvalidCheck } from '../errors.js';

/** Stores `value` in the check cookie `option`, valid for the cookie's max age (15 minutes). */
export async function writeCheckCookie(context: RequestContext, option: CookieOption, payload: Record<string, unknown>): Promise<void> {
  const { options } = context;
  const maxAge = option.options.maxAge ?? 15 * 60;
  const value = await options.jwt.encode({ token: payload, secret: options.secrets, salt: option.name, maxAge });
  context.outgoing.push({ name: option.name, value, options: { ...option.options, expires: new Date(Date.now() + maxAge * 1000) } });
}

/**
 * Reads and deletes a check cookie: every check is single-use, so a replayed callback finds nothing. Throws
 * `InvalidCheck` naming the check when the cookie is missing, expired or not ours.
 */
export async function consumeCheckCookie(context: RequestContext, option: CookieOption, check: string): Promise<Record<string, unknown>> {
  const raw = context.cookies.get(option.name);
  if (raw === undefined) throw new InvalidCheck(`The ${check} cookie is missing: the sign-in was started in another browser, took over 15 minutes, or was already completed.`);
  setCookie(context, option, null);
  try {
    const payload = await context.options.jwt.decode({ token: raw, secret: context.options.secrets, salt: option.name });
    if (!payload) throw new Error('empty');
    return payload as Record<string, unknown>;
  } catch (error) {
    throw new InvalidCheck(`The ${check} cookie could not be read`, { cause: error instanceof Error ? error : undefined });
  }
}
