// The harness of administration's HTTP tests (admin-routes, admin-pages, admin-impersonation): an Express app on
// 127.0.0.1 with the handler on /auth, sessionLocals and /whoami (getSession), the Admin feature first among the
// features a test file adds; users with a password, signed in through the password callback; the requests a browser
// or a JSON client sends, with the jar's CSRF token. Mail, security events and logged errors are kept on the harness.
import { rm } from 'node:fs/promises';
import express, { urlencoded } from 'express';
import { expect } from 'vitest';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen } from '../support/listen.js';
import { type AdminOptions, Admin } from '../../templates/runtime/features/admin/index.js';
import type { AdminMessage } from '../../templates/runtime/features/admin/mail.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import type { PasswordMessage } from '../../templates/runtime/features/password/index.js';
import type { SecurityEvent } from '../../templates/runtime/features/security-events/index.js';
import { FrameworkAuth, createSessionLocals, getSession } from '../../templates/runtime/index.js';
import type { Adapter, Feature, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Password from '../../templates/runtime/providers/password.js';
import { SECRET, recordingLogger, type MadeAdapter } from './helpers.js';

/** Every test user's password. */
export const PASSWORD = 'violet staple orbit lantern';
/** The admin by configuration (AUTH_ADMINS) unless a test file names its own. */
export const ADMIN_EMAIL = 'ada-admin@example.test';

export interface Harness {
  url: string;
  config: FrameworkAuthConfig;
  adapter: Required<Adapter>;
  /** What administration and the password provider sent. */
  mails: { admin: AdminMessage[]; password: PasswordMessage[] };
  events: SecurityEvent[];
  /** Everything passed to `logger.error`. */
  errors: Error[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Admin()'s options over the harness's (`admins: [ADMIN_EMAIL]`, mail kept in `mails.admin`). */
  admin?: AdminOptions;
  /** The features after Admin. */
  features?: Feature[];
  /** The test file's own app routes, after /whoami. */
  routes?: (app: express.Express, config: FrameworkAuthConfig) => void;
}

export async function startHarness(made: MadeAdapter, options: HarnessOptions = {}): Promise<Harness> {
  const { errors, logger } = recordingLogger();
  const mails: Harness['mails'] = { admin: [], password: [] };
  const events: SecurityEvent[] = [];
  const config: FrameworkAuthConfig = {
    secret: SECRET,
    trustHost: ['127.0.0.1'],
    adapter: made.adapter,
    providers: [Password({ sendMessage: (message) => void mails.password.push(message) })],
    features: [Admin({ admins: [ADMIN_EMAIL], sendMessage: (message) => void mails.admin.push(message), ...options.admin }, {}), ...(options.features ?? [])],
    logger,
    events: { onSecurityEvent: (event) => void events.push(event) },
    rateLimit: { credentialsPerClient: false, passwordEmailPerClient: false },
  };
  const app = express();
  app.use(urlencoded({ extended: true }));
  app.use('/auth/*splat', FrameworkAuth(config));
  app.use(createSessionLocals(config));
  app.get('/whoami', async (req, res) => void res.json(await getSession(req, config)));
  options.routes?.(app, config);
  const running = await listen(app);
  return {
    url: running.url,
    config,
    adapter: made.adapter as Required<Adapter>,
    mails,
    events,
    errors,
    async close() {
      await running.close();
      if (made.folder) await rm(made.folder, { recursive: true, force: true });
    },
  };
}

export interface TestUser {
  id: string;
  email: string;
  jar: CookieJar;
}

let users = 0;
/** A new address from a name ("Grace Hopper" → grace-hopper-7@example.test). */
export const freshAddress = (name: string): string => `${name.toLowerCase().replaceAll(' ', '-')}-${++users}@example.test`;

// Hashed once for every user of the file: the hash is slow on purpose.
let passwordHash: Promise<string> | undefined;

export interface NewUserOptions {
  /** The configured admin's address (ADMIN_EMAIL), with a second factor. */
  admin?: boolean;
  /** The address, instead of a fresh one from the name. */
  email?: string;
  name?: string;
  /** false: not signed in (the jar is empty). */
  signIn?: boolean;
  /** Two-factor on. */
  secondFactor?: boolean;
  /** An admin by grant (granted by themselves). */
  grant?: boolean;
  /** false: the address is no longer proven once signed in (as with a provider that does not prove it). */
  verified?: boolean;
}

/**
 * A user with a password and a proven address, signed in unless `signIn: false`. The second factor is turned on
 * after the sign-in, through the adapter, so that the test needs no code.
 */
export async function newUser(h: Harness, options: NewUserOptions = {}): Promise<TestUser> {
  const name = options.name ?? 'user';
  const email = options.email ?? (options.admin ? ADMIN_EMAIL : freshAddress(name));
  const created = await h.adapter.createUser({ id: crypto.randomUUID(), email, name, emailVerified: new Date() });
  await h.adapter.setPasswordHash(created.id, await (passwordHash ??= hashPassword(PASSWORD)));
  const jar = options.signIn === false ? createJar() : await signIn(h, email);
  if (options.admin || options.secondFactor) await h.adapter.setTwoFactor(created.id, { secret: 'unused-in-these-tests', enabledAt: new Date() });
  if (options.grant) await h.adapter.grantAdmin({ userId: created.id, grantedBy: created.id, at: new Date() });
  if (options.verified === false) await h.adapter.updateUser({ id: created.id, emailVerified: null });
  return { id: created.id, email, jar };
}

export async function csrfOf(h: Harness, jar: CookieJar): Promise<string> {
  return ((await (await jar.fetch(`${h.url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

/** A password sign-in's answer (a redirect: home, or the sign-in page with its error). */
export async function signInAnswer(h: Harness, jar: CookieJar, email: string, password = PASSWORD): Promise<Response> {
  return jar.fetch(`${h.url}/auth/callback/password`, { method: 'POST', ...formBody({ csrfToken: await csrfOf(h, jar), email, password }) });
}

/** A new jar signed in as `email` with the password. */
export async function signIn(h: Harness, email: string): Promise<CookieJar> {
  const jar = createJar();
  const response = await signInAnswer(h, jar, email);
  expect(response.status).toBe(302);
  expect(response.headers.get('location')).not.toContain('error=');
  return jar;
}

export const accept = (json: boolean): string => (json ? 'application/json' : 'text/html');

/** GETs `<mount>/<path>` as a JSON client or a browser. */
export function get(h: Harness, jar: CookieJar, path: string, json = true): Promise<Response> {
  return jar.fetch(`${h.url}/auth/${path}`, { headers: { accept: accept(json) } });
}

/** POSTs a form to `<mount>/<path>` with the jar's CSRF token (unless `csrfToken` is given, or null to send none). */
export async function post(h: Harness, jar: CookieJar, path: string, fields: Record<string, string | null | undefined>, json = true): Promise<Response> {
  const { csrfToken, ...rest } = fields;
  const token = csrfToken === null ? undefined : (csrfToken ?? (await csrfOf(h, jar)));
  const form = formBody({ ...(token === undefined ? {} : { csrfToken: token }), ...(rest as Record<string, string | undefined>) });
  return jar.fetch(`${h.url}/auth/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: accept(json) } });
}
