/**
 * The app every hardening test attacks: the shape `create-framework-auth` scaffolds (templates/project/server.ts.hbs
 * and auth/index.ts.hbs) — Express 5, `FrameworkAuth` on `/auth/*splat`, `sessionLocals` for every route, a public
 * `/` and a `/me` behind `requireAuth()` — built from the runtime in templates/runtime, on 127.0.0.1 port 0.
 */
import express from 'express';
import type { Request } from 'express';
import { expect } from 'vitest';

import { FrameworkAuth, createRequireAuth, createSessionLocals } from '../../../templates/runtime/index.js';
import type { FrameworkAuthConfig, ProviderInput, Session, User } from '../../../templates/runtime/index.js';
import Credentials from '../../../templates/runtime/providers/credentials.js';
import { createJar, formBody } from '../../support/cookie-jar.js';
import type { CookieJar } from '../../support/cookie-jar.js';
import { listen } from '../../support/listen.js';
import type { RunningApp } from '../../support/listen.js';

export const SECRET = 'hardening-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
export const OLD_SECRET = 'hardening-old-secret-9876543210-zyxwvutsrqponmlkjihgf';
export const MOUNT = '/auth';
export const SESSION_COOKIE = 'authjs.session-token';

/** Everything the runtime passed to `logger.error`, with the error's `type` when it has one. */
export interface ErrorLog {
  errors: Error[];
  types(): string[];
  clear(): void;
}

export function errorLog(): ErrorLog & { logger: NonNullable<FrameworkAuthConfig['logger']> } {
  const errors: Error[] = [];
  return {
    errors,
    types: () => errors.map((error) => (error as Error & { type?: string }).type ?? error.name),
    clear: () => void errors.splice(0),
    logger: { error: (error: Error) => void errors.push(error), warn: () => {}, debug: () => {} },
  };
}

/** One call of `authorize()`: what it was given. */
export interface AuthorizeCall {
  username: unknown;
  password: unknown;
}

/**
 * A users table as an app would keep one: `authorize()` looks the user up and checks the password. An unknown user
 * still goes through a password check against a dummy hash, so that both failures take the same path; the calls are
 * recorded so that tests can see `authorize()` ran.
 */
export function passwordProvider(calls: AuthorizeCall[] = []): ProviderInput {
  const users = new Map<string, { id: string; password: string; name: string }>([
    ['ada', { id: 'user-ada', password: 'correct horse battery staple', name: 'Ada' }],
  ]);
  for (let index = 0; index < 64; index++) users.set(`load-${index}`, { id: `user-load-${index}`, password: `password-${index}`, name: `Load ${index}` });
  const dummy = { id: '', password: '\u0000not-a-password', name: '' };
  return Credentials({
    credentials: { username: { label: 'User name' }, password: { label: 'Password', type: 'password' } },
    authorize: async (credentials: Partial<Record<'username' | 'password', unknown>>): Promise<User | null> => {
      calls.push({ username: credentials.username, password: credentials.password });
      const found = typeof credentials.username === 'string' ? users.get(credentials.username) : undefined;
      const user = found ?? dummy;
      const matches = typeof credentials.password === 'string' && credentials.password === user.password;
      return found && matches ? { id: found.id, name: found.name, email: `${credentials.username as string}@example.test` } : null;
    },
  });
}

export interface ScaffoldAppOptions {
  /** `app.set('trust proxy', …)`; the scaffold trusts a proxy on the same host ('loopback', as the tests' client). */
  trustProxy?: boolean | string | number;
  /** Environment variables in force while the config is resolved (AUTH_URL, AUTH_TRUST_HOST). */
  env?: Record<string, string>;
}

export interface ScaffoldApp extends RunningApp {
  /** The config given to the handler, sessionLocals and requireAuth (one object, as the scaffold's index.ts). */
  config: FrameworkAuthConfig;
  log: ErrorLog;
  /** Requests that reached Express's final handler with an error (a 5xx there would be the app's, not ours). */
  expressErrors: unknown[];
}

/** Starts the scaffold-shaped app with `config` (its `secret`, `logger` and `basePath` default to the test's). */
export async function startScaffoldApp(config: Partial<FrameworkAuthConfig>, options: ScaffoldAppOptions = {}): Promise<ScaffoldApp> {
  const log = errorLog();
  const fullConfig: FrameworkAuthConfig = { basePath: MOUNT, secret: SECRET, logger: log.logger, trustHost: true, providers: [], ...config };
  const expressErrors: unknown[] = [];
  const app = express();
  app.set('trust proxy', options.trustProxy ?? 'loopback');

  // The config is resolved when the middlewares are created: AUTH_URL and friends are read then.
  const saved = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(options.env ?? {})) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
  try {
    app.use(`${MOUNT}/*splat`, FrameworkAuth(fullConfig));
    app.use(createSessionLocals(fullConfig));
    const requireAuth = createRequireAuth(fullConfig);
    app.get('/', (_req, res) => {
      const session = res.locals['session'] as Session | null;
      res.type('html').send(`<!doctype html><p>${session?.user ? 'Signed in' : 'Not signed in'}</p>`);
    });
    app.get('/me', requireAuth, (_req, res) => {
      res.json({ user: (res.locals['session'] as Session | null)?.user ?? null });
    });
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  app.use((error: unknown, _req: Request, res: express.Response, next: express.NextFunction) => {
    expressErrors.push(error);
    next(error);
  });
  const running = await listen(app);
  return { ...running, config: fullConfig, log, expressErrors };
}

