/**
 * Shared harness of the runtime's end-to-end OAuth/OIDC tests: an Express 5 app on 127.0.0.1 port 0 that mounts
 * `FrameworkAuth(config)` and exposes `GET /me` answering `{ session: await getSession(req, config) }`, plus the
 * steps of a browser sign-in (csrf → POST signin → provider → callback) driven through a cookie jar.
 */
import express from 'express';
import { expect } from 'vitest';

import { FrameworkAuth, getSession } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig, Session } from '../../templates/runtime/index.js';
import type { CookieJar } from '../support/cookie-jar.js';
import { formBody } from '../support/cookie-jar.js';
import { listen } from '../support/listen.js';
import { loginThroughProvider } from '../support/oidc-provider.js';
import type { LoginThroughProviderOptions } from '../support/oidc-provider.js';

import { SECRET, recordingLogger } from './helpers.js';

export interface AuthAppOptions {
  /** Where the handler is mounted (`/auth`); the Express 5 pattern is `<mount>/*splat`. */
  mount?: string;
  /**
   * Pretend a TLS-terminating proxy sits in front: `trust proxy` on, and every request this harness sends to the
   * app carries `X-Forwarded-Proto: https`. The app's public origin becomes `https://127.0.0.1:<port>`.
   */
  behindHttpsProxy?: boolean;
  /** Adds the test's own routes to the app, after the handler (they get the full config, with secret and logger). */
  routes?: (app: express.Express, config: FrameworkAuthConfig) => void;
}

