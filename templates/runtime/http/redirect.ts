/**
 * Where users are sent after sign-in and sign-out. The `redirect` callback decides, and whatever it returns, a URL
 * of another origin is replaced by the app's origin: the handler is never an open redirect.
 */
import type { RequestContext } from '../contracts.js';

/** Resolves `url` against the origin when it is same-origin; null otherwise. */
function sameOriginUrl(url: string, origin: string): string | null {
  // Browsers read `/\host` and `\\host` as `//host`; control characters can hide a scheme.
  for (let index = 0; index < url.length; index++) {
    const code = url.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return null;
  }
  if (!URL.canParse(url, `${origin}/`)) return null;
  const parsed = new URL(url, `${origin}/`);
  if (parsed.origin !== origin) return null;
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return parsed.href;
}

/** Where to send the user: `requested` through the `redirect` callback, kept only if same-origin; else the origin. */
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

/** A `callbackUrl` from the query or body, kept only when same-origin (a page re-posts it). */
export function safeCallbackParam(context: RequestContext, value: string | null | undefined): string | undefined {
  return value ? (sameOriginUrl(value, context.origin) ?? undefined) : undefined;
}

/** A configured custom page (`pages.*`) as an absolute URL with query parameters. */
export function customPageUrl(context: RequestContext, page: string, params: Record<string, string | undefined>): string {
  const url = new URL(page, `${context.origin}/`);
  for (const [key, value] of Object.entries(params)) if (value) url.searchParams.set(key, value);
  return url.href;
}
