/**
 * A small cookie jar plus a fetch wrapper for end-to-end tests that talk to real HTTP servers on 127.0.0.1.
 *
 * Deliberate differences from a browser (all in the direction of making tests explicit):
 * - Cookies are keyed by host AND port, so an app on 127.0.0.1:A and a provider on 127.0.0.1:B never see each
 *   other's cookies (browsers ignore the port for cookies).
 * - Redirects are never followed implicitly; use `follow()` to walk them hop by hop.
 * - Secure cookies are stored from any response but only sent to https URLs, or to http URLs when the jar was
 *   created with `assumeHttps: true` or the request itself carries `X-Forwarded-Proto: https` (the way tests
 *   simulate an app sitting behind a TLS-terminating proxy).
 * - SameSite is recorded but not enforced.
 */

export interface StoredCookie {
  name: string;
  value: string;
  /** Lower-cased host (or Domain attribute value) the cookie belongs to. */
  domain: string;
  /** Port the cookie was set from; cookies never cross ports. */
  port: string;
  /** True when the cookie had no Domain attribute (sent to that exact host only). */
  hostOnly: boolean;
  path: string;
  /** Epoch milliseconds; undefined for session cookies. */
  expires: number | undefined;
  secure: boolean;
  httpOnly: boolean;
  sameSite: string | undefined;
  /** Insertion order, used as the RFC 6265 tie-breaker when serialising. */
  created: number;
}

export interface JarOptions {
  /** Send Secure cookies to http URLs too (pretend every request went through an https proxy). */
  assumeHttps?: boolean;
  /** Clock for expiry decisions, epoch milliseconds. Defaults to Date.now (so vitest fake timers apply). */
  now?: () => number;
}

export interface FollowOptions {
  /** Maximum number of redirects to follow (default 10); exceeding it throws. */
  maxHops?: number;
  /** Return the redirect response instead of following it when this returns true for the next URL. */
  stopAt?: (next: URL) => boolean;
}

export interface FollowResult {
  /** The last response received (a redirect response when `stopAt` stopped the walk). */
  response: Response;
  /** URL of the last request made. */
  url: string;
  /** Every URL requested, in order, starting with the first one. */
  urls: string[];
  /** The unfollowed redirect target when `stopAt` stopped the walk. */
  stoppedAt: string | undefined;
}

export interface CookieJar {
  /** fetch() with this jar's cookies attached and Set-Cookie stored; never follows redirects. */
  fetch(input: string | URL, init?: RequestInit): Promise<Response>;
  /** Follows redirects by hand: 303 (and 301/302 after a non-GET) switch to GET without a body, 307/308 replay. */
  follow(input: string | URL, init?: RequestInit, options?: number | FollowOptions): Promise<FollowResult>;
  /** Value of cookie `name`: the one that would be sent to `url` when given, else the first stored one. */
  get(name: string, url?: string | URL): string | undefined;
  /** Stores a cookie as if `url` had answered with this Set-Cookie header value. */
  set(url: string | URL, setCookie: string): void;
  /** Cookies that would be sent to `url`, in Cookie header order. */
  cookies(url: string | URL, options?: { secure?: boolean }): StoredCookie[];
  /** The Cookie header value for `url` ('' when none). */
  header(url: string | URL, options?: { secure?: boolean }): string;
  /** Every unexpired stored cookie. */
  all(): StoredCookie[];
  clear(): void;
}

export function createJar(options: JarOptions = {}): CookieJar {
  const now = options.now ?? Date.now;
  let store: StoredCookie[] = [];
  let counter = 0;

  const prune = (): void => {
    const t = now();
    store = store.filter((c) => c.expires === undefined || c.expires > t);
  };

  const set = (input: string | URL, setCookie: string): void => {
    const url = new URL(input);
    const parsed = parseSetCookie(setCookie, url, now());
    if (!parsed) return;
    const existing = store.findIndex(
      (c) => c.name === parsed.name && c.domain === parsed.domain && c.port === parsed.port && c.path === parsed.path,
    );
    if (existing !== -1) {
      // Replacing keeps the original creation order, as RFC 6265 5.3 step 11 says.
      parsed.created = store[existing]!.created;
      store.splice(existing, 1);
    } else {
      parsed.created = counter++;
    }
    // Expired-on-arrival (Max-Age=0, past Expires) is how servers delete cookies: drop it and store nothing.
    if (parsed.expires !== undefined && parsed.expires <= now()) return;
    store.push(parsed);
  };

  const cookies = (input: string | URL, opts: { secure?: boolean } = {}): StoredCookie[] => {
    prune();
    const url = new URL(input);
    const secure = opts.secure ?? (url.protocol === 'https:' || options.assumeHttps === true);
    const host = url.hostname.toLowerCase();
    const port = effectivePort(url);
    return store
      .filter(
        (c) =>
          c.port === port &&
          (c.hostOnly ? c.domain === host : domainMatches(host, c.domain)) &&
          pathMatches(url.pathname || '/', c.path) &&
          (!c.secure || secure),
      )
      .sort((a, b) => b.path.length - a.path.length || a.created - b.created);
  };

  const header = (input: string | URL, opts: { secure?: boolean } = {}): string =>
    cookies(input, opts)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');

  const jarFetch = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input);
    const headers = new Headers(init.headers);
    const forwardedHttps = headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
    const fromJar = header(url, forwardedHttps ? { secure: true } : {});
    if (fromJar) {
      const explicit = headers.get('cookie');
      headers.set('cookie', explicit ? `${explicit}; ${fromJar}` : fromJar);
    }
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const value of response.headers.getSetCookie()) set(url, value);
    return response;
  };

  const follow = async (
    input: string | URL,
    init: RequestInit = {},
    opts: number | FollowOptions = {},
  ): Promise<FollowResult> => {
    const { maxHops = 10, stopAt } = typeof opts === 'number' ? { maxHops: opts } : opts;
    const first = new URL(input);
    let url = first;
    let current: RequestInit = init;
    const urls: string[] = [];
    for (let hop = 0; ; hop++) {
      urls.push(url.href);
      const response = await jarFetch(url, current);
      const location = response.headers.get('location');
      if (!isRedirect(response.status) || location === null) {
        return { response, url: url.href, urls, stoppedAt: undefined };
      }
      const next = new URL(location, url);
      if (stopAt?.(next)) {
        return { response, url: url.href, urls, stoppedAt: next.href };
      }
      if (hop >= maxHops) {
        throw new Error(`follow(): more than ${maxHops} redirects, visited ${urls.join(' -> ')} -> ${next.href}`);
      }
      await response.body?.cancel();
      current = nextHopInit(current, response.status, first.origin === next.origin);
      url = next;
    }
  };

  return {
    fetch: jarFetch,
    follow,
    get(name, input) {
      if (input !== undefined) return cookies(input).find((c) => c.name === name)?.value;
      prune();
      return store.find((c) => c.name === name)?.value;
    },
    set,
    cookies,
    header,
    all() {
      prune();
      return store.map((c) => ({ ...c }));
    },
    clear() {
      store = [];
    },
  };
}

