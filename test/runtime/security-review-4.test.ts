// Issue 34: the findings of security review 4 (shared/reviews/security-review-4.md) on password accounts and
// two-factor, each reproduced over HTTP against the runtime and refused: the confirmation link (F1, F3, F9), the second
// factor after every first factor (F2), recent authentication (F7, <mount>/reauth, requireRecentAuth), database
// sessions at their absolute end (F8), links voided (F10), the breach check last (F11), resends per client (F12),
// a password change renewing the session (F14), and address-dependent work after the answer (F4).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { urlencoded } from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { findForm } from '../support/html-form.js';
import type { RunningApp } from '../support/listen.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { createRequireRecentAuth } from '../../templates/runtime/features/database/recent-auth.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import { TwoFactor } from '../../templates/runtime/features/two-factor/index.js';
import { base32Decode, totpCode, totpStep } from '../../templates/runtime/features/two-factor/totp.js';
import Email from '../../templates/runtime/providers/email.js';
import Password, { type PasswordMessage, type PasswordUserConfig } from '../../templates/runtime/providers/password.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import { SECRET, recordingLogger, startApp } from './helpers.js';

const GOOD = 'violet staple orbit lantern';
const ATTACKER = 'mallory picks seven locks';
const OWNER = 'quiet harbour seventeen kites';
/** Seconds a sign-in counts as recent in these tests; `aged()` waits past it. */
const REAUTH_MAX_AGE = 2;

interface Harness {
  app: RunningApp;
  adapter: Required<Adapter>;
  messages: PasswordMessage[];
  links: { to: string; url: string }[];
  message(count: number): Promise<PasswordMessage>;
}

async function startHarness(options: { adapter?: Required<Adapter>; provider?: PasswordUserConfig; config?: Partial<FrameworkAuthConfig> } = {}): Promise<Harness> {
  const adapter = options.adapter ?? (MemoryAdapter() as Required<Adapter>);
  const messages: PasswordMessage[] = [];
  const links: { to: string; url: string }[] = [];
  const config: FrameworkAuthConfig = {
    secret: SECRET,
    trustHost: ['127.0.0.1'],
    adapter,
    session: { reauthMaxAge: REAUTH_MAX_AGE },
    providers: [
      Password({ sendMessage: (message) => void messages.push(message), ...options.provider }),
      Email({ sendVerificationRequest: ({ identifier, url }) => void links.push({ to: identifier, url }) }),
      Passkey(),
    ],
    features: [TwoFactor({ now: () => clock })],
    logger: recordingLogger().logger,
    rateLimit: { credentialsPerClient: false, passwordEmailPerClient: false, emailPerClient: false, passwordEmailPerAddress: { max: 50 }, emailPerAddress: { max: 50 } },
    ...options.config,
  };
  const app = await startApp(config, '/auth', (express) => {
    express.use(urlencoded({ extended: true }));
    express.post('/billing', createRequireRecentAuth(config), (_req, res) => void res.json({ changed: true }));
  });
  return {
    app,
    adapter,
    messages,
    links,
    async message(count) {
      await vi.waitFor(() => expect(messages.length).toBeGreaterThanOrEqual(count), { timeout: 5000 });
      return messages[count - 1]!;
    },
  };
}

/** Waits for the first message that matches. */
async function messageWhere(h: Harness, matches: (message: PasswordMessage) => boolean): Promise<PasswordMessage> {
  return vi.waitFor(() => {
    const found = h.messages.find(matches);
    if (!found) throw new Error('no such message yet');
    return found;
  }, { timeout: 5000 });
}

let clock = 1_800_000_000_000;
const codeOf = (secret: string) => totpCode(base32Decode(secret), totpStep(clock));

