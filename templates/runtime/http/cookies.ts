/**
 * Cookie names, options, parsing and chunking. Names and the chunking scheme match Auth.js so that users who move
 * from `@auth/express` stay signed in.
 */
import type { CookieOption, CookiesOptions, CookiesOverrides, OutgoingCookie } from '../contracts.js';

/** Short-lived cookies of the OAuth checks live 15 minutes, as in Auth.js. */
const CHECK_COOKIE_MAX_AGE = 15 * 60;

/**
 * The default cookies. On HTTPS they get the `__Secure-` prefix (`__Host-` for the CSRF cookie, which is never
 * shared with subdomains) and the `Secure` attribute.
 */
export function defaultCookies(useSecureCookies: boolean): CookiesOptions {
  const prefix = useSecureCookies ? '__Secure-' : '';
  const base = { httpOnly: true, sameSite: 'lax' as const, path: '/', secure: useSecureCookies };
  return {
    sessionToken: { name: `${prefix}authjs.session-token`, options: { ...base } },
    callbackUrl: { name: `${prefix}authjs.callback-url`, options: { ...base } },
    csrfToken: { name: `${useSecureCookies ? '__Host-' : ''}authjs.csrf-token`, options: { ...base } },
    pkceCodeVerifier: { name: `${prefix}authjs.pkce.code_verifier`, options: { ...base, maxAge: CHECK_COOKIE_MAX_AGE } },
    state: { name: `${prefix}authjs.state`, options: { ...base, maxAge: CHECK_COOKIE_MAX_AGE } },
    nonce: { name: `${prefix}authjs.nonce`, options: { ...base, maxAge: CHECK_COOKIE_MAX_AGE } },
    webauthnChallenge: { name: `${prefix}authjs.challenge`, options: { ...base, maxAge: CHECK_COOKIE_MAX_AGE } },
  };
}

/** Merges user overrides over the defaults without touching either. */
export function mergeCookies(defaults: CookiesOptions, overrides: CookiesOverrides | undefined): CookiesOptions {
  if (!overrides) return defaults;
  const merged = { ...defaults };
  for (const key of Object.keys(defaults) as (keyof CookiesOptions)[]) {
    const override = overrides[key];
    if (!override) continue;
    merged[key] = {
      name: override.name ?? defaults[key].name,
      options: { ...defaults[key].options, ...override.options },
    };
  }
  return merged;
}

/**
 * Parses a `Cookie` header. Malformed pairs are skipped, and the first occurrence of a name wins, as browsers send
 * the most specific cookie first.
 */
export function parseCookieHeader(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator <= 0) continue;
    const name = pair.slice(0, separator).trim();
    if (!name || cookies.has(name)) continue;
    cookies.set(name, cookieValue(pair.slice(separator + 1)));
  }
  return cookies;
}

/**
 * The value `parseCookieHeader(header).get(name)` gives (the first cookie of that name, trimmed, unquoted and
 * decoded), without parsing the other cookies of the header.
 */
export function findCookie(header: string, name: string): string | undefined {
  if (!name) return undefined;
  for (let start = 0; start < header.length; ) {
    let end = header.indexOf(';', start);
    if (end === -1) end = header.length;
    const separator = header.indexOf('=', start);
    if (separator > start && separator < end && header.slice(start, separator).trim() === name) {
      return cookieValue(header.slice(separator + 1, end));
    }
    start = end + 1;
  }
  return undefined;
}

