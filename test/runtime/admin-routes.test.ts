// Administration's routes and actions (issue 49, SPEC §15) over HTTP on 127.0.0.1, with the memory adapter and SQLite
// (a temp file): every admin route × who asks (an admin, one without a second factor, one past reauthMaxAge, a
// non-admin, a visitor, an API key, an admin acting as a user), as JSON and as a form; each action's effect (disable
// ends every session, refuses the right password with "disabled" while a wrong one answers as before, and refuses the
// user's API keys; enable; end-sessions; remove-two-factor; remove-passkey; send-reset; grant and revoke; impersonate;
// delete), its record (the user's event with the admin as actor, the admins' record) and its mail; each refusal (acting
// on yourself, impersonating an admin, revoking a configured admin or the last one, a wrong confirmation, a part's
// refusal of a deletion); a POST without its CSRF token, and any GET, change nothing.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import type { AdminOptions } from '../../templates/runtime/features/admin/index.js';
import { ApiKeys, createApiKey } from '../../templates/runtime/features/api-keys/index.js';
import { passkeys } from '../../templates/runtime/features/passkey/index.js';
import { createRequireAuth } from '../../templates/runtime/index.js';
import type { Feature } from '../../templates/runtime/index.js';
import { type Harness, type TestUser, accept, csrfOf, freshAddress, get, newUser, post, signIn, signInAnswer, startHarness as startAdminHarness } from './admin-harness.js';
import { memoryAndSqlite, type MadeAdapter } from './helpers.js';

const NEW_PASSWORD = 'copper meadow signal harbour';
/** The configured admin who acts in these tests (two-factor on). */
const ROOT = 'root@example.test';
/** A configured admin without a second factor. */
const NO_FACTOR = 'no-factor@example.test';
const KEEPER_REFUSAL = 'You are the only owner of the Acme workspace. Hand it over first.';
const MINUTE_MS = 60 * 1000;

/** A feature that refuses to delete users named "keeper", as organizations refuses an only owner's deletion. */
const keeper: Feature = { id: 'keeper', account: { beforeDelete: async ({ user }) => (user.name === 'keeper' ? KEEPER_REFUSAL : undefined) } };

afterEach(() => {
  vi.useRealTimers();
});

/** The harness with ROOT and NO_FACTOR configured, API keys, passkeys and keeper, and /me (requireAuth, which an API key passes). */
function startHarness(made: MadeAdapter, admin: AdminOptions = {}): Promise<Harness> {
  return startAdminHarness(made, {
    admin: { admins: [ROOT, NO_FACTOR], ...admin },
    features: [ApiKeys(), passkeys, keeper],
    routes: (app, config) => void app.get('/me', createRequireAuth(config), (_req, res) => void res.json(res.locals['session'])),
  });
}

/** An admin by grant, with two-factor on, signed in. */
const newAdmin = (h: Harness): Promise<TestUser> => newUser(h, { name: 'admin', secondFactor: true, grant: true });

/** `admin` posts `action` (and its fields) to the user's page. */
function act(h: Harness, admin: TestUser, userId: string, action: string, fields: Record<string, string> = {}, json = true): Promise<Response> {
  return post(h, admin.jar, `admin/users/${encodeURIComponent(userId)}`, { action, ...fields }, json);
}

async function expectRefused(response: Response, field: string, words: RegExp): Promise<void> {
  expect(response.status).toBe(400);
  const body = (await response.json()) as { error: string; errors: Record<string, string> };
  expect(body.error).toBe('InvalidRequest');
  expect(body.errors[field]).toMatch(words);
}

async function sessionUserOf(h: Harness, jar: CookieJar): Promise<string | null> {
  const session = (await (await jar.fetch(`${h.url}/whoami`)).json()) as { user?: { id?: string } } | null;
  return session?.user?.id ?? null;
}