async function csrfOf(jar: CookieJar, h: Harness): Promise<string> {
  return ((await (await jar.fetch(`${h.app.url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

async function post(jar: CookieJar, h: Harness, url: string, fields: Record<string, string>, json = false): Promise<Response> {
  const form = formBody({ csrfToken: await csrfOf(jar, h), ...fields });
  const target = url.startsWith('http') ? url : `${h.app.url}${url}`;
  return jar.fetch(target, { method: 'POST', body: form.body, headers: { ...form.headers, ...(json && { accept: 'application/json' }) } });
}

async function sessionEmail(jar: CookieJar, h: Harness): Promise<string | null> {
  const session = (await (await jar.fetch(`${h.app.url}/auth/session`)).json()) as { user?: { email?: string } } | null;
  return session?.user?.email ?? null;
}

/** A confirmed user with a password, made through the adapter. */
async function user(h: Harness, email: string, password = GOOD): Promise<string> {
  const created = await h.adapter.createUser({ id: crypto.randomUUID(), email, emailVerified: new Date() });
  await h.adapter.setPasswordHash(created.id, await hashPassword(password));
  return created.id;
}

async function signIn(h: Harness, email: string, password = GOOD, jar = createJar()): Promise<CookieJar> {
  const response = await post(jar, h, '/auth/callback/password', { email, password });
  expect(response.headers.get('location')).toBe(`${h.app.url}/`);
  return jar;
}

/** Opens a confirmation link in a new browser and sends its form with `fields`. */
async function confirmWith(h: Harness, url: string, fields: Record<string, string>): Promise<Response> {
  const jar = createJar();
  const form = findForm(await (await jar.fetch(url)).text(), url, Object.keys(fields)[0])!;
  return post(jar, h, form.action, { ...form.fields, ...fields });
}

/** Waits until sign-ins made before it are no longer recent. */
function aged(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, (REAUTH_MAX_AGE + 1.2) * 1000));
}

/** Turns two-factor on for the signed-in user of `jar` (recently signed in): the secret. */
async function turnOnTwoFactor(h: Harness, jar: CookieJar): Promise<string> {
  const { secret } = (await (await post(jar, h, '/auth/two-factor', { action: 'enroll' }, true)).json()) as { secret: string };
  expect((await post(jar, h, '/auth/two-factor', { action: 'enable', code: codeOf(secret) }, true)).status).toBe(200);
  clock += 30_000;
  return secret;
}

describe('F1, F9, F3: the confirmation link', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.app.close());

  it('confirms nothing and signs nobody in when the link is opened (a mail scanner, a preview, the owner clicking)', async () => {
    await post(createJar(), h, '/auth/signup/password', { email: 'victim@example.test', password: ATTACKER });
    const link = await h.message(1);
    const scanner = createJar();
    const opened = await scanner.fetch(link.url);
    expect(opened.status).toBe(200);
    expect(opened.headers.getSetCookie().some((cookie) => cookie.startsWith('authjs.session-token='))).toBe(false);
    expect(await sessionEmail(scanner, h)).toBeNull();
    expect((await h.adapter.getUserByEmail('victim@example.test'))?.emailVerified).toBeNull();
    // Opened twice, still nothing spent or confirmed: the attacker's password signs nobody in.
    await createJar().fetch(link.url);
    const attacker = await post(createJar(), h, '/auth/callback/password', { email: 'victim@example.test', password: ATTACKER });
    expect(attacker.headers.get('location')).toContain('error=CredentialsSignin');
  });

  it('refuses a confirmation without the sign-up password, or with another, and keeps the link usable', async () => {
    await post(createJar(), h, '/auth/signup/password', { email: 'owner2@example.test', password: ATTACKER });
    const link = await messageWhere(h, (message) => message.to === 'owner2@example.test');
    const jar = createJar();
    const form = findForm(await (await jar.fetch(link.url)).text(), link.url, 'password')!;
    const none = await post(jar, h, form.action, { ...form.fields, password: '' });
    expect(none.status).toBe(400);
    const wrong = await post(jar, h, form.action, { ...form.fields, password: OWNER });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('not the password chosen at sign-up');
    expect(await sessionEmail(jar, h)).toBeNull();
    expect((await h.adapter.getUserByEmail('owner2@example.test'))?.emailVerified).toBeNull();
    // The owner sets a new password instead: the attacker's is void, the address confirmed, the owner signed in.
    const fresh = findForm(await (await jar.fetch(link.url)).text(), link.url, 'newPassword')!;
    const set = await post(jar, h, fresh.action, { ...fresh.fields, newPassword: OWNER });
    expect(set.status).toBe(302);
    expect(await sessionEmail(jar, h)).toBe('owner2@example.test');
    const attacker = await post(createJar(), h, '/auth/callback/password', { email: 'owner2@example.test', password: ATTACKER });
    expect(attacker.headers.get('location')).toContain('error=CredentialsSignin');
    await signIn(h, 'owner2@example.test', OWNER);
  });

  it('does not sign a victim\'s browser into the attacker\'s account when it opens the attacker\'s link (login CSRF)', async () => {
    await post(createJar(), h, '/auth/signup/password', { email: 'eve@example.test', password: ATTACKER });
    const link = await messageWhere(h, (message) => message.to === 'eve@example.test');
    const victim = createJar();
    await victim.fetch(link.url);
    expect(await sessionEmail(victim, h)).toBeNull();
    // Posting the page's form from another site fails: it has no CSRF token of the victim's browser.
    const forged = formBody({ token: new URL(link.url).searchParams.get('token')!, email: 'eve@example.test', password: ATTACKER });
    const crossSite = await victim.fetch(`${h.app.url}/auth/callback/password`, { method: 'POST', body: forged.body, headers: forged.headers });
    expect(crossSite.status).toBeGreaterThanOrEqual(300);
    expect(await sessionEmail(victim, h)).toBeNull();
  });

  it('drops an unproven sign-up\'s password when the owner proves the address by an email link', async () => {
    await post(createJar(), h, '/auth/signup/password', { email: 'first@example.test', password: ATTACKER });
    const link = await messageWhere(h, (message) => message.to === 'first@example.test');
    const owner = createJar();
    expect((await post(owner, h, '/auth/signin/email', { email: 'first@example.test' })).status).toBe(302);
    await owner.fetch(h.links.find((sent) => sent.to === 'first@example.test')!.url);
    expect(await sessionEmail(owner, h)).toBe('first@example.test');
    // The attacker's password opens nothing, and the sign-up's link no longer confirms anything.
    const attacker = await post(createJar(), h, '/auth/callback/password', { email: 'first@example.test', password: ATTACKER });
    expect(attacker.headers.get('location')).toContain('error=CredentialsSignin');
    const late = await confirmWith(h, link.url, { password: ATTACKER });
    expect(late.headers.get('location')).toContain('error=Verification');
  });

  it('refuses an unused confirmation link once the address was proven another way (a reset), past two-factor', async () => {
    await post(createJar(), h, '/auth/signup/password', { email: 'bob@example.test', password: GOOD });
    const link = await messageWhere(h, (message) => message.to === 'bob@example.test' && message.kind === 'verify-address');
    await post(createJar(), h, '/auth/reset-password', { email: 'bob@example.test' });
    const reset = await messageWhere(h, (message) => message.to === 'bob@example.test' && message.kind === 'reset-password');
    const jar = createJar();
    const form = findForm(await (await jar.fetch(reset.url)).text(), reset.url, 'password')!;
    expect((await post(jar, h, form.action, { ...form.fields, password: OWNER })).status).toBe(302);
    await turnOnTwoFactor(h, await signIn(h, 'bob@example.test', OWNER));
    const stale = createJar();
    const page = findForm(await (await stale.fetch(link.url)).text(), link.url, 'newPassword')!;
    const answer = await post(stale, h, page.action, { ...page.fields, newPassword: 'a completely different one' });
    expect(answer.headers.get('location')).toContain('error=Verification');
    expect(await sessionEmail(stale, h)).toBeNull();
  });
});

describe('F2: the second factor after every first factor but a passkey', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.app.close());

  it('asks for the code after an email link of a user with two-factor on, and opens no session before it', async () => {
    await user(h, 'ada@example.test');
    const secret = await turnOnTwoFactor(h, await signIn(h, 'ada@example.test'));
    const jar = createJar();
    expect((await post(jar, h, '/auth/signin/email', { email: 'ada@example.test' })).status).toBe(302);
    const link = h.links.at(-1)!;
    const opened = await jar.fetch(link.url);
    expect(opened.headers.get('location')).toBe(`${h.app.url}/auth/two-factor`);
    expect(await sessionEmail(jar, h)).toBeNull();
    const finished = await post(jar, h, '/auth/two-factor', { code: codeOf(secret) });
    expect(finished.status).toBe(302);
    expect(await sessionEmail(jar, h)).toBe('ada@example.test');
  });
});

describe('F7: recent authentication before what changes how the account signs in', () => {
  let h: Harness;
  let old: CookieJar;
  let oldTwoFactor: CookieJar;
  let twoFactorSecret: string;
  beforeAll(async () => {
    h = await startHarness();
    await user(h, 'owner@example.test');
    await user(h, 'twofa@example.test');
    oldTwoFactor = await signIn(h, 'twofa@example.test');
    twoFactorSecret = await turnOnTwoFactor(h, oldTwoFactor);
    old = await signIn(h, 'owner@example.test');
    await aged();
  }, 20_000);
  afterAll(() => h.app.close());

  it('refuses to turn two-factor on with an old session: 401 reauthentication_required, or the re-authentication page', async () => {
    const json = await post(old, h, '/auth/two-factor', { action: 'enroll' }, true);
    expect(json.status).toBe(401);
    expect(await json.json()).toMatchObject({ error: 'reauthentication_required', url: `${h.app.url}/auth/reauth?callbackUrl=${encodeURIComponent(`${h.app.url}/auth/two-factor`)}` });
    const page = await post(old, h, '/auth/two-factor', { action: 'enroll' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toContain('/auth/reauth?callbackUrl=');
    expect(await h.adapter.getTwoFactor((await h.adapter.getUserByEmail('owner@example.test'))!.id)).toBeNull();
  });

  it('refuses a password change with an old session', async () => {
    const response = await post(old, h, '/auth/password', { currentPassword: GOOD, newPassword: OWNER }, true);
    expect(response.status).toBe(401);
    expect((await response.json()) as { error: string }).toMatchObject({ error: 'reauthentication_required' });
    await signIn(h, 'owner@example.test', GOOD, createJar());
  });

  it('refuses passkey registration options with an old session', async () => {
    const response = await old.fetch(`${h.app.url}/auth/webauthn-options/passkey?action=register`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'reauthentication_required' });
  });

  it('guards an app route with requireRecentAuth: 401 JSON or a redirect to the re-authentication page', async () => {
    const json = await old.fetch(`${h.app.url}/billing`, { method: 'POST', headers: { accept: 'application/json' } });
    expect(json.status).toBe(401);
    expect(await json.json()).toMatchObject({ error: 'reauthentication_required', url: '/auth/reauth?callbackUrl=%2Fbilling' });
    const page = await old.fetch(`${h.app.url}/billing`, { method: 'POST' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/auth/reauth?callbackUrl=%2Fbilling');
    const nobody = await createJar().fetch(`${h.app.url}/billing`, { method: 'POST', headers: { accept: 'application/json' } });
    expect(nobody.status).toBe(401);
    expect(await nobody.json()).toMatchObject({ error: 'Unauthorized' });
  });

  it('re-authenticates with the password at <mount>/reauth, then the change goes through', async () => {
    const jar = await signIn(h, 'owner@example.test', GOOD);
    await aged();
    const page = await jar.fetch(`${h.app.url}/auth/reauth?callbackUrl=${encodeURIComponent(`${h.app.url}/auth/two-factor`)}`);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('Confirm it is you');
    expect(text).toContain('owner@example.test');
    const before = jar.get('authjs.session-token')!;
    const wrong = await post(jar, h, '/auth/reauth', { password: OWNER });
    expect(wrong.headers.get('location')).toContain('error=CredentialsSignin');
    // Re-authentication is of the signed-in user: an address in the body does not switch to another account.
    const again = await post(jar, h, '/auth/reauth', { password: GOOD, email: 'twofa@example.test', callbackUrl: `${h.app.url}/auth/two-factor` });
    expect(again.headers.get('location')).toBe(`${h.app.url}/auth/two-factor`);
    expect(await sessionEmail(jar, h)).toBe('owner@example.test');
    // Re-authentication is a new session: a new token, and the old one ended.
    expect(jar.get('authjs.session-token')).not.toBe(before);
    expect(await h.adapter.getSessionAndUser(before)).toBeNull();
    expect((await post(jar, h, '/auth/two-factor', { action: 'enroll' }, true)).status).toBe(200);
    expect((await jar.fetch(`${h.app.url}/billing`, { method: 'POST', headers: { accept: 'application/json' } })).status).toBe(200);
  }, 20_000);

  it('asks a user with two-factor on for the code when re-authenticating with the password', async () => {
    const response = await post(oldTwoFactor, h, '/auth/reauth', { password: GOOD, callbackUrl: `${h.app.url}/auth/two-factor` });
    expect(response.headers.get('location')).toBe(`${h.app.url}/auth/two-factor`);
    // The old session stays as it was until the code is given: still not recent.
    expect((await post(oldTwoFactor, h, '/auth/two-factor', { action: 'regenerate', code: codeOf(twoFactorSecret) }, true)).status).toBe(401);
    const finished = await post(oldTwoFactor, h, '/auth/two-factor', { code: codeOf(twoFactorSecret) });
    expect(finished.headers.get('location')).toBe(`${h.app.url}/auth/two-factor`);
    clock += 30_000;
    expect((await post(oldTwoFactor, h, '/auth/two-factor', { action: 'regenerate', code: codeOf(twoFactorSecret) }, true)).status).toBe(200);
  });
});

describe('F8: database sessions end at absoluteMaxAge for every route', () => {
  it('refuses the two-factor and password pages of a session past its absolute end', async () => {
    const h = await startHarness({ config: { session: { absoluteMaxAge: 2, reauthMaxAge: 600 } } });
    try {
      await user(h, 'abs@example.test');
      const jar = await signIn(h, 'abs@example.test');
      const row = (await h.adapter.listSessionsByUserId((await h.adapter.getUserByEmail('abs@example.test'))!.id))[0]!;
      expect(row.expires.valueOf() - row.createdAt!.valueOf()).toBeLessThanOrEqual(2000);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const twoFactor = await jar.fetch(`${h.app.url}/auth/two-factor`, { headers: { accept: 'application/json' } });
      expect(twoFactor.status).toBe(401);
      const password = await jar.fetch(`${h.app.url}/auth/password`, { headers: { accept: 'application/json' } });
      expect(password.status).toBe(401);
    } finally {
      await h.app.close();
    }
  }, 15_000);
});

describe('F10, F14, F12: links and sessions after a change', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.app.close());

  it('voids an emailed reset link when the user changes the password', async () => {
    await user(h, 'change@example.test');
    await post(createJar(), h, '/auth/reset-password', { email: 'change@example.test' });
    const reset = await h.message(1);
    const jar = await signIn(h, 'change@example.test');
    expect((await post(jar, h, '/auth/password', { currentPassword: GOOD, newPassword: OWNER })).status).toBe(302);
    const stale = createJar();
    const form = findForm(await (await stale.fetch(reset.url)).text(), reset.url, 'password')!;
    expect((await post(stale, h, form.action, { ...form.fields, password: 'a password from the old link' })).status).toBe(403);
    await signIn(h, 'change@example.test', OWNER);
  });

  it('voids an emailed reset link when the user signs in with the password', async () => {
    await user(h, 'remembered@example.test');
    const count = h.messages.length;
    await post(createJar(), h, '/auth/reset-password', { email: 'remembered@example.test' });
    const reset = await h.message(count + 1);
    await signIn(h, 'remembered@example.test');
    const jar = createJar();
    const form = findForm(await (await jar.fetch(reset.url)).text(), reset.url, 'password')!;
    expect((await post(jar, h, form.action, { ...form.fields, password: 'a password from the old link' })).status).toBe(403);
  });

  it('gives the browser a new session token when it changes the password: a copy of the old cookie stops working', async () => {
    await user(h, 'rotate@example.test');
    const jar = await signIn(h, 'rotate@example.test');
    const before = jar.get('authjs.session-token')!;
    const copy = createJar();
    copy.set(h.app.url, `authjs.session-token=${before}; Path=/`);
    expect(await sessionEmail(copy, h)).toBe('rotate@example.test');
    expect((await post(jar, h, '/auth/password', { currentPassword: GOOD, newPassword: OWNER })).status).toBe(302);
    expect(jar.get('authjs.session-token')).not.toBe(before);
    expect(await sessionEmail(jar, h)).toBe('rotate@example.test');
    expect(await sessionEmail(copy, h)).toBeNull();
  });

  it('counts the confirmation links that sign-ins resend under passwordEmailPerClient', async () => {
    const limited = await startHarness({ config: { rateLimit: { credentialsPerClient: false, passwordEmailPerClient: { max: 2 }, passwordEmailPerAddress: { max: 50 } } } });
    try {
      await post(createJar(), limited, '/auth/signup/password', { email: 'pending@example.test', password: GOOD });
      await limited.message(1);
      // The sign-up spent one of the client's two messages; sign-ins resend until the client's limit, then no more.
      for (let attempt = 0; attempt < 4; attempt += 1) await post(createJar(), limited, '/auth/callback/password', { email: 'pending@example.test', password: GOOD });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(limited.messages.filter((message) => message.kind === 'verify-address')).toHaveLength(2);
    } finally {
      await limited.app.close();
    }
  });
});

describe('F11: the breached-password check runs last, once per range', () => {
  let h: Harness;
  let calls = 0;
  let api: ReturnType<typeof createServer>;
  beforeAll(async () => {
    api = createServer((_req, res) => {
      calls += 1;
      res.end('0000000000000000000000000000000000A:0\n');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}/range`;
    h = await startHarness({ provider: { breachedPasswords: { url, timeout: 1000 } } });
  });
  afterAll(async () => {
    await h.app.close();
    await new Promise((resolve) => api.close(resolve));
  });

  it('does not call the range API for a sign-up refused for its address, nor for a reset with a bad token', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await post(createJar(), h, '/auth/signup/password', { email: 'not an address', password: GOOD })).status).toBe(400);
      expect((await post(createJar(), h, '/auth/reset-password', { token: 'f'.repeat(64), email: 'x@example.test', password: GOOD })).status).toBe(403);
    }
    expect(calls).toBe(0);
    expect((await post(createJar(), h, '/auth/signup/password', { email: 'breach@example.test', password: GOOD })).status).toBe(302);
    expect(calls).toBe(1);
    // The range's answer is kept: a password with the same SHA-1 prefix within minutes asks the API no more.
    expect((await post(createJar(), h, '/auth/signup/password', { email: 'breach-2@example.test', password: GOOD })).status).toBe(302);
    expect(calls).toBe(1);
  });
});

