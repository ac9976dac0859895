/**
 * PKCE verifier, state, nonce, the OAuth 1.0a request token and the WebAuthn challenge travel between the start of
 * a sign-in and its callback in short-lived cookies, each encrypted with the session scheme (salt = its cookie
 * name) so that they can be neither read nor forged by the browser. Each records the provider that started the
 * flow, and only that provider's callback may consume it: a callback for provider B finishing a flow begun with
 * provider A is the mix-up attack of RFC 9700 §4.4, which an `iss` check cannot stop for providers without an
 * issuer (Discord, GitLab, the microblog network, custom OAuth).
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.4
 */
import type { CookieOption, RequestContext } from '../contracts.js';
import { setCookie } from '../context.js';
import { InvalidCheck } from '../errors.js';

/** Stores `payload` in the check cookie `option`, bound to `providerId`, valid for its max age (15 minutes). */
export async function writeCheckCookie(
  context: RequestContext,
  option: CookieOption,
  providerId: string,
  payload: Record<string, unknown>,
): Promise<void> {
  const { options } = context;
  const maxAge = option.options.maxAge ?? 15 * 60;
  const value = await options.jwt.encode({ token: { ...payload, provider: providerId }, secret: options.secrets, salt: option.name, maxAge });
  context.outgoing.push({ name: option.name, value, options: { ...option.options, expires: new Date(Date.now() + maxAge * 1000) } });
}

/**
 * Reads and deletes a check cookie: every check is single-use, so a replayed callback finds nothing. Throws
 * `InvalidCheck` naming the check when the cookie is missing, expired or not ours, or when it was written for
 * another provider than `providerId` (it is deleted all the same).
 */
export async function consumeCheckCookie(
  context: RequestContext,
  option: CookieOption,
  check: string,
  providerId: string,
): Promise<Record<string, unknown>> {
  const raw = context.cookies.get(option.name);
  if (raw === undefined) throw new InvalidCheck(`The ${check} cookie is missing: the sign-in was started in another browser, took over 15 minutes, or was already completed.`);
  setCookie(context, option, null);
  let payload: Record<string, unknown>;
  try {
    const decoded = await context.options.jwt.decode({ token: raw, secret: context.options.secrets, salt: option.name });
    if (!decoded) throw new Error('empty');
    payload = decoded as Record<string, unknown>;
  } catch (error) {
    throw new InvalidCheck(`The ${check} cookie could not be read`, { cause: error instanceof Error ? error : undefined });
  }
  const startedWith = payload['provider'];
  if (startedWith !== providerId) {
    const which = typeof startedWith === 'string' ? `provider "${startedWith}"` : 'no provider';
    throw new InvalidCheck(`The ${check} cookie was issued for ${which}, not for "${providerId}": a callback may only finish a sign-in started with its own provider.`);
  }
  return payload;
}
