// Passkeys end to end in real headless Chromium (Debian's chromium through playwright-core) with a virtual
// authenticator from the Chrome DevTools Protocol: register through the default sign-in page, sign out, sign in with
// the passkey; forged and replayed assertions are refused. The page runs at http://localhost:<port>, a secure
// context, while the server listens on 127.0.0.1 (Chromium resolves localhost to loopback itself).
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { chromium, type Browser, type BrowserContext, type Page, type Request as BrowserRequest } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { storeFeatures } from '../../templates/runtime/features/database/adapter.js';
import { withAllFeatures } from '../support/all-features.js';
import { FrameworkAuth, MissingAdapter, MissingAdapterMethods, getSession } from '../../templates/runtime/index.js';
import type { Adapter, FrameworkAuthConfig, Session } from '../../templates/runtime/index.js';
import Email from '../../templates/runtime/providers/email.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import { listen, type RunningApp } from '../support/listen.js';
import { SECRET, recordingLogger } from '../runtime/helpers.js';

const chromiumPath = '/usr/bin/chromium';
let browser: Browser;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: install Debian's chromium (scripts/test-all.sh does)`);
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}, 60_000);
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await browser?.close();
});

interface PasskeyApp {
  /** `http://localhost:<port>`: the origin the browser uses. */
  origin: string;
  /** `http://127.0.0.1:<port>`: where the server listens. */
  url: string;
  adapter: Adapter;
  errors: Error[];
}

async function startApp(adapter: Adapter, extra: Partial<FrameworkAuthConfig> = {}): Promise<PasskeyApp> {
  const { errors, logger } = recordingLogger();
  const config: FrameworkAuthConfig = { secret: SECRET, logger, trustHost: true, adapter, providers: [Passkey()], ...extra };
  const app = express();
  app.use('/auth/*splat', FrameworkAuth(config));
  app.get('/me', async (req, res) => {
    res.json({ session: await getSession(req, config) });
  });
  const running: RunningApp = await listen(app);
  cleanups.push(running.close);
  return { origin: running.url.replace('127.0.0.1', 'localhost'), url: running.url, adapter, errors };
}

interface BrowserSession {
  context: BrowserContext;
  page: Page;
}

/** A fresh browser profile with one virtual platform authenticator (resident keys, user verification). */
async function openBrowser(): Promise<BrowserSession> {
  const context = await browser.newContext();
  cleanups.push(() => context.close());
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { context, page };
}

/** The `/me` page's session, read from the page the browser is on. */
async function sessionOnPage(page: Page): Promise<Session | null> {
  return (JSON.parse((await page.textContent('body')) ?? 'null') as { session: Session | null }).session;
}

async function registerPasskey(app: PasskeyApp, page: Page, email: string): Promise<Session> {
  await page.goto(`${app.origin}/auth/signin?callbackUrl=%2Fme`);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Create a passkey' }).click();
  await page.waitForURL(`${app.origin}/me`);
  const session = await sessionOnPage(page);
  // The typed address is unproven: the new user's name, never its email.
  expect(session?.user?.name).toBe(email);
  expect(session?.user?.email ?? null).toBeNull();
  return session!;
}

async function signInWithPasskey(app: PasskeyApp, page: Page): Promise<void> {
  await page.goto(`${app.origin}/auth/signin?callbackUrl=%2Fme`);
  await page.getByRole('button', { name: 'Sign in with Passkey' }).click();
}