/**
 * `init` spread for a urlencoded POST body: `jar.fetch(url, { method: 'POST', ...formBody({ a: '1' }) })`.
 * Array values repeat the key; undefined values are skipped.
 */
export function formBody(fields: Record<string, string | number | boolean | readonly string[] | undefined>): {
  body: URLSearchParams;
  headers: Record<string, string>;
} {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value as readonly string[]) body.append(key, v);
    else body.append(key, String(value));
  }
  return { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/**
 * Request options for the next hop, following the fetch spec's method rewriting. Custom headers only travel to
 * the same origin as the first request (a proxy header such as X-Forwarded-Proto belongs to the app, and
 * credentials must not leak cross-origin).
 */
function nextHopInit(previous: RequestInit, status: number, sameOrigin: boolean): RequestInit {
  const method = (previous.method ?? 'GET').toUpperCase();
  const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  const headers = new Headers(sameOrigin ? previous.headers : undefined);
  if (toGet) {
    for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language']) headers.delete(name);
    return { method: method === 'HEAD' ? 'HEAD' : 'GET', headers };
  }
  return { method, headers, ...(previous.body !== undefined ? { body: previous.body } : {}) };
}

function effectivePort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

function parseSetCookie(header: string, url: URL, now: number): StoredCookie | undefined {
  const [pair = '', ...attributes] = header.split(';');
  const eq = pair.indexOf('=');
  if (eq === -1) return undefined;
  const name = pair.slice(0, eq).trim();
  const value = pair.slice(eq + 1).trim();
  if (!name) return undefined;

  const host = url.hostname.toLowerCase();
  const cookie: StoredCookie = {
    name,
    value,
    domain: host,
    port: effectivePort(url),
    hostOnly: true,
    path: defaultPath(url.pathname),
    expires: undefined,
    secure: false,
    httpOnly: false,
    sameSite: undefined,
    created: 0,
  };

  let maxAge: number | undefined;
  let expires: number | undefined;
  for (const attribute of attributes) {
    const i = attribute.indexOf('=');
    const key = (i === -1 ? attribute : attribute.slice(0, i)).trim().toLowerCase();
    const val = i === -1 ? '' : attribute.slice(i + 1).trim();
    switch (key) {
      case 'max-age':
        if (/^-?\d+$/.test(val)) maxAge = Number(val);
        break;
      case 'expires': {
        const t = Date.parse(val);
        if (!Number.isNaN(t)) expires = t;
        break;
      }
      case 'domain': {
        const domain = val.replace(/^\./, '').toLowerCase();
        if (!domain) break;
        // A Domain the request host does not belong to makes the whole cookie invalid (RFC 6265 5.3 step 6).
        if (!domainMatches(host, domain)) return undefined;
        cookie.domain = domain;
        cookie.hostOnly = false;
        break;
      }
      case 'path':
        cookie.path = val.startsWith('/') ? val : defaultPath(url.pathname);
        break;
      case 'secure':
        cookie.secure = true;
        break;
      case 'httponly':
        cookie.httpOnly = true;
        break;
      case 'samesite':
        cookie.sameSite = val.toLowerCase();
        break;
    }
  }
  // Max-Age wins over Expires (RFC 6265 5.3 step 3); Max-Age <= 0 means "already expired".
  if (maxAge !== undefined) cookie.expires = maxAge <= 0 ? -Infinity : now + maxAge * 1000;
  else if (expires !== undefined) cookie.expires = expires;
  return cookie;
}

/** RFC 6265 5.1.4 default-path: the request path up to, not including, its last '/'. */
function defaultPath(pathname: string): string {
  if (!pathname.startsWith('/')) return '/';
  const last = pathname.lastIndexOf('/');
  return last <= 0 ? '/' : pathname.slice(0, last);
}

/** RFC 6265 5.1.4 path-match. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

/** RFC 6265 5.1.3 domain-match; IP addresses only match themselves. */
function domainMatches(host: string, domain: string): boolean {
  if (host === domain) return true;
  const isIp = /^[\d.]+$/.test(host) || host.includes(':');
  return !isIp && host.endsWith(`.${domain}`);
}
