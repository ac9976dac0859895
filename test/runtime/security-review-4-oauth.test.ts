// Issue 34: the findings of security review 4 that concern OAuth/OpenID Connect sign-ins, over HTTP against the
// runtime, a real oidc-provider and the memory adapter (the password and two-factor findings are in
// security-review-4.test.ts): the second factor after an OIDC sign-in unless the provider opts out with
// `twoFactor: false` (F2), and a new account linked to the signed-in user only after a recent authentication (F7).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { DEFAULT_ACCOUNTS, startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { getAccessToken } from '../../templates/runtime/index.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import { TwoFactor } from '../../templates/runtime/features/two-factor/index.js';
import { base32Decode, totpCode, totpStep } from '../../templates/runtime/features/two-factor/totp.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import Password from '../../templates/runtime/providers/password.js';
import type { OIDCUserConfig } from '../../templates/runtime/contracts.js';
import { AppRegistry, type AuthAppOptions, csrfTokenOf, expectRedirect, sessionCookiesSet, sessionOf, signIn, signOut, type AuthApp } from './oauth-harness.js';

const GOOD = 'violet staple orbit lantern';
/** OIDC accounts beside alice: each links once, so each linking test has its own, with an address nobody holds. */
const ACCOUNTS = {
  ...DEFAULT_ACCOUNTS,
  carol: { sub: 'carol-sub', name: 'Carol Example', email: 'carol@idp.example.test', email_verified: true },
  dave: { sub: 'dave-sub', name: 'Dave Example', email: 'dave@idp.example.test', email_verified: true },
};

let op: RunningOidcProvider;
const apps = new AppRegistry();
let clientCount = 0;
let clock = 1_800_000_000_000;
const codeOf = (secret: string) => totpCode(base32Decode(secret), totpStep(clock));

beforeAll(async () => {
  op = await startOidcProvider({ accounts: ACCOUNTS });
});
afterAll(async () => {
  await apps.closeAll();
  await op?.close();
});

interface Harness {
  app: AuthApp;
  adapter: Required<Adapter>;
}

/**
 * An app with the memory adapter (database sessions), Password() and an OIDC provider (id `oidc`, a client of its
 * own at the loopback provider), and TwoFactor() on the test's clock.
 */
async function startHarness(options: { provider?: Partial<OIDCUserConfig>; session?: FrameworkAuthConfig['session']; routes?: AuthAppOptions['routes'] } = {}): Promise<Harness> {
  const adapter = MemoryAdapter() as Required<Adapter>;
  const clientId = `review-4-rp-${++clientCount}`;
  const app = await apps.start({
    trustHost: ['127.0.0.1'],
    adapter,
    ...(options.session && { session: options.session }),
    providers: [
      Password({ sendMessage: () => {} }),
      OIDC({ issuer: op.issuer, clientId, clientSecret: `${clientId}-secret`, ...options.provider }),
    ],
    features: [TwoFactor({ now: () => clock })],
  }, options.routes ? { routes: options.routes } : undefined);
  await op.setClient({ client_id: clientId, redirect_uris: [app.redirectUri()] });
  return { app, adapter };
}

