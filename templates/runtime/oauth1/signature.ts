/**
 * OAuth 1.0a request signing with HMAC-SHA1: the signature base string of RFC 5849 §3.4.1, the key of §3.4.2 and
 * the `Authorization: OAuth …` header of §3.5.1. Only what signing needs; the flow lives in flow.ts.
 * @see https://www.rfc-editor.org/rfc/rfc5849#section-3.4
 */
import { createHmac, randomBytes } from 'node:crypto';

/** Percent-encoding of RFC 5849 §3.6: everything but ALPHA, DIGIT, `-`, `.`, `_` and `~`, in upper-case hex. */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The base string URI of §3.4.1.2: scheme and host lower-cased, default port dropped, no query or fragment. */
export function baseStringUri(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/**
 * The signature base string (§3.4.1): method, base string URI, and every parameter (query, form body, `oauth_*`
 * except the signature) encoded, sorted by name then value, and joined.
 */
export function signatureBaseString(method: string, url: URL, parameters: ReadonlyArray<readonly [string, string]>): string {
  const encoded = parameters.map(([name, value]) => [percentEncode(name), percentEncode(value)] as const);
  encoded.sort(([nameA, valueA], [nameB, valueB]) => (nameA < nameB ? -1 : nameA > nameB ? 1 : valueA < valueB ? -1 : valueA > valueB ? 1 : 0));
  const normalised = encoded.map(([name, value]) => `${name}=${value}`).join('&');
  return [method.toUpperCase(), percentEncode(baseStringUri(url)), percentEncode(normalised)].join('&');
}

/** HMAC-SHA1 of the base string, keyed with the client secret and the token secret (§3.4.2), in base64. */
export function hmacSha1Signature(baseString: string, clientSecret: string, tokenSecret = ''): string {
  const key = `${percentEncode(clientSecret)}&${percentEncode(tokenSecret)}`;
  return createHmac('sha1', key).update(baseString).digest('base64');
}

/** What a signed request needs. */
export interface OAuth1SigningParams {
  method: 'GET' | 'POST';
  url: URL;
  /** Form body parameters of a `application/x-www-form-urlencoded` POST; they are signed too. */
  body?: URLSearchParams;
  consumerKey: string;
  consumerSecret: string;
  token?: string;
  tokenSecret?: string;
  /** More `oauth_*` protocol parameters: `oauth_callback`, `oauth_verifier`. */
  oauthParams?: Record<string, string>;
  /** For tests with known vectors; a fresh random nonce and the current time otherwise. */
  nonce?: string;
  timestamp?: string;
}

/** The `oauth_*` parameters of a request, `oauth_signature` included. */
export function signRequest(params: OAuth1SigningParams): Record<string, string> {
  const protocol: Record<string, string> = {
    oauth_consumer_key: params.consumerKey,
    oauth_nonce: params.nonce ?? randomBytes(16).toString('hex'),
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: params.timestamp ?? String(Math.floor(Date.now() / 1000)),
    oauth_version: '1.0',
    ...(params.token !== undefined && { oauth_token: params.token }),
    ...params.oauthParams,
  };
  const parameters: [string, string][] = [
    ...params.url.searchParams,
    ...(params.body ?? new URLSearchParams()),
    ...Object.entries(protocol),
  ];
  const baseString = signatureBaseString(params.method, params.url, parameters);
  return { ...protocol, oauth_signature: hmacSha1Signature(baseString, params.consumerSecret, params.tokenSecret) };
}

/** The `Authorization` header value (§3.5.1) for signed `oauth_*` parameters. */
export function authorizationHeader(oauthParams: Record<string, string>): string {
  return `OAuth ${Object.entries(oauthParams)
    .map(([name, value]) => `${percentEncode(name)}="${percentEncode(value)}"`)
    .join(', ')}`;
}

/** Parses an `Authorization: OAuth …` header back into its parameters (for servers and tests). */
export function parseAuthorizationHeader(header: string): Record<string, string> | null {
  const match = /^OAuth\s+(.*)$/i.exec(header.trim());
  if (!match) return null;
  const params: Record<string, string> = {};
  for (const part of match[1]!.split(',')) {
    const pair = /^\s*([^=\s]+)="([^"]*)"\s*$/.exec(part);
    if (!pair) return null;
    params[decodeURIComponent(pair[1]!)] = decodeURIComponent(pair[2]!);
  }
  return params;
}
