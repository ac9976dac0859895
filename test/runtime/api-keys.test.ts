// API keys (issue 37, SPEC §11): one guard for browsers and APIs. Each rule of §11 over HTTP against an Express app on
// 127.0.0.1, with the memory adapter and with SQLite (a temp file): the key's format and what is stored of it, the
// bearer request as its user (getSession, sessionLocals, requireAuth({ scopes })), RFC 6750 refusals for wrong, expired,
// revoked and malformed keys, the per-client limit, no cookie and no CSRF token for bearer requests, the account's
// management out of a key's reach, the page at <mount>/api-keys, last use once a minute, createApiKey() and the config
// checks.
import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import AuthJsPostgresAdapter from '@auth/pg-adapter';
import express, { type Request, urlencoded } from 'express';
import { Pool } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { resolveConfig, resolveConfigOnce } from '../../templates/runtime/config.js';
import { ApiKeys, createApiKey, type ApiKeysOptions, type CreatedApiKey } from '../../templates/runtime/features/api-keys/index.js';
import type { StoredApiKey } from '../../templates/runtime/features/api-keys/storage.js';
import { database } from '../../templates/runtime/features/database/index.js';
import { createRequireRecentAuth } from '../../templates/runtime/features/database/recent-auth.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import { TwoFactor } from '../../templates/runtime/features/two-factor/index.js';
import { FrameworkAuth, MissingAdapter, MissingAdapterMethods, createRequireAuth, createSessionLocals, getSession } from '../../templates/runtime/index.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Password from '../../templates/runtime/providers/password.js';
import { SECRET, recordingLogger, memoryAndSqlite, type MadeAdapter } from './helpers.js';

const PASSWORD = 'violet staple orbit lantern';
const KEY_SHAPE = /^fak_[A-Za-z0-9_-]{43}$/;
const DAY_MS = 24 * 60 * 60 * 1000;
const OIDC = { id: 'oidc', name: 'OIDC', type: 'oidc' as const, issuer: 'https://issuer.example', clientId: 'id', clientSecret: 'secret' };

interface Harness {
  url: string;
  app: RunningApp;
  adapter: Required<Adapter>;
  config: FrameworkAuthConfig;
  /** The SQLite adapter's folder (its file and WAL), absent for memory. */
  folder: string | undefined;
  errors: Error[];
  close(): Promise<void>;
}

const adapters = memoryAndSqlite;

/**
 * An app with the handler on /auth, sessionLocals, and routes guarded each way: /me (requireAuth), /whoami
 * (getSession), /locals (what sessionLocals stored), /api/read and /api/write (requireAuth({ scopes })), POST
 * /api/orders (requireAuth, no CSRF token), POST /billing (requireRecentAuth).
 */
async function startHarness(
  made: MadeAdapter,
  options: { apiKeys?: ApiKeysOptions; config?: Partial<FrameworkAuthConfig>; features?: boolean } = {},
): Promise<Harness> {
  const { errors, logger } = recordingLogger();
  const config: FrameworkAuthConfig = {
    secret: SECRET,
    trustHost: ['127.0.0.1'],
    adapter: made.adapter,
    providers: [Password({ sendMessage: () => {} })],
    features: options.features === false ? [] : [ApiKeys({ scopes: ['read', 'write'], maxKeysPerUser: 3, ...options.apiKeys }), TwoFactor()],
    logger,
    rateLimit: { credentialsPerClient: false, passwordEmailPerClient: false },
    ...options.config,
  };
  const app = express();
  // X-Forwarded-For names the client, so that each test counts its failures on its own address.
  app.set('trust proxy', true);
  app.use(urlencoded({ extended: true }));
  app.use('/auth/*splat', FrameworkAuth(config));
  app.use(createSessionLocals(config));
  const requireAuth = createRequireAuth(config);
  app.get('/me', requireAuth, (_req, res) => void res.json(res.locals['session']));
  app.get('/whoami', async (req, res) => void res.json(await getSession(req, config)));
  app.get('/locals', (_req, res) => void res.json(res.locals['session'] ?? null));
  app.get('/api/read', createRequireAuth(config, { scopes: ['read'] }), (_req, res) => void res.json({ read: true }));
  app.get('/api/write', createRequireAuth(config, { scopes: ['write'] }), (_req, res) => void res.json({ written: true }));
  app.post('/api/orders', requireAuth, (req, res) => {
    const session = res.locals['session'] as { user: { email: string } };
    res.status(201).json({ by: session.user.email, item: (req.body as Record<string, unknown>)['item'] });
  });
  app.post('/billing', createRequireRecentAuth(config), (_req, res) => void res.json({ changed: true }));
  const running = await listen(app);
  return {
    url: running.url,
    app: running,
    adapter: made.adapter as Required<Adapter>,
    config,
    folder: made.folder,
    errors,
    async close() {
      await running.close();
      if (made.folder) await rm(made.folder, { recursive: true, force: true });
    },
  };
}

let clients = 0;
/** A client address of its own (X-Forwarded-For): failures counted for one test do not reach another. */
function newClient(): string {
  clients += 1;
  return `10.${Math.floor(clients / 65_025) % 250}.${Math.floor(clients / 255) % 255}.${(clients % 255) + 1}`;
}

