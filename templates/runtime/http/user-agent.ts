/**
 * The client's browser as it names itself (for the session list, features/database/, and the security events) and as a
 * person names it ("Firefox on Linux": the account page and the security notifications).
 */
import type { Request } from 'express';

/** Longest `User-Agent` kept: the header is the client's to choose, the column is ours to bound. */
const MAX_USER_AGENT_LENGTH = 512;

/** The request's `User-Agent` without control characters (no forged log lines), bounded; null when there is none. */
export function userAgentOf(req: Request): string | null {
  const header = req.headers['user-agent'];
  if (typeof header !== 'string') return null;
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const cleaned = header.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, MAX_USER_AGENT_LENGTH);
  return cleaned || null;
}

/** Browsers by a token of their `User-Agent`, most specific first (Edge and Opera also claim to be Chrome). */
const browsers: readonly (readonly [RegExp, string])[] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+ .*\bSafari\//, 'Safari'],
];

/** Systems, most specific first (Android says Linux, iOS says "like Mac OS X"). */
const systems: readonly (readonly [RegExp, string])[] = [
  [/\bWindows\b/, 'Windows'],
  [/\bAndroid\b/, 'Android'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\b(?:Macintosh|Mac OS X)\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

function firstMatch(table: readonly (readonly [RegExp, string])[], userAgent: string): string | undefined {
  return table.find(([pattern]) => pattern.test(userAgent))?.[1];
}

/** The browser and system a `User-Agent` names, each undefined when unknown; versions are left out. */
export function browserParts(userAgent: string | null): { browser: string | undefined; system: string | undefined } {
  if (!userAgent) return { browser: undefined, system: undefined };
  return { browser: firstMatch(browsers, userAgent), system: firstMatch(systems, userAgent) };
}

/**
 * A browser as a person names it: "Firefox on Linux", "Safari on iOS", "a browser on Windows", or "an unknown
 * browser". Never the `User-Agent` itself, which the client wrote.
 */
export function browserOf(userAgent: string | null): string {
  const { browser, system } = browserParts(userAgent);
  if (browser && system) return `${browser} on ${system}`;
  if (browser) return browser;
  if (system) return `a browser on ${system}`;
  return 'an unknown browser';
}
