// Rate limits (ASVS V2.2.1) end to end: credentials sign-in per user name and per client, email sign-in per address
// and per client (a real SMTP server counts what was sent), passkey options per client. The app trusts the proxy
// hop, so each test names its client with X-Forwarded-For, as a proxy in front would.
import express from 'express';
import type { Request } from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { FrameworkAuth } from '../../templates/runtime/index.js';
import { storeFeatures } from '../../templates/runtime/features/database/adapter.js';
import type { Adapter, FrameworkAuthConfig, User } from '../../templates/runtime/index.js';
import Credentials from '../../templates/runtime/providers/credentials.js';
import Email from '../../templates/runtime/providers/email.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import { credentialsUserName } from '../../templates/runtime/features/credentials/index.js';
import { MemoryRateLimitStore, clientAddress, rateLimiterOf, type RateLimitOptions, type RateLimitStore } from '../../templates/runtime/features/rate-limit/rate-limit.js';
import { resolveConfig } from '../../templates/runtime/config.js';
import Password from '../../templates/runtime/providers/password.js';
import { TwoFactor } from '../../templates/runtime/features/two-factor/index.js';
import { Account } from '../../templates/runtime/features/account/index.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import { withAllFeatures } from '../support/all-features.js';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { startSmtpServer, type RunningSmtpServer } from '../support/smtp-server.js';
import { SECRET, recordingLogger, startApp } from './helpers.js';

const running: RunningApp[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(running.splice(0).map((app) => app.close()));
});

/** A users table: `ada` and `grace` exist; an unknown name goes through the same password check. */
function userTableProvider(calls: string[] = []) {
  const passwords = new Map([
    ['ada', 'correct horse'],
    ['grace', 'battery staple'],
  ]);
  return Credentials({
    credentials: { username: { label: 'User name' }, password: { label: 'Password', type: 'password' } },
    authorize: async (credentials: Partial<Record<'username' | 'password', unknown>>, _request: Request): Promise<User | null> => {
      const name = String(credentials.username);
      calls.push(name);
      const expected = passwords.get(name) ?? '\u0000no password';
      return credentials.password === expected ? { id: `id-${name}`, name } : null;
    },
  });
}

async function start(config: Partial<FrameworkAuthConfig> = {}) {
  const { errors, logger } = recordingLogger();
  const debug: string[] = [];
  const app = await startApp({
    secret: SECRET,
    providers: [userTableProvider()],
    logger: { ...logger, debug: (message) => void debug.push(message) },
    debug: true,
    ...config,
  });
  running.push(app);
  return { ...app, errors, debug };
}

interface Client {
  jar: CookieJar;
  csrfToken: string;
  headers: Record<string, string>;
}

/** A browser at `ip`, with its CSRF token. */
async function client(url: string, ip = '203.0.113.10', mount = '/auth'): Promise<Client> {
  const jar = createJar();
  const headers = { 'x-forwarded-for': ip };
  const response = await jar.fetch(`${url}${mount}/csrf`, { headers });
  const { csrfToken } = (await response.json()) as { csrfToken: string };
  return { jar, csrfToken, headers };
}

/** POST <mount>/callback/credentials (or `route`) as `who`. */
function postCredentials(url: string, who: Client, fields: Record<string, string>, init: { headers?: Record<string, string>; route?: string } = {}): Promise<Response> {
  const form = formBody({ csrfToken: who.csrfToken, ...fields });
  return who.jar.fetch(`${url}/auth/${init.route ?? 'callback/credentials'}`, {
    method: 'POST',
    body: form.body,
    headers: { ...form.headers, ...who.headers, ...init.headers },
  });
}

async function failTimes(url: string, who: Client, username: string, times: number): Promise<void> {
  for (let attempt = 0; attempt < times; attempt++) {
    const response = await postCredentials(url, who, { username, password: 'wrong' });
    expect(response.status, `failure #${attempt + 1} of ${username}`).toBe(302);
    expect(response.headers.get('location')).toContain('error=CredentialsSignin');
  }
}

function expectSignedIn(response: Response): void {
  expect(response.status).toBe(302);
  expect(response.headers.get('location')).not.toContain('error=');
  expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith('authjs.session-token='))).toBe(true);
}