/** A request with `Authorization` (a header value, or `Bearer <key>`), from a client of its own unless given. */
async function withKey(h: Harness, path: string, authorization: string, init: RequestInit & { client?: string } = {}): Promise<Response> {
  const { client, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set('authorization', authorization);
  headers.set('x-forwarded-for', client ?? newClient());
  return fetch(`${h.url}${path}`, { redirect: 'manual', ...rest, headers });
}

const bearer = (key: string): string => `Bearer ${key}`;

let users = 0;
/** A confirmed user with a password, made through the adapter. */
async function newUser(h: Harness, name = 'user'): Promise<{ id: string; email: string }> {
  users += 1;
  const email = `${name}-${users}@example.test`;
  const created = await h.adapter.createUser({ id: crypto.randomUUID(), email, name, emailVerified: new Date() });
  await h.adapter.setPasswordHash(created.id, await hashPassword(PASSWORD));
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

/** POSTs a form to `<mount>/<path>` with the jar's CSRF token (unless `csrfToken` is given), as JSON client or browser. */
async function post(h: Harness, jar: CookieJar, path: string, fields: Record<string, string | readonly string[] | undefined>, json = true): Promise<Response> {
  const form = formBody({ csrfToken: await csrfOf(h, jar), ...fields });
  return jar.fetch(`${h.url}/auth/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: json ? 'application/json' : 'text/html' } });
}

async function createByPage(h: Harness, jar: CookieJar, fields: Record<string, string | readonly string[] | undefined> = {}): Promise<CreatedApiKey> {
  const response = await post(h, jar, 'api-keys', { action: 'create', name: 'CI deploys', ...fields });
  expect(response.status).toBe(201);
  return (await response.json()) as CreatedApiKey;
}

async function listByPage(h: Harness, jar: CookieJar): Promise<{ apiKeys: Record<string, unknown>[]; scopes: string[] }> {
  const response = await jar.fetch(`${h.url}/auth/api-keys`, { headers: { accept: 'application/json' } });
  expect(response.status).toBe(200);
  return (await response.json()) as { apiKeys: Record<string, unknown>[]; scopes: string[] };
}

/** A key made with createApiKey() for a new user. */
async function keyOf(h: Harness, fields: { scopes?: string[]; expiresInDays?: number; name?: string } = {}): Promise<{ user: { id: string; email: string }; created: CreatedApiKey }> {
  const user = await newUser(h);
  const created = await createApiKey(h.config, { userId: user.id, name: 'Script', ...fields });
  return { user, created };
}

function expectInvalidToken(response: Response): void {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  expect(response.headers.get('location')).toBeNull();
  expect(response.headers.getSetCookie()).toEqual([]);
}

afterEach(() => {
  vi.useRealTimers();
});

describe.each(adapters)('API keys with %s', (adapterName, makeAdapter) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(await makeAdapter());
  });
  afterAll(() => h.close());

  describe('the key', () => {
    it('is fak_ and 43 base64url characters (256 random bits), a new one each time', async () => {
      const { user, created } = await keyOf(h);
      const made = [created.key, (await createApiKey(h.config, { userId: user.id, name: 'b' })).key, (await createApiKey(h.config, { userId: user.id, name: 'c' })).key];
      for (const key of made) {
        expect(key).toMatch(KEY_SHAPE);
        expect(Buffer.from(key.slice('fak_'.length), 'base64url')).toHaveLength(32);
      }
      expect(new Set(made).size).toBe(made.length);
    });

    it('made for an organization, acts nowhere in an app without Organizations() (removed after the key was made): 401 invalid_token', async () => {
      const { created } = await keyOf(h);
      expect((await withKey(h, '/me', bearer(created.key))).status).toBe(200);
      const user = await newUser(h);
      const bound = await createApiKey(h.config, { userId: user.id, name: 'Acme only', organizationId: 'an-organization-id' });
      expect(bound.organizationId).toBe('an-organization-id');
      expectInvalidToken(await withKey(h, '/me', bearer(bound.key)));
      expect(await (await withKey(h, '/whoami', bearer(bound.key))).json()).toBeNull();
    });

    it('is stored only as its SHA-256 digest and a short start: what the adapter is given holds no key', async () => {
      const given: StoredApiKey[] = [];
      const original = h.adapter.createApiKey;
      h.adapter.createApiKey = (apiKey, maxPerUser) => {
        given.push(structuredClone(apiKey));
        return original.call(h.adapter, apiKey, maxPerUser);
      };
      let created: CreatedApiKey;
      try {
        ({ created } = await keyOf(h, { scopes: ['read'] }));
      } finally {
        h.adapter.createApiKey = original;
      }
      const [stored] = given;
      expect(stored!.digest).toBe(createHash('sha256').update(created.key).digest('hex'));
      expect(stored!.start).toBe(created.key.slice(0, 10));
      expect(stored!.start).toMatch(/^fak_.{6}$/);
      expect(JSON.stringify(stored)).not.toContain(created.key.slice(10));
      const found = await h.adapter.getApiKeyAndUser(stored!.digest);
      expect(JSON.stringify(found)).not.toContain(created.key.slice(10));
      expect(JSON.stringify(await h.adapter.listApiKeys(stored!.userId))).not.toContain(created.key.slice(10));
    });

    it.runIf(adapterName === 'SqliteAdapter')('is nowhere in the database file, where its digest is', async () => {
      const { created } = await keyOf(h);
      const digest = createHash('sha256').update(created.key).digest('hex');
      const folder = h.folder!;
      // The file and its write-ahead log (WAL mode): a row may be in either.
      const bytes = Buffer.concat(await Promise.all((await readdir(folder)).map((file) => readFile(join(folder, file)))));
      expect(bytes.includes(digest), 'the digest, so that the search would find a stored value').toBe(true);
      expect(bytes.includes(created.key)).toBe(false);
      expect(bytes.includes(created.key.slice(10))).toBe(false);
    });
  });

  describe('a request with Authorization: Bearer <key>', () => {
    it('is the key\'s user in getSession, with apiKey { id, scopes }', async () => {
      const { user, created } = await keyOf(h, { scopes: ['read'] });
      const response = await withKey(h, '/whoami', bearer(created.key));
      expect(response.status).toBe(200);
      const session = (await response.json()) as Record<string, unknown>;
      expect(session).toEqual({ user: expect.objectContaining({ id: user.id, name: 'user', email: user.email }), expires: created.expiresAt, apiKey: { id: created.id, scopes: ['read'] } });
    });

    it('passes requireAuth(), which stores the key\'s session in res.locals', async () => {
      const { user, created } = await keyOf(h);
      const response = await withKey(h, '/me', bearer(created.key), { headers: { accept: 'text/html' } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ user: { id: user.id, email: user.email }, apiKey: { id: created.id, scopes: [] } });
    });

    it('is the key\'s session in res.locals through sessionLocals', async () => {
      const { user, created } = await keyOf(h);
      const response = await withKey(h, '/locals', bearer(created.key));
      expect(await response.json()).toMatchObject({ user: { email: user.email }, apiKey: { id: created.id } });
    });

    it('passes requireAuth({ scopes }) with a key that holds them', async () => {
      const { created } = await keyOf(h, { scopes: ['read', 'write'] });
      expect((await withKey(h, '/api/read', bearer(created.key))).status).toBe(200);
      expect((await withKey(h, '/api/write', bearer(created.key))).status).toBe(200);
    });

    it('answers requireAuth({ scopes }) 403 insufficient_scope with WWW-Authenticate for a key without them, browsers too', async () => {
      const { created } = await keyOf(h, { scopes: ['read'] });
      const response = await withKey(h, '/api/write', bearer(created.key), { headers: { accept: 'text/html' } });
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="write"');
      expect(response.headers.get('location')).toBeNull();
      expect(await response.json()).toMatchObject({ error: 'insufficient_scope' });
      const none = await keyOf(h);
      expect((await withKey(h, '/api/read', bearer(none.created.key))).status).toBe(403);
    });

    it('is judged by the key alone: a wrong key with a good session cookie is refused', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const response = await jar.fetch(`${h.url}/me`, { headers: { authorization: bearer(`fak_${'A'.repeat(43)}`), 'x-forwarded-for': newClient() } });
      expectInvalidToken(response);
    });

    it('reads the scheme case-insensitively (RFC 7235 §2.1): bearer <key> is the key\'s user', async () => {
      const { user, created } = await keyOf(h);
      const response = await withKey(h, '/whoami', `bearer ${created.key}`);
      expect(await response.json()).toMatchObject({ user: { email: user.email } });
    });

    it('is refused when the stored digest is not the one looked up (an adapter that matches loosely)', async () => {
      const { created } = await keyOf(h);
      const other = await keyOf(h);
      const original = h.adapter.getApiKeyAndUser;
      // A lookup that ignores the digest it is given, as a case-insensitive or prefix match would.
      h.adapter.getApiKeyAndUser = () => original.call(h.adapter, createHash('sha256').update(created.key).digest('hex'));
      try {
        expectInvalidToken(await withKey(h, '/me', bearer(other.created.key)));
      } finally {
        h.adapter.getApiKeyAndUser = original;
      }
    });

    it('stops working when its user is deleted', async () => {
      const { user, created } = await keyOf(h);
      await h.adapter.deleteUser(user.id);
      expectInvalidToken(await withKey(h, '/me', bearer(created.key)));
    });
  });

  describe('a cookie session', () => {
    it('passes scoped guards: it is its user and holds every scope', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      expect((await jar.fetch(`${h.url}/api/read`)).status).toBe(200);
      expect((await jar.fetch(`${h.url}/api/write`)).status).toBe(200);
    });

    it('decides when the request carries Basic credentials: they are no bearer key', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const basic = `Basic ${Buffer.from('ada:secret').toString('base64')}`;
      const signedIn = await jar.fetch(`${h.url}/me`, { headers: { authorization: basic } });
      expect(signedIn.status).toBe(200);
      expect(await signedIn.json()).toMatchObject({ user: { email: user.email } });
      const anonymous = await withKey(h, '/me', basic, { headers: { accept: 'text/html' } });
      expect(anonymous.status).toBe(302);
      expect(anonymous.headers.get('www-authenticate')).toBeNull();
    });
  });

  describe('a wrong, expired, revoked or malformed key: 401 invalid_token, browsers too, never a redirect or a 5xx', () => {
    it('a well-formed key that was never issued', async () => {
      expectInvalidToken(await withKey(h, '/me', bearer(`fak_${'Q'.repeat(43)}`), { headers: { accept: 'text/html' } }));
    });

    it('an expired key', async () => {
      const { created } = await keyOf(h, { expiresInDays: 1 });
      expect((await withKey(h, '/me', bearer(created.key))).status).toBe(200);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.parse(created.expiresAt) + 1000);
      expectInvalidToken(await withKey(h, '/me', bearer(created.key), { headers: { accept: 'text/html' } }));
    });

    it('a revoked key, at once', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const created = await createByPage(h, jar);
      expect((await withKey(h, '/me', bearer(created.key))).status).toBe(200);
      const revoked = await post(h, jar, 'api-keys', { action: 'revoke', id: created.id });
      expect(await revoked.json()).toEqual({ revoked: true });
      expectInvalidToken(await withKey(h, '/me', bearer(created.key), { headers: { accept: 'text/html' } }));
    });

    it('answers getSession null and GET <mount>/session 401 for a wrong key', async () => {
      expect(await (await withKey(h, '/whoami', bearer(`fak_${'w'.repeat(43)}`))).json()).toBeNull();
      expectInvalidToken(await withKey(h, '/auth/session', bearer(`fak_${'w'.repeat(43)}`)));
    });

    const malformed: readonly [string, (key: string) => string][] = [
      ['Bearer alone', () => 'Bearer'],
      ['Bearer and spaces', () => 'Bearer      '],
      ['Bearer, a tab and spaces', () => 'Bearer \t  '],
      ['two tokens (the good key twice)', (key) => `Bearer ${key} ${key}`],
      ['a lower-case bearer with a wrong key', () => `bearer fak_${'z'.repeat(43)}`],
      ['non-ASCII characters', () => `Bearer fak_${'é'.repeat(43)}`],
      ['a 10 kB token', () => `Bearer ${'a'.repeat(10_240)}`],
      ['fak_ and 42 characters', (key) => `Bearer ${key.slice(0, -1)}`],
      ['fak_ and 44 characters', () => `Bearer fak_${'x'.repeat(44)}`],
      ['the good key and one more character', (key) => `Bearer ${key}A`],
      ['the good key in base64, not base64url', (key) => `Bearer ${key.replace(/[-_]/g, '+').replace(/^fak_(.)/, 'fak_/')}`],
      ['another prefix', (key) => `Bearer sk_${key.slice(4)}`],
      ['the good key without a scheme', (key) => key],
      ['the good key after another scheme', (key) => `Token ${key}`],
      ['the good key glued to Bearer', (key) => `Bearer${key}`],
      ['the good key after Bearer and a colon', (key) => `Bearer:${key}`],
    ];

    it.each(malformed)('malformed: %s', async (_case, header) => {
      const { created } = await keyOf(h);
      const response = await withKey(h, '/me', header(created.key), { headers: { accept: 'text/html' } });
      expectInvalidToken(response);
      expect(await response.json()).toMatchObject({ error: 'invalid_token' });
    });
  });

  describe('failures per client (apiKeyFailuresPerClient)', () => {
    it('answers the 31st failure of a client in five minutes 429 with Retry-After, another client 401', async () => {
      const client = newClient();
      const wrong = bearer(`fak_${'r'.repeat(43)}`);
      for (let attempt = 1; attempt <= 30; attempt += 1) expect((await withKey(h, '/me', wrong, { client })).status, `attempt ${attempt}`).toBe(401);
      const refused = await withKey(h, '/me', wrong, { client, headers: { accept: 'text/html' } });
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(300);
      expect(refused.headers.get('location')).toBeNull();
      expect(await refused.json()).toMatchObject({ error: 'too_many_requests' });
      expectInvalidToken(await withKey(h, '/me', wrong));
    });

    it('never counts a good key', async () => {
      const client = newClient();
      const { created } = await keyOf(h);
      for (let request = 0; request < 35; request += 1) expect((await withKey(h, '/me', bearer(created.key), { client })).status).toBe(200);
      const wrong = bearer(`fak_${'g'.repeat(43)}`);
      for (let attempt = 1; attempt <= 30; attempt += 1) expect((await withKey(h, '/me', wrong, { client })).status, `attempt ${attempt}`).toBe(401);
      expect((await withKey(h, '/me', wrong, { client })).status).toBe(429);
    });
  });

  describe('no cookie, no CSRF token', () => {
    it('sets no cookie on a bearer request: getSession, sessionLocals, requireAuth, GET <mount>/session, refusals', async () => {
      const { created } = await keyOf(h, { scopes: ['read'] });
      for (const path of ['/whoami', '/locals', '/me', '/api/read', '/api/write', '/auth/session', '/auth/api-keys']) {
        const response = await withKey(h, path, bearer(created.key));
        expect(response.status, path).toBeLessThan(500);
        expect(response.headers.getSetCookie(), path).toEqual([]);
      }
      expect((await withKey(h, '/me', bearer(`fak_${'c'.repeat(43)}`))).headers.getSetCookie()).toEqual([]);
    });

    it('lets a key POST to an app route guarded by requireAuth() without a CSRF token', async () => {
      const { user, created } = await keyOf(h);
      const response = await withKey(h, '/api/orders', bearer(created.key), { method: 'POST', ...formBody({ item: 'tea' }) });
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual({ by: user.email, item: 'tea' });
    });

    it('names the key\'s user at GET <mount>/session', async () => {
      const { user, created } = await keyOf(h, { scopes: ['write'] });
      const response = await withKey(h, '/auth/session', bearer(created.key));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ user: { id: user.id, email: user.email }, apiKey: { id: created.id, scopes: ['write'] } });
    });
  });

  describe('what manages the account is out of a key\'s reach (401/403, never 2xx)', () => {
    const routes: readonly [string, string, Record<string, string>?][] = [
      ['GET', '/auth/api-keys'],
      ['POST', '/auth/api-keys', { action: 'create', name: 'minted by a key' }],
      ['POST', '/auth/api-keys', { action: 'revoke' }],
      ['GET', '/auth/sessions'],
      ['POST', '/auth/sessions', { action: 'revoke-others' }],
      ['GET', '/auth/two-factor'],
      ['POST', '/auth/two-factor', { action: 'enroll' }],
      ['GET', '/auth/password'],
      ['POST', '/auth/password', { currentPassword: PASSWORD, newPassword: 'a brand new passphrase here' }],
      ['GET', '/auth/reauth'],
      ['POST', '/auth/reauth', { password: PASSWORD }],
      ['POST', '/auth/session', {}],
      ['POST', '/auth/signout', {}],
    ];

    it.each(routes)('%s %s', async (method, path, fields) => {
      // The key's user, signed in too: the request carries the session cookie and its CSRF token as well as the key.
      const { user, created } = await keyOf(h, { scopes: ['read', 'write'] });
      const jar = await signIn(h, user.email);
      const body = fields && formBody({ csrfToken: await csrfOf(h, jar), ...fields, ...(fields['action'] === 'revoke' && { id: created.id }) });
      const response = await jar.fetch(`${h.url}${path}`, {
        method,
        ...(body && { body: body.body }),
        headers: { ...body?.headers, authorization: bearer(created.key), accept: 'application/json', 'x-forwarded-for': newClient() },
      });
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');
      expect(response.headers.getSetCookie()).toEqual([]);
      // Nothing changed: the same one key, still working, and the session still there.
      expect((await listByPage(h, jar)).apiKeys.map((key) => key.id)).toEqual([created.id]);
      expect((await withKey(h, '/me', bearer(created.key))).status).toBe(200);
      expect(((await (await jar.fetch(`${h.url}/auth/session`)).json()) as { user?: { email?: string } } | null)?.user?.email).toBe(user.email);
    });

    it('answers a wrong key there 401 invalid_token', async () => {
      expectInvalidToken(await withKey(h, '/auth/api-keys', bearer(`fak_${'m'.repeat(43)}`)));
      expectInvalidToken(await withKey(h, '/auth/sessions', 'Bearer'));
    });

    it('refuses a key at a requireRecentAuth() route: 403 for a good key, 401 for a wrong one', async () => {
      const { created } = await keyOf(h, { scopes: ['read', 'write'] });
      const good = await withKey(h, '/billing', bearer(created.key), { method: 'POST', headers: { accept: 'text/html' } });
      expect(good.status).toBe(403);
      expect(good.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');
      expect(good.headers.get('location')).toBeNull();
      expectInvalidToken(await withKey(h, '/billing', bearer(`fak_${'b'.repeat(43)}`), { method: 'POST' }));
    });
  });

  describe('<mount>/api-keys', () => {
    it('lists the signed-in user\'s keys, never a key, and JSON clients get { apiKeys, scopes }', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const older = await createByPage(h, jar, { name: 'Older', scopes: 'read' });
      const newer = await createByPage(h, jar, { name: 'Newer <b>', scopes: ['read', 'write'], expiresInDays: '7' });
      await keyOf(h);
      const listed = await listByPage(h, jar);
      expect(listed.scopes).toEqual(['read', 'write']);
      expect(listed.apiKeys.map((key) => key.id).sort()).toEqual([older.id, newer.id].sort());
      expect(listed.apiKeys.find((key) => key.id === newer.id)).toEqual({
        id: newer.id,
        userId: user.id,
        name: 'Newer <b>',
        start: newer.key.slice(0, 10),
        scopes: ['read', 'write'],
        organizationId: null,
        createdAt: expect.any(String),
        lastUsedAt: null,
        expiresAt: newer.expiresAt,
      });
      expect(JSON.stringify(listed)).not.toContain(newer.key.slice(10));
      const page = await jar.fetch(`${h.url}/auth/api-keys`);
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toContain('no-store');
      const html = await page.text();
      expect(html).toContain('Newer &lt;b&gt;');
      expect(html).toContain(`${older.key.slice(0, 10)}…`);
      expect(html).not.toContain(older.key);
      expect(html).not.toContain(newer.key);
      expect(html).toContain('name="action" value="revoke"');
    });

    it('asks a visitor without a session to sign in: 401 JSON, or the sign-in page', async () => {
      const json = await fetch(`${h.url}/auth/api-keys`, { headers: { accept: 'application/json' } });
      expect(json.status).toBe(401);
      const page = await fetch(`${h.url}/auth/api-keys`, { redirect: 'manual' });
      expect(page.status).toBe(302);
      expect(page.headers.get('location')).toContain('/auth/signin?callbackUrl=');
    });

    it('refuses to create a key without the CSRF token', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const response = await jar.fetch(`${h.url}/auth/api-keys`, { method: 'POST', ...formBody({ action: 'create', name: 'No token' }), headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' } });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect((await listByPage(h, jar)).apiKeys).toEqual([]);
    });

    it('asks for a recent authentication to create a key: 401 reauthentication_required to JSON, a redirect to <mount>/reauth for a form', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 11 * 60 * 1000);
      const json = await post(h, jar, 'api-keys', { action: 'create', name: 'Late' });
      expect(json.status).toBe(401);
      expect(await json.json()).toMatchObject({ error: 'reauthentication_required', url: `${h.url}/auth/reauth?callbackUrl=${encodeURIComponent(`${h.url}/auth/api-keys`)}` });
      const form = await post(h, jar, 'api-keys', { action: 'create', name: 'Late' }, false);
      expect(form.status).toBe(302);
      expect(form.headers.get('location')).toContain('/auth/reauth?callbackUrl=');
      expect((await listByPage(h, jar)).apiKeys).toEqual([]);
      // Revoking needs no recent authentication: it only takes power away.
      const { created } = await keyOf(h);
      expect((await post(h, jar, 'api-keys', { action: 'revoke', id: created.id })).status).toBe(404);
    });

    const invalid: readonly [string, Record<string, string | string[]>, 'name' | 'scopes' | 'expiresInDays'][] = [
      ['no name', { name: '' }, 'name'],
      ['a name of spaces', { name: '   ' }, 'name'],
      ['a name of 101 characters', { name: 'n'.repeat(101) }, 'name'],
      ['an unknown scope', { name: 'ok', scopes: 'admin' }, 'scopes'],
      ['a known and an unknown scope', { name: 'ok', scopes: ['read', 'admin'] }, 'scopes'],
      ['0 days', { name: 'ok', expiresInDays: '0' }, 'expiresInDays'],
      ['366 days (over maxExpiresInDays)', { name: 'ok', expiresInDays: '366' }, 'expiresInDays'],
      ['1.5 days', { name: 'ok', expiresInDays: '1.5' }, 'expiresInDays'],
      ['days that are no number', { name: 'ok', expiresInDays: 'soon' }, 'expiresInDays'],
    ];

    it.each(invalid)('refuses %s: 400 with the error on its field', async (_case, fields, field) => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const json = await post(h, jar, 'api-keys', { action: 'create', ...fields });
      expect(json.status).toBe(400);
      const body = (await json.json()) as { error: string; errors: Record<string, string> };
      expect(body.error).toBe('InvalidRequest');
      expect(Object.keys(body.errors)).toEqual([field]);
      const page = await post(h, jar, 'api-keys', { action: 'create', ...fields }, false);
      expect(page.status).toBe(400);
      const html = await page.text();
      expect(html).toContain(body.errors[field]!.replace(/"/g, '&quot;'));
      expect(html).toContain('aria-describedby="key-');
      expect((await listByPage(h, jar)).apiKeys).toEqual([]);
    });

    it('refuses a key over maxKeysPerUser', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      for (const name of ['one', 'two', 'three']) await createByPage(h, jar, { name });
      const json = await post(h, jar, 'api-keys', { action: 'create', name: 'four' });
      expect(json.status).toBe(400);
      expect(await json.json()).toMatchObject({ error: 'InvalidRequest', errors: { form: expect.stringContaining('3 keys') } });
      const page = await post(h, jar, 'api-keys', { action: 'create', name: 'four' }, false);
      expect(page.status).toBe(400);
      expect(await page.text()).toContain('revoke one first');
      expect((await listByPage(h, jar)).apiKeys).toHaveLength(3);
    });

    it('answers a JSON client 201 { id, key, name, scopes, expiresAt }, expiring after the configured days', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const before = Date.now();
      const response = await post(h, jar, 'api-keys', { action: 'create', name: '  Deploys  ', scopes: ['write', 'read', 'write'] });
      expect(response.status).toBe(201);
      const created = (await response.json()) as CreatedApiKey;
      expect(Object.keys(created).sort()).toEqual(['expiresAt', 'id', 'key', 'name', 'organizationId', 'scopes']);
      expect(created).toMatchObject({ name: 'Deploys', scopes: ['write', 'read'], organizationId: null });
      expect(created.key).toMatch(KEY_SHAPE);
      const expiresAt = Date.parse(created.expiresAt);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 90 * DAY_MS);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS);
      expect(await (await withKey(h, '/whoami', bearer(created.key))).json()).toMatchObject({ user: { email: user.email }, apiKey: { id: created.id } });
    });

    it('shows a form\'s new key on the page this once; the list afterwards never shows it', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const response = await post(h, jar, 'api-keys', { action: 'create', name: 'Laptop', scopes: 'read', expiresInDays: '30' }, false);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toContain('no-store');
      expect(response.headers.get('content-security-policy')).toMatch(/script-src[^;]*'sha256-/);
      const html = await response.text();
      const key = /id="new-api-key"[^>]* value="(fak_[A-Za-z0-9_-]{43})"/.exec(html)?.[1];
      expect(key).toMatch(KEY_SHAPE);
      expect(html).toContain('shown only this once');
      expect(await (await withKey(h, '/api/read', bearer(key!))).json()).toEqual({ read: true });
      const later = await (await jar.fetch(`${h.url}/auth/api-keys`)).text();
      expect(later).toContain('Laptop');
      expect(later).not.toContain(key!);
      expect(later).not.toContain('new-api-key');
    });

    it('revokes a key from the form and redirects back to the page', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const created = await createByPage(h, jar);
      const response = await post(h, jar, 'api-keys', { action: 'revoke', id: created.id }, false);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/api-keys`);
      expect((await listByPage(h, jar)).apiKeys).toEqual([]);
      expectInvalidToken(await withKey(h, '/me', bearer(created.key)));
    });

    it('does nothing when asked to revoke another user\'s key', async () => {
      const { created } = await keyOf(h);
      const mallory = await newUser(h, 'mallory');
      const jar = await signIn(h, mallory.email);
      const json = await post(h, jar, 'api-keys', { action: 'revoke', id: created.id });
      expect(json.status).toBe(404);
      expect(await json.json()).toEqual({ revoked: false });
      expect((await post(h, jar, 'api-keys', { action: 'revoke', id: created.id }, false)).status).toBe(302);
      expect((await withKey(h, '/me', bearer(created.key))).status).toBe(200);
    });

    it('refuses an unknown action with 400', async () => {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const response = await post(h, jar, 'api-keys', { action: 'rotate' });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'InvalidRequest' });
    });
  });

  describe('last use', () => {
    it('is recorded at most once a minute', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const { user, created } = await keyOf(h);
      const lastUsed = async (): Promise<number | undefined> => (await h.adapter.listApiKeys(user.id))[0]?.lastUsedAt?.valueOf();
      expect(await lastUsed()).toBeUndefined();
      const first = Date.now();
      expect((await withKey(h, '/me', bearer(created.key))).status).toBe(200);
      expect(await lastUsed()).toBe(first);
      vi.setSystemTime(first + 30_000);
      expect((await withKey(h, '/me', bearer(created.key))).status).toBe(200);
      expect(await lastUsed()).toBe(first);
      vi.setSystemTime(first + 61_000);
      expect((await withKey(h, '/me', bearer(created.key))).status).toBe(200);
      expect(await lastUsed()).toBe(first + 61_000);
    });

    it('writes once for a burst of requests within the minute', async () => {
      const { created } = await keyOf(h);
      const touches: Date[] = [];
      const original = h.adapter.touchApiKey;
      h.adapter.touchApiKey = async (id, usedAt) => {
        touches.push(usedAt);
        await original.call(h.adapter, id, usedAt);
      };
      try {
        await withKey(h, '/me', bearer(created.key));
        for (let request = 0; request < 5; request += 1) expect((await withKey(h, '/me', bearer(created.key))).status).toBe(200);
      } finally {
        h.adapter.touchApiKey = original;
      }
      expect(touches).toHaveLength(1);
    });
  });

  describe('the lookup', () => {
    // The database failing is not the key being wrong: 503 with Retry-After on every guard, nothing counted against the
    // client, the error logged. A driver may fail at once (better-sqlite3 throws) or later (a rejected promise).
    it.each([
      ['throws', () => {
        throw new Error('database is locked');
      }],
      ['rejects', () => Promise.reject(new Error('database is locked'))],
    ])('that %s answers 503 temporarily_unavailable, and counts no failure', async (_how, failing) => {
      const { user, created } = await keyOf(h);
      const original = h.adapter.getApiKeyAndUser;
      const client = newClient();
      const logged = h.errors.length;
      h.adapter.getApiKeyAndUser = failing as typeof original;
      try {
        // More requests than apiKeyFailuresPerClient lets a client fail (30 in five minutes): none is counted.
        for (let request = 0; request < 31; request += 1) {
          const response = await withKey(h, '/me', bearer(created.key), { client, headers: { accept: 'application/json' } });
          expect(response.status).toBe(503);
          expect(response.headers.get('retry-after')).toBe('5');
          expect(await response.json()).toMatchObject({ error: 'temporarily_unavailable' });
        }
        expect(await (await withKey(h, '/whoami', bearer(created.key), { client })).json()).toBeNull();
        expect((await withKey(h, '/auth/session', bearer(created.key), { client })).status).toBe(503);
      } finally {
        h.adapter.getApiKeyAndUser = original;
      }
      const failures = h.errors.slice(logged).map((error) => ({ message: error.message, cause: (error.cause as { err?: Error } | undefined)?.err?.message }));
      expect(failures).toContainEqual({ message: 'adapter.getApiKeyAndUser() failed', cause: 'database is locked' });
      expect(await (await withKey(h, '/me', bearer(created.key), { client })).json()).toMatchObject({ user: { id: user.id } });
    });

    // better-sqlite3 answers at once: a key used within the minute (nothing to record), in an app with no feature's
    // beforeSignIn and no session callback, is judged in the request's own turn, with no promise.
    it.runIf(adapterName === 'SqliteAdapter')('answers at once on SQLite once the use is recorded, and with a promise while it is', async () => {
      const { user, created } = await keyOf(h);
      const options = resolveConfigOnce(h.config);
      const request = (): Request => ({ headers: { authorization: bearer(created.key) } }) as Request;
      expect(h.adapter.getApiKeyAndUser(createHash('sha256').update(created.key).digest('hex'))).not.toBeInstanceOf(Promise);
      const first = options.bearer!.resultOf(request(), options);
      expect(first).toBeInstanceOf(Promise);
      expect((await first)?.session?.user?.id).toBe(user.id);
      const next = options.bearer!.resultOf(request(), options);
      expect(next).not.toBeInstanceOf(Promise);
      expect(next).toMatchObject({ session: { user: { id: user.id }, apiKey: { scopes: [] } }, scopes: [] });
    });
  });

  describe('createApiKey()', () => {
    it('creates a key for a user that works at once', async () => {
      const { user, created } = await keyOf(h, { scopes: ['read'], expiresInDays: 30, name: 'Admin script' });
      expect(created).toMatchObject({ name: 'Admin script', scopes: ['read'] });
      expect(Date.parse(created.expiresAt) - Date.now()).toBeGreaterThan(29 * DAY_MS);
      expect(Date.parse(created.expiresAt) - Date.now()).toBeLessThanOrEqual(30 * DAY_MS);
      expect(await (await withKey(h, '/api/read', bearer(created.key))).json()).toEqual({ read: true });
      expect((await h.adapter.listApiKeys(user.id)).map((key) => key.id)).toEqual([created.id]);
    });

    const invalid: readonly [string, { name: string; scopes?: string[]; expiresInDays?: number }, RegExp][] = [
      ['an empty name', { name: '' }, /name of 1 to 100 characters/],
      ['an unknown scope', { name: 'ok', scopes: ['admin'] }, /Choose among these scopes: read, write/],
      ['0 days', { name: 'ok', expiresInDays: 0 }, /whole number of days from 1 to 365/],
      ['400 days', { name: 'ok', expiresInDays: 400 }, /whole number of days from 1 to 365/],
      ['2.5 days', { name: 'ok', expiresInDays: 2.5 }, /whole number of days/],
    ];

    it.each(invalid)('throws a TypeError for %s, naming the field', async (_case, fields, message) => {
      const user = await newUser(h);
      const refused = createApiKey(h.config, { userId: user.id, ...fields });
      await expect(refused).rejects.toThrow(TypeError);
      await expect(refused).rejects.toThrow(message);
      expect(await h.adapter.listApiKeys(user.id)).toEqual([]);
    });

    it('throws a TypeError when the user holds maxKeysPerUser keys', async () => {
      const user = await newUser(h);
      for (const name of ['one', 'two', 'three']) await createApiKey(h.config, { userId: user.id, name });
      await expect(createApiKey(h.config, { userId: user.id, name: 'four' })).rejects.toThrow(/holds 3 keys already \(maxKeysPerUser\)/);
    });

    it('counts only unexpired keys against maxKeysPerUser', async () => {
      const user = await newUser(h);
      vi.useFakeTimers({ toFake: ['Date'] });
      for (const name of ['one', 'two', 'three']) await createApiKey(h.config, { userId: user.id, name, expiresInDays: 1 });
      vi.setSystemTime(Date.now() + 2 * DAY_MS);
      expect((await createApiKey(h.config, { userId: user.id, name: 'four' })).key).toMatch(KEY_SHAPE);
    });
  });
});

