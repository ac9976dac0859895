// Issue 37's acceptance path on real scaffolds: `--providers password --api-keys` with SQLite and with PostgreSQL,
// the config given `ApiKeys({ scopes: ['read', 'write'] })` and server.ts scoped routes as a user would, compiled and
// started twice on one database. Over HTTP: a key created as a JSON client, used on the guarded /me, through
// getSession and on `GET /auth/session`; scopes refused; a key kept out of the account's routes (minting a key
// included, CSRF token or not); revocation on one process refusing the key on the other at once; expiry and the
// per-user cap; malformed headers answered 401 and a client's 31st wrong key 429; the database searched for the keys
// (only their digests and starts may be there). In Chromium (on the SQLite app): the page creates a key, shows it once
// in a readonly input with a copy button, revokes it; axe-core finds nothing in either colour scheme; without
// JavaScript the key is there to copy by hand and no dead copy button shows.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, saveScreenshot, scanAccessibility, submitForm, violationsOf } from '../browser/helpers.js';
import { type CookieJar, createJar } from '../support/cookie-jar.js';
import type { RunningSmtpServer } from '../support/smtp-server.js';
import { type MailApp, csrfToken, signUpByMail, signedInWithPassword, startMailApp, storedText } from './helpers/mail-app.js';
import { removeTempDirs } from './helpers/project.js';
import type { RunningApp } from './helpers/project.js';

afterAll(removeTempDirs);

const PASSWORD = 'violet staple orbit lantern';
const KEY_SHAPE = /^fak_[A-Za-z0-9_-]{43}$/;

// The scopes keys may hold, as the scaffold writes them; and what this test writes into the scaffold, as its user
// would: routes that ask for them (GET answers getSession(req), so that the key's session is seen as the app's code sees it).
const scopedFeatures = "features: [ApiKeys({ scopes: ['read', 'write'] })],";
const scaffoldImport = "import { authHandler, requireAuth, sessionLocals } from './auth/index.js';";
const scopedImport = "import { authHandler, getSession, requireAuth, sessionLocals } from './auth/index.js';";
const routesBefore = 'const port = Number(process.env.PORT ?? 3000);';
const scopedRoutes = `app.get('/notes', requireAuth({ scopes: ['read'] }), async (req, res) => {
  res.json({ session: await getSession(req) });
});

app.post('/notes', requireAuth({ scopes: ['write'] }), (_req, res) => {
  res.status(201).json({ savedBy: res.locals.session?.user?.email ?? null });
});

`;

/** Replaces `from` (which must be there once) in the project's file. */
async function replaceIn(projectDir: string, file: string, from: string, to: string): Promise<void> {
  const path = join(projectDir, file);
  const text = await readFile(path, 'utf8');
  if (text.split(from).length !== 2) throw new Error(`${file} no longer has ${JSON.stringify(from)} once:\n${text}`);
  await writeFile(path, text.replace(from, to));
}

/** Creates a key on the open API-keys page (its name, and the scope to tick if any) and reads it from the page's input. */
async function createKeyOnPage(page: Page, name: string, scope?: string): Promise<string> {
  await page.getByLabel('Name', { exact: true }).fill(name);
  if (scope) await page.getByLabel(scope, { exact: true }).check();
  expect((await submitForm(page, 'Create API key', '/auth/api-keys')).status()).toBe(200);
  const key = await page.locator('#new-api-key').inputValue();
  expect(key).toMatch(KEY_SHAPE);
  return key;
}

async function addScopes(projectDir: string): Promise<void> {
  const config = await readFile(join(projectDir, 'src/auth/config.ts'), 'utf8');
  if (!config.includes(scopedFeatures)) throw new Error(`the scaffold's src/auth/config.ts has no ${JSON.stringify(scopedFeatures)}:\n${config}`);
  await replaceIn(projectDir, 'src/server.ts', scaffoldImport, scopedImport);
  await replaceIn(projectDir, 'src/server.ts', routesBefore, `${scopedRoutes}${routesBefore}`);
}