describe('credentials sign-in per user name', () => {
  it('answers the sixth failed attempt for one user name with 429 and Retry-After', async () => {
    const app = await start();
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 5);
    const response = await postCredentials(app.url, who, { username: 'ada', password: 'wrong' });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    expect(response.headers.get('location')).toBeNull();
    const page = await response.text();
    expect(page).toContain('Too many attempts. Try again in 15 minutes.');
  });

  it('refuses the correct password too while the user name is limited, without calling authorize()', async () => {
    const calls: string[] = [];
    const app = await start({ providers: [userTableProvider(calls)] });
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 5);
    const response = await postCredentials(app.url, who, { username: 'ada', password: 'correct horse' });
    expect(response.status).toBe(429);
    expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith('authjs.session-token='))).toBe(false);
    expect(calls).toHaveLength(5);
  });

  it('still signs other user names in from the same client', async () => {
    const app = await start();
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 5);
    expect((await postCredentials(app.url, who, { username: 'ada', password: 'wrong' })).status).toBe(429);
    expectSignedIn(await postCredentials(app.url, who, { username: 'grace', password: 'battery staple' }));
  });

  it('counts a user name from every client together', async () => {
    const app = await start();
    for (let attempt = 0; attempt < 5; attempt++) await failTimes(app.url, await client(app.url, `198.51.100.${attempt + 1}`), 'ada', 1);
    const response = await postCredentials(app.url, await client(app.url, '198.51.100.99'), { username: 'ada', password: 'correct horse' });
    expect(response.status).toBe(429);
  });

  it('counts a user name trimmed and lower-cased', async () => {
    const app = await start();
    const who = await client(app.url);
    for (const spelling of ['ada', 'Ada', ' ADA', 'ada ', 'aDa']) await failTimes(app.url, who, spelling, 1);
    expect((await postCredentials(app.url, who, { username: 'ada', password: 'correct horse' })).status).toBe(429);
  });

  it('limits POST <mount>/signin/credentials as the callback', async () => {
    const app = await start();
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 5);
    const response = await postCredentials(app.url, who, { username: 'ada', password: 'wrong' }, { route: 'signin/credentials' });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('clears the failures of a user name after its correct password', async () => {
    const app = await start();
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 4);
    expectSignedIn(await postCredentials(app.url, who, { username: 'ada', password: 'correct horse' }));
    await failTimes(app.url, who, 'ada', 5);
    expect((await postCredentials(app.url, who, { username: 'ada', password: 'wrong' })).status).toBe(429);
  });

  it('signs in with the correct password once the window has ended', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const app = await start();
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 5);
    expect((await postCredentials(app.url, who, { username: 'ada', password: 'correct horse' })).status).toBe(429);
    vi.setSystemTime(Date.now() + 15 * 60 * 1000 + 1000);
    expectSignedIn(await postCredentials(app.url, who, { username: 'ada', password: 'correct horse' }));
  });

  it('uses the first credential field that is not a password as the user name', async () => {
    const provider = Credentials({
      credentials: { password: { label: 'Password', type: 'password' }, login: { label: 'Login' } },
      authorize: (credentials: Partial<Record<'login' | 'password', unknown>>) => (credentials.password === 'right' ? { id: String(credentials.login) } : null),
    });
    const app = await start({ providers: [provider] });
    const who = await client(app.url);
    for (let attempt = 0; attempt < 5; attempt++) await postCredentials(app.url, who, { login: 'ada', password: 'wrong' });
    expect((await postCredentials(app.url, who, { login: 'ada', password: 'right' })).status).toBe(429);
    expectSignedIn(await postCredentials(app.url, who, { login: 'grace', password: 'right' }));
  });
});