describe('API keys: configuration', () => {
  it('applies the session callback to a key\'s session, and sets apiKey after it', async () => {
    const seen: unknown[] = [];
    const h = await startHarness(await adapters[0]![1](), {
      config: {
        callbacks: {
          session: ({ session, user }) => {
            seen.push(user?.id);
            return { ...session, user: { ...session.user, role: 'member' }, apiKey: { id: 'forged', scopes: ['admin'] } } as typeof session;
          },
        },
      },
    });
    try {
      const { user, created } = await keyOf(h, { scopes: ['read'] });
      const session = (await (await withKey(h, '/whoami', bearer(created.key))).json()) as Record<string, unknown>;
      expect(session).toMatchObject({ user: { id: user.id, email: user.email, role: 'member' }, apiKey: { id: created.id, scopes: ['read'] } });
      expect(seen).toEqual([user.id]);
      expect((await withKey(h, '/api/write', bearer(created.key))).status).toBe(403);
    } finally {
      await h.close();
    }
  });

  it('gives a JWT app\'s session callback the claims of the key\'s user: token.sub is its id', async () => {
    const h = await startHarness(await adapters[0]![1](), {
      config: {
        session: { strategy: 'jwt' },
        // The callback of Auth.js's guides for JWT sessions: the user's id from the token's subject.
        callbacks: { session: ({ session, token }) => ({ ...session, user: { ...session.user, id: token.sub } }) },
      },
    });
    try {
      const { user, created } = await keyOf(h);
      expect(await (await withKey(h, '/whoami', bearer(created.key))).json()).toMatchObject({ user: { id: user.id, email: user.email }, apiKey: { id: created.id } });
      // The same callback on a cookie session.
      const jar = await signIn(h, user.email);
      expect(await (await jar.fetch(`${h.url}/whoami`)).json()).toMatchObject({ user: { id: user.id, email: user.email } });
    } finally {
      await h.close();
    }
  });

  it('refuses a bad rateLimit.apiKeyFailuresPerClient at startup', () => {
    const config = { secret: SECRET, adapter: MemoryAdapter(), providers: [OIDC], features: [ApiKeys()] };
    expect(() => resolveConfig({ ...config, rateLimit: { apiKeyFailuresPerClient: { max: 0 } } }, {})).toThrow(/rateLimit\.apiKeyFailuresPerClient\.max must be a positive whole number/);
  });

  it('reads rateLimit.apiKeyFailuresPerClient: { max: 2 } answers the third failure 429', async () => {
    const h = await startHarness(await adapters[0]![1](), { config: { rateLimit: { credentialsPerClient: false, passwordEmailPerClient: false, apiKeyFailuresPerClient: { max: 2, window: 60 } } } });
    try {
      const client = newClient();
      const wrong = bearer(`fak_${'k'.repeat(43)}`);
      expect((await withKey(h, '/me', wrong, { client })).status).toBe(401);
      expect((await withKey(h, '/me', wrong, { client })).status).toBe(401);
      const refused = await withKey(h, '/me', wrong, { client });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    } finally {
      await h.close();
    }
  });

  it('ignores Authorization: Bearer without ApiKeys(): the cookie session decides', async () => {
    const h = await startHarness(await adapters[0]![1](), { features: false });
    try {
      const user = await newUser(h);
      const jar = await signIn(h, user.email);
      const response = await jar.fetch(`${h.url}/me`, { headers: { authorization: bearer(`fak_${'n'.repeat(43)}`) } });
      expect(await response.json()).toMatchObject({ user: { email: user.email } });
      expect(await (await withKey(h, '/whoami', bearer(`fak_${'n'.repeat(43)}`))).json()).toBeNull();
      expect((await withKey(h, '/auth/session', 'Bearer nonsense')).status).toBe(200);
      await expect(createApiKey(h.config, { userId: user.id, name: 'x' })).rejects.toThrow(/no ApiKeys\(\) in its `features`/);
    } finally {
      await h.close();
    }
  });

  const badOptions: readonly [string, ApiKeysOptions, RegExp][] = [
    ['a scope with a space', { scopes: ['read write'] }, /scopes/],
    ['a scope with a quote', { scopes: ['a"b'] }, /scopes/],
    ['an empty scope', { scopes: [''] }, /scopes/],
    ['scopes that are no list', { scopes: 'read' as unknown as string[] }, /scopes/],
    ['a scope that is no string', { scopes: [1] as unknown as string[] }, /scopes/],
    ['expiresInDays over the default maxExpiresInDays', { expiresInDays: 400 }, /at most maxExpiresInDays \(365\)/],
    ['expiresInDays over maxExpiresInDays', { expiresInDays: 31, maxExpiresInDays: 30 }, /at most maxExpiresInDays \(30\)/],
    ['expiresInDays of 1.5', { expiresInDays: 1.5 }, /expiresInDays.*whole number/],
    ['expiresInDays of 0', { expiresInDays: 0 }, /expiresInDays.*whole number/],
    ['maxExpiresInDays of 0', { maxExpiresInDays: 0 }, /maxExpiresInDays.*whole number/],
    ['maxExpiresInDays that is not a number', { maxExpiresInDays: Number.NaN }, /maxExpiresInDays.*whole number/],
    ['maxKeysPerUser of 0', { maxKeysPerUser: 0 }, /maxKeysPerUser.*whole number/],
    ['maxKeysPerUser of 2.5', { maxKeysPerUser: 2.5 }, /maxKeysPerUser.*whole number/],
  ];

  it.each(badOptions)('ApiKeys() throws a TypeError for %s', (_case, options, message) => {
    expect(() => ApiKeys(options)).toThrow(TypeError);
    expect(() => ApiKeys(options)).toThrow(message);
  });

  it('accepts a smaller maximum without a default: expiresInDays is then the maximum', async () => {
    const h = await startHarness(await adapters[0]![1](), { apiKeys: { maxExpiresInDays: 30 } });
    try {
      const { created } = await keyOf(h);
      expect(Date.parse(created.expiresAt) - Date.now()).toBeGreaterThan(29 * DAY_MS);
      expect(Date.parse(created.expiresAt) - Date.now()).toBeLessThanOrEqual(30 * DAY_MS);
    } finally {
      await h.close();
    }
  });

  it('refuses ApiKeys() without an adapter at startup', () => {
    expect(() => resolveConfig({ secret: SECRET, providers: [OIDC], features: [ApiKeys()] }, {})).toThrow(MissingAdapter);
  });

  it('refuses at startup an Auth.js adapter without the API-key methods (@auth/pg-adapter), naming them', async () => {
    // Never connected: the check runs when the config is resolved, before any query.
    const pool = new Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
    try {
      const adapter: Adapter = AuthJsPostgresAdapter(pool);
      // An Auth.js adapter carries no features: the app lists the database feature, as for any Auth.js adapter.
      const resolve = () => resolveConfig({ secret: SECRET, adapter, providers: [OIDC], features: [database, ApiKeys()] }, {});
      expect(resolve).toThrow(MissingAdapterMethods);
      expect(resolve).toThrow(/api-keys.*createApiKey, listApiKeys, getApiKeyAndUser, deleteApiKey, touchApiKey$/);
      // The same adapter without ApiKeys() starts.
      expect(() => resolveConfig({ secret: SECRET, adapter, providers: [OIDC], features: [database] }, {})).not.toThrow();
    } finally {
      await pool.end();
    }
  });
});
