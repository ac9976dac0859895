// The account (issue 38, SPEC §13): <mount>/account and the paths below it over HTTP against an Express app on
// 127.0.0.1, with the memory adapter and with SQLite (a temp file): the page and its JSON, the address change by a
// link to the new address (a GET changes nothing; single use, one hour, the newest only; the address still free;
// other sessions ended), unlinking an account and removing a passkey (never the last way to sign in), the export
// (no hash, token, secret or key in it), the deletion (no row and no byte of the database file keeps the address),
// recent authentication and the CSRF token on each, and API keys kept out. Messages are caught by `sendMessage`.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express, { urlencoded } from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { Account, accountMailerOf, type AccountMessage } from '../../templates/runtime/features/account/index.js';
import { ApiKeys, createApiKey } from '../../templates/runtime/features/api-keys/index.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import { TwoFactor } from '../../templates/runtime/features/two-factor/index.js';
import { FrameworkAuth, UnsupportedStrategy, createSessionLocals } from '../../templates/runtime/index.js';
import { resolveConfig } from '../../templates/runtime/config.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import Password from '../../templates/runtime/providers/password.js';
import { SECRET, recordingLogger, memoryAndSqlite, type MadeAdapter } from './helpers.js';

const PASSWORD = 'violet staple orbit lantern';
const OIDC = { id: 'oidc', name: 'Example ID', type: 'oidc' as const, issuer: 'https://issuer.example', clientId: 'id', clientSecret: 'secret' };

interface Harness {
  url: string;
  app: RunningApp;
  adapter: Required<Adapter>;
  config: FrameworkAuthConfig;
  /** The SQLite file, absent for memory. */
  file: string | undefined;
  messages: AccountMessage[];
  errors: Error[];
  close(): Promise<void>;
}

const adapters = memoryAndSqlite;

async function startHarness(
  made: MadeAdapter,
  features?: (messages: AccountMessage[]) => FrameworkAuthConfig['features'],
  overrides: Partial<FrameworkAuthConfig> = {},
): Promise<Harness> {
  const { errors, logger } = recordingLogger();
  const messages: AccountMessage[] = [];
  const config: FrameworkAuthConfig = {
    secret: SECRET,
    trustHost: ['127.0.0.1'],
    adapter: made.adapter,
    providers: [Password({ sendMessage: () => {} }), Passkey(), OIDC],
    features: features?.(messages) ?? [Account({ sendMessage: (message) => void messages.push(message) }), ApiKeys(), TwoFactor()],
    logger,
    rateLimit: false,
    ...overrides,
  };
  const app = express();
  app.set('trust proxy', true);
  app.use(urlencoded({ extended: true }));
  app.use('/auth/*splat', FrameworkAuth(config));
  app.use(createSessionLocals(config));
  app.get('/', (_req, res) => void res.send('home'));
  const running = await listen(app);
  return {
    url: running.url,
    app: running,
    adapter: made.adapter as Required<Adapter>,
    config,
    file: made.folder && join(made.folder, 'auth.db'),
    messages,
    errors,
    async close() {
      await running.close();
      if (made.folder) await rm(made.folder, { recursive: true, force: true });
    },
  };
}

let users = 0;
/** A confirmed user with a password (unless `password: false`), made through the adapter. */
async function newUser(h: Harness, options: { password?: boolean; name?: string } = {}): Promise<{ id: string; email: string }> {
  users += 1;
  const email = `user-${users}@example.test`;
  const created = await h.adapter.createUser({ id: crypto.randomUUID(), email, name: options.name ?? `User ${users}`, emailVerified: new Date() });
  if (options.password !== false) await h.adapter.setPasswordHash(created.id, await hashPassword(PASSWORD));
  return { id: created.id, email };
}