describe('the user name the limit counts (issue 27)', () => {
  /** POST JSON, as a fetch client would, with any JSON values. */
  function postJson(url: string, who: Client, body: Record<string, unknown>): Promise<Response> {
    return who.jar.fetch(`${url}/auth/callback/credentials`, {
      method: 'POST',
      body: JSON.stringify({ csrfToken: who.csrfToken, ...body }),
      headers: { 'content-type': 'application/json', accept: 'application/json', ...who.headers },
    });
  }

  it.each([
    ['a number', 12345],
    ['an array', ['ada', 'grace']],
    ['an object', { name: 'ada' }],
    ['true', true],
  ])('refuses a user name that is %s with 400 before authorize(), whatever the other fields say', async (_what, username) => {
    const calls: string[] = [];
    const app = await start({ providers: [userTableProvider(calls)] });
    const who = await client(app.url);
    const response = await postJson(app.url, who, { username, email: `decoy-${Math.random()}@example.test`, password: 'wrong' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe('The "username" field must be one text value.');
    expect(calls).toEqual([]);
  });

  it('refuses a repeated user-name field that a body parser made an array (express.urlencoded) before authorize()', () => {
    const fields = { username: { label: 'User' }, password: { type: 'password' } };
    expect(() => credentialsUserName(fields, { username: ['ada', 'grace'], password: 'x' })).toThrow('The "username" field must be one text value.');
  });

  it('locks a user name against guesses from twelve clients, each sending a different decoy field', async () => {
    const app = await start();
    const statuses: number[] = [];
    for (let index = 0; index < 12; index++) {
      const who = await client(app.url, `198.51.100.${index + 1}`);
      const response = await postJson(app.url, who, { username: 'ada', email: `decoy-${index}@example.test`, password: `guess-${index}` });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 5).every((status) => status === 401 || status === 302)).toBe(true);
    expect(statuses.slice(5)).toEqual(Array(7).fill(429));
  });

  it('counts a full-width user name as its NFKC form (ａｄａ is ada)', async () => {
    const app = await start();
    const who = await client(app.url);
    await failTimes(app.url, who, 'ａｄａ', 3);
    await failTimes(app.url, who, 'ADA', 2);
    const response = await postCredentials(app.url, who, { username: 'ada', password: 'correct horse' });
    expect(response.status).toBe(429);
  });
});

describe('credentials sign-in per client', () => {
  it('answers the 31st attempt of one client in 15 minutes with 429, whatever the user names', async () => {
    const app = await start();
    const who = await client(app.url);
    for (let attempt = 0; attempt < 30; attempt++) {
      const response = await postCredentials(app.url, who, { username: `user-${attempt}`, password: 'wrong' });
      expect(response.status, `attempt #${attempt + 1}`).toBe(302);
    }
    const response = await postCredentials(app.url, who, { username: 'grace', password: 'battery staple' });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
  });

  it('counts successful sign-ins of a client too', async () => {
    const app = await start({ rateLimit: { credentialsPerClient: { max: 3 } } });
    const who = await client(app.url);
    for (let attempt = 0; attempt < 3; attempt++) expectSignedIn(await postCredentials(app.url, who, { username: 'grace', password: 'battery staple' }));
    expect((await postCredentials(app.url, who, { username: 'grace', password: 'battery staple' })).status).toBe(429);
  });

  it('lets another client sign in while one is limited', async () => {
    const app = await start({ rateLimit: { credentialsPerClient: { max: 3 } } });
    const limited = await client(app.url, '203.0.113.10');
    for (let attempt = 0; attempt < 3; attempt++) await postCredentials(app.url, limited, { username: `user-${attempt}`, password: 'wrong' });
    expect((await postCredentials(app.url, limited, { username: 'grace', password: 'battery staple' })).status).toBe(429);
    expectSignedIn(await postCredentials(app.url, await client(app.url, '203.0.113.11'), { username: 'grace', password: 'battery staple' }));
  });

  it('does not count the user names of a limited client', async () => {
    const app = await start({ rateLimit: { credentialsPerClient: { max: 1 } } });
    const limited = await client(app.url, '203.0.113.10');
    await failTimes(app.url, limited, 'nobody', 1);
    for (let attempt = 0; attempt < 10; attempt++) expect((await postCredentials(app.url, limited, { username: 'ada', password: 'wrong' })).status).toBe(429);
    expectSignedIn(await postCredentials(app.url, await client(app.url, '203.0.113.11'), { username: 'ada', password: 'correct horse' }));
  });
});

describe('the answer to a limited request', () => {
  it('is JSON { error: "RateLimited", message } for a client that asks for JSON', async () => {
    const app = await start({ rateLimit: { credentialsPerUser: { max: 1 } } });
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 1);
    const response = await postCredentials(app.url, who, { username: 'ada', password: 'wrong' }, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await response.json()).toEqual({ error: 'RateLimited', message: 'Too many attempts. Try again in 15 minutes.' });
  });

  it('is JSON with 429 for a fetch client that sends X-Auth-Return-Redirect', async () => {
    const app = await start({ rateLimit: { credentialsPerUser: { max: 1 } } });
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 1);
    const response = await postCredentials(app.url, who, { username: 'ada', password: 'wrong' }, { headers: { 'x-auth-return-redirect': '1' } });
    expect(response.status).toBe(429);
    expect(((await response.json()) as { error: string }).error).toBe('RateLimited');
  });

  it('is the error page, not a redirect, even with custom pages', async () => {
    const app = await start({ rateLimit: { credentialsPerUser: { max: 1 } }, pages: { signIn: '/login', error: '/oops' } });
    const who = await client(app.url);
    await postCredentials(app.url, who, { username: 'ada', password: 'wrong' });
    const response = await postCredentials(app.url, who, { username: 'ada', password: 'wrong' });
    expect(response.status).toBe(429);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('cache-control')).toContain('no-store');
    expect(await response.text()).toContain('Too many attempts');
  });

  it('says seconds when the window ends within a minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const app = await start({ rateLimit: { credentialsPerUser: { window: 60, max: 1 } } });
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 1);
    vi.setSystemTime(Date.now() + 45_000);
    const response = await postCredentials(app.url, who, { username: 'ada', password: 'wrong' }, { headers: { accept: 'application/json' } });
    expect(response.headers.get('retry-after')).toBe('15');
    expect(((await response.json()) as { message: string }).message).toBe('Too many attempts. Try again in 15 seconds.');
  });

  it('is the same for a user name that exists and one that does not', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const app = await start();
    const answers = [];
    for (const username of ['ada', 'nobody']) {
      const who = await client(app.url, username === 'ada' ? '203.0.113.1' : '203.0.113.2');
      const failures = [];
      for (let attempt = 0; attempt < 5; attempt++) {
        const response = await postCredentials(app.url, who, { username, password: 'wrong' });
        failures.push({ status: response.status, location: response.headers.get('location')!.replace(app.url, '') });
      }
      const limited = await postCredentials(app.url, who, { username, password: 'wrong' });
      answers.push({ failures, status: limited.status, retryAfter: limited.headers.get('retry-after'), body: await limited.text() });
    }
    expect(answers[0]!.status).toBe(429);
    expect(answers[1]).toEqual(answers[0]);
  });

  it('logs the first refusal of a window as an error without the user name, and the rest at debug level', async () => {
    const app = await start({ rateLimit: { credentialsPerUser: { max: 1 } } });
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada.lovelace', 1);
    app.errors.length = 0;
    for (let attempt = 0; attempt < 3; attempt++) await postCredentials(app.url, who, { username: 'ada.lovelace', password: 'wrong' });
    expect(app.errors.map((error) => (error as { type?: string }).type)).toEqual(['RateLimited']);
    expect(app.errors[0]!.message).not.toContain('ada');
    expect(app.debug.filter((message) => message.startsWith('Too many attempts'))).toHaveLength(2);
  });
});