/** POST `<mount>/<path>` with the jar's CSRF token (as JSON when `json`). */
async function post(h: Harness, jar: CookieJar, path: string, fields: Record<string, string>, json = false): Promise<Response> {
  const form = formBody({ csrfToken: await csrfTokenOf(h.app, jar), ...fields });
  return h.app.fetch(jar, `${h.app.mount}/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, ...(json && { accept: 'application/json' }) } });
}

/** Turns two-factor on for the signed-in user of `jar` (recently signed in): the secret. */
async function turnOnTwoFactor(h: Harness, jar: CookieJar): Promise<string> {
  const enroll = await post(h, jar, 'two-factor', { action: 'enroll' }, true);
  expect(enroll.status).toBe(200);
  const { secret } = (await enroll.json()) as { secret: string };
  expect((await post(h, jar, 'two-factor', { action: 'enable', code: codeOf(secret) }, true)).status).toBe(200);
  clock += 30_000;
  return secret;
}

/** Alice signs in with OIDC (created and linked the first time) and turns two-factor on; then signs out. */
async function aliceWithTwoFactor(h: Harness): Promise<{ id: string; secret: string }> {
  const jar = createJar();
  expectRedirect((await signIn(h.app, jar)).callbackResponse, { origin: h.app.publicOrigin, pathname: '/me' });
  const alice = await h.adapter.getUserByAccount({ provider: 'oidc', providerAccountId: 'alice-sub' });
  expect(alice?.email).toBe('alice@example.test');
  const secret = await turnOnTwoFactor(h, jar);
  expect(await h.adapter.getTwoFactor(alice!.id)).not.toBeNull();
  await signOut(h.app, jar);
  return { id: alice!.id, secret };
}

/** A confirmed user with a password, made through the adapter, signed in by password in a new jar. */
async function passwordUser(h: Harness, email: string): Promise<{ id: string; jar: CookieJar }> {
  const created = await h.adapter.createUser({ id: crypto.randomUUID(), email, emailVerified: new Date() });
  await h.adapter.setPasswordHash(created.id, await hashPassword(GOOD));
  const jar = createJar();
  const response = await post(h, jar, 'callback/password', { email, password: GOOD });
  expect(response.status).toBe(302);
  expect((await sessionOf(h.app, jar))?.user?.email).toBe(email);
  return { id: created.id, jar };
}

describe('F2: the second factor after an OpenID Connect sign-in', () => {
  it('asks for the code after an OpenID Connect sign-in of a user with two-factor on, and opens no session before it', async () => {
    const h = await startHarness();
    const alice = await aliceWithTwoFactor(h);
    const jar = createJar();
    const { callbackResponse } = await signIn(h.app, jar);
    expectRedirect(callbackResponse, { origin: h.app.publicOrigin, pathname: `${h.app.mount}/two-factor` });
    expect(sessionCookiesSet(callbackResponse)).toEqual([]);
    expect(await sessionOf(h.app, jar)).toBeNull();
    const finished = await post(h, jar, 'two-factor', { code: codeOf(alice.secret) });
    expectRedirect(finished, { pathname: '/me' });
    expect((await sessionOf(h.app, jar))?.user).toMatchObject({ id: alice.id, email: 'alice@example.test' });
  });

  it('asks no code after a provider configured with twoFactor: false', async () => {
    const h = await startHarness({ provider: { twoFactor: false } });
    const alice = await aliceWithTwoFactor(h);
    const jar = createJar();
    const { callbackResponse } = await signIn(h.app, jar);
    expectRedirect(callbackResponse, { origin: h.app.publicOrigin, pathname: '/me' });
    expect(sessionCookiesSet(callbackResponse)).toHaveLength(1);
    expect((await sessionOf(h.app, jar))?.user).toMatchObject({ id: alice.id, email: 'alice@example.test' });
  });
});

describe('F2 with JWT sessions: the session after the code carries the provider\'s tokens', () => {
  it('gives getAccessToken the access token after an OpenID Connect sign-in finished by the code', async () => {
    const h = await startHarness({
      session: { strategy: 'jwt' },
      routes: (app, config) => app.get('/token', async (req, res) => void res.json({ token: await getAccessToken(req, 'oidc', config) })),
    });
    const alice = await aliceWithTwoFactor(h);
    const jar = createJar();
    await signIn(h.app, jar);
    expect(await sessionOf(h.app, jar)).toBeNull();
    expectRedirect(await post(h, jar, 'two-factor', { code: codeOf(alice.secret) }), { pathname: '/me' });
    const { token } = (await (await h.app.fetch(jar, '/token')).json()) as { token: string | null };
    expect(typeof token).toBe('string');
    expect(token!.length).toBeGreaterThan(10);
  });
});

describe('F7: linking a new OpenID Connect account needs a recent authentication', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ session: { reauthMaxAge: 2 } });
  });

  it('refuses to link a new OpenID Connect account to a session older than reauthMaxAge', async () => {
    const { id, jar } = await passwordUser(h, 'linker@example.test');
    await new Promise((resolve) => setTimeout(resolve, 3500));
    const { callbackResponse } = await signIn(h.app, jar, { login: { login: 'carol' } });
    expectRedirect(callbackResponse, { pathname: `${h.app.mount}/signin`, error: 'ReauthenticationRequired' });
    expect(await h.adapter.getUserByAccount({ provider: 'oidc', providerAccountId: 'carol-sub' })).toBeNull();
    // The refusal neither switches the browser to another user nor creates one for the OIDC account.
    expect((await sessionOf(h.app, jar))?.user?.id).toBe(id);
    expect(await h.adapter.getUserByEmail('carol@idp.example.test')).toBeNull();
  }, 15_000);

  it('links it within reauthMaxAge', async () => {
    const { id, jar } = await passwordUser(h, 'recent@example.test');
    const { callbackResponse } = await signIn(h.app, jar, { login: { login: 'dave' } });
    expectRedirect(callbackResponse, { origin: h.app.publicOrigin, pathname: '/me' });
    expect(await h.adapter.getUserByAccount({ provider: 'oidc', providerAccountId: 'dave-sub' })).toMatchObject({ id, email: 'recent@example.test' });
    expect((await sessionOf(h.app, jar))?.user?.id).toBe(id);
  });
});

describe('F7: re-authentication through the provider', () => {
  it('sends the signed-in user to the provider again with prompt=login and max_age=0 from <mount>/reauth', async () => {
    const h = await startHarness();
    const jar = createJar();
    expectRedirect((await signIn(h.app, jar)).callbackResponse, { origin: h.app.publicOrigin, pathname: '/me' });
    const response = await post(h, jar, 'reauth', { provider: 'oidc', callbackUrl: `${h.app.publicOrigin}/me` });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(location.href.startsWith(op.issuer)).toBe(true);
    expect(location.searchParams.get('prompt')).toBe('login');
    expect(location.searchParams.get('max_age')).toBe('0');
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('sends a visitor without a session from <mount>/reauth to the sign-in page', async () => {
    const h = await startHarness();
    const response = await h.app.fetch(createJar(), `${h.app.mount}/reauth?callbackUrl=%2Fme`);
    expectRedirect(response, { pathname: `${h.app.mount}/signin` });
  });
});
