/**
 * Where the app is: the one origin every URL it builds starts with. It comes from configuration (`AUTH_URL`, or a
 * request host on the `trustHost` allow-list) and, only when the app opts in with `trustHost: true`, from the
 * request's Host header. Emailed links and redirect-proxy targets never use a header-chosen origin: a client that
 * could choose it would receive other people's sign-in tokens.
 */
import type { Request } from 'express';
import type { RequestContext, ResolvedConfig, TrustedHostRule } from '../contracts.js';
import { InvalidRequest, UntrustedHost } from '../errors.js';

// A host name or IP literal with an optional port: no user info, path, spaces or other characters a URL could hide.
const hostPattern = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;

/**
 * `host[:port]` as a URL parses it (lower case, IPv6 in brackets, port within range), or null when malformed. The
 * port is the one written, `''` when none is: no scheme's default is dropped (`app.example.com:80` keeps `80`).
 */
function parseHost(value: string): { hostname: string; port: string } | null {
  const match = hostPattern.exec(value);
  if (!match) return null;
  try {
    const url = new URL(`http://${value}`);
    if (!url.hostname) return null;
    // url.port drops http's 80, which would read `Host: app.example.com:80` on an https request as port 443.
    return { hostname: url.hostname, port: match[1] === undefined ? '' : String(Number(match[1])) };
  } catch {
    return null;
  }
}

/**
 * Parses the `trustHost` list: host names (`app.example.com`, any port), `host:port`, `*.example.com` (any
 * subdomain) or origins (`https://app.example.com`). Throws a TypeError naming the entry that is none of these, or
 * that is a wildcard on a public suffix (`*.com`, `*.co.uk`).
 */
export function parseTrustedHosts(entries: readonly string[]): TrustedHostRule[] {
  return entries.map((raw) => {
    const entry = raw.trim();
    const rule = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? parseOriginEntry(entry) : parseHostEntry(entry);
    if (!rule) throw new TypeError(`trustHost entries are host names, host:port, *.domain or origins such as https://app.example.com (got "${raw}")`);
    const suffix = rule.subdomains ? publicSuffixKind(rule.hostname) : undefined;
    if (suffix) {
      throw new TypeError(
        `trustHost entry "${raw}" is a wildcard on a public suffix (${suffix}): it would trust every site anyone registers there. List your own domain, such as *.example.com.`,
      );
    }
    return rule;
  });
}

// Second-level labels under which countries' registries hand out names (co.uk, com.au, ne.jp, gob.mx, …).
const countrySecondLevelLabels = new Set(['co', 'com', 'net', 'org', 'gov', 'edu', 'ac', 'or', 'ne', 'go', 'gob', 'nic', 'mil']);

/**
 * Why a wildcard's domain (`.co.uk`) is a public suffix, or undefined. A small built-in rule, so that the runtime
 * needs no list: one label, or a common second-level label under a two-letter country code. `framework-auth doctor`
 * checks the entries against the full public-suffix list, which also knows hosting platforms' (`*.github.io`).
 */
function publicSuffixKind(domain: string): string | undefined {
  const labels = domain.split('.').filter(Boolean);
  if (labels.length === 1) return `${labels[0]} is a top-level domain`;
  const [second, country] = labels;
  if (labels.length === 2 && second && country && /^[a-z]{2}$/.test(country) && countrySecondLevelLabels.has(second)) {
    return `${second}.${country} is a country's second-level domain`;
  }
  return undefined;
}

function parseOriginEntry(entry: string): TrustedHostRule | null {
  if (!URL.canParse(entry)) return null;
  const url = new URL(entry);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) return null;
  // An origin names its port: the scheme's default when absent.
  return { protocol: url.protocol, hostname: url.hostname, subdomains: false, port: url.port || defaultPort(url.protocol) };
}

function parseHostEntry(entry: string): TrustedHostRule | null {
  const subdomains = entry.startsWith('*.');
  const host = subdomains ? entry.slice(2) : entry;
  const parsed = host.includes('*') ? null : parseHost(host);
  if (!parsed) return null;
  return { hostname: subdomains ? `.${parsed.hostname}` : parsed.hostname, subdomains, ...(parsed.port && { port: parsed.port }) };
}

