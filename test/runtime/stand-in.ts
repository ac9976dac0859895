/**
 * Support for tests against local stand-ins of remote providers (GitHub, the microblog network): an Express app on
 * 127.0.0.1, a `customFetch` that records every call the runtime makes and refuses anything that would leave this
 * machine, and the browser round trip through a stand-in's authorization endpoint.
 */
import { createHash } from 'node:crypto';

import express from 'express';
import { expect } from 'vitest';

import type { CustomFetch } from '../../templates/runtime/index.js';
import type { CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';

import { startSignIn, type AuthApp } from './oauth-harness.js';

/** Starts an Express app on 127.0.0.1 with urlencoded and JSON bodies parsed; `routes` adds the endpoints. */
export function startStandIn(routes: (app: express.Express) => void): Promise<RunningApp> {
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  app.use(express.json());
  routes(app);
  return listen(app);
}

/** One call the runtime made through `customFetch`. */
export interface RecordedCall {
  method: string;
  url: string;
  headers: Headers;
}

/** A `customFetch` that records each call and passes it on, refusing every URL outside 127.0.0.1. */
export function loopbackFetch(): { calls: RecordedCall[]; fetch: CustomFetch } {
  const calls: RecordedCall[] = [];
  const fetchOnLoopback: CustomFetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (new URL(url).hostname !== '127.0.0.1') return Promise.reject(new Error(`test refused a request to ${url}`));
    calls.push({ method: init?.method ?? 'GET', url, headers: new Headers(init?.headers) });
    return fetch(input, init);
  };
  return { calls, fetch: fetchOnLoopback };
}

/** base64url(SHA-256(verifier)): the S256 code challenge of RFC 7636 §4.2. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** `[id, secret]` from an `Authorization: Basic` header (RFC 6749 §2.3.1: both form-encoded), or null. */
export function basicCredentials(header: string | undefined): [string, string] | null {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return null;
  const decode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
  return [decode(decoded.slice(0, colon)), decode(decoded.slice(colon + 1))];
}

/** The round trip: POST signin → the stand-in's authorization endpoint → the app's callback. */
export async function signInThroughStandIn(
  app: AuthApp,
  jar: CookieJar,
  providerId: string,
): Promise<{ authorizationUrl: URL; callbackUrl: URL; callbackResponse: Response }> {
  const { authorizationUrl } = await startSignIn(app, jar, { providerId });
  const answer = await jar.fetch(authorizationUrl);
  expect(answer.status, 'the stand-in redirects back to the app').toBe(302);
  const callbackUrl = new URL(answer.headers.get('location')!);
  const callbackResponse = await app.fetch(jar, callbackUrl);
  return { authorizationUrl, callbackUrl, callbackResponse };
}
