// Security events (issue 38, SPEC §13): each event the runtime records, driven through its real flow over HTTP on
// 127.0.0.1 against a SQLite file, read back both from the `security_events` table (listSecurityEvents) and from the
// app's `events.onSecurityEvent`: sign-in (password, OIDC, passkey, after a second factor), failed password and
// codes, sign-out, password set/changed/reset, two-factor on/off, recovery codes, passkeys, API keys, ended sessions
// and linked accounts. Then the client address (`ipPrecision`), pruning (`retentionDays`), failing receivers, an app
// without the feature, and the startup checks.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express, { type Request, urlencoded } from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { DEFAULT_ACCOUNTS, loginThroughProvider, startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { type AuthenticationOptionsJson, type RegistrationOptionsJson, SoftwareAuthenticator } from '../support/software-authenticator.js';
import { withAllFeatures } from '../support/all-features.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { resolveConfig, resolveConfigOnce } from '../../templates/runtime/config.js';
import type { Feature } from '../../templates/runtime/contracts.js';
import { ApiKeys, createApiKey, type CreatedApiKey } from '../../templates/runtime/features/api-keys/index.js';
import { storeFeatures } from '../../templates/runtime/features/database/adapter.js';
import { endAllSessions } from '../../templates/runtime/features/database/session-management.js';
import type { PasswordMessage } from '../../templates/runtime/features/password/mail.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import { type SecurityEvent, SecurityEvents, securityEventsOf } from '../../templates/runtime/features/security-events/index.js';
import { securityEventOf } from '../../templates/runtime/features/security-events/record.js';
import { TwoFactor } from '../../templates/runtime/features/two-factor/index.js';
import { base32Decode, totpCode, totpStep } from '../../templates/runtime/features/two-factor/totp.js';
import { FrameworkAuth, MissingAdapterMethods, getSession } from '../../templates/runtime/index.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import Password from '../../templates/runtime/providers/password.js';
import { SECRET, passwordProvider, recordingLogger } from './helpers.js';

const PASSWORD = 'violet staple orbit lantern';
const NEW_PASSWORD = 'amber trellis quiet harbour';
const CLIENT_IP = '198.51.100.23';
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const DAY_MS = 24 * 60 * 60 * 1000;

// The two-factor feature's clock (a code is accepted once per 30-second step).
let clock = 1_800_000_000_000;
const nextStep = (): void => void (clock += 30_000);
const codeOf = (secret: string): string => totpCode(base32Decode(secret), totpStep(clock));

let op: RunningOidcProvider;
let clients = 0;

