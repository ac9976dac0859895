/**
 * Where users are sent after sign-in and sign-out. The `redirect` callback decides, and whatever it returns, a URL
 * of another origin is replaced by the app's origin: the handler is never an open redirect.
 */
import type { RequestContext } from './context.js';

/** Resolves `url` against the origin when it is same-origin; null otherwise. */
export function sameOriginUrl(url: string, origin: string): string | null {
  // Browsers read `/\host` and `\\host` as `//host`; control characters can hide a scheme.
  for (let index = 0; index < url.length; index++) {
    const code = url.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(url, `${origin}/`);
  } catch {
    return null;
  }
  if (parsed.origin !== origin) return null;
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return parsed.href;
}

/**
 * The URL to send the user to: `requested` passed through the `redirect` callback, kept only if same-origin.
 * Falls back to the origin.
 */
export async function resolveRedirect(context: RequestContext, requested: string | undefined): Promise<string> {
  const { origin, options } = context;
  const candidate = requested?.trim() ? requested.trim() : origin;
  let decided: string;
  try {
    decided = await options.callbacks.redirect({ url: candidate, baseUrl: origin });
  } catch (error) {
    options.logger.error(error instanceof Error ? error : new Error(String(error)));
    return `${origin}/`;
  }
  return (typeof decided === 'string' && sameOriginUrl(decided, origin)) || `${origin}/`;
}