describe('F4: what depends on whether an address is known happens after the answer', () => {
  /** The memory adapter, with one method held until `release()`: the answer must not wait for it. */
  function heldAdapter(method: 'createUser' | 'createVerificationToken') {
    const adapter = MemoryAdapter() as Required<Adapter>;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const original = adapter[method].bind(adapter) as (...args: unknown[]) => Promise<unknown>;
    (adapter as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      await gate;
      return original(...args);
    };
    return { adapter, release };
  }

  it('answers a sign-up for a new address before the user, its hash and its link are written', async () => {
    const { adapter, release } = heldAdapter('createUser');
    const h = await startHarness({ adapter });
    try {
      const response = await post(createJar(), h, '/auth/signup/password', { email: 'new@example.test', password: GOOD });
      expect(response.status).toBe(302);
      expect(await adapter.getUserByEmail('new@example.test')).toBeNull();
      release();
      expect(await h.message(1)).toMatchObject({ kind: 'verify-address', to: 'new@example.test' });
    } finally {
      await h.app.close();
    }
  });

  it('answers a reset request for a known address before its link is stored', async () => {
    const { adapter, release } = heldAdapter('createVerificationToken');
    const h = await startHarness({ adapter });
    try {
      await user(h, 'known@example.test');
      const response = await post(createJar(), h, '/auth/reset-password', { email: 'known@example.test' });
      expect(response.status).toBe(302);
      expect(h.messages).toHaveLength(0);
      release();
      expect(await h.message(1)).toMatchObject({ kind: 'reset-password', to: 'known@example.test' });
    } finally {
      await h.app.close();
    }
  });

  it('makes the same adapter calls for a wrong password of a known address and for an unknown address', async () => {
    const adapter = MemoryAdapter() as Required<Adapter>;
    const calls: string[] = [];
    const recording = new Proxy(adapter, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function' || typeof name !== 'string') return value;
        return (...args: unknown[]) => {
          calls.push(name);
          return (value as (...params: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const h = await startHarness({ adapter: recording });
    try {
      await user(h, 'known@example.test');
      calls.length = 0;
      await post(createJar(), h, '/auth/callback/password', { email: 'known@example.test', password: OWNER });
      const known = calls.splice(0);
      await post(createJar(), h, '/auth/callback/password', { email: 'unknown@example.test', password: OWNER });
      expect(calls).toEqual(known);
      expect(known).toContain('getPasswordHash');
    } finally {
      await h.app.close();
    }
  });
});