beforeAll(async () => {
  op = await startOidcProvider({
    accounts: { alice: DEFAULT_ACCOUNTS['alice']!, bob: { ...DEFAULT_ACCOUNTS['alice']!, sub: 'bob-sub', name: 'Bob Example', email: 'bob@example.test' } },
  });
});
afterAll(async () => {
  await op?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

interface Harness {
  url: string;
  config: FrameworkAuthConfig;
  adapter: Required<Adapter>;
  /** The SQLite file. */
  file: string;
  /** Every event `events.onSecurityEvent` received, in order. */
  heard: SecurityEvent[];
  /** Every message the password provider sent. */
  messages: PasswordMessage[];
  errors: Error[];
  close(): Promise<void>;
}

/**
 * An app with the password, passkey and OIDC providers, SecurityEvents, TwoFactor and ApiKeys on a SQLite file, the
 * hook recording what it hears, and POST /sign-out-everywhere (endAllSessions).
 */
async function startHarness(overrides: Partial<FrameworkAuthConfig> = {}, oidc: { allowDangerousEmailAccountLinking?: boolean } = {}): Promise<Harness> {
  const folder = await mkdtemp(join(tmpdir(), 'framework-auth-security-events-'));
  const file = join(folder, 'auth.db');
  const heard: SecurityEvent[] = [];
  const messages: PasswordMessage[] = [];
  const { errors, logger } = recordingLogger();
  clients += 1;
  const clientId = `security-events-${clients}`;
  const config: FrameworkAuthConfig = {
    secret: SECRET,
    trustHost: ['127.0.0.1'],
    adapter: SqliteAdapter({ url: `file:${file}` }),
    providers: [
      Password({ sendMessage: (message) => void messages.push(message) }),
      Passkey(),
      OIDC({ issuer: op.issuer, clientId, clientSecret: `${clientId}-secret`, ...oidc }),
    ],
    features: [SecurityEvents, TwoFactor({ issuer: 'Test App', now: () => clock }), ApiKeys()],
    events: { onSecurityEvent: (event) => void heard.push(event) },
    logger,
    rateLimit: { credentialsPerClient: false, passwordEmailPerClient: false },
    ...overrides,
  };
  const app = express();
  app.set('trust proxy', true);
  app.use(urlencoded({ extended: true }));
  app.use('/auth/*splat', FrameworkAuth(config));
  app.post('/sign-out-everywhere', async (req, res) => void res.json({ ended: await endAllSessions(req, config) }));
  const running: RunningApp = await listen(app);
  await op.setClient({ client_id: clientId, client_secret: `${clientId}-secret`, redirect_uris: [`${running.url}/auth/callback/oidc`] });
  return {
    url: running.url,
    config,
    adapter: config.adapter as Required<Adapter>,
    file,
    heard,
    messages,
    errors,
    async close() {
      await running.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** A cookie jar whose requests to the app come from `ip` (X-Forwarded-For) with a browser's User-Agent. */
function browser(h: { url: string }, ip = CLIENT_IP, userAgent = USER_AGENT): CookieJar {
  const jar = createJar();
  const origin = new URL(h.url).origin;
  return {
    ...jar,
    fetch(input, init = {}) {
      if (new URL(input).origin !== origin) return jar.fetch(input, init);
      const headers = new Headers(init.headers);
      headers.set('x-forwarded-for', ip);
      headers.set('user-agent', userAgent);
      return jar.fetch(input, { ...init, headers });
    },
  };
}

async function csrfOf(h: Harness, jar: CookieJar): Promise<string> {
  return ((await (await jar.fetch(`${h.url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

/** POSTs a form to `<mount>/<path>` with the jar's CSRF token, as a JSON client or a browser. */
async function post(h: Harness, jar: CookieJar, path: string, fields: Record<string, string>, json = false): Promise<Response> {
  const form = formBody({ csrfToken: await csrfOf(h, jar), ...fields });
  return jar.fetch(`${h.url}/auth/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, ...(json && { accept: 'application/json' }) } });
}

let users = 0;
/** A confirmed user, with a password unless `password` is null, made through the adapter. */
async function newUser(h: Harness, password: string | null = PASSWORD): Promise<{ id: string; email: string }> {
  users += 1;
  const email = `user-${users}@example.test`;
  const created = await h.adapter.createUser({ id: crypto.randomUUID(), email, emailVerified: new Date() });
  if (password !== null) await h.adapter.setPasswordHash(created.id, await hashPassword(password));
  return { id: created.id, email };
}

async function signInWithPassword(h: Harness, jar: CookieJar, email: string, password = PASSWORD): Promise<Response> {
  return post(h, jar, 'callback/password', { email, password });
}

/** A password sign-in that opens a session. */
async function signedIn(h: Harness, email: string, jar = browser(h)): Promise<CookieJar> {
  expect((await signInWithPassword(h, jar, email)).headers.get('location')).toBe(`${h.url}/`);
  return jar;
}

/** An OIDC sign-in through the loopback provider as `login`: the app's answer to the callback. */
async function signInWithOidc(h: Harness, jar: CookieJar, login = 'alice'): Promise<Response> {
  const started = await post(h, jar, 'signin/oidc', { callbackUrl: '/' });
  expect(started.status).toBe(302);
  return jar.fetch(await loginThroughProvider(jar, started.headers.get('location')!, { login }));
}

/** Signs in and turns two-factor on: the base32 secret and the recovery codes. */
async function withTwoFactor(h: Harness, email: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const jar = await signedIn(h, email);
  const { secret } = (await (await post(h, jar, 'two-factor', { action: 'enroll' }, true)).json()) as { secret: string };
  const enabled = await post(h, jar, 'two-factor', { action: 'enable', code: codeOf(secret) }, true);
  expect(enabled.status).toBe(200);
  nextStep();
  return { secret, recoveryCodes: ((await enabled.json()) as { recoveryCodes: string[] }).recoveryCodes };
}

/** A code that is not the current one. */
const wrongCode = (secret: string): string => (codeOf(secret) === '123456' ? '654321' : '123456');

const byId = (a: SecurityEvent, b: SecurityEvent): number => a.id.localeCompare(b.id);

/**
 * The user's events in the order they happened, as the hook heard them; the table holds exactly the same events
 * (its order within one millisecond is not the order they happened in).
 */
async function eventsOf(h: Harness, userId: string): Promise<SecurityEvent[]> {
  const heard = h.heard.filter((event) => event.userId === userId);
  const stored = await h.adapter.listSecurityEvents(userId, 1000);
  expect([...stored].sort(byId)).toStrictEqual([...heard].sort(byId));
  return heard;
}

/** What an event says happened: type, method and detail. */
async function summaryOf(h: Harness, userId: string): Promise<{ type: string; method: string | null; detail: string | null }[]> {
  return (await eventsOf(h, userId)).map(({ type, method, detail }) => ({ type, method, detail }));
}

const signInBy = (method: string) => ({ type: 'sign-in', method, detail: null });

describe('security events recorded by the runtime', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('records a password sign-in: the provider, the client address and browser, stored and heard alike', async () => {
    const user = await newUser(h);
    await signedIn(h, user.email);
    const [event, ...rest] = await eventsOf(h, user.id);
    expect(rest).toEqual([]);
    expect(event).toStrictEqual({ id: expect.any(String), userId: user.id, type: 'sign-in', at: expect.any(Date), method: 'password', ip: CLIENT_IP, userAgent: USER_AGENT, detail: null });
    expect(Math.abs(event!.at.valueOf() - Date.now())).toBeLessThan(10_000);
  });

  it('keeps the first 512 characters of a long User-Agent', async () => {
    const user = await newUser(h);
    await signedIn(h, user.email, browser(h, CLIENT_IP, `Agent/${'x'.repeat(700)}`));
    const [event] = await eventsOf(h, user.id);
    expect(event!.userAgent).toBe(`Agent/${'x'.repeat(506)}`);
  });

  it('records an OIDC sign-in of a new user with the provider as its method, and no account-linked', async () => {
    const jar = browser(h);
    expect((await signInWithOidc(h, jar, 'alice')).status).toBe(302);
    const user = (await h.adapter.getUserByAccount({ provider: 'oidc', providerAccountId: 'alice-sub' }))!;
    expect(await summaryOf(h, user.id)).toEqual([signInBy('oidc')]);
  });

  it('records account-linked when a signed-in user links an OIDC account, then the sign-in through it', async () => {
    const user = await newUser(h);
    const jar = await signedIn(h, user.email);
    expect((await signInWithOidc(h, jar, 'bob')).status).toBe(302);
    expect(await h.adapter.getUserByAccount({ provider: 'oidc', providerAccountId: 'bob-sub' })).toMatchObject({ id: user.id });
    expect(await summaryOf(h, user.id)).toEqual([signInBy('password'), { type: 'account-linked', method: 'oidc', detail: null }, signInBy('oidc')]);
  });

  it('records a wrong password of a known user as sign-in-failed (password), without the password or the address', async () => {
    const user = await newUser(h);
    const response = await signInWithPassword(h, browser(h), user.email, 'not the password at all');
    expect(response.headers.get('location')).toContain('error=CredentialsSignin');
    // Recorded after the answer (an unknown address records nothing, and must not answer faster).
    await vi.waitFor(async () => expect(await summaryOf(h, user.id)).toEqual([{ type: 'sign-in-failed', method: 'password', detail: null }]));
    const [event] = await eventsOf(h, user.id);
    expect(event).toMatchObject({ ip: CLIENT_IP, userAgent: USER_AGENT });
    expect(JSON.stringify(event)).not.toContain('not the password');
    expect(JSON.stringify(event)).not.toContain(user.email);
  });

  it('records nothing for a wrong password of an unknown address', async () => {
    const before = h.heard.length;
    await signInWithPassword(h, browser(h), 'nobody-here@example.test', 'whatever it is');
    // A known user's failure afterwards: once it is heard, the unknown address's turn has passed.
    const user = await newUser(h);
    await signInWithPassword(h, browser(h), user.email, 'wrong again');
    await vi.waitFor(() => expect(h.heard.length).toBeGreaterThan(before));
    expect(h.heard.slice(before).map((event) => [event.type, event.userId])).toEqual([['sign-in-failed', user.id]]);
  });

  it('records sign-out with the user of the session row', async () => {
    const user = await newUser(h);
    const jar = await signedIn(h, user.email);
    expect((await post(h, jar, 'signout', {})).status).toBe(302);
    expect(await summaryOf(h, user.id)).toEqual([signInBy('password'), { type: 'sign-out', method: null, detail: null }]);
  });

  it('records password-changed', async () => {
    const user = await newUser(h);
    const jar = await signedIn(h, user.email);
    const changed = await post(h, jar, 'password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, true);
    expect(changed.status).toBe(200);
    expect(await summaryOf(h, user.id)).toEqual([signInBy('password'), { type: 'password-changed', method: null, detail: null }]);
    expect(JSON.stringify(await eventsOf(h, user.id))).not.toContain(NEW_PASSWORD);
  });

  /** Asks for a reset link for `email` and sets `password` through it. */
  async function resetPassword(email: string, password: string): Promise<void> {
    const count = h.messages.length;
    await post(h, browser(h), 'reset-password', { email });
    await vi.waitFor(() => expect(h.messages.length).toBeGreaterThan(count), { timeout: 5000 });
    const link = new URL(h.messages.at(-1)!.url);
    const done = await post(h, browser(h), 'reset-password', { token: link.searchParams.get('token')!, email, password });
    expect(done.status).toBe(302);
  }

  it('records password-reset when a reset link replaces a password', async () => {
    const user = await newUser(h);
    await resetPassword(user.email, NEW_PASSWORD);
    expect(await summaryOf(h, user.id)).toEqual([{ type: 'password-reset', method: null, detail: null }]);
  });

  it('records password-set when a reset link gives a user without one their first password', async () => {
    const user = await newUser(h, null);
    await resetPassword(user.email, NEW_PASSWORD);
    expect(await summaryOf(h, user.id)).toEqual([{ type: 'password-set', method: null, detail: null }]);
    const [event] = await eventsOf(h, user.id);
    expect(JSON.stringify(event)).not.toContain(NEW_PASSWORD);
  });

  it('records two-factor-on and two-factor-off', async () => {
    const user = await newUser(h);
    const { secret } = await withTwoFactor(h, user.email);
    const jar = browser(h);
    await signInWithPassword(h, jar, user.email);
    expect((await post(h, jar, 'two-factor', { code: codeOf(secret) })).status).toBe(302);
    nextStep();
    expect((await post(h, jar, 'two-factor', { action: 'disable', code: codeOf(secret) }, true)).status).toBe(200);
    nextStep();
    expect((await summaryOf(h, user.id)).map((event) => event.type)).toEqual(['sign-in', 'two-factor-on', 'sign-in', 'two-factor-off']);
  });

  it('records one sign-in after the second factor, with the first factor\'s provider, and none at the password step', async () => {
    const user = await newUser(h);
    const { secret } = await withTwoFactor(h, user.email);
    const before = (await eventsOf(h, user.id)).length;
    const jar = browser(h);
    expect((await signInWithPassword(h, jar, user.email)).headers.get('location')).toBe(`${h.url}/auth/two-factor`);
    expect(await eventsOf(h, user.id)).toHaveLength(before);
    expect((await post(h, jar, 'two-factor', { code: codeOf(secret) })).status).toBe(302);
    nextStep();
    expect((await summaryOf(h, user.id)).slice(before)).toEqual([signInBy('password')]);
  });

  it('records a wrong two-factor code as sign-in-failed (code)', async () => {
    const user = await newUser(h);
    const { secret } = await withTwoFactor(h, user.email);
    const before = (await eventsOf(h, user.id)).length;
    const jar = browser(h);
    await signInWithPassword(h, jar, user.email);
    expect((await post(h, jar, 'two-factor', { code: wrongCode(secret) })).status).toBe(400);
    expect((await summaryOf(h, user.id)).slice(before)).toEqual([{ type: 'sign-in-failed', method: 'code', detail: null }]);
  });

  it('records a wrong recovery code as sign-in-failed (recovery-code), without the code', async () => {
    const user = await newUser(h);
    await withTwoFactor(h, user.email);
    const before = (await eventsOf(h, user.id)).length;
    const jar = browser(h);
    await signInWithPassword(h, jar, user.email);
    expect((await post(h, jar, 'two-factor', { recoveryCode: 'abcde-23456' })).status).toBe(400);
    expect((await summaryOf(h, user.id)).slice(before)).toEqual([{ type: 'sign-in-failed', method: 'recovery-code', detail: null }]);
    expect(JSON.stringify(await eventsOf(h, user.id))).not.toContain('abcde');
  });

  it('records no failure when the code form is sent empty', async () => {
    const user = await newUser(h);
    await withTwoFactor(h, user.email);
    const before = (await eventsOf(h, user.id)).length;
    const jar = browser(h);
    await signInWithPassword(h, jar, user.email);
    expect((await post(h, jar, 'two-factor', {})).status).toBe(400);
    expect(await eventsOf(h, user.id)).toHaveLength(before);
  });

  it('records recovery-code-used, then the sign-in, when a recovery code finishes a sign-in', async () => {
    const user = await newUser(h);
    const { recoveryCodes } = await withTwoFactor(h, user.email);
    const before = (await eventsOf(h, user.id)).length;
    const jar = browser(h);
    await signInWithPassword(h, jar, user.email);
    expect((await post(h, jar, 'two-factor', { recoveryCode: recoveryCodes[0]! })).status).toBe(302);
    expect((await summaryOf(h, user.id)).slice(before)).toEqual([{ type: 'recovery-code-used', method: null, detail: null }, signInBy('password')]);
    expect(JSON.stringify(await eventsOf(h, user.id))).not.toContain(recoveryCodes[0]!.slice(0, 5));
  });

  it('records recovery-code-used, then two-factor-off, when a recovery code turns two-factor off', async () => {
    const user = await newUser(h);
    const { secret, recoveryCodes } = await withTwoFactor(h, user.email);
    const jar = browser(h);
    await signInWithPassword(h, jar, user.email);
    expect((await post(h, jar, 'two-factor', { code: codeOf(secret) })).status).toBe(302);
    nextStep();
    const before = (await eventsOf(h, user.id)).length;
    expect((await post(h, jar, 'two-factor', { action: 'disable', recoveryCode: recoveryCodes[1]! }, true)).status).toBe(200);
    expect((await summaryOf(h, user.id)).slice(before).map((event) => event.type)).toEqual(['recovery-code-used', 'two-factor-off']);
  });

  it('records passkey-added when a signed-in user registers a passkey, then the sign-in with it', async () => {
    const user = await newUser(h);
    const jar = await signedIn(h, user.email);
    const key = new SoftwareAuthenticator();
    const options = (await (await jar.fetch(`${h.url}/auth/webauthn-options/passkey?action=register`)).json()) as { options: RegistrationOptionsJson };
    expect((await post(h, jar, 'callback/passkey', { action: 'register', data: JSON.stringify(key.register(options.options, h.url)) })).status).toBe(302);
    expect(await summaryOf(h, user.id)).toEqual([signInBy('password'), { type: 'passkey-added', method: 'passkey', detail: null }, signInBy('passkey')]);
  });

  it('records only the sign-in of a passkey sign-up (the new user\'s first way in), and of a passkey sign-in', async () => {
    const jar = browser(h);
    const key = new SoftwareAuthenticator();
    const options = (await (await jar.fetch(`${h.url}/auth/webauthn-options/passkey?action=register&email=${encodeURIComponent('keys@example.test')}`)).json()) as { options: RegistrationOptionsJson };
    expect((await post(h, jar, 'callback/passkey', { action: 'register', data: JSON.stringify(key.register(options.options, h.url)) })).status).toBe(302);
    const user = (await h.adapter.getUserByAccount({ provider: 'passkey', providerAccountId: key.id }))!;
    const fresh = browser(h);
    const assertion = (await (await fresh.fetch(`${h.url}/auth/webauthn-options/passkey?action=authenticate`)).json()) as { options: AuthenticationOptionsJson };
    expect((await post(h, fresh, 'callback/passkey', { action: 'authenticate', data: JSON.stringify(key.authenticate(assertion.options, h.url)) })).status).toBe(302);
    expect(await summaryOf(h, user.id)).toEqual([signInBy('passkey'), signInBy('passkey')]);
  });

  it('records api-key-created and api-key-revoked with the key\'s name, never the key', async () => {
    const user = await newUser(h);
    const jar = await signedIn(h, user.email);
    const created = await post(h, jar, 'api-keys', { action: 'create', name: 'CI deploys' }, true);
    expect(created.status).toBe(201);
    const { id, key } = (await created.json()) as CreatedApiKey;
    expect((await post(h, jar, 'api-keys', { action: 'revoke', id }, true)).status).toBe(200);
    expect(await summaryOf(h, user.id)).toEqual([
      signInBy('password'),
      { type: 'api-key-created', method: null, detail: 'CI deploys' },
      { type: 'api-key-revoked', method: null, detail: 'CI deploys' },
    ]);
    expect(JSON.stringify(await eventsOf(h, user.id))).not.toContain(key.slice(4, 20));
  });

  it('records nothing for revoking a key that is not the user\'s', async () => {
    const [owner, other] = [await newUser(h), await newUser(h)];
    const { id } = await createApiKey(h.config, { userId: owner.id, name: 'Owner key' });
    const jar = await signedIn(h, other.email);
    expect((await post(h, jar, 'api-keys', { action: 'revoke', id }, true)).status).toBe(404);
    expect((await summaryOf(h, other.id)).map((event) => event.type)).toEqual(['sign-in']);
  });

  it('records api-key-created for createApiKey() from the app\'s code, without a client', async () => {
    const user = await newUser(h);
    await createApiKey(h.config, { userId: user.id, name: 'Admin script' });
    const [event, ...rest] = await eventsOf(h, user.id);
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ type: 'api-key-created', detail: 'Admin script', ip: null, userAgent: null });
  });

  it('records session-ended with how many ended: one by its id, the others, all of them (endAllSessions)', async () => {
    const user = await newUser(h);
    const current = await signedIn(h, user.email);
    const second = await signedIn(h, user.email);
    for (const _other of [1, 2]) await signedIn(h, user.email);
    const sessionsOf = async (jar: CookieJar) => ((await (await jar.fetch(`${h.url}/auth/sessions`, { headers: { accept: 'application/json' } })).json()) as { sessions: { id: string; current: boolean }[] }).sessions;
    expect(await sessionsOf(current)).toHaveLength(4);
    const id = (await sessionsOf(second)).find((session) => session.current)!.id;
    expect(await (await post(h, current, 'sessions', { action: 'end', id }, true)).json()).toEqual({ ended: 1 });
    expect(await (await post(h, current, 'sessions', { action: 'end-others' }, true)).json()).toEqual({ ended: 2 });
    const everywhere = await current.fetch(`${h.url}/sign-out-everywhere`, { method: 'POST' });
    expect(await everywhere.json()).toEqual({ ended: 1 });
    const ended = (await summaryOf(h, user.id)).filter((event) => event.type === 'session-ended');
    expect(ended).toEqual([
      { type: 'session-ended', method: null, detail: '1' },
      { type: 'session-ended', method: null, detail: '2' },
      { type: 'session-ended', method: null, detail: '1' },
    ]);
  });

  it('records nothing when an id ends no session', async () => {
    const user = await newUser(h);
    const jar = await signedIn(h, user.email);
    expect(await (await post(h, jar, 'sessions', { action: 'end', id: 'not-a-session' }, true)).json()).toEqual({ ended: 0 });
    expect((await summaryOf(h, user.id)).map((event) => event.type)).toEqual(['sign-in']);
  });

  it('lists the kept events newest first with securityEventsOf', async () => {
    const user = await newUser(h);
    const jar = await signedIn(h, user.email);
    // Apart by a few milliseconds: events of one millisecond have no order.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await post(h, jar, 'signout', {});
    const listed = await securityEventsOf(resolveConfigOnce(h.config), user.id);
    expect(listed.map((event) => event.type)).toEqual(['sign-out', 'sign-in']);
    expect((await securityEventsOf(resolveConfigOnce(h.config), user.id, 1)).map((event) => event.type)).toEqual(['sign-out']);
  });
});

describe('an account linked by its proven address', () => {
  it('records account-linked when an OIDC sign-in joins the user who proved its address (allowDangerousEmailAccountLinking)', async () => {
    const h = await startHarness({}, { allowDangerousEmailAccountLinking: true });
    try {
      const user = await newUser(h);
      op.setAccount(`linked-${users}`, { ...DEFAULT_ACCOUNTS['alice']!, sub: `linked-${users}-sub`, email: user.email });
      expect((await signInWithOidc(h, browser(h), `linked-${users}`)).status).toBe(302);
      expect(await h.adapter.getUserByAccount({ provider: 'oidc', providerAccountId: `linked-${users}-sub` })).toMatchObject({ id: user.id });
      expect(await summaryOf(h, user.id)).toEqual([{ type: 'account-linked', method: 'oidc', detail: null }, signInBy('oidc')]);
    } finally {
      await h.close();
    }
  });
});

describe('the client address an event keeps (events.ipPrecision)', () => {
  let network: Harness;
  let none: Harness;
  beforeAll(async () => {
    [network, none] = await Promise.all([startHarness({ events: { ipPrecision: 'network' } }), startHarness({ events: { ipPrecision: 'none' } })]);
  });
  afterAll(async () => {
    await network.close();
    await none.close();
  });

  it('keeps the whole address by default', () => {
    const options = resolveConfig({ secret: SECRET, providers: [passwordProvider()], adapter: MemoryAdapter(), features: [SecurityEvents] }, {});
    const req = { ip: '203.0.113.77', headers: { 'user-agent': 'Line\r\nForged: yes' } } as unknown as Request;
    expect(securityEventOf(req, options, { type: 'sign-in', userId: 'u' })).toMatchObject({ ip: '203.0.113.77', userAgent: 'LineForged: yes' });
  });

  it('keeps an IPv4 address\'s /24 network with "network"', async () => {
    const user = await newUser(network);
    await signedIn(network, user.email, browser(network, '203.0.113.77'));
    const [event] = await network.adapter.listSecurityEvents(user.id, 10);
    expect(event).toMatchObject({ type: 'sign-in', ip: '203.0.113.0/24', userAgent: USER_AGENT });
  });

  it('keeps an IPv6 address\'s /48 network with "network"', async () => {
    const user = await newUser(network);
    await signedIn(network, user.email, browser(network, '2001:db8:abcd:12:0:0:0:1'));
    const [event] = await network.adapter.listSecurityEvents(user.id, 10);
    expect(event!.ip).toBe('2001:db8:abcd::/48');
  });

  it('keeps no address that is not one (X-Forwarded-For behind a trusted proxy says anything)', () => {
    const options = resolveConfig({ secret: SECRET, providers: [passwordProvider()], adapter: MemoryAdapter(), features: [SecurityEvents] }, {});
    const req = { ip: 'evil\u0000value; DROP TABLE', headers: {} } as unknown as Request;
    expect(securityEventOf(req, options, { type: 'sign-in', userId: 'u' }).ip).toBeNull();
  });

  it('keeps no address with "none", and still the browser', async () => {
    const user = await newUser(none);
    await signedIn(none, user.email);
    const [event] = await none.adapter.listSecurityEvents(user.id, 10);
    expect(event).toMatchObject({ type: 'sign-in', ip: null, userAgent: USER_AGENT });
  });
});

describe('pruning (events.retentionDays)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ events: { retentionDays: 30 } });
  });
  afterAll(() => h.close());

  const oldEvent = (userId: string, daysAgo: number): SecurityEvent => ({
    id: crypto.randomUUID(),
    userId,
    type: 'sign-in',
    at: new Date(Date.now() - daysAgo * DAY_MS),
    method: 'password',
    ip: null,
    userAgent: null,
    detail: null,
  });

  it('deletes the events older than retentionDays when an event is recorded, at most once an hour, and never lists them', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const user = await newUser(h);
    const [expired, kept] = [oldEvent(user.id, 31), oldEvent(user.id, 29)];
    await h.adapter.createSecurityEvent(expired);
    await h.adapter.createSecurityEvent(kept);
    await signedIn(h, user.email);
    const ids = async (): Promise<string[]> => (await h.adapter.listSecurityEvents(user.id, 100)).map((event) => event.id);
    expect(await ids()).not.toContain(expired.id);
    expect(await ids()).toContain(kept.id);

    // Within the hour the next event prunes nothing; the past-retention event is stored but never listed.
    const later = oldEvent(user.id, 40);
    await h.adapter.createSecurityEvent(later);
    await signedIn(h, user.email);
    expect(await ids()).toContain(later.id);
    expect((await securityEventsOf(resolveConfigOnce(h.config), user.id)).map((event) => event.id)).not.toContain(later.id);

    vi.setSystemTime(Date.now() + 61 * 60 * 1000);
    await signedIn(h, user.email);
    expect(await ids()).not.toContain(later.id);
    expect(await ids()).toContain(kept.id);
  });
});