describe('email sign-in', () => {
  let smtp: RunningSmtpServer;
  const saved = { server: process.env['AUTH_EMAIL_SERVER'], from: process.env['AUTH_EMAIL_FROM'] };
  beforeAll(async () => {
    smtp = await startSmtpServer();
    process.env['AUTH_EMAIL_SERVER'] = smtp.url;
    process.env['AUTH_EMAIL_FROM'] = 'Example App <no-reply@example.test>';
  });
  afterAll(async () => {
    await smtp?.close();
    for (const [key, value] of [['AUTH_EMAIL_SERVER', saved.server], ['AUTH_EMAIL_FROM', saved.from]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  async function startEmailApp(config: Partial<FrameworkAuthConfig> = {}, adapter: Adapter = MemoryAdapter()) {
    await adapter.createUser!({ id: 'user-ada', email: 'ada@example.test', emailVerified: new Date(), name: 'Ada' });
    // Emailed links need a configured origin: the test app is reached at 127.0.0.1.
    return start({ providers: [Email()], adapter, session: { strategy: 'jwt' }, trustHost: ['127.0.0.1'], ...config });
  }

  function requestLink(url: string, who: Client, email: string, headers: Record<string, string> = {}): Promise<Response> {
    const form = formBody({ csrfToken: who.csrfToken, email });
    return who.jar.fetch(`${url}/auth/signin/email`, { method: 'POST', body: form.body, headers: { ...form.headers, ...who.headers, ...headers } });
  }

  /** Messages to `address` once a later message (to a control address) has arrived: none can be still on its way. */
  async function messagesTo(url: string, address: string): Promise<number> {
    const control = `control-${Math.random().toString(36).slice(2)}@example.test`;
    const before = smtp.messages.length;
    expect((await requestLink(url, await client(url, '192.0.2.200'), control)).status).toBe(302);
    for (let count = before; !smtp.messages.slice(before).some((message) => message.rcptTo.includes(control)); count++) await smtp.waitForMessage(count);
    return smtp.messages.filter((message) => message.rcptTo.includes(address)).length;
  }

  it('sends three links to one address in 15 minutes and answers the fourth request 429, sending nothing', async () => {
    const app = await startEmailApp();
    const who = await client(app.url);
    for (let attempt = 0; attempt < 3; attempt++) expect((await requestLink(app.url, who, 'first@example.test')).status).toBe(302);
    const response = await requestLink(app.url, who, 'first@example.test');
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect(await response.text()).toContain('Too many attempts');
    expect(await messagesTo(app.url, 'first@example.test')).toBe(3);
  });

  it('counts an address as the provider normalises it', async () => {
    const app = await startEmailApp();
    const who = await client(app.url);
    for (const spelling of ['Second@Example.test', ' second@example.TEST', 'SECOND@example.test']) await requestLink(app.url, who, spelling);
    expect((await requestLink(app.url, await client(app.url, '203.0.113.77'), 'second@example.test')).status).toBe(429);
  });

  it('answers the eleventh request of one client in 15 minutes with 429, sending nothing', async () => {
    const app = await startEmailApp();
    const who = await client(app.url);
    for (let attempt = 0; attempt < 10; attempt++) expect((await requestLink(app.url, who, `spray-${attempt}@example.test`)).status).toBe(302);
    const response = await requestLink(app.url, who, 'spray-10@example.test');
    expect(response.status).toBe(429);
    expect(await messagesTo(app.url, 'spray-10@example.test')).toBe(0);
  });

  it('answers an address that has an account and one that has none alike', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const app = await startEmailApp();
    const answers = [];
    for (const [email, ip] of [['ada@example.test', '203.0.113.1'], ['unknown@example.test', '203.0.113.2']] as const) {
      const who = await client(app.url, ip);
      const sent = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await requestLink(app.url, who, email);
        sent.push({ status: response.status, location: response.headers.get('location')!.replace(app.url, '') });
      }
      const limited = await requestLink(app.url, who, email, { accept: 'application/json' });
      answers.push({ sent, status: limited.status, retryAfter: limited.headers.get('retry-after'), body: await limited.json() });
    }
    expect(answers[0]!.status).toBe(429);
    expect(answers[1]).toEqual(answers[0]);
  });
});

describe('passkey options', () => {
  function options(url: string, ip: string): Promise<Response> {
    return fetch(`${url}/auth/webauthn-options/passkey?action=authenticate`, { headers: { 'x-forwarded-for': ip } });
  }

  it('answers the 31st request of one client in a minute with 429 JSON and Retry-After', async () => {
    const app = await start({ providers: [Passkey()], adapter: MemoryAdapter(), session: { strategy: 'jwt' } });
    for (let attempt = 0; attempt < 30; attempt++) expect((await options(app.url, '203.0.113.5')).status, `request #${attempt + 1}`).toBe(200);
    const response = await options(app.url, '203.0.113.5');
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(await response.json()).toEqual({ error: 'RateLimited', message: expect.stringMatching(/^Too many attempts\. Try again in (\d+ seconds?|1 minute)\.$/) });
    expect((await options(app.url, '203.0.113.6')).status).toBe(200);
  });
});

describe('configuration', () => {
  it('rateLimit: false switches every rule off', async () => {
    const app = await start({ rateLimit: false });
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 40);
    expectSignedIn(await postCredentials(app.url, who, { username: 'ada', password: 'correct horse' }));
  });

  it('honours a rule given as { window, max }', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const app = await start({ rateLimit: { credentialsPerUser: { window: 120, max: 2 } } });
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 2);
    const response = await postCredentials(app.url, who, { username: 'ada', password: 'wrong' });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('120');
  });

  it('keeps the other rules when one is switched off', async () => {
    const app = await start({ rateLimit: { credentialsPerUser: false, credentialsPerClient: { max: 8 } } });
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 8);
    expect((await postCredentials(app.url, who, { username: 'ada', password: 'correct horse' })).status).toBe(429);
  });

  it('counts in a custom store, by keys that hold no user name and no address', async () => {
    const keys: string[] = [];
    const memory = MemoryRateLimitStore();
    const store: RateLimitStore = {
      hit: (key, windowSeconds) => {
        keys.push(key);
        return memory.hit(key, windowSeconds);
      },
      reset: (key) => memory.reset(key),
    };
    const app = await start({ rateLimit: { store } });
    await failTimes(app.url, await client(app.url, '203.0.113.10'), 'ada.lovelace@example.test', 1);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^credentialsPerClient:[A-Za-z0-9_-]{43}$/);
    expect(keys[1]).toMatch(/^credentialsPerUser:[A-Za-z0-9_-]{43}$/);
    expect(keys.join(' ')).not.toMatch(/ada|lovelace|203\.0\.113/);
  });

  it('counts in the adapter when it has hitRateLimit and resetRateLimit', async () => {
    const adapter = withAllFeatures(MemoryAdapter());
    const hit = vi.spyOn(adapter, 'hitRateLimit');
    const app = await start({ adapter, session: { strategy: 'jwt' } });
    await failTimes(app.url, await client(app.url), 'ada', 1);
    expect(hit).toHaveBeenCalledTimes(2);
  });

  it('counts in memory with an adapter that lacks the rate-limit methods (an Auth.js adapter)', async () => {
    // Every feature's methods but these two, and no way to be given features (an Auth.js adapter has none).
    const { hitRateLimit: _hit, resetRateLimit: _reset, [storeFeatures]: _store, ...authJsLike } = withAllFeatures(MemoryAdapter());
    const app = await start({ adapter: authJsLike, session: { strategy: 'jwt' }, rateLimit: { credentialsPerUser: { max: 1 } } });
    const who = await client(app.url);
    await failTimes(app.url, who, 'ada', 1);
    expect((await postCredentials(app.url, who, { username: 'ada', password: 'wrong' })).status).toBe(429);
  });

  it.each([
    [{ credentialsPerUser: { max: 0 } }, 'rateLimit.credentialsPerUser.max must be a positive whole number (got 0)'],
    [{ credentialsPerClient: { window: 1.5 } }, 'rateLimit.credentialsPerClient.window must be a positive whole number (got 1.5)'],
    [true, 'rateLimit must be false or an object of rules'],
  ])('refuses %j at startup', (rateLimit, message) => {
    // Checked by the flows that are limited (credentials here), which bring the option with them.
    expect(() => FrameworkAuth({ secret: SECRET, providers: [userTableProvider()], rateLimit: rateLimit as FrameworkAuthConfig['rateLimit'] })).toThrow(message);
  });

  it('counts only the rules of the app\'s features, each feature bringing its own with their defaults (issue 35)', () => {
    const config = { secret: SECRET, providers: [userTableProvider()] } satisfies FrameworkAuthConfig;
    const limiter = rateLimiterOf(resolveConfig(config, {}));
    expect(limiter?.rules).toEqual({ credentialsPerUser: { window: 900, max: 5 }, credentialsPerClient: { window: 900, max: 30 } });
    // A rule of a feature the app does not have (email sign-in) changes nothing, even a bad one: it is never counted.
    const withEmailRule = { ...config, rateLimit: { emailPerClient: { window: 1.5 } } } as FrameworkAuthConfig;
    expect(rateLimiterOf(resolveConfig(withEmailRule, {}))?.rules).toEqual(limiter?.rules);
    const everything = rateLimiterOf(resolveConfig({ ...config, adapter: MemoryAdapter(), trustHost: ['127.0.0.1'], providers: [userTableProvider(), Email({ sendVerificationRequest: async () => {} }), Passkey(), Password()], features: [TwoFactor()] }, {}));
    expect(Object.keys(everything?.rules ?? {}).sort()).toEqual([
      'credentialsPerClient',
      'credentialsPerUser',
      'emailPerAddress',
      'emailPerClient',
      'emailPerRecipient',
      'emailPerRecipientDaily',
      'passkeyOptionsPerClient',
      'passwordEmailPerAddress',
      'passwordEmailPerClient',
      'twoFactorPerSignIn',
      'twoFactorPerUser',
    ]);
  });
});