/** Waits for what a route does after its answer (a message sent later). */
async function eventually<T>(find: () => T | undefined): Promise<T> {
  for (let turn = 0; turn < 500; turn++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error('never happened');
}

/** A passkey of the user: its authenticator and its `webauthn` account. */
async function addPasskey(h: Harness, userId: string): Promise<string> {
  const id = `credential-${crypto.randomUUID()}`;
  await h.adapter.linkAccount({ userId, type: 'webauthn', provider: 'passkey', providerAccountId: id });
  await h.adapter.createAuthenticator({ credentialID: id, userId, providerAccountId: id, credentialPublicKey: 'public-key', counter: 0, credentialDeviceType: 'multiDevice', credentialBackedUp: true, transports: 'internal' });
  return id;
}

/** Who asks: the jar they ask with, and the headers they add (an API key). */
interface Asker {
  jar: CookieJar;
  headers?: Record<string, string>;
}

type Who = 'an admin' | 'an admin without a second factor' | 'an admin past reauthMaxAge' | 'a non-admin' | 'a visitor' | 'an API key' | 'an admin acting as a user';
type RouteName = 'GET /admin' | 'GET /admin/users/<id>' | 'POST /admin/users/<id>' | 'POST /admin/stop-impersonating';

/** What an answer must be: its status, and its JSON body's fields (JSON) or where it sends the browser (form). */
interface Expected {
  status: number;
  body?: Record<string, unknown>;
  location?: RegExp;
}

const notFound: [Expected, Expected] = [{ status: 404, body: { error: 'UnknownAction' } }, { status: 404 }];
const signInFirst: [Expected, Expected] = [{ status: 401, body: { error: 'Unauthorized' } }, { status: 302, location: /\/auth\/signin\?callbackUrl=/ }];
const keyRefused: [Expected, Expected] = [{ status: 403, body: { error: 'insufficient_scope' } }, { status: 403 }];
const enrolFirst: [Expected, Expected] = [{ status: 403, body: { error: 'second_factor_required', url: '/auth/two-factor' } }, { status: 302, location: /^\/auth\/two-factor$/ }];
const pageShown: [Expected, Expected] = [{ status: 200 }, { status: 200 }];
/** stop-impersonating without an impersonation: nothing to stop. */
const nothingToStop: [Expected, Expected] = [{ status: 200, body: { stopped: false } }, { status: 302 }];

/** The matrix: each route × who asks → the JSON answer and the form's. */
const matrix: [RouteName, Who, Expected, Expected][] = [
  ['GET /admin', 'an admin', ...pageShown],
  ['GET /admin', 'an admin without a second factor', ...enrolFirst],
  ['GET /admin', 'an admin past reauthMaxAge', ...pageShown],
  ['GET /admin', 'a non-admin', ...notFound],
  ['GET /admin', 'a visitor', ...signInFirst],
  ['GET /admin', 'an API key', ...keyRefused],
  ['GET /admin', 'an admin acting as a user', ...notFound],
  ['GET /admin/users/<id>', 'an admin', ...pageShown],
  ['GET /admin/users/<id>', 'an admin without a second factor', ...enrolFirst],
  ['GET /admin/users/<id>', 'an admin past reauthMaxAge', ...pageShown],
  ['GET /admin/users/<id>', 'a non-admin', ...notFound],
  ['GET /admin/users/<id>', 'a visitor', ...signInFirst],
  ['GET /admin/users/<id>', 'an API key', ...keyRefused],
  ['GET /admin/users/<id>', 'an admin acting as a user', ...notFound],
  ['POST /admin/users/<id>', 'an admin', { status: 200, body: { done: 'end-sessions' } }, { status: 302, location: /\/auth\/admin\/users\/[^/?]+\?notice=sessions-ended$/ }],
  ['POST /admin/users/<id>', 'an admin without a second factor', ...enrolFirst],
  ['POST /admin/users/<id>', 'an admin past reauthMaxAge', { status: 401, body: { error: 'reauthentication_required' } }, { status: 302, location: /\/auth\/reauth\?callbackUrl=%2Fauth%2Fadmin%2Fusers%2F/ }],
  ['POST /admin/users/<id>', 'a non-admin', ...notFound],
  ['POST /admin/users/<id>', 'a visitor', ...signInFirst],
  ['POST /admin/users/<id>', 'an API key', ...keyRefused],
  ['POST /admin/users/<id>', 'an admin acting as a user', { status: 403, body: { error: 'ImpersonationRefused' } }, { status: 403 }],
  ['POST /admin/stop-impersonating', 'an admin', ...nothingToStop],
  ['POST /admin/stop-impersonating', 'an admin without a second factor', ...nothingToStop],
  ['POST /admin/stop-impersonating', 'an admin past reauthMaxAge', ...nothingToStop],
  ['POST /admin/stop-impersonating', 'a non-admin', ...nothingToStop],
  ['POST /admin/stop-impersonating', 'a visitor', ...nothingToStop],
  ['POST /admin/stop-impersonating', 'an API key', ...keyRefused],
  ['POST /admin/stop-impersonating', 'an admin acting as a user', { status: 200, body: { stopped: true } }, { status: 302, location: /\/auth\/admin\/users\/[^/?]+$/ }],
];

describe.each(memoryAndSqlite)('admin routes with %s', (_name, makeAdapter) => {
  let h: Harness;
  let root: TestUser;
  beforeAll(async () => {
    h = await startHarness(await makeAdapter());
    root = await newUser(h, { email: ROOT, name: 'root', secondFactor: true });
  });
  afterAll(() => h.close());

  describe('the route matrix', () => {
    let askers: Record<Exclude<Who, 'an admin acting as a user'>, Asker>;
    let target: TestUser;
    beforeAll(async () => {
      target = await newUser(h, { name: 'target' });
      const key = await createApiKey(h.config, { userId: root.id, name: 'Reports' });
      askers = {
        'an admin': { jar: root.jar },
        'an admin without a second factor': { jar: (await newUser(h, { email: NO_FACTOR, name: 'no-factor' })).jar },
        'an admin past reauthMaxAge': { jar: (await newAdmin(h)).jar },
        'a non-admin': { jar: (await newUser(h, { name: 'member' })).jar },
        'a visitor': { jar: createJar() },
        'an API key': { jar: createJar(), headers: { authorization: `Bearer ${key.key}` } },
      };
    });

    /** Who asks, made now: an admin acting as a user is a new impersonation each time (stopping ends it). */
    async function askerOf(who: Who): Promise<Asker> {
      if (who !== 'an admin acting as a user') return askers[who];
      const admin = await newAdmin(h);
      const user = await newUser(h, { name: 'impersonated' });
      const started = await act(h, admin, user.id, 'impersonate', { reason: 'Ticket 4711: cannot see invoices' });
      expect(started.status).toBe(200);
      return { jar: admin.jar };
    }

    async function ask(route: RouteName, asker: Asker, json: boolean): Promise<Response> {
      const headers = { accept: accept(json), ...asker.headers };
      if (route === 'GET /admin') return asker.jar.fetch(`${h.url}/auth/admin`, { headers });
      if (route === 'GET /admin/users/<id>') return asker.jar.fetch(`${h.url}/auth/admin/users/${target.id}`, { headers });
      const path = route === 'POST /admin/users/<id>' ? `admin/users/${target.id}` : 'admin/stop-impersonating';
      const form = formBody({ csrfToken: await csrfOf(h, asker.jar), ...(route === 'POST /admin/users/<id>' && { action: 'end-sessions' }) });
      return asker.jar.fetch(`${h.url}/auth/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, ...headers } });
    }

    it.each(matrix)('%s as %s', async (route, who, asJson, asForm) => {
      for (const [json, expected] of [[true, asJson], [false, asForm]] as const) {
        const asker = await askerOf(who);
        if (who === 'an admin past reauthMaxAge') {
          vi.useFakeTimers({ toFake: ['Date'] });
          vi.setSystemTime(Date.now() + 11 * MINUTE_MS);
        }
        const response = await ask(route, asker, json);
        vi.useRealTimers();
        const label = `${json ? 'JSON' : 'form'}: ${route} as ${who}`;
        expect(response.status, label).toBe(expected.status);
        if (expected.body) expect(await response.json(), label).toMatchObject(expected.body);
        if (expected.location) expect(response.headers.get('location'), label).toMatch(expected.location);
        if (who === 'an API key') expect(response.headers.get('www-authenticate'), label).toBe('Bearer error="insufficient_scope"');
      }
    });
  });

  describe('disable and enable', () => {
    it('disables a user: every session of theirs ends at once, the reason is kept, the event has the admin as actor, and the user is mailed', async () => {
      const user = await newUser(h, { name: 'spammer' });
      const second = await signIn(h, user.email);
      const response = await act(h, root, user.id, 'disable', { reason: 'Spam  reported\nin ticket 12' });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ done: 'disable', sessionsEnded: 2 });
      expect(await sessionUserOf(h, user.jar)).toBeNull();
      expect(await sessionUserOf(h, second)).toBeNull();
      expect(await h.adapter.listSessionsByUserId(user.id)).toEqual([]);
      expect(await h.adapter.getAdminState(user.id)).toMatchObject({ disabledAt: expect.any(Date), disabledReason: 'Spam reported in ticket 12' });
      expect(await h.adapter.listAdminActions(user.id, 5)).toMatchObject([{ action: 'disabled', actorId: root.id, detail: 'Spam reported in ticket 12' }]);
      expect(h.events.filter((event) => event.userId === user.id && event.type === 'admin-disabled')).toMatchObject([{ actorId: root.id }]);
      await eventually(() => h.mails.admin.find((mail) => mail.to === user.email && mail.kind === 'disabled'));
    });

    it('refuses a disabled user\'s right password with "disabled", while a wrong password and an unknown address answer as before', async () => {
      const user = await newUser(h, { name: 'disabled' });
      const enabled = await newUser(h, { name: 'enabled' });
      const before = { wrong: await signInAnswer(h, createJar(), enabled.email, 'not the password at all'), unknown: await signInAnswer(h, createJar(), freshAddress('nobody')) };
      expect((await act(h, root, user.id, 'disable', { reason: 'Compromised' })).status).toBe(200);
      const jar = createJar();
      const right = await signInAnswer(h, jar, user.email);
      expect(right.status).toBe(302);
      expect(right.headers.get('location')).toContain('error=AccountDisabled');
      expect(await sessionUserOf(h, jar)).toBeNull();
      const page = await jar.fetch(right.headers.get('location')!);
      expect(await page.text()).toContain('This account is disabled');
      const wrong = await signInAnswer(h, createJar(), user.email, 'not the password at all');
      expect(wrong.status).toBe(before.wrong.status);
      expect(wrong.headers.get('location')).toBe(before.wrong.headers.get('location'));
      expect(wrong.headers.get('location')).toContain('error=CredentialsSignin');
      const unknown = await signInAnswer(h, createJar(), freshAddress('nobody'));
      expect(unknown.headers.get('location')).toBe(before.unknown.headers.get('location'));
    });

    it('refuses a disabled user\'s API key: 401 invalid_token', async () => {
      const user = await newUser(h, { name: 'scripted' });
      const { key } = await createApiKey(h.config, { userId: user.id, name: 'Deploys' });
      const withKey = (): Promise<Response> => fetch(`${h.url}/me`, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
      expect((await withKey()).status).toBe(200);
      expect((await act(h, root, user.id, 'disable', { reason: 'Leaked key abuse' })).status).toBe(200);
      const refused = await withKey();
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    });

    it('enables a disabled user: they sign in again, and the sessions that ended stay ended', async () => {
      const user = await newUser(h, { name: 'forgiven' });
      expect((await act(h, root, user.id, 'disable', { reason: 'Mistaken report' })).status).toBe(200);
      const response = await act(h, root, user.id, 'enable', {}, false);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/admin/users/${user.id}?notice=enabled`);
      expect((await h.adapter.getAdminState(user.id)).disabledAt).toBeNull();
      expect(await sessionUserOf(h, user.jar)).toBeNull();
      expect(await sessionUserOf(h, await signIn(h, user.email))).toBe(user.id);
      expect((await h.adapter.listAdminActions(user.id, 5)).map((action) => action.action)).toEqual(['enabled', 'disabled']);
    });

    it('refuses to disable without a reason (400 by the field), and the user stays enabled', async () => {
      const user = await newUser(h);
      await expectRefused(await act(h, root, user.id, 'disable', { reason: '   ' }), 'reason', /reason/);
      expect((await h.adapter.getAdminState(user.id)).disabledAt).toBeNull();
      expect(await sessionUserOf(h, user.jar)).toBe(user.id);
    });

    it('refuses to disable yourself', async () => {
      const admin = await newAdmin(h);
      await expectRefused(await act(h, admin, admin.id, 'disable', { reason: 'Testing' }), 'action', /your own account/);
      expect((await h.adapter.getAdminState(admin.id)).disabledAt).toBeNull();
      expect(await sessionUserOf(h, admin.jar)).toBe(admin.id);
    });

    it('refuses to enable a user who is not disabled', async () => {
      const user = await newUser(h);
      await expectRefused(await act(h, root, user.id, 'enable'), 'action', /not disabled/);
      expect(await h.adapter.listAdminActions(user.id, 5)).toEqual([]);
    });
  });

  describe('end-sessions', () => {
    it('ends every session of the user and records it; the admin\'s own session stays', async () => {
      const user = await newUser(h);
      const second = await signIn(h, user.email);
      const response = await act(h, root, user.id, 'end-sessions');
      expect(await response.json()).toEqual({ done: 'end-sessions', sessionsEnded: 2 });
      expect(await sessionUserOf(h, user.jar)).toBeNull();
      expect(await sessionUserOf(h, second)).toBeNull();
      expect(await sessionUserOf(h, root.jar)).toBe(root.id);
      expect(h.events.filter((event) => event.userId === user.id && event.type === 'admin-sessions-ended')).toMatchObject([{ actorId: root.id }]);
    });
  });

  describe('remove-two-factor and remove-passkey', () => {
    it('removes a user\'s two-factor, records it and mails them', async () => {
      const user = await newUser(h, { secondFactor: true });
      const response = await act(h, root, user.id, 'remove-two-factor');
      expect(await response.json()).toEqual({ done: 'remove-two-factor' });
      expect(await h.adapter.getTwoFactor(user.id)).toBeNull();
      expect(await h.adapter.listAdminActions(user.id, 5)).toMatchObject([{ action: 'two-factor-removed', actorId: root.id }]);
      expect((await h.adapter.listSecurityEvents(user.id, 5))[0]).toMatchObject({ type: 'admin-two-factor-removed' });
      await eventually(() => h.mails.admin.find((mail) => mail.to === user.email && mail.kind === 'two-factor-removed'));
    });

    it('refuses to remove two-factor that is off (400), and records nothing', async () => {
      const user = await newUser(h);
      await expectRefused(await act(h, root, user.id, 'remove-two-factor'), 'action', /no two-factor/);
      expect(await h.adapter.listAdminActions(user.id, 5)).toEqual([]);
    });

    it('removes a passkey of the user (its authenticator and its account), records it and mails them', async () => {
      const user = await newUser(h);
      const kept = await addPasskey(h, user.id);
      const removed = await addPasskey(h, user.id);
      const response = await act(h, root, user.id, 'remove-passkey', { id: removed });
      expect(await response.json()).toEqual({ done: 'remove-passkey', id: removed });
      expect((await h.adapter.listAuthenticatorsByUserId(user.id)).map((passkey) => passkey.credentialID)).toEqual([kept]);
      expect((await h.adapter.listAccountsByUserId(user.id)).map((account) => account.providerAccountId)).toEqual([kept]);
      expect(await h.adapter.listAdminActions(user.id, 5)).toMatchObject([{ action: 'passkey-removed', actorId: root.id }]);
      await eventually(() => h.mails.admin.find((mail) => mail.to === user.email && mail.kind === 'passkey-removed'));
    });

    it('refuses another user\'s passkey as unknown (400 by the field), and keeps it', async () => {
      const user = await newUser(h);
      const other = await newUser(h);
      const theirs = await addPasskey(h, other.id);
      await expectRefused(await act(h, root, user.id, 'remove-passkey', { id: theirs }), 'id', /no passkey with this id/);
      expect((await h.adapter.listAuthenticatorsByUserId(other.id)).map((passkey) => passkey.credentialID)).toEqual([theirs]);
    });
  });

  describe('send-reset', () => {
    it('mails the user a reset link that sets a new password; the admin\'s answer holds no link', async () => {
      const user = await newUser(h, { name: 'forgetful' });
      const response = await act(h, root, user.id, 'send-reset');
      const answer = await response.text();
      expect(JSON.parse(answer)).toEqual({ done: 'send-reset' });
      const mail = await eventually(() => h.mails.password.find((message) => message.to === user.email && message.kind === 'reset-password'));
      const link = new URL(mail.url);
      expect(answer).not.toContain(link.searchParams.get('token')!);
      const jar = createJar();
      const reset = await jar.fetch(`${h.url}/auth/reset-password`, {
        method: 'POST',
        ...formBody({ csrfToken: await csrfOf(h, jar), token: link.searchParams.get('token')!, email: link.searchParams.get('email')!, password: NEW_PASSWORD }),
      });
      expect(reset.status).toBe(302);
      const signedIn = await signInAnswer(h, createJar(), user.email, NEW_PASSWORD);
      expect(signedIn.headers.get('location')).not.toContain('error=');
      expect(await h.adapter.listAdminActions(user.id, 5)).toMatchObject([{ action: 'reset-sent', actorId: root.id }]);
    });
  });

  describe('grant-admin and revoke-admin', () => {
    it('grants admin: the user reaches the admin pages (with a second factor), and a second grant is refused', async () => {
      const user = await newUser(h, { secondFactor: true });
      expect((await get(h, user.jar, 'admin')).status).toBe(404);
      expect(await (await act(h, root, user.id, 'grant-admin')).json()).toEqual({ done: 'grant-admin' });
      expect((await get(h, user.jar, 'admin')).status).toBe(200);
      expect(h.events.filter((event) => event.userId === user.id && event.type === 'admin-granted')).toMatchObject([{ actorId: root.id }]);
      await expectRefused(await act(h, root, user.id, 'grant-admin'), 'action', /already an admin/);
    });

    it('revokes a grant: the user no longer reaches the admin pages', async () => {
      const admin = await newAdmin(h);
      expect((await get(h, admin.jar, 'admin')).status).toBe(200);
      expect(await (await act(h, root, admin.id, 'revoke-admin')).json()).toEqual({ done: 'revoke-admin' });
      expect((await h.adapter.getAdminState(admin.id)).granted).toBe(false);
      expect((await get(h, admin.jar, 'admin')).status).toBe(404);
    });

    it('refuses to revoke an admin by the configured addresses, naming AUTH_ADMINS', async () => {
      const admin = await newAdmin(h);
      const response = await act(h, admin, root.id, 'revoke-admin');
      await expectRefused(response, 'action', /AUTH_ADMINS/);
      expect((await get(h, root.jar, 'admin')).status).toBe(200);
    });

    it('refuses to revoke a user who holds no grant', async () => {
      const user = await newUser(h);
      await expectRefused(await act(h, root, user.id, 'revoke-admin'), 'action', /not an admin by grant/);
    });

    it('refuses to revoke yourself', async () => {
      const admin = await newAdmin(h);
      await expectRefused(await act(h, admin, admin.id, 'revoke-admin'), 'action', /your own/);
      expect((await h.adapter.getAdminState(admin.id)).granted).toBe(true);
    });
  });

  describe('impersonate', () => {
    it('starts acting as a user with a reason, recorded with the admin', async () => {
      const admin = await newAdmin(h);
      const user = await newUser(h);
      const response = await act(h, admin, user.id, 'impersonate', { reason: 'Ticket 99: checkout fails' });
      expect(await response.json()).toMatchObject({ impersonating: { id: user.id, email: user.email } });
      expect(await sessionUserOf(h, admin.jar)).toBe(user.id);
      expect(await h.adapter.listAdminActions(user.id, 5)).toMatchObject([{ action: 'impersonated', actorId: admin.id, detail: 'Ticket 99: checkout fails' }]);
    });

    it('refuses to impersonate an admin (400), and the admin\'s session stays theirs', async () => {
      const admin = await newAdmin(h);
      const other = await newAdmin(h);
      await expectRefused(await act(h, admin, other.id, 'impersonate', { reason: 'Curious' }), 'action', /admin cannot be impersonated/);
      expect(await sessionUserOf(h, admin.jar)).toBe(admin.id);
      expect(await h.adapter.listAdminActions(other.id, 5)).toEqual([]);
    });

    it('refuses to impersonate yourself', async () => {
      const admin = await newAdmin(h);
      await expectRefused(await act(h, admin, admin.id, 'impersonate', { reason: 'Curious' }), 'action', /yourself/);
    });

    it('refuses to impersonate a disabled user', async () => {
      const user = await newUser(h);
      expect((await act(h, root, user.id, 'disable', { reason: 'Fraud' })).status).toBe(200);
      const admin = await newAdmin(h);
      await expectRefused(await act(h, admin, user.id, 'impersonate', { reason: 'Check the fraud' }), 'action', /disabled/);
      expect(await sessionUserOf(h, admin.jar)).toBe(admin.id);
    });

    it('refuses to impersonate without a reason (400 by the field)', async () => {
      const admin = await newAdmin(h);
      const user = await newUser(h);
      await expectRefused(await act(h, admin, user.id, 'impersonate', { reason: '' }), 'reason', /reason/);
      expect(await sessionUserOf(h, admin.jar)).toBe(admin.id);
    });
  });

  describe('delete', () => {
    it('deletes a user whose address is typed: their sessions, the user, a notice by mail, back to the list', async () => {
      const user = await newUser(h, { name: 'leaving' });
      await addPasskey(h, user.id);
      const response = await act(h, root, user.id, 'delete', { confirm: user.email }, false);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/admin?notice=deleted`);
      expect(await h.adapter.getUser(user.id)).toBeNull();
      expect(await h.adapter.getUserByEmail(user.email)).toBeNull();
      expect(await sessionUserOf(h, user.jar)).toBeNull();
      expect(await h.adapter.listAuthenticatorsByUserId(user.id)).toEqual([]);
      expect(h.events.filter((event) => event.userId === user.id && event.type === 'admin-deleted')).toMatchObject([{ actorId: root.id }]);
      await eventually(() => h.mails.admin.find((mail) => mail.to === user.email && mail.kind === 'deleted'));
    });

    it('refuses a wrong confirmation (400 by the field), and the user stays', async () => {
      const user = await newUser(h);
      await expectRefused(await act(h, root, user.id, 'delete', { confirm: user.email.toUpperCase().replace('@', ' at ') }), 'confirm', new RegExp(user.email.replace(/[.]/g, '\\.')));
      expect(await h.adapter.getUser(user.id)).not.toBeNull();
      expect(await sessionUserOf(h, user.jar)).toBe(user.id);
    });

    it('refuses to delete yourself', async () => {
      const admin = await newAdmin(h);
      await expectRefused(await act(h, admin, admin.id, 'delete', { confirm: admin.email }), 'confirm', /your own account/);
      expect(await h.adapter.getUser(admin.id)).not.toBeNull();
    });

    it('answers a feature\'s refusal of the deletion (400 by the field with its reason), and the user stays', async () => {
      const user = await newUser(h, { name: 'keeper' });
      await expectRefused(await act(h, root, user.id, 'delete', { confirm: user.email }), 'confirm', /only owner of the Acme workspace/);
      expect(await h.adapter.getUser(user.id)).not.toBeNull();
      expect(await h.adapter.listAdminActions(user.id, 5)).toEqual([]);
    });
  });

  describe('a refusal on the page', () => {
    it('shows the user\'s page again at 400 with the error beside the refused form\'s field', async () => {
      const user = await newUser(h);
      const response = await act(h, root, user.id, 'disable', { reason: '' }, false);
      expect(response.status).toBe(400);
      const page = await response.text();
      expect(page).toMatch(/<input id="admin-disable-reason"[^>]* aria-invalid="true" aria-describedby="admin-disable-hint admin-reason-error"/);
      expect(page).toMatch(/<p class="field-error" id="admin-reason-error">Give a reason/);
      expect(page).not.toMatch(/<input id="admin-impersonate-reason"[^>]* aria-invalid/);
    });

    it('shows a refusal that names no field at the top of the page', async () => {
      const admin = await newAdmin(h);
      const response = await act(h, admin, root.id, 'revoke-admin', {}, false);
      expect(response.status).toBe(400);
      expect(await response.text()).toMatch(/<div class="error" role="alert"><p>[^<]*AUTH_ADMINS/);
    });
  });

  describe('what no action does', () => {
    it('refuses a POST without its CSRF token (403), and changes nothing', async () => {
      const user = await newUser(h);
      const response = await post(h, root.jar, `admin/users/${user.id}`, { csrfToken: null, action: 'disable', reason: 'Forged' });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: 'MissingCSRF' });
      expect((await h.adapter.getAdminState(user.id)).disabledAt).toBeNull();
      expect(await sessionUserOf(h, user.jar)).toBe(user.id);
    });

    it('changes nothing on a GET, whatever its query asks', async () => {
      const user = await newUser(h);
      const response = await root.jar.fetch(`${h.url}/auth/admin/users/${user.id}?action=disable&reason=Forged&confirm=${encodeURIComponent(user.email)}`, { headers: { accept: 'application/json' } });
      expect(response.status).toBe(200);
      expect((await h.adapter.getAdminState(user.id)).disabledAt).toBeNull();
      expect(await h.adapter.listAdminActions(user.id, 5)).toEqual([]);
      expect(await sessionUserOf(h, user.jar)).toBe(user.id);
    });

    it('answers an unknown user 404 and an unknown action 400', async () => {
      expect((await act(h, root, crypto.randomUUID(), 'disable', { reason: 'Nobody' })).status).toBe(404);
      const user = await newUser(h);
      const unknown = await act(h, root, user.id, 'explode');
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toMatchObject({ error: 'InvalidRequest', message: expect.stringContaining('Unknown action') });
    });

    it('answers a POST to <mount>/admin itself 405', async () => {
      expect((await post(h, root.jar, 'admin', { action: 'disable' })).status).toBe(405);
    });
  });
});

describe.each(memoryAndSqlite)('the last admin with %s', (_name, makeAdapter) => {
  let h: Harness;
  beforeAll(async () => {
    // No configured admin: the grants are all the admins there are.
    h = await startHarness(await makeAdapter(), { admins: [] });
  });
  afterAll(() => h.close());

  it('refuses a revocation that would leave no admin: the other admin\'s revocation of this one landed first', async () => {
    const first = await newAdmin(h);
    const second = await newAdmin(h);
    const revoke = h.adapter.revokeAdmin.bind(h.adapter);
    // The second admin revokes the first between the first's check of who asks and its revocation, as a concurrent
    // request would: the storage's one statement then counts a single admin left, the second.
    h.adapter.revokeAdmin = async (userId, configured) => {
      h.adapter.revokeAdmin = revoke;
      expect(await revoke(first.id, configured)).toBe('done');
      return revoke(userId, configured);
    };
    await expectRefused(await act(h, first, second.id, 'revoke-admin'), 'action', /There must always be one admin/);
    expect((await h.adapter.getAdminState(second.id)).granted).toBe(true);
    expect(await h.adapter.countAdmins([])).toBe(1);
  });
});