async function signOut(app: PasskeyApp, page: Page): Promise<void> {
  await page.goto(`${app.origin}/auth/signout`);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${app.origin}/`);
  await page.goto(`${app.origin}/me`);
  expect(await sessionOnPage(page)).toBeNull();
}

/**
 * A request to the app as the browser addresses it (`Host: localhost:<port>`), sent to 127.0.0.1: Node's fetch
 * neither lets a test set Host nor reliably reaches `localhost` on the IPv4 loopback.
 */
function requestAsBrowser(
  app: PasskeyApp,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(path, app.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: init.method ?? 'GET', headers: { ...init.headers, host: new URL(app.origin).host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

function setCookiesOf(headers: Record<string, string | string[] | undefined>): string[] {
  const value = headers['set-cookie'];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The body and cookies of the next passkey callback POST the page sends. */
function captureCallback(page: Page): Promise<{ body: string; cookie: string }> {
  return new Promise((resolve) => {
    const listener = async (request: BrowserRequest) => {
      if (request.method() !== 'POST' || !request.url().includes('/auth/callback/passkey')) return;
      page.off('request', listener);
      resolve({ body: request.postData() ?? '', cookie: (await request.allHeaders())['cookie'] ?? '' });
    };
    page.on('request', listener);
  });
}

const adapters: [string, () => Promise<Adapter>][] = [
  ['the memory adapter', async () => MemoryAdapter()],
  [
    'the SQLite adapter',
    async () => {
      const folder = await mkdtemp(join(tmpdir(), 'framework-auth-passkey-'));
      cleanups.push(() => rm(folder, { recursive: true, force: true }));
      return SqliteAdapter({ url: `file:${join(folder, 'auth.db')}` });
    },
  ],
];

describe.each(adapters)('passkeys in Chromium with %s', (_name, createAdapter) => {
  it('registers a passkey on the default sign-in page, signs out, and signs in with it', async () => {
    const app = await startApp(await createAdapter());
    const { page } = await openBrowser();
    const registered = await registerPasskey(app, page, 'ada@example.test');
    const userId = registered.user!.id!;

    const user = await app.adapter.getUser!(userId);
    expect(user).toMatchObject({ name: 'ada@example.test', emailVerified: null });
    expect(user!.email ?? null).toBeNull();
    const [authenticator] = await app.adapter.listAuthenticatorsByUserId!(userId);
    expect(authenticator).toMatchObject({ userId, providerAccountId: authenticator!.credentialID, transports: 'internal', credentialBackedUp: false });
    expect(authenticator!.credentialID).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(authenticator!.credentialPublicKey).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await app.adapter.getAccount!(authenticator!.credentialID, 'passkey')).toMatchObject({ userId, type: 'webauthn', provider: 'passkey' });

    await signOut(app, page);
    await signInWithPasskey(app, page);
    await page.waitForURL(`${app.origin}/me`);
    expect((await sessionOnPage(page))?.user).toMatchObject({ id: userId, name: 'ada@example.test' });
    const after = await app.adapter.getAuthenticator!(authenticator!.credentialID);
    expect(after!.counter).toBeGreaterThan(authenticator!.counter);
    expect(app.errors).toEqual([]);
  });
});

describe('passkeys in Chromium: with other sign-ins and other databases', () => {
  it('adds a passkey to the signed-in user (signed in by an email link), who then signs in with it', async () => {
    const links: string[] = [];
    const adapter = MemoryAdapter();
    const app = await startApp(adapter, {
      trustHost: ['localhost', '127.0.0.1'],
      providers: [Email({ sendVerificationRequest: ({ url }) => void links.push(url) }), Passkey()],
    });
    const { page, context } = await openBrowser();
    await page.goto(`${app.origin}/auth/signin`);
    await page.getByLabel('Email').first().fill('ada@example.test');
    await page.getByRole('button', { name: 'Sign in with Email' }).click();
    await page.waitForURL(/\/auth\/verify-request/);
    await page.goto(links[0]!);
    await page.goto(`${app.origin}/me`);
    const byEmail = await sessionOnPage(page);
    expect(byEmail?.user?.email).toBe('ada@example.test');

    await page.goto(`${app.origin}/auth/signin?callbackUrl=%2Fme`);
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.waitForURL(`${app.origin}/me`);
    expect((await sessionOnPage(page))?.user?.id).toBe(byEmail!.user!.id);
    expect(await adapter.listAuthenticatorsByUserId!(byEmail!.user!.id!)).toHaveLength(1);

    await context.clearCookies();
    await signInWithPasskey(app, page);
    await page.waitForURL(`${app.origin}/me`);
    expect((await sessionOnPage(page))?.user).toMatchObject({ id: byEmail!.user!.id, email: 'ada@example.test' });
  });

  it('sends a user whose sign-in is no longer recent to confirm it is them before adding a passkey (issue 34)', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp(adapter, { session: { reauthMaxAge: 2 } });
    const { page } = await openBrowser();
    const first = await registerPasskey(app, page, 'grace@example.test');
    await new Promise((resolve) => setTimeout(resolve, 3200));
    await page.goto(`${app.origin}/auth/signin?callbackUrl=%2Fme`);
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.waitForURL(/\/auth\/reauth\?callbackUrl=/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm it is you');
    expect(await adapter.listAuthenticatorsByUserId!(first.user!.id!)).toHaveLength(1);
    // The passkey the user has confirms it is them and brings them back, where adding a passkey is now allowed.
    await page.getByRole('button', { name: 'Sign in with Passkey' }).click();
    await page.waitForURL(`${app.origin}/auth/signin`);
    const options = await page.evaluate(async () => (await fetch('/auth/webauthn-options/passkey?action=register', { headers: { accept: 'application/json' } })).status);
    expect(options).toBe(200);
    await page.goto(`${app.origin}/me`);
    expect((await sessionOnPage(page))?.user?.id).toBe(first.user!.id);
  });

  it('signs in with a passkey stored as Auth.js stores it (standard base64 ids and keys)', async () => {
    const inner = MemoryAdapter();
    const base64 = (value: string) => Buffer.from(value, 'base64url').toString('base64');
    const adapter: Adapter = {
      ...inner,
      linkAccount: (account) => inner.linkAccount!(account.type === 'webauthn' ? { ...account, providerAccountId: base64(account.providerAccountId) } : account),
      createAuthenticator: (authenticator) =>
        inner.createAuthenticator!({
          ...authenticator,
          credentialID: base64(authenticator.credentialID),
          providerAccountId: base64(authenticator.providerAccountId),
          credentialPublicKey: base64(authenticator.credentialPublicKey),
        }),
    };
    const app = await startApp(adapter);
    const { page, context } = await openBrowser();
    const { user } = await registerPasskey(app, page, 'legacy@example.test');
    const [stored] = await inner.listAuthenticatorsByUserId!(user!.id!);
    // Stored in the standard alphabet with padding, not as the browser's base64url id.
    expect(stored!.credentialID).not.toBe(Buffer.from(stored!.credentialID, 'base64').toString('base64url'));
    await context.clearCookies();
    await signInWithPasskey(app, page);
    await page.waitForURL(`${app.origin}/me`);
    expect((await sessionOnPage(page))?.user?.id).toBe(user!.id);
    expect((await inner.getAuthenticator!(stored!.credentialID))!.counter).toBeGreaterThan(stored!.counter);
  });
});

describe('passkeys in Chromium: refusals', () => {
  let app: PasskeyApp;
  let session: BrowserSession;

  beforeAll(async () => {
    app = await startApp(MemoryAdapter());
    session = await openBrowser();
    await registerPasskey(app, session.page, 'grace@example.test');
    await signOut(app, session.page);
  });
  beforeEach(async () => {
    await session.context.clearCookies();
  });

  it('refuses a replayed assertion, even with the challenge cookie it was made for', async () => {
    const { page } = session;
    const captured = captureCallback(page);
    await signInWithPasskey(app, page);
    await page.waitForURL(`${app.origin}/me`);
    const { body, cookie } = await captured;
    expect(cookie).toContain('authjs.challenge=');
    const replay = await requestAsBrowser(app, '/auth/callback/passkey', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(replay.status).toBe(302);
    const location = new URL(String(replay.headers['location']));
    expect(location.pathname).toBe('/auth/signin');
    expect(location.searchParams.get('error')).toBe('WebAuthnVerificationError');
    expect(setCookiesOf(replay.headers).some((header) => /^authjs\.session-token=[^;]/.test(header))).toBe(false);
    const cause = (app.errors.at(-1) as (Error & { cause?: { err?: Error } }) | undefined)?.cause?.err;
    expect(cause).toBeInstanceOf(Error);
    expect((cause as Error).message).toMatch(/counter/i);
    await signOut(app, page);
  });

  it('refuses an assertion whose signature was forged, and the page says so', async () => {
    const { page } = session;
    await page.route('**/auth/callback/passkey', async (route) => {
      const form = new URLSearchParams(route.request().postData() ?? '');
      const data = JSON.parse(form.get('data')!) as { response: { signature: string } };
      const signature = Buffer.from(data.response.signature, 'base64url');
      signature.writeUInt8(signature.readUInt8(signature.length - 1) ^ 0xff, signature.length - 1);
      data.response.signature = signature.toString('base64url');
      form.set('data', JSON.stringify(data));
      await route.continue({ postData: form.toString() });
    });
    try {
      await signInWithPasskey(app, page);
      await page.waitForURL(/\/auth\/signin\?error=WebAuthnVerificationError/);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('The passkey could not be verified');
      await page.goto(`${app.origin}/me`);
      expect(await sessionOnPage(page)).toBeNull();
    } finally {
      await page.unroute('**/auth/callback/passkey');
    }
  });

  it('refuses an assertion for a credential that is not registered', async () => {
    const { page } = session;
    await page.route('**/auth/callback/passkey', async (route) => {
      const form = new URLSearchParams(route.request().postData() ?? '');
      const data = JSON.parse(form.get('data')!) as { id: string; rawId: string };
      data.id = data.rawId = Buffer.alloc(32, 7).toString('base64url');
      form.set('data', JSON.stringify(data));
      await route.continue({ postData: form.toString() });
    });
    try {
      await signInWithPasskey(app, page);
      await page.waitForURL(/\/auth\/signin\?error=WebAuthnVerificationError/);
      await page.goto(`${app.origin}/me`);
      expect(await sessionOnPage(page)).toBeNull();
    } finally {
      await page.unroute('**/auth/callback/passkey');
    }
  });

  it('refuses a callback without csrfToken', async () => {
    const { page } = session;
    await page.route('**/auth/callback/passkey', async (route) => {
      const form = new URLSearchParams(route.request().postData() ?? '');
      form.delete('csrfToken');
      await route.continue({ postData: form.toString() });
    });
    try {
      await signInWithPasskey(app, page);
      await page.waitForURL(/\/auth\/signin\?error=MissingCSRF/);
      await page.goto(`${app.origin}/me`);
      expect(await sessionOnPage(page)).toBeNull();
    } finally {
      await page.unroute('**/auth/callback/passkey');
    }
  });

  it('creates a passkey for an address another user has as a new user without it, leaving that user untouched', async () => {
    const owner = await app.adapter.createUser!({ id: 'owner-1', email: 'owner@example.test', emailVerified: new Date() });
    const { page } = await openBrowser();
    const created = await registerPasskey(app, page, 'owner@example.test');
    expect(created.user!.id).not.toBe(owner.id);
    expect(await app.adapter.getUserByEmail!('owner@example.test')).toMatchObject({ id: owner.id });
    expect(await app.adapter.listAuthenticatorsByUserId!(owner.id)).toEqual([]);
  });

  it('sends the page with a CSP that allows only its own script, by hash', async () => {
    const response = await fetch(`${app.url}/auth/signin`);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'; connect-src 'self'/);
    expect(csp).not.toContain('unsafe-inline\'; connect');
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    const errors: string[] = [];
    session.page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) errors.push(message.text());
    });
    await session.page.goto(`${app.origin}/auth/signin`);
    expect(errors).toEqual([]);
  });
});

describe('passkeys: options and configuration', () => {
  it('answers authentication options for discoverable credentials and sets the challenge cookie', async () => {
    const app = await startApp(MemoryAdapter());
    const response = await requestAsBrowser(app, '/auth/webauthn-options/passkey?action=authenticate');
    expect(response.status).toBe(200);
    const body = JSON.parse(response.body) as { action: string; options: { rpId: string; challenge: string; allowCredentials: unknown[]; userVerification: string } };
    expect(body.action).toBe('authenticate');
    expect(body.options).toMatchObject({ rpId: 'localhost', allowCredentials: [], userVerification: 'required' });
    const cookie = setCookiesOf(response.headers).find((header) => header.startsWith('authjs.challenge='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Max-Age=900/);
    expect(cookie).not.toContain(body.options.challenge);
  });

  it('answers registration options for a new email', async () => {
    const app = await startApp(MemoryAdapter());
    const response = await requestAsBrowser(app, '/auth/webauthn-options/passkey?action=register&email=New%40Example.test');
    expect(response.status).toBe(200);
    const body = JSON.parse(response.body) as { action: string; options: { rp: { id: string; name: string }; user: { name: string }; authenticatorSelection: unknown } };
    expect(body.action).toBe('register');
    expect(body.options.rp).toEqual({ id: 'localhost', name: new URL(app.origin).host });
    expect(body.options.user.name).toBe('new@example.test');
    expect(body.options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
  });

  it.each([
    ['an unknown action', '?action=delete', 'The action parameter must be "register" or "authenticate".'],
    ['registration without email or session', '?action=register', 'Enter your email address to create a passkey, or sign in first to add one to your account.'],
    ['registration with a malformed email', '?action=register&email=a%40b%40c.test', 'Enter a single email address with exactly one "@".'],
  ])('refuses %s with 400 JSON', async (_name, query, message) => {
    const app = await startApp(MemoryAdapter());
    const response = await fetch(`${app.url}/auth/webauthn-options/passkey${query}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'InvalidRequest', message });
  });

  it('refuses a callback GET with 405', async () => {
    const app = await startApp(MemoryAdapter());
    const response = await fetch(`${app.url}/auth/callback/passkey`, { redirect: 'manual' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('refuses to start without an adapter (MissingAdapter)', () => {
    expect(() => FrameworkAuth({ secret: SECRET, providers: [Passkey()] })).toThrow(MissingAdapter);
  });

  it('refuses to start with an adapter without the authenticator methods (MissingAdapterMethods)', () => {
    // Without the methods and without the way to be given them (an Auth.js adapter).
    const { getAuthenticator: _get, createAuthenticator: _create, [storeFeatures]: _store, ...adapter } = withAllFeatures(MemoryAdapter());
    expect(() => FrameworkAuth({ secret: SECRET, adapter, providers: [Passkey()] })).toThrow(MissingAdapterMethods);
    expect(() => FrameworkAuth({ secret: SECRET, adapter, providers: [Passkey()] })).toThrow(/getAuthenticator, createAuthenticator/);
  });
});