/** A cookie's value as sent: trimmed, unquoted, and decoded when it is valid percent-encoding. */
function cookieValue(raw: string): string {
  const trimmed = raw.trim();
  const value = trimmed.startsWith('"') && trimmed.endsWith('"') && trimmed.length >= 2 ? trimmed.slice(1, -1) : trimmed;
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const cookieNamePattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** What `encodeURIComponent` keeps: a value of only these (a token's base64url) skips its C++ pass over each character. */
const unreservedPattern = /^[\w.!~*'()-]*$/;

/** Serializes one cookie as a `Set-Cookie` value, exactly as Auth.js does. */
export function serializeCookie(cookie: OutgoingCookie): string {
  if (!cookieNamePattern.test(cookie.name)) throw new TypeError(`Invalid cookie name "${cookie.name}"`);
  // Byte for byte what Auth.js writes (its vendored `cookie` serializer): the value always URL-encoded (so the CSRF
  // cookie is `token%7Chash`, which Auth.js clients read), then Max-Age, Domain, Path, Expires, HttpOnly, Secure,
  // SameSite in that order.
  const { options } = cookie;
  let header = `${cookie.name}=${unreservedPattern.test(cookie.value) ? cookie.value : encodeURIComponent(cookie.value)}`;
  if (options.maxAge !== undefined) header += `; Max-Age=${Math.floor(options.maxAge)}`;
  if (options.domain) header += `; Domain=${options.domain}`;
  header += `; Path=${options.path}`;
  if (options.expires) header += `; Expires=${options.expires.toUTCString()}`;
  if (options.httpOnly) header += '; HttpOnly';
  if (options.secure) header += '; Secure';
  header += `; SameSite=${options.sameSite === 'none' ? 'None' : options.sameSite === 'strict' ? 'Strict' : 'Lax'}`;
  return header;
}

/** A cookie that tells the browser to delete `name`. */
export function expiredCookie(name: string, options: CookieOption['options']): OutgoingCookie {
  return { name, value: '', options: { ...options, maxAge: 0, expires: new Date(0) } };
}

/**
 * Browsers refuse cookies over 4096 bytes. A chunk's value leaves room for the name, the `.N` suffix and the
 * attributes (`Path`, `Expires`, `HttpOnly`, `Secure`, `SameSite`, about 160 bytes), as Auth.js does.
 */
const MAX_COOKIE_SIZE = 4096;
const ATTRIBUTES_ALLOWANCE = 160;

/** Reads a possibly chunked cookie (`name`, or `name.0`, `name.1`, …). Missing chunks make it absent. */
export function readChunkedCookie(cookies: Map<string, string>, name: string): string | undefined {
  const whole = cookies.get(name);
  if (whole !== undefined || !cookies.has(`${name}.0`)) return whole;
  let value = '';
  for (let index = 0; cookies.has(`${name}.${index}`); index++) value += cookies.get(`${name}.${index}`) ?? '';
  return value;
}

/** Whether the cookie `key` holds `name`, whole or as a chunk (`name.0`, `name.1`, …). */
export function isChunkOf(key: string, name: string): boolean {
  return key === name || (key.startsWith(`${name}.`) && /^\d+$/.test(key.slice(name.length + 1)));
}

/** Names of the cookies that currently hold `name` (whole or chunks), so that stale ones can be removed. */
function existingChunkNames(cookies: Map<string, string>, name: string): string[] {
  return [...cookies.keys()].filter((key) => isChunkOf(key, name));
}

/**
 * The cookies that store `value` under `name`, split into chunks below 4096 bytes when needed, plus deletions of
 * whatever chunks the request held that the new value does not use.
 */
export function chunkCookie(
  cookies: Map<string, string>,
  option: CookieOption,
  value: string,
  extra: { maxAge?: number; expires?: Date } = {},
): OutgoingCookie[] {
  const options = { ...option.options, ...extra };
  const chunkSize = MAX_COOKIE_SIZE - ATTRIBUTES_ALLOWANCE - option.name.length - 4;
  const outgoing: OutgoingCookie[] = [];
  if (value.length <= chunkSize) {
    outgoing.push({ name: option.name, value, options });
  } else {
    for (let index = 0, offset = 0; offset < value.length; index++, offset += chunkSize) {
      outgoing.push({ name: `${option.name}.${index}`, value: value.slice(offset, offset + chunkSize), options });
    }
  }
  const written = new Set(outgoing.map((cookie) => cookie.name));
  for (const stale of existingChunkNames(cookies, option.name)) {
    if (!written.has(stale)) outgoing.push(expiredCookie(stale, option.options));
  }
  return outgoing;
}

/** Deletions of every chunk of `name` the request holds. */
export function clearChunkedCookie(cookies: Map<string, string>, option: CookieOption): OutgoingCookie[] {
  return existingChunkNames(cookies, option.name).map((name) => expiredCookie(name, option.options));
}