async function csrfOf(h: Harness, jar: CookieJar): Promise<string> {
  return ((await (await jar.fetch(`${h.url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

async function signIn(h: Harness, email: string): Promise<CookieJar> {
  const jar = createJar();
  const response = await jar.fetch(`${h.url}/auth/callback/password`, { method: 'POST', ...formBody({ csrfToken: await csrfOf(h, jar), email, password: PASSWORD }) });
  expect(response.status).toBe(302);
  return jar;
}

/**
 * A session for a user without a password: a session row made through the adapter and its cookie in a new jar (the
 * way an OAuth or passkey sign-in leaves it).
 */
async function sessionOf(h: Harness, userId: string): Promise<CookieJar> {
  const sessionToken = crypto.randomUUID();
  const now = new Date();
  await h.adapter.createSession({ sessionToken, userId, expires: new Date(now.valueOf() + 3_600_000), createdAt: now, lastSeenAt: now, userAgent: 'test' });
  const jar = createJar();
  jar.set(h.url, `authjs.session-token=${sessionToken}; Path=/; HttpOnly`);
  return jar;
}

/** POSTs a form below `/auth/` with the jar's CSRF token (unless `csrfToken` is given), as JSON client or browser. */
async function post(h: Harness, jar: CookieJar, path: string, fields: Record<string, string | undefined>, json = false): Promise<Response> {
  const form = formBody({ csrfToken: await csrfOf(h, jar), ...fields });
  return jar.fetch(`${h.url}/auth/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: json ? 'application/json' : 'text/html' } });
}

async function accountJson(h: Harness, jar: CookieJar): Promise<Record<string, unknown>> {
  const response = await jar.fetch(`${h.url}/auth/account`, { headers: { accept: 'application/json' } });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Waits for the messages sent after an answer (they leave on the next turn of the event loop). */
async function messagesTo(h: Harness, to: string, count = 1): Promise<AccountMessage[]> {
  await vi.waitFor(() => expect(h.messages.filter((message) => message.to === to).length).toBeGreaterThanOrEqual(count), { timeout: 2000 });
  return h.messages.filter((message) => message.to === to);
}

/** Asks for a change to a new address and resolves the confirmation link's token. */
async function requestChange(h: Harness, jar: CookieJar, newEmail: string): Promise<string> {
  const response = await post(h, jar, 'account/email', { newEmail });
  expect(response.status).toBe(302);
  const [message] = (await messagesTo(h, newEmail)).filter((sent) => sent.kind === 'confirm-new-address').slice(-1);
  const url = /https?:\/\/\S+\/auth\/account\/email\/confirm\?token=[0-9a-f]+/.exec(message!.text)![0];
  return new URL(url).searchParams.get('token')!;
}

/** Whether the jar's session cookie still names a session. */
async function hasSession(h: Harness, jar: CookieJar): Promise<boolean> {
  return (await (await jar.fetch(`${h.url}/auth/session`)).json()) !== null;
}

/** Lets the clock run `seconds` ahead (only `Date`, so that the server keeps answering). */
function moveClock(seconds: number): void {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + seconds * 1000);
}

let changes = 0;
const freshAddress = (): string => `new-${(changes += 1)}-${crypto.randomUUID().slice(0, 8)}@example.test`;

afterEach(() => {
  vi.useRealTimers();
});

describe.each(adapters)('the account with %s', (_adapterName, makeAdapter) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(await makeAdapter());
  });
  afterAll(() => h.close());

  describe('GET <mount>/account', () => {
    it('offers to link each OAuth provider not linked yet (a sign-in from this session, back to the page), and no longer once linked', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const page = async (): Promise<string> => (await jar.fetch(`${h.url}/auth/account`, { headers: { accept: 'text/html' } })).text();
      const before = await page();
      expect(before).toMatch(/<form action="\/auth\/signin\/oidc" method="POST"><input type="hidden" name="csrfToken" value="[^"]+"><input type="hidden" name="callbackUrl" value="\/auth\/account"><button type="submit" class="secondary" aria-label="Link Example ID">Link<\/button><\/form>/);
      expect((await (await jar.fetch(`${h.url}/auth/account`, { headers: { accept: 'application/json' } })).json()) as { linkable: unknown }).toMatchObject({ linkable: [{ id: 'oidc', name: 'Example ID' }] });
      await h.adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}` });
      const after = await page();
      expect(after).not.toContain('aria-label="Link Example ID"');
      expect(after).toContain('aria-label="Unlink Example ID"');
    });

    it('sends a visitor without a session to sign in, coming back to the account page', async () => {
      const response = await fetch(`${h.url}/auth/account`, { redirect: 'manual' });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/signin?callbackUrl=${encodeURIComponent(`${h.url}/auth/account`)}`);
    });

    it('answers 401 JSON to a JSON client without a session', async () => {
      const response = await fetch(`${h.url}/auth/account`, { headers: { accept: 'application/json' } });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: 'Unauthorized' });
    });

    it('shows the name, the address, each way to sign in, the other account pages, the export and the delete form, with no script', async () => {
      const user = await newUser(h, { name: 'Ada Lovelace' });
      await h.adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}` });
      await h.adapter.createAuthenticator(passkeyOf(user.id));
      const jar = await signIn(h, user.email);
      const response = await jar.fetch(`${h.url}/auth/account`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toContain('no-store');
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
      const page = await response.text();
      expect(page).toContain('Ada Lovelace');
      expect(page).toContain(user.email);
      expect(page).toContain('Example ID');
      expect(page).toContain('aria-label="Unlink Example ID"');
      expect(page).toContain('aria-label="Remove passkey 1"');
      expect(page).toContain('Password: set');
      expect(page).toContain('Two-factor: off');
      expect(page).toContain('href="/auth/sessions"');
      expect(page).toContain('href="/auth/api-keys"');
      expect(page).toContain('href="/auth/account/export"');
      expect(page).toContain('action="/auth/account/email"');
      expect(page).toContain('action="/auth/account/delete"');
      expect((page.match(/<form /g) ?? []).length).toBe((page.match(/name="csrfToken"/g) ?? []).length);
      expect(page).not.toContain('<script');
    });

    it('lists the newest security events: what, when, method, browser and address', async () => {
      const user = await newUser(h);
      const at = new Date(Date.UTC(2026, 10, 20, 9, 30));
      await h.adapter.createSecurityEvent({ id: crypto.randomUUID(), userId: user.id, type: 'sign-in', at: new Date(), method: 'password', ip: '203.0.113.9', userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', detail: null });
      await h.adapter.createSecurityEvent({ id: crypto.randomUUID(), userId: user.id, type: 'passkey-added', at, method: 'passkey', ip: null, userAgent: null, detail: null });
      const page = await (await (await signIn(h, user.email)).fetch(`${h.url}/auth/account`)).text();
      expect(page).toContain('Signed in');
      expect(page).toContain('(Email and password)');
      // The browser as a person names it, never the User-Agent the client wrote.
      expect(page).toContain('Firefox on Linux');
      expect(page).not.toContain('Gecko/20100101');
      expect(page).toContain('203.0.113.9');
      expect(page).toContain('2026-11-20 09:30 UTC');
      expect(page.indexOf('Signed in')).toBeLessThan(page.indexOf('Passkey added'));
    });

    it('answers JSON clients with the same view, never a hash or a token', async () => {
      const user = await newUser(h);
      await h.adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}`, access_token: 'access-token-value' });
      const view = await accountJson(h, await signIn(h, user.email));
      expect(view).toMatchObject({
        user: { email: user.email, emailVerified: true },
        accounts: [{ provider: 'oidc', providerName: 'Example ID', providerAccountId: `sub-${user.id}` }],
        passkeys: [],
        password: true,
        twoFactor: false,
        links: { sessions: true, apiKeys: true, password: true, twoFactor: true },
        emailChange: { offered: true },
      });
      expect(JSON.stringify(view)).not.toContain('access-token-value');
      expect(JSON.stringify(view)).not.toContain('$scrypt$');
      expect(JSON.stringify(view)).not.toContain('$argon2');
    });

    it('answers 404 for a path below it that is none of its own', async () => {
      const jar = await signIn(h, (await newUser(h)).email);
      expect((await jar.fetch(`${h.url}/auth/account/nothing`)).status).toBe(404);
      expect((await jar.fetch(`${h.url}/auth/account/email/confirm/more`)).status).toBe(404);
    });

    it('answers 405 with Allow for a method a path does not take', async () => {
      const jar = await signIn(h, (await newUser(h)).email);
      const response = await jar.fetch(`${h.url}/auth/account/delete`);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    });
  });

  describe('what each change needs', () => {
    const sensitive: readonly [string, string, Record<string, string>][] = [
      ['POST', 'account/email', { newEmail: 'someone-new@example.test' }],
      ['POST', 'account/unlink', { provider: 'oidc' }],
      ['POST', 'account/passkeys/remove', { id: 'credential' }],
      ['POST', 'account/delete', { confirm: 'yes' }],
      ['GET', 'account/export', {}],
    ];

    it.each(sensitive)('%s <mount>/%s asks for a recent authentication once reauthMaxAge has passed', async (method, path, fields) => {
      const user = await newUser(h);
      await h.adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}` });
      const jar = await signIn(h, user.email);
      const csrfToken = await csrfOf(h, jar);
      moveClock(11 * 60);
      const form = formBody({ csrfToken, ...fields });
      const init = method === 'POST' ? { method, body: form.body, headers: { ...form.headers } } : {};
      const json = await jar.fetch(`${h.url}/auth/${path}`, { ...init, headers: { ...init.headers, accept: 'application/json' } });
      expect(json.status).toBe(401);
      const back = path === 'account/export' ? 'account/export' : 'account';
      expect(await json.json()).toMatchObject({ error: 'reauthentication_required', url: `${h.url}/auth/reauth?callbackUrl=${encodeURIComponent(`${h.url}/auth/${back}`)}` });
      const browser = await jar.fetch(`${h.url}/auth/${path}`, { ...init, headers: { ...init.headers, accept: 'text/html' } });
      expect(browser.status).toBe(302);
      expect(browser.headers.get('location')).toContain('/auth/reauth?callbackUrl=');
      // Nothing changed.
      vi.useRealTimers();
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: user.email });
      expect(await h.adapter.listAccountsByUserId(user.id)).toHaveLength(1);
    });

    it.each(sensitive.filter(([method]) => method === 'POST'))('%s <mount>/%s without the CSRF token is refused (403)', async (_method, path, fields) => {
      const user = await newUser(h);
      await h.adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}` });
      const jar = await signIn(h, user.email);
      const form = formBody(fields);
      const response = await jar.fetch(`${h.url}/auth/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: 'application/json' } });
      expect(response.status).toBe(403);
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: user.email });
      expect(await h.adapter.listAccountsByUserId(user.id)).toHaveLength(1);
    });

    it('POST <mount>/account/email/confirm without the CSRF token is refused (403) and keeps the link working', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const newEmail = freshAddress();
      const token = await requestChange(h, jar, newEmail);
      const form = formBody({ token });
      const response = await jar.fetch(`${h.url}/auth/account/email/confirm`, { method: 'POST', body: form.body, headers: form.headers });
      expect(response.status).toBe(403);
      expect((await post(h, jar, 'account/email/confirm', { token })).status).toBe(302);
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: newEmail });
    });

    const everyRoute: readonly [string, string][] = [
      ['GET', 'account'],
      ['GET', 'account/export'],
      ['POST', 'account/email'],
      ['POST', 'account/unlink'],
      ['POST', 'account/passkeys/remove'],
      ['POST', 'account/delete'],
      ['GET', 'account/email/confirm'],
      ['POST', 'account/email/confirm'],
    ];

    it.each(everyRoute)('an API key cannot use %s <mount>/%s, even beside its user’s session', async (method, path) => {
      const user = await newUser(h);
      const { key } = await createApiKey(h.config, { userId: user.id, name: 'script' });
      const jar = await signIn(h, user.email);
      const form = formBody({ csrfToken: await csrfOf(h, jar), confirm: 'yes', email: user.email, newEmail: freshAddress() });
      const response = await jar.fetch(`${h.url}/auth/${path}`, {
        method,
        ...(method === 'POST' && { body: form.body }),
        headers: { ...(method === 'POST' && form.headers), authorization: `Bearer ${key}`, accept: 'application/json' },
      });
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: user.email });
    });
  });

  describe('changing the address', () => {
    it('replaces a pending link whether the next address asked is free or taken (whether the old link works tells nothing)', async () => {
      const user = await newUser(h);
      const taken = await newUser(h);
      const jar = await signIn(h, user.email);
      const first = await requestChange(h, jar, freshAddress());
      const response = await post(h, jar, 'account/email', { newEmail: taken.email });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/account?notice=email-sent`);
      await vi.waitFor(() => expect(h.messages.some((message) => message.to === taken.email && message.kind === 'address-change-attempt')).toBe(true));
      expect((await post(h, jar, 'account/email/confirm', { token: first }, true)).status).toBe(400);
      expect((await h.adapter.getUser(user.id))?.email).toBe(user.email);
    });

    it('tells the old address once the change is made, without a link, and drops its sign-in and reset links', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const newEmail = freshAddress();
      const token = await requestChange(h, jar, newEmail);
      await h.adapter.createVerificationToken({ identifier: `password-reset:${user.email}`, token: 'a-reset-token-digest', expires: new Date(Date.now() + 60_000) });
      expect((await post(h, jar, 'account/email/confirm', { token })).status).toBe(302);
      await vi.waitFor(() => expect(h.messages.some((message) => message.to === user.email && message.kind === 'address-changed')).toBe(true));
      const told = h.messages.find((message) => message.to === user.email && message.kind === 'address-changed')!;
      expect(told.text).toContain(newEmail);
      expect(told.text).not.toContain('http');
      expect(await h.adapter.useVerificationToken({ identifier: `password-reset:${user.email}`, token: 'a-reset-token-digest' })).toBeNull();
    });

    it('sends a link to the new address and a notice without a link to the old one, and says to check the new address', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const newEmail = freshAddress();
      const response = await post(h, jar, 'account/email', { newEmail: `  ${newEmail.toUpperCase()} ` });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/account?notice=email-sent`);
      const [link] = await messagesTo(h, newEmail);
      expect(link).toMatchObject({ kind: 'confirm-new-address' });
      expect(link!.text).toMatch(new RegExp(`${h.url}/auth/account/email/confirm\\?token=[0-9a-f]{64}`));
      // It names the account that would move, its address masked, and says to ignore it when no account was asked for.
      expect(link!.text).toContain(`${user.email[0]}•••@example.test`);
      expect(link!.text).not.toContain(user.email);
      expect(link!.text).toContain('ignore this email and do not confirm');
      const [notice] = await messagesTo(h, user.email);
      expect(notice).toMatchObject({ kind: 'address-change-requested' });
      expect(notice!.text).toContain(newEmail);
      expect(notice!.text).not.toContain('http');
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: user.email });
      expect(await (await jar.fetch(`${h.url}/auth/account?notice=email-sent`)).text()).toContain('Check the new address');
    });

    it('answers 202 to a JSON client', async () => {
      const jar = await signIn(h, (await newUser(h)).email);
      const response = await post(h, jar, 'account/email', { newEmail: freshAddress() }, true);
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual({ sent: true });
    });

    it('refuses an address that is not one, by its field (400, aria-invalid, aria-describedby)', async () => {
      const jar = await signIn(h, (await newUser(h)).email);
      const response = await post(h, jar, 'account/email', { newEmail: 'ada@example.test, eve@example.test' });
      expect(response.status).toBe(400);
      const page = await response.text();
      expect(page).toContain('aria-invalid="true" aria-describedby="account-new-email-error"');
      expect(page).toContain('id="account-new-email-error"');
      expect(page).toContain('Enter a single email address');
    });

    it('refuses the address the account has already (400)', async () => {
      const user = await newUser(h);
      const response = await post(h, await signIn(h, user.email), 'account/email', { newEmail: user.email }, true);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'InvalidRequest', errors: { newEmail: 'This is already your email address.' } });
    });

    it('answers alike for an address another user has, and sends that address a notice with no link instead', async () => {
      const user = await newUser(h);
      const other = await newUser(h);
      const jar = await signIn(h, user.email);
      const free = await post(h, jar, 'account/email', { newEmail: freshAddress() });
      const taken = await post(h, jar, 'account/email', { newEmail: other.email });
      expect(taken.status).toBe(free.status);
      expect(taken.headers.get('location')).toBe(free.headers.get('location'));
      expect(await taken.text()).toBe(await free.text());
      const [attempt] = await messagesTo(h, other.email);
      expect(attempt).toMatchObject({ kind: 'address-change-attempt' });
      expect(attempt!.text).not.toContain('token=');
      expect(await h.adapter.getUser(other.id)).toMatchObject({ email: other.email });
    });

    it('opening the link (GET) in the asking browser shows a confirm button, names the account masked, and changes nothing', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const newEmail = freshAddress();
      const token = await requestChange(h, jar, newEmail);
      const response = await jar.fetch(`${h.url}/auth/account/email/confirm?token=${token}`);
      expect(response.status).toBe(200);
      const page = await response.text();
      expect(page).toContain('action="/auth/account/email/confirm"');
      expect(page).toContain(`name="token" value="${token}"`);
      expect(page).toContain('name="csrfToken"');
      expect(page).toContain(`${user.email[0]}•••@example.test`);
      expect(page).not.toContain(user.email);
      expect(page).toContain(newEmail);
      expect(page).toContain('do not confirm');
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: user.email });
      expect(await hasSession(h, jar)).toBe(true);
    });

    it('opening the link (GET) in another browser shows no button: only the asking account can confirm', async () => {
      const user = await newUser(h);
      const token = await requestChange(h, await signIn(h, user.email), freshAddress());
      const page = await (await fetch(`${h.url}/auth/account/email/confirm?token=${token}`)).text();
      expect(page).toContain(`${user.email[0]}•••@example.test`);
      expect(page).not.toContain('action="/auth/account/email/confirm"');
      expect(page).not.toContain(token);
      expect(page).toContain('Only that account can confirm the change');
    });

    it('opening an unknown link (GET) says it is not valid (400)', async () => {
      const response = await fetch(`${h.url}/auth/account/email/confirm?token=${'a'.repeat(64)}`);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('This link is not valid');
    });

    it("confirming in the user's browser changes the address, proves it, keeps this session and ends the others", async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const other = await signIn(h, user.email);
      const newEmail = freshAddress();
      const token = await requestChange(h, jar, newEmail);
      const before = Date.now();
      const response = await post(h, jar, 'account/email/confirm', { token });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/account?notice=email-changed`);
      const changed = await h.adapter.getUser(user.id);
      expect(changed).toMatchObject({ email: newEmail });
      expect(changed!.emailVerified!.valueOf()).toBeGreaterThanOrEqual(before - 1000);
      expect(await hasSession(h, jar)).toBe(true);
      expect(await hasSession(h, other)).toBe(false);
      expect(await h.adapter.listSessionsByUserId(user.id)).toHaveLength(1);
      const events = await h.adapter.listSecurityEvents(user.id, 10);
      expect(events.map((event) => event.type)).toContain('email-changed');
    });

    it('A1: a browser without a session cannot confirm: it is asked to sign in, nothing changes, and the link stays usable', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const newEmail = freshAddress();
      const token = await requestChange(h, jar, newEmail);
      const elsewhere = createJar();
      const response = await post(h, elsewhere, 'account/email/confirm', { token });
      expect(response.status).toBe(302);
      expect(new URL(response.headers.get('location')!).pathname).toBe('/auth/signin');
      const json = await post(h, elsewhere, 'account/email/confirm', { token }, true);
      expect(json.status).toBe(401);
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: user.email });
      expect(await h.adapter.getUserByEmail(newEmail)).toBeNull();
      expect(await hasSession(h, jar)).toBe(true);
      expect((await post(h, jar, 'account/email/confirm', { token })).status).toBe(302);
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: newEmail });
    });

    it("A1: another user's browser cannot confirm (403), and the link stays usable by the account that asked", async () => {
      const user = await newUser(h);
      const stranger = await newUser(h);
      const jar = await signIn(h, user.email);
      const newEmail = freshAddress();
      const token = await requestChange(h, jar, newEmail);
      const response = await post(h, await signIn(h, stranger.email), 'account/email/confirm', { token }, true);
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: 'WrongAccount' });
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: user.email });
      expect(await h.adapter.getUser(stranger.id)).toMatchObject({ email: stranger.email });
      expect((await post(h, jar, 'account/email/confirm', { token }, true)).status).toBe(200);
    });

    it('A1: the asking browser past reauthMaxAge is sent to re-authenticate, and the link stays usable', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const newEmail = freshAddress();
      const token = await requestChange(h, jar, newEmail);
      moveClock(11 * 60);
      const response = await post(h, jar, 'account/email/confirm', { token }, true);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: 'reauthentication_required' });
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: user.email });
      const again = await signIn(h, user.email);
      expect((await post(h, again, 'account/email/confirm', { token }, true)).status).toBe(200);
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: newEmail });
    });

    it('refuses a link used once already (400)', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const token = await requestChange(h, jar, freshAddress());
      expect((await post(h, jar, 'account/email/confirm', { token })).status).toBe(302);
      const again = await post(h, jar, 'account/email/confirm', { token }, true);
      expect(again.status).toBe(400);
      expect(await again.json()).toMatchObject({ error: 'InvalidToken' });
    });

    it('refuses a link past its hour (400) and keeps the address', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const token = await requestChange(h, jar, freshAddress());
      moveClock(60 * 60 + 5);
      const response = await post(h, await signIn(h, user.email), 'account/email/confirm', { token });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('The address was not changed');
      vi.useRealTimers();
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: user.email });
    });

    it('a newer request voids the link of the older one', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const older = await requestChange(h, jar, freshAddress());
      const newEmail = freshAddress();
      const newer = await requestChange(h, jar, newEmail);
      expect((await post(h, jar, 'account/email/confirm', { token: older }, true)).status).toBe(400);
      expect((await post(h, jar, 'account/email/confirm', { token: newer }, true)).status).toBe(200);
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: newEmail });
    });

    it('refuses the change when another user has the address by then (409)', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const newEmail = freshAddress();
      const token = await requestChange(h, jar, newEmail);
      const squatter = await h.adapter.createUser({ id: crypto.randomUUID(), email: newEmail, emailVerified: null });
      const response = await post(h, jar, 'account/email/confirm', { token });
      expect(response.status).toBe(409);
      expect(await response.text()).toContain('Another account has this email address now');
      expect(await h.adapter.getUser(user.id)).toMatchObject({ email: user.email });
      expect(await h.adapter.getUser(squatter.id)).toMatchObject({ email: newEmail });
    });

    it('stores only a digest of the link’s token', async () => {
      const user = await newUser(h);
      const token = await requestChange(h, await signIn(h, user.email), freshAddress());
      if (h.file) {
        const database = new Database(h.file, { readonly: true });
        const rows = database.prepare('SELECT * FROM email_changes WHERE user_id = ?').all(user.id) as { digest: string }[];
        database.close();
        expect(rows).toHaveLength(1);
        expect(rows[0]!.digest).not.toContain(token);
        expect(rows[0]!.digest).toMatch(/^[0-9a-f]{64}$/);
      }
    });
  });

  describe('removing a way to sign in', () => {
    it('unlinks an account and records it', async () => {
      const user = await newUser(h);
      await h.adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}` });
      const jar = await signIn(h, user.email);
      const response = await post(h, jar, 'account/unlink', { provider: 'oidc' });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/account?notice=unlinked`);
      expect(await h.adapter.listAccountsByUserId(user.id)).toEqual([]);
      expect((await h.adapter.listSecurityEvents(user.id, 10))[0]).toMatchObject({ type: 'account-unlinked', method: 'oidc' });
    });

    it('counts no account of a provider the app no longer has as a way to sign in', async () => {
      const user = await newUser(h, { password: false });
      await h.adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}` });
      await h.adapter.linkAccount({ userId: user.id, type: 'oauth', provider: 'dropped-provider', providerAccountId: `gone-${user.id}` });
      const response = await post(h, await sessionOf(h, user.id), 'account/unlink', { provider: 'oidc' }, true);
      expect(response.status).toBe(400);
      expect(await h.adapter.listAccountsByUserId(user.id)).toHaveLength(2);
    });

    it('refuses to unlink the last way to sign in (400, by the field)', async () => {
      const user = await newUser(h, { password: false });
      await h.adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}` });
      const jar = await sessionOf(h, user.id);
      const response = await post(h, jar, 'account/unlink', { provider: 'oidc' });
      expect(response.status).toBe(400);
      const page = await response.text();
      expect(page).toContain('id="account-unlink-error"');
      expect(page).toContain('This is your only way to sign in');
      expect(page).toContain('aria-describedby="account-unlink-error"');
      expect(await h.adapter.listAccountsByUserId(user.id)).toHaveLength(1);
    });

    it('refuses to unlink an account the user does not have (400)', async () => {
      const jar = await signIn(h, (await newUser(h)).email);
      const response = await post(h, jar, 'account/unlink', { provider: 'github' }, true);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'InvalidRequest', errors: { unlink: 'You have no linked github account.' } });
    });

    it('removes a passkey: its authenticator and its account', async () => {
      const user = await newUser(h);
      const passkey = passkeyOf(user.id);
      await h.adapter.linkAccount({ userId: user.id, type: 'webauthn', provider: 'passkey', providerAccountId: passkey.providerAccountId });
      await h.adapter.createAuthenticator(passkey);
      const response = await post(h, await signIn(h, user.email), 'account/passkeys/remove', { id: passkey.credentialID });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/account?notice=passkey-removed`);
      expect(await h.adapter.listAuthenticatorsByUserId(user.id)).toEqual([]);
      expect(await h.adapter.listAccountsByUserId(user.id)).toEqual([]);
      expect((await h.adapter.listSecurityEvents(user.id, 10))[0]).toMatchObject({ type: 'passkey-removed' });
    });

    it('refuses to remove the last passkey of a user with no other way to sign in (400)', async () => {
      const user = await newUser(h, { password: false });
      const passkey = passkeyOf(user.id);
      await h.adapter.linkAccount({ userId: user.id, type: 'webauthn', provider: 'passkey', providerAccountId: passkey.providerAccountId });
      await h.adapter.createAuthenticator(passkey);
      const response = await post(h, await sessionOf(h, user.id), 'account/passkeys/remove', { id: passkey.credentialID }, true);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ errors: { passkey: expect.stringContaining('only way to sign in') } });
      expect(await h.adapter.listAuthenticatorsByUserId(user.id)).toHaveLength(1);
    });

    it("refuses another user's passkey like an unknown one (400)", async () => {
      const owner = await newUser(h);
      const passkey = passkeyOf(owner.id);
      await h.adapter.createAuthenticator(passkey);
      const response = await post(h, await signIn(h, (await newUser(h)).email), 'account/passkeys/remove', { id: passkey.credentialID }, true);
      expect(response.status).toBe(400);
      expect(await h.adapter.listAuthenticatorsByUserId(owner.id)).toHaveLength(1);
    });
  });

  describe('GET <mount>/account/export', () => {
    it('downloads account-<date>.json, never cached', async () => {
      const response = await (await signIn(h, (await newUser(h)).email)).fetch(`${h.url}/auth/account/export`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="account-${new Date().toISOString().slice(0, 10)}.json"`);
      expect(response.headers.get('cache-control')).toContain('no-store');
      expect(response.headers.get('content-type')).toContain('application/json');
    });

    it('tells browsers not to sniff the download (review 5, A6)', async () => {
      const response = await (await signIn(h, (await newUser(h)).email)).fetch(`${h.url}/auth/account/export`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('holds the user, accounts, sessions, passkeys, API keys, password and two-factor state and the security events, and no hash, token, secret or key', async () => {
      const user = await newUser(h, { name: 'Grace' });
      await h.adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}`, access_token: 'secret-access-token', refresh_token: 'secret-refresh-token', id_token: 'secret-id-token' });
      const passkey = passkeyOf(user.id);
      await h.adapter.createAuthenticator(passkey);
      const { key } = await createApiKey(h.config, { userId: user.id, name: 'deploys' });
      const [stored] = await h.adapter.listApiKeys(user.id);
      // Signed in first: with two-factor on, a password alone opens no session.
      const jar = await signIn(h, user.email);
      await h.adapter.setTwoFactor(user.id, { secret: 'ENCRYPTED-TOTP-SECRET', enabledAt: new Date() });
      await h.adapter.setRecoveryCodes(user.id, ['recovery-code-digest']);
      await h.adapter.createSecurityEvent({ id: crypto.randomUUID(), userId: user.id, type: 'sign-in', at: new Date(), method: 'password', ip: '198.51.100.7', userAgent: 'Safari', detail: null });
      const text = await (await jar.fetch(`${h.url}/auth/account/export`)).text();
      const exported = JSON.parse(text) as Record<string, unknown>;
      expect(exported).toMatchObject({
        user: { id: user.id, name: 'Grace', email: user.email },
        accounts: [{ provider: 'oidc', type: 'oidc', providerAccountId: `sub-${user.id}` }],
        passkeys: [{ id: passkey.credentialID }],
        apiKeys: [{ name: 'deploys', scopes: [] }],
        password: { set: true },
        twoFactor: { on: true },
      });
      expect(exported['sessions']).toEqual([expect.objectContaining({ current: true })]);
      expect(exported['securityEvents']).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'sign-in', ip: '198.51.100.7' })]));
      const sessionToken = jar.get('authjs.session-token', h.url);
      const hash = await h.adapter.getPasswordHash(user.id);
      for (const secret of ['secret-access-token', 'secret-refresh-token', 'secret-id-token', key, stored!.start, hash!, 'ENCRYPTED-TOTP-SECRET', 'recovery-code-digest', passkey.credentialPublicKey, sessionToken!]) {
        expect(text).not.toContain(secret);
      }
      expect(text).not.toMatch(/"(digest|hash|secret|start|credentialPublicKey|sessionToken|access_token|refresh_token|id_token)"/);
    });
  });

  describe('POST <mount>/account/delete', () => {
    it('refuses without the confirmation, by its field (400), and deletes nothing', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const response = await post(h, jar, 'account/delete', { email: 'someone-else@example.test' });
      expect(response.status).toBe(400);
      const page = await response.text();
      expect(page).toContain('aria-invalid="true" aria-describedby="account-delete-email-error"');
      expect(page).toContain('Type your email address exactly');
      expect(await h.adapter.getUser(user.id)).not.toBeNull();
      expect(await hasSession(h, jar)).toBe(true);
    });

    it('deletes the user and what is tied to it, ends every session, clears the cookie, notifies the address and goes home', async () => {
      const user = await newUser(h);
      await h.adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}` });
      await h.adapter.createAuthenticator(passkeyOf(user.id));
      await createApiKey(h.config, { userId: user.id, name: 'deploys' });
      const jar = await signIn(h, user.email);
      const other = await signIn(h, user.email);
      await h.adapter.setTwoFactor(user.id, { secret: 'ENCRYPTED', enabledAt: new Date() });
      const response = await post(h, jar, 'account/delete', { email: user.email.toUpperCase() });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/`);
      expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith('authjs.session-token=;'))).toBe(true);
      expect(await h.adapter.getUser(user.id)).toBeNull();
      expect(await h.adapter.getUserByEmail(user.email)).toBeNull();
      expect(await h.adapter.listAccountsByUserId(user.id)).toEqual([]);
      expect(await h.adapter.listSessionsByUserId(user.id)).toEqual([]);
      expect(await h.adapter.listAuthenticatorsByUserId(user.id)).toEqual([]);
      expect(await h.adapter.listApiKeys(user.id)).toEqual([]);
      expect(await h.adapter.getTwoFactor(user.id)).toBeNull();
      expect(await h.adapter.getPasswordHash(user.id)).toBeNull();
      expect(await hasSession(h, other)).toBe(false);
      // The API key created above was told too (a security notification), before the deletion.
      await vi.waitFor(() => expect(h.messages.filter((message) => message.to === user.email).map((message) => message.kind)).toEqual(['security-notification', 'account-deleted']));
    });

    it('sends the security notifications through its own transport, and none with notifications: false', async () => {
      const user = await newUser(h);
      await createApiKey(h.config, { userId: user.id, name: 'deploys' });
      const [notice] = await messagesTo(h, user.email);
      expect(notice).toMatchObject({ kind: 'security-notification', subject: expect.stringMatching(/API key/) });
      expect(notice!.text).toContain('"deploys"');
      // The notifications are sent (not delivered) by the time createApiKey resolves: none here means none at all.
      expect(h.messages.filter((message) => message.to === user.email)).toHaveLength(1);
      const quiet = await startHarness(await makeAdapter(), (messages) => [Account({ notifications: false, sendMessage: (message) => void messages.push(message) }), ApiKeys()]);
      try {
        const other = await newUser(quiet);
        await createApiKey(quiet.config, { userId: other.id, name: 'deploys' });
        expect(quiet.messages).toEqual([]);
        expect((await quiet.adapter.listSecurityEvents(other.id, 10)).map((event) => event.type)).toEqual(['api-key-created']);
      } finally {
        await quiet.app.close();
      }
    });

    it("drops other users' pending changes to the deleted address: no row keeps it", async () => {
      const asker = await newUser(h);
      const address = freshAddress();
      const token = await requestChange(h, await signIn(h, asker.email), address);
      // The address, still free, then gets an account of its own, which is deleted.
      const owner = await h.adapter.createUser({ id: crypto.randomUUID(), email: address, emailVerified: new Date(), name: null, image: null });
      expect((await post(h, await sessionOf(h, owner.id), 'account/delete', { confirm: 'yes' }, true)).status).toBe(200);
      // The asker's link no longer holds the address: it changes nothing.
      expect((await post(h, await signIn(h, asker.email), 'account/email/confirm', { token }, true)).status).toBe(400);
    });

    it('takes confirm=yes instead of the address, and answers JSON clients 200', async () => {
      const user = await newUser(h);
      const response = await post(h, await signIn(h, user.email), 'account/delete', { confirm: 'yes' }, true);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ deleted: true });
      expect(await h.adapter.getUser(user.id)).toBeNull();
    });

    it('leaves no row holding the address: verification tokens and a pending change included', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      await requestChange(h, jar, freshAddress());
      const expires = new Date(Date.now() + 3_600_000);
      for (const identifier of [user.email, `password-reset:${user.email}`, `password-verify:${user.email}`]) {
        await h.adapter.createVerificationToken({ identifier, token: crypto.randomUUID(), expires });
      }
      expect((await post(h, jar, 'account/delete', { email: user.email })).status).toBe(302);
      for (const identifier of [user.email, `password-reset:${user.email}`, `password-verify:${user.email}`]) {
        expect(await h.adapter.useVerificationToken({ identifier, token: 'any' })).toBeNull();
      }
      if (h.file) {
        const database = new Database(h.file);
        const tables = (database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((table) => table.name);
        for (const table of tables) {
          const rows = database.prepare(`SELECT * FROM ${table}`).all();
          expect(JSON.stringify(rows), table).not.toContain(user.email);
        }
        // The WAL's frames into the file, and the WAL emptied: what is left is what the file keeps.
        database.pragma('wal_checkpoint(TRUNCATE)');
        database.close();
        expect((await readFile(h.file)).includes(Buffer.from(user.email))).toBe(false);
      }
    });
  });

  it('the sessions page links to the account page', async () => {
    const page = await (await (await signIn(h, (await newUser(h)).email)).fetch(`${h.url}/auth/sessions`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('href="/auth/account"');
  });

  it('the sign-in page, to a signed-in user, says who is signed in and links the account page; to others, neither', async () => {
    const user = await newUser(h);
    const signedIn = await (await (await signIn(h, user.email)).fetch(`${h.url}/auth/signin`)).text();
    expect(signedIn).toContain(`Signed in as <strong>${user.email}</strong>. <a href="/auth/account">Your account</a>`);
    const anonymous = await (await fetch(`${h.url}/auth/signin`)).text();
    expect(anonymous).toContain('<h1>Sign in</h1>');
    expect(anonymous).not.toContain('Signed in as');
    expect(anonymous).not.toContain('/auth/account');
  });
});

function passkeyOf(userId: string) {
  const id = `credential-${crypto.randomUUID()}`;
  return { credentialID: id, userId, providerAccountId: id, credentialPublicKey: `public-key-${crypto.randomUUID()}`, counter: 0, credentialDeviceType: 'multiDevice', credentialBackedUp: true, transports: 'internal' };
}

describe('the address change with rate limits on', () => {
  it('refuses the sixth request of a user within 15 minutes (429, Retry-After) and sends nothing for it', async () => {
    const h = await startHarness({ adapter: MemoryAdapter(), folder: undefined }, undefined, { rateLimit: {} });
    try {
      const jar = await signIn(h, (await newUser(h)).email);
      for (let attempt = 0; attempt < 5; attempt++) expect((await post(h, jar, 'account/email', { newEmail: freshAddress() }, true)).status).toBe(202);
      const refused = await post(h, jar, 'account/email', { newEmail: freshAddress() }, true);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(h.messages.filter((message) => message.kind === 'confirm-new-address')).toHaveLength(5);
    } finally {
      await h.close();
    }
  });
});

describe('the account without a mail service in production', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ adapter: MemoryAdapter(), folder: undefined }, () => [Account({}, { NODE_ENV: 'production' })]);
  });
  afterAll(() => h.close());

  it('has no mailer to hand to other features', () => {
    expect(accountMailerOf(Account({}, { NODE_ENV: 'production' }))).toBeUndefined();
    expect(accountMailerOf(Account({}, { NODE_ENV: 'production', AUTH_EMAIL_SERVER: 'smtp://127.0.0.1:2525', AUTH_EMAIL_FROM: 'a@example.test' }))?.printsMessages).toBe(false);
    expect(accountMailerOf(Account({}, {}))?.printsMessages).toBe(true);
  });

  it('says on the page why the address cannot be changed, and offers no form', async () => {
    const page = await (await (await signIn(h, (await newUser(h)).email)).fetch(`${h.url}/auth/account`)).text();
    expect(page).toContain('needs an email service');
    expect(page).not.toContain('action="/auth/account/email"');
  });

  it('refuses the change (400) and sends nothing', async () => {
    const response = await post(h, await signIn(h, (await newUser(h)).email), 'account/email', { newEmail: freshAddress() }, true);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ errors: { newEmail: expect.stringContaining('needs an email service') } });
  });

  it('still deletes an account', async () => {
    const user = await newUser(h);
    expect((await post(h, await signIn(h, user.email), 'account/delete', { confirm: 'yes' }, true)).status).toBe(200);
    expect(await h.adapter.getUser(user.id)).toBeNull();
  });

  it('the sessions page and the sign-in page have no account link without the account feature', async () => {
    const plain = await startHarness({ adapter: MemoryAdapter(), folder: undefined }, () => []);
    try {
      const jar = await signIn(plain, (await newUser(plain)).email);
      const page = await (await jar.fetch(`${plain.url}/auth/sessions`, { headers: { accept: 'text/html' } })).text();
      expect(page).toContain('Your sessions');
      expect(page).not.toContain('/auth/account');
      const signInPage = await (await jar.fetch(`${plain.url}/auth/signin`)).text();
      expect(signInPage).not.toContain('Signed in as');
      expect(signInPage).not.toContain('/auth/account');
    } finally {
      await plain.close();
    }
  });
});

describe('the account at startup', () => {
  it('refuses JWT sessions beside an adapter: no session row to delete after an address change or a deletion', () => {
    const config: FrameworkAuthConfig = { secret: SECRET, trustHost: ['127.0.0.1'], adapter: MemoryAdapter(), session: { strategy: 'jwt' }, providers: [Password({ sendMessage: () => {} })], features: [Account({ sendMessage: () => {} })] };
    expect(() => resolveConfig(config, {})).toThrow(UnsupportedStrategy);
    expect(() => resolveConfig(config, {})).toThrow(/Account\(\) needs database sessions/);
  });

  it('refuses an app without an adapter, naming it', () => {
    expect(() => resolveConfig({ secret: SECRET, providers: [], features: [Account({ sendMessage: () => {} })] }, {})).toThrow(/"account" \(feature\) needs an adapter/);
  });
});