/** GET /auth/csrf through `jar`: the token (the cookie lands in the jar). */
export async function csrfToken(url: string, jar: CookieJar): Promise<string> {
  const response = await jar.fetch(`${url}${MOUNT}/csrf`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { csrfToken: string }).csrfToken;
}

/** POST /auth/callback/credentials with a fresh CSRF token: the answer (a redirect). */
export async function credentialsSignIn(
  url: string,
  jar: CookieJar,
  fields: Record<string, string> = {},
): Promise<Response> {
  const token = await csrfToken(url, jar);
  return jar.fetch(`${url}${MOUNT}/callback/credentials`, {
    method: 'POST',
    ...formBody({ csrfToken: token, username: 'ada', password: 'correct horse battery staple', ...fields }),
  });
}

/** A jar signed in as `ada` through the credentials form. */
export async function signedInJar(url: string): Promise<CookieJar> {
  const jar = createJar();
  const response = await credentialsSignIn(url, jar);
  expect(response.status).toBe(302);
  expect(await sessionOf(url, jar)).toMatchObject({ user: { id: 'user-ada' } });
  return jar;
}

/** GET /auth/session as JSON (200 expected). */
export async function sessionOf(url: string, jar: CookieJar): Promise<Session | null> {
  const response = await jar.fetch(`${url}${MOUNT}/session`);
  expect(response.status).toBe(200);
  return (await response.json()) as Session | null;
}

/** POST /auth/signout with the CSRF token: the answer. */
export async function signOut(url: string, jar: CookieJar, fields: Record<string, string> = {}): Promise<Response> {
  const token = await csrfToken(url, jar);
  return jar.fetch(`${url}${MOUNT}/signout`, { method: 'POST', ...formBody({ csrfToken: token, ...fields }) });
}

/** The Set-Cookie headers of `response` that store a (non-empty) session token or one of its chunks. */
export function sessionCookiesSet(response: Response): string[] {
  return response.headers.getSetCookie().filter((cookie) => /^(__Secure-)?authjs\.session-token(\.\d+)?=[^;]/.test(cookie));
}

/**
 * The invariant of every refusal: not a 5xx, no session cookie set, and afterwards neither `/auth/session`, nor the
 * guarded `/me` (JSON: 401; a page: a redirect to the sign-in page) sees a user in this browser.
 */
export async function expectNoSession(url: string, jar: CookieJar, response?: Response): Promise<void> {
  if (response) {
    expect(response.status, 'never a 5xx').toBeLessThan(500);
    expect(sessionCookiesSet(response), 'no session cookie set').toEqual([]);
  }
  expect(await sessionOf(url, jar)).toBeNull();
  const json = await jar.fetch(`${url}/me`, { headers: { accept: 'application/json' } });
  expect(json.status).toBe(401);
  const page = await jar.fetch(`${url}/me`);
  expect(page.status).toBe(302);
  expect(page.headers.get('location')).toBe(`${MOUNT}/signin?callbackUrl=%2Fme`);
}

/** A 302 to the sign-in page (`error` as given) or the error page; returns the Location. */
export function expectRefusalRedirect(response: Response, url: string, expected: { page: 'signin' | 'error'; error?: string }): URL {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location') ?? '');
  expect(location.origin).toBe(url);
  expect(location.pathname).toBe(`${MOUNT}/${expected.page}`);
  if (expected.error !== undefined) expect(location.searchParams.get('error')).toBe(expected.error);
  return location;
}

/** The page a refusal points to renders (a 2xx or 4xx HTML page with a way back to sign-in). */
export async function expectPageRenders(jar: CookieJar, location: URL, text?: string): Promise<void> {
  const page = await jar.fetch(location);
  expect(page.status).toBeLessThan(500);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const body = await page.text();
  expect(body).toContain(`${MOUNT}/signin`);
  if (text) expect(body).toContain(text);
}

/** The app still answers a plain request. */
export async function expectStillServing(url: string): Promise<void> {
  const response = await fetch(`${url}${MOUNT}/providers`);
  expect(response.status).toBe(200);
  await response.body?.cancel();
}