describe('an event never fails the request that caused it', () => {
  it('signs in when a feature\'s sink and the app\'s hook both throw, and logs both failures', async () => {
    const brokenSink: Feature = { id: 'broken-sink', onSecurityEvent: () => Promise.reject(new Error('sink is down')) };
    const h = await startHarness({
      features: [SecurityEvents, brokenSink],
      events: {
        onSecurityEvent: () => {
          throw new Error('SIEM is down');
        },
      },
    });
    try {
      const user = await newUser(h);
      const jar = await signedIn(h, user.email);
      expect(await (await jar.fetch(`${h.url}/auth/session`)).json()).toMatchObject({ user: { email: user.email } });
      expect(h.errors.map((error) => [(error as Error & { type?: string }).type, error.message, (error.cause as { err?: Error } | undefined)?.err?.message])).toEqual([
        ['EventError', 'The broken-sink feature\'s handling of the security event "sign-in" failed', 'sink is down'],
        ['EventError', 'events.onSecurityEvent failed', 'SIEM is down'],
      ]);
      // The stored sink came first and kept the event.
      expect((await h.adapter.listSecurityEvents(user.id, 10)).map((event) => event.type)).toEqual(['sign-in']);
    } finally {
      await h.close();
    }
  });
});

describe('apps without the SecurityEvents feature', () => {
  it('record nothing without a hook: no security_events table, no adapter method, no error', async () => {
    const h = await startHarness({ features: [], events: {} });
    try {
      const user = await newUser(h);
      const jar = await signedIn(h, user.email);
      await post(h, jar, 'signout', {});
      expect(h.adapter.createSecurityEvent).toBeUndefined();
      const database = new Database(h.file, { readonly: true });
      try {
        expect(database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'security_events'").all()).toEqual([]);
      } finally {
        database.close();
      }
      expect(h.errors).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('give the hook every event with SecurityEvents under JWT sessions without an adapter: the token\'s sub is the user', async () => {
    const heard: SecurityEvent[] = [];
    const config: FrameworkAuthConfig = { secret: SECRET, trustHost: true, providers: [passwordProvider()], features: [SecurityEvents], logger: recordingLogger().logger, events: { onSecurityEvent: (event) => void heard.push(event) } };
    const app = express();
    app.set('trust proxy', true);
    app.use('/auth/*splat', FrameworkAuth(config));
    app.get('/whoami', async (req, res) => void res.json(await getSession(req, config)));
    const running = await listen(app);
    try {
      const jar = browser(running);
      const csrf = async (): Promise<string> => ((await (await jar.fetch(`${running.url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
      const signIn = await jar.fetch(`${running.url}/auth/callback/credentials`, { method: 'POST', ...formBody({ csrfToken: await csrf(), username: 'ada', password: 'correct horse' }) });
      expect(signIn.status).toBe(302);
      expect(await (await jar.fetch(`${running.url}/whoami`)).json()).toMatchObject({ user: { id: 'id-ada' } });
      const signOut = await jar.fetch(`${running.url}/auth/signout`, { method: 'POST', ...formBody({ csrfToken: await csrf() }) });
      expect(signOut.status).toBe(302);
      expect(heard.map(({ type, userId, method, ip, userAgent }) => ({ type, userId, method, ip, userAgent }))).toEqual([
        { type: 'sign-in', userId: 'id-ada', method: 'credentials', ip: CLIENT_IP, userAgent: USER_AGENT },
        { type: 'sign-out', userId: 'id-ada', method: null, ip: CLIENT_IP, userAgent: USER_AGENT },
      ]);
    } finally {
      await running.close();
    }
  });

  it('records no sign-in when the jwt callback returns null: no session was opened', async () => {
    const heard: SecurityEvent[] = [];
    const config: FrameworkAuthConfig = { secret: SECRET, trustHost: true, providers: [passwordProvider()], features: [SecurityEvents], callbacks: { jwt: () => null }, logger: recordingLogger().logger, events: { onSecurityEvent: (event) => void heard.push(event) } };
    const app = express();
    app.use('/auth/*splat', FrameworkAuth(config));
    app.get('/whoami', async (req, res) => void res.json(await getSession(req, config)));
    const running = await listen(app);
    try {
      const jar = browser(running);
      const { csrfToken } = (await (await jar.fetch(`${running.url}/auth/csrf`)).json()) as { csrfToken: string };
      await jar.fetch(`${running.url}/auth/callback/credentials`, { method: 'POST', ...formBody({ csrfToken, username: 'ada', password: 'correct horse' }) });
      expect(await (await jar.fetch(`${running.url}/whoami`)).json()).toBeNull();
      expect(heard).toEqual([]);
    } finally {
      await running.close();
    }
  });
});

describe('startup checks', () => {
  const base = { secret: SECRET, providers: [passwordProvider()] };

  it('refuses a retentionDays that is not a positive number of days', () => {
    for (const retentionDays of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => resolveConfig({ ...base, features: [SecurityEvents], events: { retentionDays } }, {})).toThrow(`events.retentionDays must be a positive number of days (got ${String(retentionDays)})`);
    }
    expect(() => resolveConfig({ ...base, features: [SecurityEvents], events: { retentionDays: '30' as unknown as number } }, {})).toThrow(/events\.retentionDays must be a positive number of days/);
  });

  it('refuses an ipPrecision other than full, network or none', () => {
    expect(() => resolveConfig({ ...base, features: [SecurityEvents], events: { ipPrecision: 'partial' as 'full' } }, {})).toThrow(`events.ipPrecision must be 'full', 'network' or 'none' (got "partial")`);
  });

  it('takes SecurityEvents without an adapter: the events then go to events.onSecurityEvent only', () => {
    expect(resolveConfig({ ...base, features: [SecurityEvents] }, {}).securityEvents).toEqual([SecurityEvents.securityEvents]);
  });

  it('refuses SecurityEvents with an adapter that lacks its methods, naming them', () => {
    // An adapter with every other feature's methods, written before security events (it takes no features).
    const { createSecurityEvent: _create, listSecurityEvents: _list, deleteSecurityEventsBefore: _delete, [storeFeatures]: _store, ...older } = withAllFeatures(MemoryAdapter()) as Required<Adapter>;
    expect(() => resolveConfig({ ...base, adapter: older, features: [SecurityEvents] }, {})).toThrow(MissingAdapterMethods);
    expect(() => resolveConfig({ ...base, adapter: older, features: [SecurityEvents] }, {})).toThrow(/createSecurityEvent, listSecurityEvents, deleteSecurityEventsBefore/);
  });
});
