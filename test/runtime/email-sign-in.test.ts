// Email (magic link) sign-in end to end: a real SMTP server on 127.0.0.1 receives the message that nodemailer sends,
// and the link in it is opened through the app like a browser would.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { FrameworkAuth, MissingAdapter, MissingAdapterMethods } from '../../templates/runtime/index.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import type { VerificationToken } from '../../templates/runtime/features/database/adapter.js';
import Email from '../../templates/runtime/providers/email.js';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { findForm } from '../support/html-form.js';
import { startSmtpServer, type ReceivedMessage, type RunningSmtpServer } from '../support/smtp-server.js';
import { AppRegistry, csrfTokenOf, expectRedirect, sessionOf, type AuthApp } from './oauth-harness.js';
import { SECRET } from './helpers.js';

const FROM = 'Example App <no-reply@example.test>';
let smtp: RunningSmtpServer;
const apps = new AppRegistry();
const savedEnv = { server: process.env['AUTH_EMAIL_SERVER'], from: process.env['AUTH_EMAIL_FROM'] };

beforeAll(async () => {
  smtp = await startSmtpServer();
  // The default sender reads its SMTP settings from the env, as a generated project does.
  process.env['AUTH_EMAIL_SERVER'] = smtp.url;
  process.env['AUTH_EMAIL_FROM'] = FROM;
});
afterAll(async () => {
  await apps.closeAll();
  await smtp?.close();
  for (const [key, value] of [['AUTH_EMAIL_SERVER', savedEnv.server], ['AUTH_EMAIL_FROM', savedEnv.from]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

/** Records what the adapter was asked to store, so tests can look at the stored token. */
function recordingAdapter(): { adapter: Adapter; stored: VerificationToken[] } {
  const inner = MemoryAdapter();
  const stored: VerificationToken[] = [];
  return {
    stored,
    adapter: {
      ...inner,
      createVerificationToken(token) {
        stored.push(token);
        return inner.createVerificationToken!(token);
      },
    },
  };
}

async function startApp(config: Partial<FrameworkAuthConfig> = {}): Promise<AuthApp & { adapter: Adapter; stored: VerificationToken[] }> {
  const { adapter, stored } = recordingAdapter();
  // Emailed links need a configured origin (AUTH_URL or a trustHost list): the test app is reached at 127.0.0.1.
  const app = await apps.start({ providers: [Email()], adapter, trustHost: ['127.0.0.1'], ...config });
  return Object.assign(app, { adapter: config.adapter ?? adapter, stored });
}

/** POST <mount>/signin/email with a fresh CSRF token; returns the response (no redirect followed). */
async function requestLink(app: AuthApp, jar: CookieJar, email: string, extra: Record<string, string> = {}, init: RequestInit = {}): Promise<Response> {
  const csrfToken = await csrfTokenOf(app, jar);
  return app.fetch(jar, `${app.mount}/signin/email`, { method: 'POST', ...formBody({ csrfToken, email, ...extra }), ...init });
}

/** The sign-in link of a message (its plain-text part). */
function linkOf(message: ReceivedMessage): URL {
  const match = /https?:\/\/\S+\/callback\/email\?\S+/.exec(message.text ?? '');
  expect(match, 'a sign-in link in the text part').toBeTruthy();
  return new URL(match![0]);
}

/** Requests a link for `email` and returns the message that arrived for it. */
async function receiveLink(app: AuthApp, jar: CookieJar, email: string, extra: Record<string, string> = {}): Promise<{ message: ReceivedMessage; link: URL }> {
  const before = smtp.messages.length;
  const response = await requestLink(app, jar, email, extra);
  expectRedirect(response, { pathname: '/auth/verify-request' });
  const message = await smtp.waitForMessage(before);
  return { message, link: linkOf(message) };
}

describe('email sign-in: the message', () => {
  it('sends one message to the address, from AUTH_EMAIL_FROM, with a plain-text and an HTML part', async () => {
    const app = await startApp();
    const { message, link } = await receiveLink(app, createJar(), 'ada@example.test');
    expect(message.rcptTo).toEqual(['ada@example.test']);
    expect(message.mailFrom).toBe('no-reply@example.test');
    expect(message.headers['from']).toBe(FROM);
    expect(message.headers['to']).toBe('ada@example.test');
    expect(message.headers['subject']).toBe(`Sign in to ${new URL(app.url).host}`);
    expect(message.headers['content-type']).toMatch(/^multipart\/alternative/);
    expect(message.text).toContain(link.href);
    expect(message.html).toContain(`href="${link.href.replace(/&/g, '&amp;')}"`);
    expect(link.origin + link.pathname).toBe(`${app.url}/auth/callback/email`);
    expect(link.searchParams.get('email')).toBe('ada@example.test');
    expect(link.searchParams.get('token')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('carries no secret but the link: the token appears only inside it, never the secret or the stored hash', async () => {
    const app = await startApp();
    const { message, link } = await receiveLink(app, createJar(), 'grace@example.test');
    const token = link.searchParams.get('token')!;
    const decodedWithoutLinks = `${message.text}${message.html}`.replaceAll(link.href, '').replaceAll(link.href.replace(/&/g, '&amp;'), '');
    expect(decodedWithoutLinks).not.toContain(token);
    expect(message.raw).not.toContain(SECRET);
    expect(message.raw).not.toContain(app.stored.at(-1)!.token);
  });

  it('stores only the SHA-256 of token and secret, with the one-hour default expiry', async () => {
    const app = await startApp();
    const started = Date.now();
    const { link } = await receiveLink(app, createJar(), 'ada@example.test');
    const stored = app.stored.at(-1)!;
    const token = link.searchParams.get('token')!;
    expect(stored.identifier).toBe('ada@example.test');
    expect(stored.token).toBe(createHash('sha256').update(`${token}${SECRET}`).digest('hex'));
    expect(stored.token).not.toContain(token);
    expect(stored.expires.valueOf() - started).toBeGreaterThan(3600_000 - 60_000);
    expect(stored.expires.valueOf() - started).toBeLessThanOrEqual(3600_000 + 60_000);
  });

  it('normalises the address: trimmed, lower-cased, comments removed', async () => {
    const app = await startApp();
    const { message, link } = await receiveLink(app, createJar(), '  Ada.Lovelace(work)@Example.TEST ');
    expect(message.rcptTo).toEqual(['ada.lovelace@example.test']);
    expect(link.searchParams.get('email')).toBe('ada.lovelace@example.test');
  });

  it('keeps the sign-in page free of scripts when no passkey provider is configured', async () => {
    const app = await startApp();
    const response = await app.fetch(createJar(), '/auth/signin');
    expect(response.headers.get('content-security-policy')).not.toContain('script-src');
    expect(await response.text()).not.toContain('<script');
  });

  it('is requested through the email form of the default sign-in page', async () => {
    const app = await startApp();
    const jar = createJar();
    const page = await app.fetch(jar, '/auth/signin');
    const html = await page.text();
    const form = findForm(html, `${app.url}/auth/signin`, 'email');
    expect(form?.action).toBe(`${app.url}/auth/signin/email`);
    expect(html).toMatch(/<label for="input-email-for-email-provider">Email<\/label><input id="input-email-for-email-provider" name="email" type="email"/);
    const before = smtp.messages.length;
    const response = await app.fetch(jar, form!.action, { method: 'POST', ...formBody({ ...form!.fields, email: 'form@example.test' }) });
    expectRedirect(response, { pathname: '/auth/verify-request' });
    expect((await smtp.waitForMessage(before)).rcptTo).toEqual(['form@example.test']);
    const check = await app.fetch(jar, response.headers.get('location')!);
    expect(check.status).toBe(200);
    expect(await check.text()).toContain('Check your email');
  });
});

describe('email sign-in: the link', () => {
  it('signs the user in: a session, and a stored user whose email is verified', async () => {
    const app = await startApp();
    const jar = createJar();
    const { link } = await receiveLink(app, jar, 'ada@example.test', { callbackUrl: '/dashboard' });
    expect(link.searchParams.get('callbackUrl')).toBe(`${app.url}/dashboard`);
    const before = Date.now();
    const response = await app.fetch(jar, link);
    expectRedirect(response, { origin: app.url, pathname: '/dashboard' });
    const session = await sessionOf(app, jar);
    expect(session?.user).toMatchObject({ email: 'ada@example.test' });
    const user = await app.adapter.getUserByEmail!('ada@example.test');
    expect(user?.id).toBe(session?.user?.id);
    expect(user?.emailVerified).toBeInstanceOf(Date);
    expect(user!.emailVerified!.valueOf()).toBeGreaterThanOrEqual(before - 1000);
    // Auth.js links no account row for email sign-in.
    expect(await app.adapter.getAccount!('ada@example.test', 'email')).toBeNull();
  });

  it('signs in a user who proved the address before and sets emailVerified to now, without creating another user', async () => {
    const app = await startApp();
    const existing = await app.adapter.createUser!({ id: 'user-1', email: 'known@example.test', emailVerified: new Date(0), name: 'Known' });
    const jar = createJar();
    const { link } = await receiveLink(app, jar, 'known@example.test');
    const before = Date.now();
    expectRedirect(await app.fetch(jar, link), { pathname: '/' });
    expect(await sessionOf(app, jar)).toMatchObject({ user: { id: existing.id, name: 'Known', email: 'known@example.test' } });
    expect((await app.adapter.getUser!('user-1'))!.emailVerified!.valueOf()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('refuses a link used a second time with the Verification error page', async () => {
    const app = await startApp();
    const { link } = await receiveLink(app, createJar(), 'ada@example.test');
    expectRedirect(await app.fetch(createJar(), link), { pathname: '/' });
    const jar = createJar();
    const second = await app.fetch(jar, link);
    const location = expectRedirect(second, { origin: app.url, pathname: '/auth/error', error: 'Verification' });
    expect(jar.get('authjs.session-token', app.url)).toBeUndefined();
    const page = await app.fetch(jar, location.href);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('The sign-in link is no longer valid');
  });

  it('refuses an expired link with the Verification error page', async () => {
    const app = await startApp({ providers: [Email({ maxAge: 1 })] });
    const { link } = await receiveLink(app, createJar(), 'ada@example.test');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const jar = createJar();
    expectRedirect(await app.fetch(jar, link), { pathname: '/auth/error', error: 'Verification' });
    expect(jar.get('authjs.session-token', app.url)).toBeUndefined();
    expect(await app.adapter.getUserByEmail!('ada@example.test')).toBeNull();
  });

  it('refuses an unknown token with the Verification error page', async () => {
    const app = await startApp();
    const { link } = await receiveLink(app, createJar(), 'ada@example.test');
    link.searchParams.set('token', 'f'.repeat(64));
    expectRedirect(await app.fetch(createJar(), link), { pathname: '/auth/error', error: 'Verification' });
  });

  it('refuses a link whose email was changed with the Verification error page', async () => {
    const app = await startApp();
    const { link } = await receiveLink(app, createJar(), 'ada@example.test');
    link.searchParams.set('email', 'eve@example.test');
    expectRedirect(await app.fetch(createJar(), link), { pathname: '/auth/error', error: 'Verification' });
    // The real link still works: a wrong guess did not use it up.
    link.searchParams.set('email', 'ada@example.test');
    expectRedirect(await app.fetch(createJar(), link), { pathname: '/' });
  });

  it('refuses a link without a token with the Verification error page', async () => {
    const app = await startApp();
    expectRedirect(await app.fetch(createJar(), '/auth/callback/email?email=ada%40example.test'), { pathname: '/auth/error', error: 'Verification' });
  });

  it('signs in through the SQLite adapter: the token row is used once, the user row is verified', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'framework-auth-email-'));
    try {
      const adapter = SqliteAdapter({ url: `file:${join(folder, 'auth.db')}` });
      const app = await startApp({ adapter });
      const jar = createJar();
      const { link } = await receiveLink(app, jar, 'sqlite@example.test');
      expectRedirect(await app.fetch(jar, link), { pathname: '/' });
      expect((await sessionOf(app, jar))?.user?.email).toBe('sqlite@example.test');
      expect((await adapter.getUserByEmail!('sqlite@example.test'))?.emailVerified).toBeInstanceOf(Date);
      expectRedirect(await app.fetch(createJar(), link), { pathname: '/auth/error', error: 'Verification' });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('signs in with JWT sessions too: the token names the stored user', async () => {
    const app = await startApp({ session: { strategy: 'jwt' } });
    const jar = createJar();
    const { link } = await receiveLink(app, jar, 'ada@example.test');
    expectRedirect(await app.fetch(jar, link), { pathname: '/' });
    expect(jar.get('authjs.session-token', app.url)?.split('.')).toHaveLength(5);
    const user = await app.adapter.getUserByEmail!('ada@example.test');
    expect(await sessionOf(app, jar)).toMatchObject({ user: { id: user!.id, email: 'ada@example.test' } });
  });
});

describe('email sign-in: one live link per address', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Moves the clock `minutes` past `from`; only Date is faked, so the HTTP and SMTP servers keep real timers. */
  function advanceClock(from: number, minutes: number): void {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(from + minutes * 60_000);
  }

  it('refuses a link older than an hour, the default lifetime, with the Verification error page', async () => {
    const app = await startApp();
    const sent = Date.now();
    const { link } = await receiveLink(app, createJar(), 'ada@example.test');
    advanceClock(sent, 61);
    const jar = createJar();
    expectRedirect(await app.fetch(jar, link), { pathname: '/auth/error', error: 'Verification' });
    expect(jar.get('authjs.session-token', app.url)).toBeUndefined();
  });

  it('signs in with a link 59 minutes old', async () => {
    const app = await startApp();
    const sent = Date.now();
    const { link } = await receiveLink(app, createJar(), 'ada@example.test');
    advanceClock(sent, 59);
    const jar = createJar();
    expectRedirect(await app.fetch(jar, link), { pathname: '/' });
    expect((await sessionOf(app, jar))?.user?.email).toBe('ada@example.test');
  });

  it('refuses the first link with the Verification error page once a second link was sent for the same address', async () => {
    const app = await startApp();
    const first = await receiveLink(app, createJar(), 'ada@example.test');
    await receiveLink(app, createJar(), 'ada@example.test');
    const jar = createJar();
    expectRedirect(await app.fetch(jar, first.link), { pathname: '/auth/error', error: 'Verification' });
    expect(jar.get('authjs.session-token', app.url)).toBeUndefined();
  });

  it('signs in with the second link sent for the same address', async () => {
    const app = await startApp();
    await receiveLink(app, createJar(), 'ada@example.test');
    const second = await receiveLink(app, createJar(), 'ada@example.test');
    const jar = createJar();
    expectRedirect(await app.fetch(jar, second.link), { pathname: '/' });
    expect((await sessionOf(app, jar))?.user?.email).toBe('ada@example.test');
  });

  it('still refuses the first link after the second link was used', async () => {
    const app = await startApp();
    const first = await receiveLink(app, createJar(), 'ada@example.test');
    const second = await receiveLink(app, createJar(), 'ada@example.test');
    expectRedirect(await app.fetch(createJar(), second.link), { pathname: '/' });
    const jar = createJar();
    expectRedirect(await app.fetch(jar, first.link), { pathname: '/auth/error', error: 'Verification' });
    expect(jar.get('authjs.session-token', app.url)).toBeUndefined();
  });

  it('leaves the link of another address working when a newer link is sent for this one', async () => {
    const app = await startApp();
    const other = await receiveLink(app, createJar(), 'grace@example.test');
    await receiveLink(app, createJar(), 'ada@example.test');
    await receiveLink(app, createJar(), 'ada@example.test');
    const jar = createJar();
    expectRedirect(await app.fetch(jar, other.link), { pathname: '/' });
    expect((await sessionOf(app, jar))?.user?.email).toBe('grace@example.test');
  });

  it('signs in through an adapter without deleteVerificationTokens (as an Auth.js adapter), logging nothing', async () => {
    const { deleteVerificationTokens: _delete, ...authJsLike } = MemoryAdapter();
    const logger = { error: vi.fn(), warn: vi.fn(), debug: vi.fn() };
    const app = await startApp({ adapter: authJsLike, logger });
    await receiveLink(app, createJar(), 'ada@example.test');
    const { link } = await receiveLink(app, createJar(), 'ada@example.test');
    const jar = createJar();
    expectRedirect(await app.fetch(jar, link), { pathname: '/' });
    expect((await sessionOf(app, jar))?.user?.email).toBe('ada@example.test');
    expect([...logger.error.mock.calls, ...logger.warn.mock.calls, ...logger.debug.mock.calls]).toEqual([]);
  });
});

describe('email sign-in: refusals', () => {
  let app: AuthApp;
  let before: number;
  beforeAll(async () => {
    app = await startApp();
  });
  beforeEach(() => {
    before = smtp.messages.length;
  });
  afterEach(() => {
    expect(smtp.messages.length, 'no message was sent').toBe(before);
  });

  it.each([
    ['no "@"', 'ada.example.test', 'exactly one "@"'],
    ['two "@"', 'ada@@example.test', 'exactly one "@"'],
    ['two addresses with a comma', 'ada@example.test,eve@example.test', 'exactly one "@"'],
    ['two addresses with a space', 'ada@example.test eve@example.test', 'exactly one "@"'],
    ['a display name', 'Ada <ada@example.test>', 'not a plain email name'],
    ['a header injection', 'ada@example.test\r\nBcc: eve@example.test', 'line break'],
    ['a quoted local part', '"ada"@example.test', 'not a plain email name'],
    ['a domain without a dot', 'ada@localhost', 'not a valid domain'],
    ['a domain with a space', 'ada@exa mple.test', 'not a valid domain'],
    ['a full-width "@" that becomes a second one', 'ada@example.test＠evil.test', 'exactly one "@"'],
    ['an empty address', '', 'Enter an email address'],
  ])('refuses %s with 400 and the sign-in page saying why', async (_name, email, reason) => {
    const jar = createJar();
    const response = await requestLink(app, jar, email);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('<h1>Sign in</h1>');
    expect(html).toMatch(/<div class="error" role="alert"><p>[^<]*<\/p><\/div>/);
    expect(html).toContain(reason.replace(/"/g, '&quot;'));
    expect(html).not.toContain('<script');
  });

  it('refuses a malformed address with 400 JSON for clients that ask for JSON', async () => {
    const response = await requestLink(app, createJar(), 'a@b@c.test', {}, { headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'EmailSignInError', message: 'Enter a single email address with exactly one "@".' });
  });

  it('refuses a POST without csrfToken: back to the sign-in page with MissingCSRF, nothing stored', async () => {
    const jar = createJar();
    await csrfTokenOf(app, jar);
    const response = await app.fetch(jar, '/auth/signin/email', { method: 'POST', ...formBody({ email: 'ada@example.test' }) });
    expectRedirect(response, { pathname: '/auth/signin', error: 'MissingCSRF' });
  });

  it('refuses a POST whose csrfToken does not match the cookie', async () => {
    const jar = createJar();
    await csrfTokenOf(app, jar);
    const response = await app.fetch(jar, '/auth/signin/email', { method: 'POST', ...formBody({ csrfToken: 'forged', email: 'ada@example.test' }) });
    expectRedirect(response, { pathname: '/auth/signin', error: 'MissingCSRF' });
  });

  it('answers a sender failure with EmailSignInError on the sign-in page, and the unsent link does not work', async () => {
    const { adapter, stored } = recordingAdapter();
    const failing = await apps.start({
      adapter,
      trustHost: ['127.0.0.1'],
      providers: [
        Email({
          sendVerificationRequest: () => {
            throw new Error('mail API down');
          },
        }),
      ],
    });
    const response = await requestLink(failing, createJar(), 'ada@example.test');
    expectRedirect(response, { pathname: '/auth/signin', error: 'EmailSignInError' });
    expect(failing.errors.map((error) => (error as { type?: string }).type)).toContain('EmailSignInError');
    expect(await adapter.useVerificationToken!({ identifier: 'ada@example.test', token: stored.at(-1)!.token })).toBeNull();
  });
});

describe('email sign-in: configuration', () => {
  it('refuses to start without an adapter (MissingAdapter)', () => {
    expect(() => FrameworkAuth({ secret: SECRET, providers: [Email()] })).toThrow(MissingAdapter);
    expect(() => FrameworkAuth({ secret: SECRET, providers: [Email()] })).toThrow(/Provider "email" \(email\) needs an adapter/);
  });

  it('refuses to start with an adapter that cannot store verification tokens (MissingAdapterMethods)', () => {
    const { createVerificationToken: _create, useVerificationToken: _use, ...adapter } = MemoryAdapter();
    expect(() => FrameworkAuth({ secret: SECRET, adapter, providers: [Email()] })).toThrow(MissingAdapterMethods);
    expect(() => FrameworkAuth({ secret: SECRET, adapter, providers: [Email()] })).toThrow(/createVerificationToken, useVerificationToken/);
  });

  it('lists the provider with its sign-in and callback URLs', async () => {
    const app = await startApp();
    const providers = (await (await app.fetch(createJar(), '/auth/providers')).json()) as Record<string, unknown>;
    expect(providers['email']).toEqual({
      id: 'email',
      name: 'Email',
      type: 'email',
      signinUrl: `${app.url}/auth/signin/email`,
      callbackUrl: `${app.url}/auth/callback/email`,
    });
  });
});