/**
 * Whether a URL's host name is this machine: a loopback IP literal (127.0.0.0/8, `[::1]`) or exactly `localhost`.
 * A name that merely starts with `127.` (`127.attacker.example`) is a remote host. A WHATWG URL has already turned
 * every IPv4 spelling (`127.1`, `0x7f.0.0.1`, 2130706433) into a dotted quad.
 */
export function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

/**
 * Whether `origin` is on the allow-list. An entry without a scheme only matches https origins, or http on a
 * loopback host (development); an entry with a scheme matches it exactly.
 */
export function isTrustedOrigin(rules: readonly TrustedHostRule[], origin: string): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return rules.some((rule) => {
    const schemeMatches = rule.protocol ? url.protocol === rule.protocol : url.protocol === 'https:' || isLoopbackHostname(url.hostname);
    return schemeMatches && matchesHost(rule, url.hostname, url.port || defaultPort(url.protocol));
  });
}

function matchesHost(rule: TrustedHostRule, hostname: string, port: string): boolean {
  if (rule.port !== undefined && rule.port !== port) return false;
  return rule.subdomains ? hostname.endsWith(rule.hostname) && hostname.length > rule.hostname.length : hostname === rule.hostname;
}

function forwardedHost(req: Request): string | undefined {
  // Express 5's req.host does exactly this; Express 4's req.host drops the port, so read the headers directly.
  const trust = req.app?.get('trust proxy fn') as ((address: string | undefined, hop: number) => boolean) | undefined;
  const header = req.headers['x-forwarded-host'];
  if (!header || !trust?.(req.socket?.remoteAddress, 0)) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(',')[0]?.trim() || undefined;
}

/**
 * The origin every URL of this request is built on (and `linkOrigin`, see `hostEntryOrigin`): `AUTH_URL`'s when set;
 * otherwise the request's protocol (`req.protocol`, which follows `X-Forwarded-Proto` only when `trust proxy` trusts
 * the hop) and host (`X-Forwarded-Host` likewise), which must be on the `trustHost` list, or be any host under
 * `trustHost: true`. A malformed host is `InvalidRequest` (400); an untrusted one `UntrustedHost` (400).
 */
export function requestOrigin(
  req: Request,
  settings: Pick<ResolvedConfig, 'envOrigin' | 'trustHost' | 'trustedHosts'>,
): Pick<RequestContext, 'origin' | 'linkOrigin'> {
  if (settings.envOrigin) return { origin: settings.envOrigin, linkOrigin: settings.envOrigin };
  if (!settings.trustHost && settings.trustedHosts.length === 0) {
    throw new UntrustedHost('The Host header is not trusted: set AUTH_URL to the app URL, or list the hosts in trustHost / AUTH_TRUST_HOST.');
  }
  const header = forwardedHost(req) ?? req.headers.host;
  const host = header ? parseHost(header) : null;
  if (!host) throw new InvalidRequest('The request has no valid Host header.');
  const protocol = req.protocol === 'https' ? 'https:' : 'http:';
  const origin = new URL(`${protocol}//${header}`).origin;
  if (settings.trustedHosts.length > 0) {
    const matches = (rule: TrustedHostRule) => matchesHost(rule, host.hostname, host.port || defaultPort(protocol));
    // An origin entry matches its own scheme and port only: the link goes where the request came.
    if (settings.trustedHosts.some((rule) => rule.protocol === protocol && matches(rule))) return { origin, linkOrigin: origin };
    const rule = settings.trustedHosts.find((candidate) => candidate.protocol === undefined && matches(candidate));
    if (rule) return { origin, linkOrigin: hostEntryOrigin(rule, host.hostname, origin) };
    throw new UntrustedHost('The Host header names a host that is not on the trustHost list.');
  }
  return { origin, linkOrigin: undefined };
}

/**
 * The origin of a link built on an entry without a scheme: https, on the entry's port or the default one. A client
 * that chose http or another port (`Host: app.example.com:8080`) would have the link sent where someone else may
 * listen. A loopback host keeps the request's origin (development, as isTrustedOrigin allows): such a link only
 * leads back to the machine it is opened on.
 */
function hostEntryOrigin(rule: TrustedHostRule, hostname: string, requestedOrigin: string): string {
  if (isLoopbackHostname(hostname)) return requestedOrigin;
  return new URL(`https://${hostname}${rule.port ? `:${rule.port}` : ''}`).origin;
}