export interface AuthApp {
  /** Where the server really listens: `http://127.0.0.1:<port>`. */
  url: string;
  /** The origin the app believes it has (https behind the proxy). */
  publicOrigin: string;
  mount: string;
  /** The config object given to FrameworkAuth and getSession (with `secret` and `logger` filled in). */
  config: FrameworkAuthConfig;
  /** Everything passed to `logger.error`. */
  errors: Error[];
  /** The redirect_uri the app sends for `providerId`, as the provider must have it registered. */
  redirectUri(providerId?: string): string;
  /**
   * fetch through `jar` to the app: `target` is a path below the app, or an absolute URL of the app's public
   * origin (a callback URL handed back by the provider), which is sent to the real server. The proxy header is
   * added when `behindHttpsProxy` is set.
   */
  fetch(jar: CookieJar, target: string | URL, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function startAuthApp(config: FrameworkAuthConfig, options: AuthAppOptions = {}): Promise<AuthApp> {
  const mount = options.mount ?? '/auth';
  const { errors, logger } = recordingLogger();
  const fullConfig: FrameworkAuthConfig = { secret: SECRET, logger, trustHost: true, ...config };
  const app = express();
  if (options.behindHttpsProxy) app.set('trust proxy', true);
  app.use(`${mount}/*splat`, FrameworkAuth(fullConfig));
  app.get('/me', async (req, res) => {
    res.json({ session: await getSession(req, fullConfig) });
  });
  options.routes?.(app, fullConfig);

  const { url, close } = await listen(app);
  const publicOrigin = options.behindHttpsProxy ? url.replace(/^http:/, 'https:') : url;
  const proxyHeaders: Record<string, string> = options.behindHttpsProxy ? { 'x-forwarded-proto': 'https' } : {};

  return {
    url,
    publicOrigin,
    mount,
    config: fullConfig,
    errors,
    redirectUri: (providerId = 'oidc') => `${publicOrigin}${mount}/callback/${providerId}`,
    fetch(jar, target, init = {}) {
      const resolved = new URL(target, `${publicOrigin}/`);
      if (resolved.origin !== publicOrigin) throw new Error(`${resolved.href} is not a URL of this app`);
      const real = new URL(`${resolved.pathname}${resolved.search}`, url);
      const headers = new Headers(init.headers);
      for (const [name, value] of Object.entries(proxyHeaders)) headers.set(name, value);
      return jar.fetch(real, { ...init, headers });
    },
    close,
  };
}

/** Closes everything started by `startAuthApp` in a test file (for afterAll). */
export class AppRegistry {
  private readonly apps: AuthApp[] = [];

  async start(config: FrameworkAuthConfig, options?: AuthAppOptions): Promise<AuthApp> {
    const app = await startAuthApp(config, options);
    this.apps.push(app);
    return app;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.apps.splice(0).map((app) => app.close()));
  }
}

export async function csrfTokenOf(app: AuthApp, jar: CookieJar): Promise<string> {
  const response = await app.fetch(jar, `${app.mount}/csrf`);
  expect(response.status).toBe(200);
  const { csrfToken } = (await response.json()) as { csrfToken: string };
  return csrfToken;
}

export interface StartedSignIn {
  /** The answer to POST <mount>/signin/<provider>. */
  response: Response;
  /** Where that answer sends the browser: the provider's authorization endpoint. */
  authorizationUrl: URL;
}

/** GET <mount>/csrf, then POST <mount>/signin/<provider> with the token and `callbackUrl`: expects a redirect. */
export async function startSignIn(
  app: AuthApp,
  jar: CookieJar,
  { providerId = 'oidc', callbackUrl = '/me' }: { providerId?: string; callbackUrl?: string } = {},
): Promise<StartedSignIn> {
  const csrfToken = await csrfTokenOf(app, jar);
  const response = await app.fetch(jar, `${app.mount}/signin/${providerId}`, {
    method: 'POST',
    ...formBody({ csrfToken, callbackUrl }),
  });
  expect(response.status).toBe(302);
  const location = response.headers.get('location');
  expect(location).toBeTruthy();
  return { response, authorizationUrl: new URL(location!) };
}

export interface CompletedSignIn extends StartedSignIn {
  /** The provider's redirect back to the app (`<redirect_uri>?code=…&state=…&iss=…`). */
  callbackUrl: URL;
  /** The app's answer to that callback. */
  callbackResponse: Response;
}

/** The whole browser round trip: start, log in at the provider, deliver the callback to the app. */
export async function signIn(
  app: AuthApp,
  jar: CookieJar,
  options: { providerId?: string; callbackUrl?: string; login?: LoginThroughProviderOptions } = {},
): Promise<CompletedSignIn> {
  const started = await startSignIn(app, jar, options);
  const callbackUrl = new URL(await loginThroughProvider(jar, started.authorizationUrl, options.login));
  const callbackResponse = await app.fetch(jar, callbackUrl);
  return { ...started, callbackUrl, callbackResponse };
}

/** GET <mount>/session as JSON. */
export async function sessionOf(app: AuthApp, jar: CookieJar): Promise<Session | null> {
  const response = await app.fetch(jar, `${app.mount}/session`);
  expect(response.status).toBe(200);
  return (await response.json()) as Session | null;
}

/** GET /me, whose route answers `getSession(req, config)`. */
export async function getSessionThroughApp(app: AuthApp, jar: CookieJar): Promise<Session | null> {
  const response = await app.fetch(jar, '/me');
  expect(response.status).toBe(200);
  return ((await response.json()) as { session: Session | null }).session;
}

/** POST <mount>/signout with the CSRF token; expects a redirect. */
export async function signOut(app: AuthApp, jar: CookieJar): Promise<Response> {
  const csrfToken = await csrfTokenOf(app, jar);
  const response = await app.fetch(jar, `${app.mount}/signout`, { method: 'POST', ...formBody({ csrfToken }) });
  expect(response.status).toBe(302);
  return response;
}

/** The Set-Cookie headers of `response` that store a (non-empty) session token or one of its chunks. */
export function sessionCookiesSet(response: Response): string[] {
  return response.headers.getSetCookie().filter((cookie) => /^(__Secure-)?authjs\.session-token(\.\d+)?=[^;]/.test(cookie));
}

/** Expects a 302 whose Location is `<origin><pathname>?error=<error>`. */
export function expectRedirect(response: Response, expected: { origin?: string; pathname: string; error?: string | null }): URL {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location') ?? '', 'http://invalid.test');
  if (expected.origin !== undefined) expect(location.origin).toBe(expected.origin);
  expect(location.pathname).toBe(expected.pathname);
  if (expected.error !== undefined) expect(location.searchParams.get('error')).toBe(expected.error);
  return location;
}

/** Removes cookie `name` from `jar` for the app (as if the browser had dropped it). */
export function dropCookie(app: AuthApp, jar: CookieJar, name: string): void {
  expect(jar.get(name, app.url), `cookie ${name} to drop`).toBeDefined();
  jar.set(app.url, `${name}=; Path=/; Max-Age=0`);
  expect(jar.get(name, app.url)).toBeUndefined();
}

/** Names of the error types passed to `logger.error`. */
export function loggedTypes(app: AuthApp): string[] {
  return app.errors.map((error) => (error as Error & { type?: string }).type ?? error.name);
}
