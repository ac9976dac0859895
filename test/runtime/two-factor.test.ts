// Two-factor sign-in (issue 26, SPEC §10): enrolling with a TOTP secret, the code after a password, replay, recovery
// codes, the limits, disabling, bad input and the startup checks, against the memory adapter with an injected clock.
import { urlencoded } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import type { RunningApp } from '../support/listen.js';
import { withAllFeatures } from '../support/all-features.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { resolveConfig } from '../../templates/runtime/config.js';
import { storeFeatures } from '../../templates/runtime/features/database/adapter.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import { TwoFactor } from '../../templates/runtime/features/two-factor/index.js';
import { base32Decode, totpCode, totpStep } from '../../templates/runtime/features/two-factor/totp.js';
import { encode } from '../../templates/runtime/session/jwt.js';
import Credentials from '../../templates/runtime/providers/credentials.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import Password from '../../templates/runtime/providers/password.js';
import { type AuthenticationOptionsJson, type RegistrationOptionsJson, SoftwareAuthenticator } from '../support/software-authenticator.js';
import { OTHER_SECRET, SECRET, recordingLogger, startApp } from './helpers.js';

const PASSWORD = 'violet staple orbit lantern';
let clock = 1_800_000_000_000;
const now = () => clock;
/** Moves the clock to the next 30-second step, so that a new code is valid. */
const nextStep = () => void (clock += 30_000);

interface Harness {
  app: RunningApp;
  adapter: Required<Adapter>;
}

async function startHarness(config: Partial<FrameworkAuthConfig> = {}, adapter = MemoryAdapter() as Required<Adapter>): Promise<Harness> {
  const app = await startApp(
    {
      secret: SECRET,
      trustHost: ['127.0.0.1'],
      adapter,
      providers: [Password({ sendMessage: () => {} })],
      features: [TwoFactor({ issuer: 'Test App', now })],
      logger: recordingLogger().logger,
      rateLimit: { credentialsPerClient: false, passwordEmailPerClient: false },
      ...config,
    },
    '/auth',
    (express) => express.use(urlencoded({ extended: true })),
  );
  return { app, adapter };
}

/** A confirmed user with a password, made through the adapter. */
async function user(h: Harness, email: string): Promise<string> {
  const created = await h.adapter.createUser({ id: crypto.randomUUID(), email, emailVerified: new Date() });
  await h.adapter.setPasswordHash(created.id, await hashPassword(PASSWORD));
  return created.id;
}