describe('the in-memory store', () => {
  it('makes room for a new key by dropping ended windows first', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = MemoryRateLimitStore({ maxKeys: 10 });
    store.hit('old', 60);
    store.hit('ended', 1);
    vi.setSystemTime(Date.now() + 2000);
    for (let index = 0; index < 8; index++) store.hit(`key-${index}`, 60);
    store.hit('new', 60);
    expect((await store.hit('old', 60)).count).toBe(2);
  });

  it('makes room for a new key by dropping the oldest windows when none has ended', async () => {
    const store = MemoryRateLimitStore({ maxKeys: 10 });
    for (let index = 0; index < 10; index++) store.hit(`key-${index}`, 60);
    store.hit('new', 60);
    expect((await store.hit('key-1', 60)).count).toBe(2);
    expect((await store.hit('new', 60)).count).toBe(2);
    expect((await store.hit('key-0', 60)).count).toBe(1);
  });
  it('keeps a locked key locked through a flood of 20,000 other keys (issue 27)', async () => {
    const store = MemoryRateLimitStore();
    for (let attempt = 1; attempt <= 6; attempt++) await store.hit('credentialsPerUser:victim', 900, 5);
    for (let index = 0; index < 20_000; index++) await store.hit(`credentialsPerUser:filler-${index}`, 900, 5);
    const next = await store.hit('credentialsPerUser:victim', 900, 5);
    expect(next.count).toBeGreaterThan(5);
  });

  it('keeps a key at its limit (5 of 5 used) locked through a flood of other keys (security review 4, N2)', async () => {
    const store = MemoryRateLimitStore({ maxKeys: 100 });
    for (let attempt = 1; attempt <= 5; attempt++) await store.hit('credentialsPerUser:victim', 900, 5);
    for (let index = 0; index < 1000; index++) await store.hit(`credentialsPerUser:filler-${index}`, 900, 5);
    const sixth = await store.hit('credentialsPerUser:victim', 900, 5);
    expect(sixth.count).toBeGreaterThan(5);
  });

  it('admits a new client key and a new user-name key into a store whose 10,000 client keys are all locked (security review 5, A3)', async () => {
    const store = MemoryRateLimitStore();
    for (let index = 0; index < 10_000; index++) for (let attempt = 0; attempt < 30; attempt++) await store.hit(`credentialsPerClient:flood-${index}`, 900, 30);
    expect(await store.hit('credentialsPerClient:newcomer', 900, 30)).toMatchObject({ count: 1 });
    expect(await store.hit('credentialsPerUser:ada', 900, 5)).toMatchObject({ count: 1 });
  });

  it('drops the locked key whose window ends first to admit a new key, and keeps the others locked (security review 5, A3)', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T00:00:00Z') });
    const store = MemoryRateLimitStore();
    const lock = async (key: string, windowSeconds: number) => {
      for (let attempt = 0; attempt < 5; attempt++) await store.hit(`credentialsPerUser:${key}`, windowSeconds, 5);
    };
    // The oldest key's window ends last: the key dropped is chosen by its window's end, not by its age.
    await lock('oldest', 1800);
    for (let index = 0; index < 9_998; index++) await lock(`flood-${index}`, 900);
    vi.setSystemTime(Date.now() + 1000);
    await lock('ends-first', 300);
    expect((await store.hit('credentialsPerUser:newcomer', 900, 5)).count).toBe(1);
    expect((await store.hit('credentialsPerUser:ends-first', 300, 5)).count).toBe(1);
    expect((await store.hit('credentialsPerUser:oldest', 1800, 5)).count).toBe(6);
    expect((await store.hit('credentialsPerUser:flood-0', 900, 5)).count).toBe(6);
  });

  it("calls onFull once, with the rule, the first time a rule's keys are full (security review 5, A3)", async () => {
    const full: string[] = [];
    const store = MemoryRateLimitStore({ onFull: (rule) => void full.push(rule) });
    for (let index = 0; index < 10_000; index++) for (let attempt = 0; attempt < 5; attempt++) await store.hit(`credentialsPerUser:flood-${index}`, 900, 5);
    expect(full).toEqual([]);
    for (let index = 0; index < 3; index++) await store.hit(`credentialsPerUser:newcomer-${index}`, 900, 5);
    await store.hit('credentialsPerClient:newcomer', 900, 30);
    expect(full).toEqual(['credentialsPerUser']);
  });
});