/** Signs up through the emailed link: a confirmed user with a password. */
const account = (app: RunningApp, smtp: RunningSmtpServer, email: string): Promise<void> => signUpByMail(app, smtp, email, PASSWORD);

/** A jar signed in (just now: a recent sign-in) as `email` on `app`. */
const signedIn = (app: RunningApp, email: string): Promise<CookieJar> => signedInWithPassword(app, email, PASSWORD);

interface CreatedKey {
  id: string;
  key: string;
  name: string;
  scopes: string[];
  expiresAt: string;
}

/** POST `<mount>/api-keys` as a JSON client (a JSON body with the jar's CSRF token, JSON asked for). */
async function postApiKeys(jar: CookieJar, app: RunningApp, fields: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  const body = JSON.stringify({ csrfToken: await csrfToken(jar, app), ...fields });
  return jar.fetch(`${app.url}/auth/api-keys`, { method: 'POST', body, headers: { 'content-type': 'application/json', accept: 'application/json', ...headers } });
}

async function createKey(jar: CookieJar, app: RunningApp, name: string, scopes: string[]): Promise<CreatedKey> {
  const response = await postApiKeys(jar, app, { action: 'create', name, scopes, expiresInDays: 30 });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as CreatedKey;
}

/** The keys `<mount>/api-keys` lists for the jar's user. */
async function listedKeys(jar: CookieJar, app: RunningApp): Promise<Record<string, unknown>[]> {
  const response = await jar.fetch(`${app.url}/auth/api-keys`, { headers: { accept: 'application/json' } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { apiKeys: Record<string, unknown>[] }).apiKeys;
}

/**
 * A request with `Authorization` and no cookie, redirects not followed. `client` is the address the app counts it
 * against: apps trust X-Forwarded-For from loopback (their default `trust proxy`), so the refusals of one test do not
 * use up another's allowance of 30 wrong keys per client.
 */
function withAuthorization(url: string, authorization: string, init: { method?: string; accept?: string; client?: string; body?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { authorization, accept: init.accept ?? 'application/json' };
  if (init.client) headers['x-forwarded-for'] = init.client;
  if (init.body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  return fetch(url, { method: init.method ?? 'GET', headers, body: init.body, redirect: 'manual' });
}

/** Expects RFC 6750's refusal: `status`, the challenge naming `error`, JSON, never a cookie. */
async function expectRefusal(response: Response, status: 401 | 403, error: 'invalid_token' | 'insufficient_scope'): Promise<void> {
  expect(response.status, `${response.url}: ${await response.clone().text()}`).toBe(status);
  expect(response.headers.get('www-authenticate')).toMatch(new RegExp(`^Bearer error="${error}"`));
  expect(response.headers.get('location')).toBeNull();
  expect(response.headers.getSetCookie()).toEqual([]);
  expect(((await response.json()) as { error: string }).error).toBe(error);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Runs one statement on the app's database beside the app (`?` parameters are rewritten to `$n` for PostgreSQL). */
async function runSql(mail: MailApp, sql: string, parameters: unknown[]): Promise<void> {
  if (!mail.postgres) {
    const database = new Database(join(mail.projectDir, 'data/auth.db'), { fileMustExist: true });
    try {
      database.prepare(sql).run(...parameters);
    } finally {
      database.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: mail.postgres.url });
  await client.connect();
  try {
    let index = 0;
    await client.query(sql.replace(/\?/g, () => `$${(index += 1)}`), parameters);
  } finally {
    await client.end();
  }
}

/** pg_dump of the Debian server package (the newest), or undefined. */
function pgDump(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin/pg_dump')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return version === undefined ? undefined : join(root, version, 'bin/pg_dump');
}

describe.each(['sqlite', 'postgres'] as const)('a scaffolded app with API keys on %s', (adapter) => {
  let mail: MailApp;
  let smtp: RunningSmtpServer;
  let first: RunningApp;
  let second: RunningApp;
  let ada: CookieJar;
  let hopper: CookieJar;
  // Ada's keys for the tests that need one: read only, and read and write.
  let readOnly: CreatedKey;
  let readWrite: CreatedKey;
  // Keys created by the tests, each one's only copy: the database and the logs must never hold one.
  const issued: string[] = [];

  beforeAll(async () => {
    // Two app processes on one database (a SQLite file is shared on one machine alike): a key revoked on one is
    // refused by the other.
    mail = await startMailApp(adapter, ['--providers', 'password', '--api-keys'], 2, addScopes);
    smtp = mail.smtp;
    [first, second] = mail.apps as [RunningApp, RunningApp];
    await account(first, smtp, 'ada@example.test');
    ada = await signedIn(first, 'ada@example.test');
    await account(first, smtp, 'hopper@example.test');
    hopper = await signedIn(first, 'hopper@example.test');
    readOnly = await createKey(ada, first, 'Read only', ['read']);
    readWrite = await createKey(ada, first, 'Read and write', ['read', 'write']);
    issued.push(readOnly.key, readWrite.key);
  }, 600_000);

  afterAll(() => mail?.stop());

  it('compiles with zero errors, with the scopes and the scoped routes added', () => {
    expect(mail.compile.output).toBe('');
    expect(mail.compile.exitCode).toBe(0);
  });

  it('creates a key for a JSON client, shown this once; the list gives its start, never the key', async () => {
    const created = await createKey(ada, first, 'CI deploys', ['read']);
    issued.push(created.key);
    expect(created).toEqual({ id: expect.any(String), key: expect.stringMatching(KEY_SHAPE), name: 'CI deploys', scopes: ['read'], organizationId: null, expiresAt: expect.any(String) });
    const days = (Date.parse(created.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    const listed = await listedKeys(ada, first);
    const entry = listed.find((key) => key['id'] === created.id);
    expect(entry).toEqual({
      id: created.id,
      userId: expect.any(String),
      name: 'CI deploys',
      start: created.key.slice(0, 10),
      scopes: ['read'],
      organizationId: null,
      createdAt: expect.any(String),
      lastUsedAt: null,
      expiresAt: created.expiresAt,
    });
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect(JSON.stringify(listed)).not.toContain(sha256(created.key));
  });

  it('refuses a JSON client\'s new key by its fields, naming each', async () => {
    const response = await postApiKeys(ada, first, { action: 'create', name: ' ', scopes: ['read', 'admin'], expiresInDays: 366 });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'InvalidRequest',
      errors: {
        name: 'Give the key a name of 1 to 100 characters, like "CI deploys".',
        scopes: 'Choose among these scopes: read, write.',
        expiresInDays: 'Enter a whole number of days from 1 to 365.',
      },
    });
  });

  it('refuses to create a key without the CSRF token, or without a session', async () => {
    const before = (await listedKeys(ada, first)).length;
    const noToken = await ada.fetch(`${first.url}/auth/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ action: 'create', name: 'No token' }),
    });
    expect(noToken.status).toBe(403);
    expect(await noToken.json()).toEqual({ error: 'MissingCSRF' });
    const signedOut = await postApiKeys(createJar(), first, { action: 'create', name: 'Nobody' });
    expect(signedOut.status).toBe(401);
    expect(await listedKeys(ada, first)).toHaveLength(before);
  });

  it('passes requireAuth() on /me as the key\'s user, with no cookie, and records the use', async () => {
    const { id, key } = await createKey(ada, first, 'Laptop script', []);
    issued.push(key);
    const me = await withAuthorization(`${first.url}/me`, `Bearer ${key}`);
    expect(me.status).toBe(200);
    expect(me.headers.getSetCookie()).toEqual([]);
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe('ada@example.test');
    // A browser asking for a page gets it as well: the key, not the Accept header, decides.
    expect((await withAuthorization(`${first.url}/me`, `Bearer ${key}`, { accept: 'text/html' })).status).toBe(200);
    const used = (await listedKeys(ada, first)).find((entry) => entry['id'] === id)!;
    expect(Math.abs(Date.parse(String(used['lastUsedAt'])) - Date.now())).toBeLessThan(60_000);
  });

  it('answers GET /auth/session with a key as its user and its key', async () => {
    const { id, key } = readWrite;
    const response = await withAuthorization(`${first.url}/auth/session`, `Bearer ${key}`);
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual([]);
    const session = (await response.json()) as { user: { email: string }; apiKey: { id: string; scopes: string[] } };
    expect(session.user.email).toBe('ada@example.test');
    expect(session.apiKey).toEqual({ id, scopes: ['read', 'write'] });
    // getSession(req) in the app's own route is the same session.
    const notes = await withAuthorization(`${first.url}/notes`, `Bearer ${key}`);
    expect(notes.status).toBe(200);
    expect(((await notes.json()) as { session: unknown }).session).toEqual(session);
  });

  it('refuses a key without the scope requireAuth({ scopes }) names: 403 insufficient_scope naming it', async () => {
    const { key } = readOnly;
    expect((await withAuthorization(`${first.url}/notes`, `Bearer ${key}`)).status).toBe(200);
    const refused = await withAuthorization(`${first.url}/notes`, `Bearer ${key}`, { method: 'POST', accept: 'text/html' });
    await expectRefusal(refused.clone(), 403, 'insufficient_scope');
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="write"');
  });

  it('passes a key holding the scope, and a cookie session (its user holds every scope)', async () => {
    const { key } = readWrite;
    const saved = await withAuthorization(`${first.url}/notes`, `Bearer ${key}`, { method: 'POST', body: 'text=hello' });
    expect(saved.status).toBe(201);
    expect(await saved.json()).toEqual({ savedBy: 'ada@example.test' });
    const byCookie = await ada.fetch(`${first.url}/notes`, { method: 'POST', headers: { accept: 'application/json' } });
    expect(byCookie.status).toBe(201);
  });

  it('refuses a key that tries to create a key, with a CSRF token and even beside the user\'s own session cookie', async () => {
    const { key } = readWrite;
    const before = (await listedKeys(ada, first)).length;
    // A client with the key only, which fetched a CSRF token of its own first.
    const stranger = createJar();
    const alone = await postApiKeys(stranger, first, { action: 'create', name: 'minted', scopes: ['write'] }, { authorization: `Bearer ${key}` });
    await expectRefusal(alone, 403, 'insufficient_scope');
    // The signed-in browser's cookie and token beside the key: a bearer request is judged by its key alone.
    const beside = await postApiKeys(ada, first, { action: 'create', name: 'minted', scopes: ['write'] }, { authorization: `Bearer ${key}` });
    await expectRefusal(beside, 403, 'insufficient_scope');
    const asForm = await withAuthorization(`${first.url}/auth/api-keys`, `Bearer ${key}`, {
      method: 'POST',
      accept: 'text/html',
      body: new URLSearchParams({ csrfToken: await csrfToken(stranger, first), action: 'create', name: 'minted' }).toString(),
    });
    await expectRefusal(asForm, 403, 'insufficient_scope');
    expect(await listedKeys(ada, first)).toHaveLength(before);
  });

  it('keeps a key out of every other route below the mount (403 insufficient_scope); GET /auth/session is its only one', async () => {
    const { key } = readWrite;
    const tries: [string, string][] = [
      ['GET', 'api-keys'],
      ['GET', 'sessions'],
      ['POST', 'sessions'],
      ['GET', 'password'],
      ['POST', 'password'],
      ['GET', 'csrf'],
      ['GET', 'signin'],
      ['POST', 'signout'],
      ['POST', 'session'],
    ];
    for (const [method, path] of tries) {
      const response = await withAuthorization(`${first.url}/auth/${path}`, `Bearer ${key}`, { method, accept: 'text/html', ...(method === 'POST' && { body: 'csrfToken=x' }) });
      await expectRefusal(response, 403, 'insufficient_scope');
    }
    expect((await withAuthorization(`${first.url}/auth/session`, `Bearer ${key}`)).status).toBe(200);
  });

  it('uses a key made on one process on the other; revoked on the first, the other refuses it at once', async () => {
    const created = await createKey(ada, first, 'Shared', ['read']);
    issued.push(created.key);
    expect((await withAuthorization(`${second.url}/me`, `Bearer ${created.key}`)).status).toBe(200);
    expect((await withAuthorization(`${second.url}/notes`, `Bearer ${created.key}`)).status).toBe(200);
    const revoked = await postApiKeys(ada, first, { action: 'revoke', id: created.id });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({ revoked: true });
    await expectRefusal(await withAuthorization(`${second.url}/me`, `Bearer ${created.key}`, { client: '198.51.100.1' }), 401, 'invalid_token');
    await expectRefusal(await withAuthorization(`${second.url}/auth/session`, `Bearer ${created.key}`, { client: '198.51.100.1' }), 401, 'invalid_token');
    await expectRefusal(await withAuthorization(`${first.url}/me`, `Bearer ${created.key}`, { client: '198.51.100.1', accept: 'text/html' }), 401, 'invalid_token');
    expect((await listedKeys(ada, first)).some((key) => key['id'] === created.id)).toBe(false);
    // Revoking it again finds nothing.
    expect((await postApiKeys(ada, first, { action: 'revoke', id: created.id })).status).toBe(404);
  });

  it('refuses a key whose expiry has passed, on both processes, and lists it still', async () => {
    const created = await createKey(ada, first, 'Expiring', ['read']);
    issued.push(created.key);
    expect((await withAuthorization(`${second.url}/me`, `Bearer ${created.key}`)).status).toBe(200);
    // As if its days had gone by: the row's expiry set to its creation, in the database's own representation.
    await runSql(mail, 'UPDATE api_keys SET expires_at = created_at WHERE id = ?', [created.id]);
    for (const app of [first, second]) {
      await expectRefusal(await withAuthorization(`${app.url}/me`, `Bearer ${created.key}`, { client: '198.51.100.3' }), 401, 'invalid_token');
      await expectRefusal(await withAuthorization(`${app.url}/auth/session`, `Bearer ${created.key}`, { client: '198.51.100.3' }), 401, 'invalid_token');
    }
    const listed = (await listedKeys(ada, first)).find((key) => key['id'] === created.id)!;
    expect(Date.parse(String(listed['expiresAt']))).toBeLessThan(Date.now());
    expect(await (await ada.fetch(`${first.url}/auth/api-keys`)).text()).toContain('(expired)');
  });

  it('refuses a user\'s 11th live key, naming the limit; a revoked or expired key frees its place', async () => {
    const keys: CreatedKey[] = [];
    for (let index = 1; index <= 10; index += 1) keys.push(await createKey(hopper, first, `Worker ${index}`, []));
    issued.push(...keys.map((created) => created.key));
    const refused = await postApiKeys(hopper, first, { action: 'create', name: 'Worker 11' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'InvalidRequest', errors: { form: expect.stringContaining('You have 10 keys, the most one account may hold') } });
    expect(await listedKeys(hopper, first)).toHaveLength(10);

    expect((await postApiKeys(hopper, first, { action: 'revoke', id: keys[0]!.id })).status).toBe(200);
    issued.push((await createKey(hopper, first, 'Worker 11', [])).key);
    expect((await postApiKeys(hopper, first, { action: 'create', name: 'Worker 12' })).status).toBe(400);
    await runSql(mail, 'UPDATE api_keys SET expires_at = created_at WHERE id = ?', [keys[1]!.id]);
    issued.push((await createKey(hopper, first, 'Worker 12', [])).key);
  });

  it('refuses to revoke another user\'s key (404), which keeps working', async () => {
    const refused = await postApiKeys(hopper, first, { action: 'revoke', id: readOnly.id });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ revoked: false });
    expect((await withAuthorization(`${second.url}/me`, `Bearer ${readOnly.key}`)).status).toBe(200);
  });

  it('answers every malformed or wrong Bearer header 401 invalid_token, to JSON clients and browsers alike, never a redirect or a 5xx', async () => {
    const { key } = readOnly;
    const body = key.slice(4);
    const wrong = `fak_${body.slice(0, -1)}${body.endsWith('A') ? 'B' : 'A'}`;
    const headers = [
      'Bearer',
      'Bearer fak_',
      `Bearer ${wrong}`,
      `bearer ${wrong}`,
      `BEARER ${wrong}`,
      `Bearer ${key.slice(0, -1)}`,
      `Bearer ${key}A`,
      `Bearer ${body}`,
      `Bearer FAK_${body}`,
      `Bearer fak-${body}`,
      `Bearer ${key} ${key}`,
      `Bearer ${key},${key}`,
      `Bearer "${key}"`,
      `Bearer Bearer ${key}`,
      `Bearer token=${key}`,
      `Bearer ${key.slice(0, -2)}==`,
      `Bearer fak_${'+/'.repeat(21)}+`,
      `Bearer fak_${'\u00e9'.repeat(43)}`,
      `Bearer fak_${'%41'.repeat(43)}`,
      `Bearer ${Buffer.from(key).toString('base64')}`,
      `Bearer ${'x'.repeat(8_000)}`,
      'Bearer null',
      'Bearer undefined',
      'Bearer {}',
      "Bearer ' OR '1'='1",
    ];
    for (const [index, authorization] of headers.entries()) {
      // Each header counts against a client of its own (30 wrong keys per client are allowed before 429).
      const client = `203.0.113.${index + 1}`;
      for (const path of ['/me', '/notes', '/auth/session', '/auth/api-keys']) {
        for (const accept of ['application/json', 'text/html,application/xhtml+xml,*/*;q=0.8']) {
          const response = await withAuthorization(`${first.url}${path}`, authorization, { accept, client });
          expect(response.status, `${path} with ${authorization.slice(0, 80)} (${accept})`).toBe(401);
          await expectRefusal(response, 401, 'invalid_token');
        }
      }
    }
  });

  it('answers a client\'s 31st wrong key in 5 minutes 429 with Retry-After; its good key still passes', async () => {
    const { key } = readOnly;
    const client = '192.0.2.77';
    // Failures are counted in the database: half on each process.
    for (let attempt = 0; attempt < 30; attempt += 1) {
      const app = attempt % 2 === 0 ? first : second;
      expect((await withAuthorization(`${app.url}/me`, `Bearer fak_${'Z'.repeat(42)}${attempt % 10}`, { client })).status).toBe(401);
    }
    const limited = await withAuthorization(`${second.url}/me`, `Bearer fak_${'Y'.repeat(43)}`, { client, accept: 'text/html' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('location')).toBeNull();
    expect((await withAuthorization(`${first.url}/me`, `Bearer ${key}`, { client })).status).toBe(200);
  });

  // The page is the same on both databases: Chromium drives the SQLite app.
  if (adapter === 'sqlite') {
    describe('in Chromium', () => {
      let browser: Browser;
      const contexts: (() => Promise<void>)[] = [];
      const keep = (close: () => Promise<void>): void => void contexts.push(close);

      beforeAll(async () => {
        browser = await launchChromium();
        for (const email of ['grace@example.test', 'linus@example.test']) await account(first, smtp, email);
      }, 120_000);

      afterAll(async () => {
        for (const close of contexts.splice(0)) await close();
        await browser?.close();
      });

      /** A tab signed in as `email` on the sign-in page's password form, on the API-keys page. */
      async function signedInTab(email: string, options: { javaScriptEnabled?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
        const tab = await openPage(browser, keep, options);
        const { page } = tab;
        await page.goto(`${first.url}/auth/signin?callbackUrl=%2Fauth%2Fapi-keys`);
        await page.getByLabel('Email', { exact: true }).fill(email);
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        expect((await submitForm(page, 'Sign in', '/auth/callback/password')).status()).toBe(302);
        await page.waitForURL(`${first.url}/auth/api-keys`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('API keys');
        return tab;
      }

      /** axe-core on the page as it is, in the light and then the dark scheme: no violation of any impact. */
      async function expectAccessible(page: Page, name: string): Promise<void> {
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme });
          expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), 'the colour scheme is emulated').toBe(colorScheme === 'dark');
          await saveScreenshot(page, `api-keys-${name}-${colorScheme}`);
          const results = await scanAccessibility(page);
          expect(results.passes.length, 'axe ran its checks').toBeGreaterThan(10);
          expect(violationsOf(results, ['critical', 'serious', 'moderate', 'minor']), `${name} in ${colorScheme}`).toEqual([]);
        }
      }

      it('creates a key on the page, shown once in a readonly, selectable input with a copy button, and revokes it with its button', async () => {
        const { context, page } = await signedInTab('grace@example.test');
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: first.url });
        const key = await createKeyOnPage(page, 'Deploy bot', 'write');
        issued.push(key);
        const input = page.locator('#new-api-key');
        expect(await input.getAttribute('readonly')).not.toBeNull();
        expect(await input.isEditable()).toBe(false);
        expect(await page.getByLabel('API key “Deploy bot”').inputValue()).toBe(key);
        // Selectable: focusing it selects the whole key, and CSS does not forbid selecting it.
        await input.focus();
        expect(await input.evaluate((element: HTMLInputElement) => [element.selectionStart, element.selectionEnd, getComputedStyle(element).userSelect])).toEqual([0, key.length, 'auto']);
        const copy = page.locator('#copy-api-key');
        expect(await page.getByRole('button', { name: 'Copy', exact: true }).isVisible()).toBe(true);
        await copy.click();
        await expect.poll(() => copy.textContent()).toBe('Copied');
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
        expect(await page.getByText('Copy your new key now: it is shown only this once.').isVisible()).toBe(true);

        const me = await withAuthorization(`${first.url}/me`, `Bearer ${key}`);
        expect(((await me.json()) as { user: { email: string } }).user.email).toBe('grace@example.test');
        const session = (await (await withAuthorization(`${first.url}/auth/session`, `Bearer ${key}`)).json()) as { apiKey: { scopes: string[] } };
        expect(session.apiKey.scopes).toEqual(['write']);

        // Shown once: the page opened again lists the key by its start only.
        await page.goto(`${first.url}/auth/api-keys`);
        expect(await page.locator('#new-api-key').count()).toBe(0);
        expect(await page.content()).not.toContain(key);
        expect(await page.locator('li', { hasText: 'Deploy bot' }).textContent()).toContain(`${key.slice(0, 10)}…`);

        const revoke = await submitForm(page, 'Revoke Deploy bot', '/auth/api-keys');
        expect(revoke.status()).toBe(302);
        expect(new URL(page.url()).pathname).toBe('/auth/api-keys');
        expect(await page.getByText('You have no API keys.').isVisible()).toBe(true);
        await expectRefusal(await withAuthorization(`${first.url}/me`, `Bearer ${key}`, { client: '198.51.100.2' }), 401, 'invalid_token');
      });

      it('has no axe-core violations in the light and the dark scheme: the list, a created key, a refused form', async () => {
        const { page } = await signedInTab('grace@example.test');
        issued.push(await createKeyOnPage(page, 'Nightly export', 'read'));
        await expectAccessible(page, 'created');

        await page.goto(`${first.url}/auth/api-keys`);
        expect(await page.getByRole('button', { name: 'Revoke Nightly export' }).count()).toBe(1);
        await expectAccessible(page, 'list');

        // A blank name passes the browser's `required` (spaces are text) but not the server; too many days too.
        await page.getByLabel('Name', { exact: true }).fill('   ');
        await page.getByLabel('Expires in (days)').fill('999');
        await page.locator('form:has(#key-name)').evaluate((form: HTMLFormElement) => {
          form.noValidate = true;
        });
        expect((await submitForm(page, 'Create API key', '/auth/api-keys')).status()).toBe(400);
        for (const [label, id] of [['Name', 'key-name'], ['Expires in (days)', 'key-days']] as const) {
          const field = page.getByLabel(label, { exact: true });
          expect(await field.getAttribute('aria-invalid')).toBe('true');
          // The error describes its field, after the hint the field has (the expiry's maximum).
          expect((await field.getAttribute('aria-describedby'))?.split(' ').at(-1)).toBe(`${id}-error`);
          expect(await page.locator(`#${id}-error`).isVisible()).toBe(true);
        }
        expect(await page.getByLabel('Expires in (days)').getAttribute('aria-describedby')).toBe('key-days-hint key-days-error');
        expect(await page.getByLabel('Expires in (days)').inputValue()).toBe('999');
        await expectAccessible(page, 'refused');
      });

      it('shows the key without JavaScript in the readonly input, and no copy button', async () => {
        const { page } = await signedInTab('linus@example.test', { javaScriptEnabled: false });
        const key = await createKeyOnPage(page, 'No-script key');
        issued.push(key);
        const input = page.locator('#new-api-key');
        expect(await input.getAttribute('readonly')).not.toBeNull();
        expect(await input.isVisible()).toBe(true);
        // The layout's `button{display:flex}` once outranked the button's `hidden` attribute: a dead button showed.
        expect(await page.locator('#copy-api-key').isVisible()).toBe(false);
        expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(0);
        expect((await withAuthorization(`${first.url}/me`, `Bearer ${key}`)).status).toBe(200);
      });
    });
  }

  // Last, to search for every key the tests above made, on the page too.
  it('stores no key, only its SHA-256 digest and its first 10 characters; no log line holds one', async () => {
    const { key } = await createKey(ada, first, 'At rest', ['read']);
    issued.push(key);
    // A use, so that last_used_at is written too.
    expect((await withAuthorization(`${first.url}/me`, `Bearer ${key}`)).status).toBe(200);
    let stored = await storedText(mail);
    if (mail.postgres) {
      const client = new pg.Client({ connectionString: mail.postgres.url });
      await client.connect();
      try {
        const columns = (
          await client.query<{ column_name: string }>(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'api_keys' AND data_type IN ('text', 'character varying') ORDER BY column_name",
          )
        ).rows.map((row) => row.column_name);
        expect(columns).toEqual(['digest', 'id', 'name', 'organization_id', 'scopes', 'start', 'user_id']);
        const rows = (await client.query<Record<string, string>>(`SELECT ${columns.map((column) => `"${column}"`).join(', ')} FROM api_keys`)).rows;
        const row = rows.find((candidate) => candidate['digest'] === sha256(key));
        expect(row?.['start']).toBe(key.slice(0, 10));
        stored += JSON.stringify(rows);
      } finally {
        await client.end();
      }
      const dump = pgDump();
      if (dump) stored += (await promisify(execFile)(dump, ['--dbname', mail.postgres.url, '--no-owner'], { maxBuffer: 64 * 1024 * 1024 })).stdout;
    }
    expect(stored).toContain(sha256(key));
    expect(stored).toContain(key.slice(0, 10));
    const logs = mail.apps.map((app) => app.output()).join('\n');
    for (const secret of issued) {
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.slice(4));
      expect(stored).not.toContain(secret.slice(10, 30));
      expect(logs).not.toContain(secret.slice(4));
    }
  });
});