async function csrfOf(jar: CookieJar, h: Harness): Promise<string> {
  return ((await (await jar.fetch(`${h.app.url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

async function post(jar: CookieJar, h: Harness, path: string, fields: Record<string, string | readonly string[]>, json = false): Promise<Response> {
  const form = formBody({ csrfToken: await csrfOf(jar, h), ...fields });
  return jar.fetch(`${h.app.url}/auth/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, ...(json && { accept: 'application/json' }) } });
}

async function signInWithPassword(h: Harness, email: string, jar = createJar()): Promise<{ jar: CookieJar; response: Response }> {
  return { jar, response: await post(jar, h, 'callback/password', { email, password: PASSWORD }) };
}

async function sessionOf(jar: CookieJar, h: Harness): Promise<{ user?: { email?: string } } | null> {
  return (await (await jar.fetch(`${h.app.url}/auth/session`)).json()) as { user?: { email?: string } } | null;
}

/** Signs in and turns two-factor on: the base32 secret and the recovery codes. */
async function enrolled(h: Harness, email: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  await user(h, email);
  const { jar } = await signInWithPassword(h, email);
  const enroll = (await (await post(jar, h, 'two-factor', { action: 'enroll' }, true)).json()) as { secret: string; uri: string };
  const enabled = await post(jar, h, 'two-factor', { action: 'enable', code: codeOf(enroll.secret) }, true);
  expect(enabled.status).toBe(200);
  const { recoveryCodes } = (await enabled.json()) as { recoveryCodes: string[] };
  nextStep();
  return { secret: enroll.secret, recoveryCodes };
}

const codeOf = (secret: string, offset = 0) => totpCode(base32Decode(secret), totpStep(clock) + offset);

describe('two-factor sign-in', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.app.close());

  it('enrolls: { secret, uri } with the issuer, a code turns it on, 10 recovery codes shown once and kept only hashed', async () => {
    const id = await user(h, 'ada@example.test');
    const { jar } = await signInWithPassword(h, 'ada@example.test');
    const page = await jar.fetch(`${h.app.url}/auth/two-factor`);
    expect(await page.text()).toContain('Two-factor authentication is off.');
    const enroll = await post(jar, h, 'two-factor', { action: 'enroll' }, true);
    const { secret, uri } = (await enroll.json()) as { secret: string; uri: string };
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(uri).toBe(`otpauth://totp/Test%20App:ada%40example.test?secret=${secret}&issuer=Test+App&algorithm=SHA1&digits=6&period=30`);
    const wrong = await post(jar, h, 'two-factor', { action: 'enable', code: '000000' === codeOf(secret) ? '111111' : '000000' }, true);
    expect(wrong.status).toBe(400);
    const enabled = await post(jar, h, 'two-factor', { action: 'enable', code: codeOf(secret) }, true);
    const { recoveryCodes } = (await enabled.json()) as { recoveryCodes: string[] };
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const stored = await h.adapter.getTwoFactor(id);
    expect(stored).toMatchObject({ recoveryCodes: 10, enabledAt: expect.any(Date) });
    expect(stored!.secret).not.toContain(secret);
    expect(stored!.secret.split('.')).toHaveLength(5);
    expect(JSON.stringify(stored)).not.toContain(recoveryCodes[0]!.replace('-', ''));
    const manage = await (await jar.fetch(`${h.app.url}/auth/two-factor`)).text();
    expect(manage).toContain('You have 10 unused recovery codes.');
    expect(manage).not.toContain(recoveryCodes[0]!);
    // The code that turned it on cannot sign in: its step is spent.
    const { jar: next } = await signInWithPassword(h, 'ada@example.test');
    expect((await post(next, h, 'two-factor', { code: codeOf(secret) })).status).toBe(400);
  });

  it('asks for a code after the password: no session, a pending cookie, then the code finishes the sign-in once', async () => {
    const { secret } = await enrolled(h, 'grace@example.test');
    const { jar, response } = await signInWithPassword(h, 'grace@example.test');
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${h.app.url}/auth/two-factor`);
    expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith('authjs.session-token='))).toBe(false);
    expect(response.headers.getSetCookie().find((cookie) => cookie.startsWith('authjs.two-factor='))).toMatch(/HttpOnly; SameSite=Lax/i);
    expect(await sessionOf(jar, h)).toBeNull();
    expect(await (await jar.fetch(`${h.app.url}/auth/two-factor`)).text()).toContain('Authentication code');
    const code = codeOf(secret);
    const done = await post(jar, h, 'two-factor', { code });
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe(`${h.app.url}/`);
    expect(await sessionOf(jar, h)).toMatchObject({ user: { email: 'grace@example.test' } });
    // The same code in another sign-in (a replay) is refused.
    const { jar: again } = await signInWithPassword(h, 'grace@example.test');
    const replay = await post(again, h, 'two-factor', { code });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('used already');
    expect(await sessionOf(again, h)).toBeNull();
  });

  it('answers a JSON client with JSON: the pending sign-in, then the code', async () => {
    const { secret } = await enrolled(h, 'json@example.test');
    const jar = createJar();
    const pending = await post(jar, h, 'callback/password', { email: 'json@example.test', password: PASSWORD }, true);
    expect(pending.status).toBe(200);
    expect(await pending.json()).toEqual({ twoFactorRequired: true, url: `${h.app.url}/auth/two-factor` });
    const wrong = await post(jar, h, 'two-factor', { code: codeOf(secret) === '000000' ? '111111' : '000000' }, true);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'InvalidCode', errors: { code: expect.any(String) } });
    const done = await jar.fetch(`${h.app.url}/auth/two-factor`, { method: 'POST', ...formBody({ csrfToken: await csrfOf(jar, h), code: codeOf(secret) }), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-auth-return-redirect': '1' } });
    expect(await done.json()).toEqual({ url: `${h.app.url}/` });
    expect(await sessionOf(jar, h)).toMatchObject({ user: { email: 'json@example.test' } });
  });

  it('accepts a code one step early or late, and refuses two steps away (the injected clock)', async () => {
    const { secret } = await enrolled(h, 'clock@example.test');
    for (const [offset, accepted] of [[-2, false], [2, false], [-1, true], [1, true]] as const) {
      nextStep();
      nextStep();
      nextStep();
      const { jar } = await signInWithPassword(h, 'clock@example.test');
      const response = await post(jar, h, 'two-factor', { code: codeOf(secret, offset) });
      expect(response.status, `offset ${offset}`).toBe(accepted ? 302 : 400);
    }
  });

  it('signs in with a recovery code once; the second use is refused', async () => {
    const { recoveryCodes } = await enrolled(h, 'recover@example.test');
    const { jar } = await signInWithPassword(h, 'recover@example.test');
    expect((await post(jar, h, 'two-factor', { recoveryCode: recoveryCodes[0]!.toUpperCase() })).status).toBe(302);
    expect(await sessionOf(jar, h)).toMatchObject({ user: { email: 'recover@example.test' } });
    const { jar: again } = await signInWithPassword(h, 'recover@example.test');
    expect((await post(again, h, 'two-factor', { recoveryCode: recoveryCodes[0]! })).status).toBe(400);
    const left = (await (await post(jar, h, 'two-factor', { action: 'noop' }, true)).json()) as unknown;
    expect(left).toMatchObject({ error: 'InvalidRequest' });
  });

  it('ends a pending sign-in after five wrong codes: the sixth attempt is 429, and even the right code then fails', async () => {
    const { secret } = await enrolled(h, 'wrong@example.test');
    const { jar } = await signInWithPassword(h, 'wrong@example.test');
    const right = codeOf(secret);
    const wrongCode = right === '123456' ? '654321' : '123456';
    for (let attempt = 1; attempt <= 5; attempt += 1) expect((await post(jar, h, 'two-factor', { code: wrongCode })).status).toBe(400);
    const sixth = await post(jar, h, 'two-factor', { code: right });
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    const after = await post(jar, h, 'two-factor', { code: right });
    expect(after.status).toBeGreaterThanOrEqual(300);
    expect(await sessionOf(jar, h)).toBeNull();
  });

  it('limits codes per user across pending sign-ins (ten wrong codes in 15 minutes)', async () => {
    const { secret } = await enrolled(h, 'many@example.test');
    const wrongCode = codeOf(secret) === '123456' ? '654321' : '123456';
    let refused: Response | undefined;
    for (let round = 0; round < 3 && !refused; round += 1) {
      const { jar } = await signInWithPassword(h, 'many@example.test');
      for (let attempt = 0; attempt < 4; attempt += 1) {
        const response = await post(jar, h, 'two-factor', { code: wrongCode });
        if (response.status === 429) {
          refused = response;
          break;
        }
      }
    }
    expect(refused?.status).toBe(429);
  });

  it('regenerates recovery codes and turns two-factor off, each with a code', async () => {
    const { secret, recoveryCodes } = await enrolled(h, 'manage@example.test');
    const { jar } = await signInWithPassword(h, 'manage@example.test');
    await post(jar, h, 'two-factor', { code: codeOf(secret) });
    nextStep();
    const fresh = (await (await post(jar, h, 'two-factor', { action: 'regenerate', code: codeOf(secret) }, true)).json()) as { recoveryCodes: string[] };
    expect(fresh.recoveryCodes).toHaveLength(10);
    expect(fresh.recoveryCodes).not.toContain(recoveryCodes[1]);
    const refused = await post(jar, h, 'two-factor', { action: 'disable', recoveryCode: recoveryCodes[1]! }, true);
    expect(refused.status).toBe(400);
    const off = await post(jar, h, 'two-factor', { action: 'disable', recoveryCode: fresh.recoveryCodes[0]! }, true);
    expect(await off.json()).toEqual({ enabled: false });
    const { jar: plain, response } = await signInWithPassword(h, 'manage@example.test');
    expect(response.headers.get('location')).toBe(`${h.app.url}/`);
    expect(await sessionOf(plain, h)).toMatchObject({ user: { email: 'manage@example.test' } });
  });

  describe('bad input: a 4xx or the page with its reason, never a 5xx, never a session', () => {
    let secret: string;
    beforeAll(async () => {
      ({ secret } = await enrolled(h, 'bad@example.test'));
    });

    it.each([['letters', 'abcdef'], ['five digits', '12345'], ['seven digits', '1234567'], ['a huge string', '1'.repeat(5000)], ['an array', ['123456', '654321']]] as const)(
      'a code of %s',
      async (_name, code) => {
        const { jar } = await signInWithPassword(h, 'bad@example.test');
        const response = await post(jar, h, 'two-factor', { code });
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(await sessionOf(jar, h)).toBeNull();
      },
    );

    it('no pending cookie: the sign-in page; an expired or foreign one: "sign in again"', async () => {
      const none = await post(createJar(), h, 'two-factor', { code: codeOf(secret) });
      expect(none.status).toBe(302);
      expect(none.headers.get('location')).toContain('/auth/signin');

      const expired = createJar();
      const stale = await encode({ token: { sub: 'x', provider: 'password', pid: 'x', nonce: 'n' }, secret: SECRET, salt: 'authjs.two-factor', maxAge: -60 });
      expired.set(h.app.url, `authjs.two-factor=${stale}; Path=/`);
      const answer = await post(expired, h, 'two-factor', { code: codeOf(secret) });
      expect(answer.status).toBe(302);
      expect(answer.headers.get('location')).toBe(`${h.app.url}/auth/signin?error=TwoFactorSignIn`);
      expect(await (await expired.fetch(answer.headers.get('location')!)).text()).toContain('Your sign-in expired or was ended. Sign in again.');
      expect(answer.headers.getSetCookie().find((cookie) => cookie.startsWith('authjs.two-factor='))).toMatch(/Max-Age=0/i);

      // A well-formed cookie for another user, whose pending row it does not name.
      const other = await user(h, 'other@example.test');
      const forged = createJar();
      const token = await encode({ token: { sub: other, provider: 'password', pid: other, nonce: 'not-the-row' }, secret: SECRET, salt: 'authjs.two-factor', maxAge: 300 });
      forged.set(h.app.url, `authjs.two-factor=${token}; Path=/`);
      const otherProvider = createJar();
      const foreign = await encode({ token: { sub: other, provider: 'nope', pid: other, nonce: 'n' }, secret: SECRET, salt: 'authjs.two-factor', maxAge: 300 });
      otherProvider.set(h.app.url, `authjs.two-factor=${foreign}; Path=/`);
      expect((await post(otherProvider, h, 'two-factor', { code: '123456' })).headers.get('location')).toBe(`${h.app.url}/auth/signin?error=TwoFactorSignIn`);
      expect(await sessionOf(otherProvider, h)).toBeNull();

      const refused = await post(forged, h, 'two-factor', { code: '123456' });
      expect(refused.status).toBeGreaterThanOrEqual(300);
      expect(refused.status).toBeLessThan(500);
      expect(await sessionOf(forged, h)).toBeNull();
    });
  });
});

describe('two-factor configuration and keys', () => {
  it('keeps working after AUTH_SECRET rotation: a secret sealed with the old key still opens', async () => {
    const adapter = MemoryAdapter() as Required<Adapter>;
    const before = await startHarness({}, adapter);
    const { secret } = await enrolled(before, 'rotate@example.test');
    await before.app.close();
    const after = await startHarness({ secret: [OTHER_SECRET, SECRET] }, adapter);
    try {
      const { jar } = await signInWithPassword(after, 'rotate@example.test');
      expect((await post(jar, after, 'two-factor', { code: codeOf(secret) })).status).toBe(302);
    } finally {
      await after.app.close();
    }
  });

  it('asks a credentials provider that opts in (database sessions)', async () => {
    const adapter = MemoryAdapter() as Required<Adapter>;
    const credentials = Credentials({
      twoFactor: true,
      credentials: { username: {}, password: { type: 'password' } },
      authorize: async (input) => (input.password === PASSWORD ? { id: `id-${String(input.username)}`, name: String(input.username) } : null),
    });
    const h = await startHarness({ providers: [credentials] }, adapter);
    try {
      const jar = createJar();
      await post(jar, h, 'callback/credentials', { username: 'linus', password: PASSWORD });
      const enroll = (await (await post(jar, h, 'two-factor', { action: 'enroll' }, true)).json()) as { secret: string };
      await post(jar, h, 'two-factor', { action: 'enable', code: codeOf(enroll.secret) }, true);
      nextStep();
      const next = createJar();
      const response = await post(next, h, 'callback/credentials', { username: 'linus', password: PASSWORD });
      expect(response.headers.get('location')).toBe(`${h.app.url}/auth/two-factor`);
      expect(await sessionOf(next, h)).toBeNull();
      expect((await post(next, h, 'two-factor', { code: codeOf(enroll.secret) })).status).toBe(302);
      expect(await sessionOf(next, h)).toMatchObject({ user: { name: 'linus' } });
    } finally {
      await h.app.close();
    }
  });

  it('asks no code of a passkey sign-in, for a user who has two-factor on', async () => {
    const adapter = MemoryAdapter() as Required<Adapter>;
    const h = await startHarness({ providers: [Password({ sendMessage: () => {} }), Passkey()], trustHost: ['127.0.0.1'] }, adapter);
    try {
      const { secret } = await enrolled(h, 'keys@example.test');
      // Signed in with the password and a code, the user adds a passkey to their account.
      const { jar } = await signInWithPassword(h, 'keys@example.test');
      expect((await post(jar, h, 'two-factor', { code: codeOf(secret) })).status).toBe(302);
      nextStep();
      const key = new SoftwareAuthenticator();
      const register = (await (await jar.fetch(`${h.app.url}/auth/webauthn-options/passkey?action=register`)).json()) as { options: RegistrationOptionsJson };
      expect((await post(jar, h, 'callback/passkey', { action: 'register', data: JSON.stringify(key.register(register.options, h.app.url)) })).status).toBe(302);
      const stored = (await adapter.getUserByEmail('keys@example.test'))!;
      expect((await adapter.listAuthenticatorsByUserId(stored.id)).map((authenticator) => authenticator.credentialID)).toEqual([key.id]);

      const fresh = createJar();
      const options = (await (await fresh.fetch(`${h.app.url}/auth/webauthn-options/passkey?action=authenticate`)).json()) as { options: AuthenticationOptionsJson };
      const signedIn = await post(fresh, h, 'callback/passkey', { action: 'authenticate', data: JSON.stringify(key.authenticate(options.options, h.app.url)) });
      expect(signedIn.status).toBe(302);
      expect(signedIn.headers.get('location')).not.toContain('two-factor');
      expect(await sessionOf(fresh, h)).toMatchObject({ user: { email: 'keys@example.test' } });
    } finally {
      await h.app.close();
    }
  });

  it('refuses at startup what could not work, naming what is missing', () => {
    const base = { secret: SECRET, trustHost: ['127.0.0.1'], adapter: MemoryAdapter() };
    expect(() => resolveConfig({ ...base, providers: [], features: [TwoFactor()] }, {})).toThrow(/add the Password\(\) provider/);
    const optIn = Credentials({ twoFactor: true, credentials: {}, authorize: () => null });
    expect(() => resolveConfig({ ...base, providers: [optIn] }, {})).toThrow(/add TwoFactor\(\)/);
    expect(() => resolveConfig({ ...base, session: { strategy: 'jwt' }, providers: [optIn], features: [TwoFactor()] }, {})).toThrow(/needs database sessions/);
    // An adapter with every feature's methods but getTwoFactor, which takes no features (one written before it).
    const { getTwoFactor: _get, [storeFeatures]: _store, ...older } = withAllFeatures(MemoryAdapter()) as Required<Adapter>;
    expect(() => resolveConfig({ ...base, adapter: older, providers: [Password()], features: [TwoFactor()] }, {})).toThrow(/getTwoFactor/);
    expect(() => TwoFactor({ issuer: 'a:b' })).toThrow(/without ":"/);
  });
});