describe('a memory store full of locked keys (security review 5, A3)', () => {
  it('lets a new user and a returning user sign in after a flood locks every client key of the store', async () => {
    const warnings: string[] = [];
    const app = await start({
      logger: { error: () => {}, warn: (code) => void warnings.push(code), debug: () => {} },
      rateLimit: { store: MemoryRateLimitStore({ maxKeys: 10 }) },
    });
    const returning = await client(app.url, '192.0.2.10');
    expectSignedIn(await postCredentials(app.url, returning, { username: 'ada', password: 'correct horse' }));
    // Failed sign-ins without a user name: only the client counts, 30 of 30, from one client after another.
    for (let index = 1; index <= 10; index++) {
      const flooder = await client(app.url, `198.51.100.${index}`);
      for (let attempt = 0; attempt < 30; attempt++) expect((await postCredentials(app.url, flooder, { password: 'wrong' })).status).toBe(302);
      expect((await postCredentials(app.url, flooder, { password: 'wrong' })).status).toBe(429);
    }
    expectSignedIn(await postCredentials(app.url, await client(app.url, '192.0.2.50'), { username: 'grace', password: 'battery staple' }));
    expectSignedIn(await postCredentials(app.url, await client(app.url, '192.0.2.10'), { username: 'ada', password: 'correct horse' }));
    expect(warnings.filter((code) => code.startsWith('rate-limit'))).toEqual(['rate-limit-store-full']);
  });

  it('warns at startup in production when the counters live in memory, without an adapter or with the MemoryAdapter', () => {
    vi.stubEnv('NODE_ENV', 'production');
    try {
      for (const adapter of [undefined, MemoryAdapter()]) {
        const warnings: string[] = [];
        resolveConfig({ secret: SECRET, providers: [userTableProvider()], adapter, session: { strategy: 'jwt' }, logger: { warn: (code) => void warnings.push(code) } }, {});
        expect(warnings).toEqual(['rate-limit-counters-in-memory']);
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('does not warn at startup when the counters live in the adapter\'s database, or outside production', () => {
    const warningsOf = (config: Partial<FrameworkAuthConfig>) => {
      const warnings: string[] = [];
      resolveConfig({ secret: SECRET, providers: [userTableProvider()], session: { strategy: 'jwt' }, logger: { warn: (code) => void warnings.push(code) }, ...config }, {});
      return warnings;
    };
    vi.stubEnv('NODE_ENV', 'production');
    try {
      expect(warningsOf({ adapter: SqliteAdapter({ url: ':memory:' }) })).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
    vi.stubEnv('NODE_ENV', 'development');
    try {
      expect(warningsOf({})).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('link messages per recipient (security review 5, A4)', () => {
  const PASSWORD = 'violet staple orbit lantern';

  /** Password, email sign-in and the account on one adapter; `sent` holds each link message as `kind to`. */
  async function startLinkApp(rateLimit: RateLimitOptions = {}) {
    const sent: string[] = [];
    const adapter = withAllFeatures(MemoryAdapter());
    const app = await start({
      adapter,
      trustHost: ['127.0.0.1'],
      providers: [
        Password({ sendMessage: (message) => void sent.push(`${message.kind} ${message.to}`) }),
        Email({ sendVerificationRequest: async ({ identifier }) => void sent.push(`sign-in ${identifier}`) }),
      ],
      features: [Account({ sendMessage: (message) => void sent.push(`${message.kind} ${message.to}`) })],
      rateLimit,
    });
    let users = 0;
    /** A confirmed user with a password, signed in from `ip` (a recent authentication, as the address change needs). */
    const signedIn = async (ip: string): Promise<Client> => {
      const email = `owner-${++users}@example.test`;
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email, emailVerified: new Date() });
      await adapter.setPasswordHash!(user.id, await hashPassword(PASSWORD));
      const who = await client(app.url, ip);
      expect((await postForm(app.url, who, 'callback/password', { email, password: PASSWORD })).status).toBe(302);
      return { ...who, csrfToken: ((await (await who.jar.fetch(`${app.url}/auth/csrf`, { headers: who.headers })).json()) as { csrfToken: string }).csrfToken };
    };
    return { ...app, sent, signedIn };
  }

  function postForm(url: string, who: Client, path: string, fields: Record<string, string>): Promise<Response> {
    const form = formBody({ csrfToken: who.csrfToken, ...fields });
    return who.jar.fetch(`${url}/auth/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, ...who.headers, accept: 'application/json' } });
  }

  async function statusOf(response: Promise<Response>): Promise<number> {
    const answered = await response;
    await answered.arrayBuffer();
    return answered.status;
  }

  it('caps the address changes two accounts ask for one address together: the sixth in 15 minutes is 429', async () => {
    const app = await startLinkApp();
    const [first, second] = [await app.signedIn('203.0.113.21'), await app.signedIn('203.0.113.22')];
    const statuses = [];
    for (const who of [first, second, first, second, first, second]) statuses.push(await statusOf(postForm(app.url, who, 'account/email', { newEmail: 'target@example.test' })));
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
    await vi.waitFor(() => expect(app.sent.filter((message) => message.endsWith(' target@example.test'))).toHaveLength(5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(app.sent.filter((message) => message.endsWith(' target@example.test'))).toHaveLength(5);
  });

  it('counts sign-up, reset, email sign-in and address change to one address together', async () => {
    const app = await startLinkApp();
    const owner = await app.signedIn('203.0.113.31');
    const stranger = await client(app.url, '203.0.113.32');
    const address = 'shared@example.test';
    const signUp = () => statusOf(postForm(app.url, stranger, 'signup/password', { email: address, password: PASSWORD }));
    const reset = () => statusOf(postForm(app.url, stranger, 'reset-password', { email: address }));
    const signInLink = () => statusOf(postForm(app.url, stranger, 'signin/email', { email: address }));
    const change = () => statusOf(postForm(app.url, owner, 'account/email', { newEmail: address }));
    // Five messages to the address, none past its own route's limit (3 per address, 5 per user).
    const sent = [await signUp(), await reset(), await signInLink(), await change(), await signInLink()];
    expect(sent.every((status) => status < 400)).toBe(true);
    // Each of these is still within its route's own limit: the count they share refuses them.
    expect([await signUp(), await signInLink(), await change()]).toEqual([429, 429, 429]);
  });

  it('holds the daily cap after the 15-minute window has ended', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const app = await startLinkApp({ emailPerRecipient: { max: 2 }, emailPerRecipientDaily: { max: 3 } });
    const who = await client(app.url, '203.0.113.41');
    const signInLink = () => postForm(app.url, who, 'signin/email', { email: 'daily@example.test' });
    expect([await statusOf(signInLink()), await statusOf(signInLink()), await statusOf(signInLink())]).toEqual([302, 302, 429]);
    vi.setSystemTime(Date.now() + 16 * 60 * 1000);
    expect(await statusOf(signInLink())).toBe(302);
    vi.setSystemTime(Date.now() + 16 * 60 * 1000);
    const refused = await signInLink();
    expect(refused.status).toBe(429);
    // The day's window, not a 15-minute one: it ends 24 hours after the first message.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(23 * 60 * 60);
    expect(app.sent.filter((message) => message === 'sign-in daily@example.test')).toHaveLength(3);
  });
});

describe('a proxy that trust proxy does not trust (issue 27)', () => {
  async function untrustingApp(logger?: FrameworkAuthConfig['logger']) {
    const app = express();
    // Express's default: no proxy is trusted, as behind Docker's or a PaaS router when TRUST_PROXY is unset.
    app.use('/auth/*splat', FrameworkAuth({ secret: SECRET, providers: [userTableProvider()], ...(logger && { logger }) }));
    const running_ = await listen(app);
    running.push(running_);
    return running_;
  }

  it('warns once, naming TRUST_PROXY in the default logger, when requests carry X-Forwarded-For from an untrusted peer', async () => {
    const printed = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const app = await untrustingApp();
      for (const ip of ['198.51.100.1', '198.51.100.2']) {
        const who = await client(app.url, ip);
        await postCredentials(app.url, who, { username: 'ada', password: 'wrong' });
      }
      const warnings = printed.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('untrusted-proxy'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('Set TRUST_PROXY in .env');
    } finally {
      printed.mockRestore();
    }
  });

  it('gives the warning code to a custom logger, and says nothing when the proxy is trusted', async () => {
    const codes: string[] = [];
    const app = await untrustingApp({ warn: (code) => void codes.push(code) });
    await postCredentials(app.url, await client(app.url), { username: 'ada', password: 'wrong' });
    expect(codes).toEqual(['untrusted-proxy']);

    const trusted: string[] = [];
    const other = await start({ logger: { warn: (code) => void trusted.push(code) } });
    await postCredentials(other.url, await client(other.url), { username: 'ada', password: 'wrong' });
    expect(trusted.filter((code) => code !== 'debug-enabled')).toEqual([]);
  });

  it('says nothing for requests without X-Forwarded-For', async () => {
    const codes: string[] = [];
    const app = await untrustingApp({ warn: (code) => void codes.push(code) });
    const jar = createJar();
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    await jar.fetch(`${app.url}/auth/callback/credentials`, { method: 'POST', ...formBody({ csrfToken, username: 'ada', password: 'wrong' }) });
    expect(codes).toEqual([]);
  });
});

describe('who is counted', () => {
  const request = (ip: string) => ({ ip, socket: { remoteAddress: '10.0.0.1' } }) as unknown as Request;

  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ])('counts %s as %s', (ip, expected) => {
    expect(clientAddress(request(ip))).toBe(expected);
  });

  it('falls back to the socket address without req.ip', () => {
    expect(clientAddress({ socket: { remoteAddress: '::1' } } as unknown as Request)).toBe('0:0:0:0::/64');
  });

  it.each([
    [{ username: { label: 'User' }, password: { type: 'password' } }, { username: 'ada', password: 'x' }, 'ada'],
    [{ password: { type: 'password' }, email: { type: 'email' } }, { email: 'ada@example.test', password: 'x' }, 'ada@example.test'],
    [{}, { email: 'ada@example.test' }, 'ada@example.test'],
    // The declared field is the user name, blank here: another field never stands in for it (issue 27).
    [{ code: { label: 'Code' } }, { code: '', username: 'ada' }, undefined],
    [{ password: { type: 'password' } }, { password: 'x' }, undefined],
  ])('takes the user name of %j from %j', (fields, submitted, expected) => {
    expect(credentialsUserName(fields, submitted)).toBe(expected);
  });
});
