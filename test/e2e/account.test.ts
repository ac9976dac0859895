// Issue 38's acceptance path on real scaffolds: `--providers password --account` with SQLite and with PostgreSQL,
// compiled and started twice on one database, mail through a real SMTP server on loopback. Over HTTP, as a user
// would: sign up through the emailed link; open <mount>/account; change the address (the link goes to the new address,
// a notice without one to the old; opening the link changes nothing, its form's POST does, once; the session on the
// other process ends); export what is stored (a JSON download without a hash, token or secret); delete the account
// (every session on both processes ends, the address is told, and no table, dump or database file holds the address
// afterwards). Each sensitive route is refused once the sign-in is older than `reauthMaxAge` (the session's
// authentication moved back in the database, as a clock would), and works again after <mount>/reauth. In Chromium (on
// the SQLite app): axe-core on the account page, a refused form and the page the confirmation link opens, in the
// light and the dark scheme.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, saveScreenshot, scanAccessibility, submitForm, violationsOf } from '../browser/helpers.js';
import { type CookieJar, createJar, formBody } from '../support/cookie-jar.js';
import { findForm } from '../support/html-form.js';
import type { RunningSmtpServer } from '../support/smtp-server.js';
import { type MailApp, messageTo, postForm, sessionEmail, shareCookies, signUpByMail, signedInWithPassword, startMailApp, storedText } from './helpers/mail-app.js';
import { removeTempDirs } from './helpers/project.js';
import type { RunningApp } from './helpers/project.js';

afterAll(removeTempDirs);

const PASSWORD = 'violet staple orbit lantern';
/** Older than the default `session.reauthMaxAge` (10 minutes). */
const ELEVEN_MINUTES = 11 * 60 * 1000;

/** Signs up through the emailed link: a confirmed user with a password. */
const signUp = (app: RunningApp, smtp: RunningSmtpServer, email: string): Promise<void> => signUpByMail(app, smtp, email, PASSWORD);

/** A jar signed in (just now: a recent sign-in) as `email` on `app`. */
const signedIn = (app: RunningApp, email: string): Promise<CookieJar> => signedInWithPassword(app, email, PASSWORD);

/** GET `<mount>/<path>` as a JSON client. */
function getJson(jar: CookieJar, app: RunningApp, path: string): Promise<Response> {
  return jar.fetch(`${app.url}/auth/${path}`, { headers: { accept: 'application/json' } });
}

/** Runs one query on the app's database beside the app (`?` parameters become `$n` for PostgreSQL); its rows. */
async function query(mail: MailApp, sql: string, parameters: unknown[] = []): Promise<Record<string, unknown>[]> {
  if (!mail.postgres) {
    const database = new Database(join(mail.projectDir, 'data/auth.db'), { fileMustExist: true });
    try {
      const statement = database.prepare(sql);
      return statement.reader ? (statement.all(...parameters) as Record<string, unknown>[]) : (statement.run(...parameters), []);
    } finally {
      database.close();
    }
  }
  const client = new pg.Client({ connectionString: mail.postgres.url });
  await client.connect();
  try {
    let index = 0;
    return (await client.query(sql.replace(/\?/g, () => `$${(index += 1)}`), parameters)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

async function userIdOf(mail: MailApp, email: string): Promise<string> {
  const rows = await query(mail, 'SELECT id FROM users WHERE email = ?', [email]);
  expect(rows, `the user ${email}`).toHaveLength(1);
  return String(rows[0]!['id']);
}

/**
 * As if the jar's sign-in had happened `ms` ago: the authentication time its session token carries (and the row's
 * `created_at`) moved back, in the database and in the jar's cookie on each app. The session stays valid; only its
 * authentication is no longer recent.
 */
async function ageSignIn(mail: MailApp, jar: CookieJar, apps: readonly RunningApp[], ms: number): Promise<void> {
  const at = Date.now() - ms;
  const token = jar.get('authjs.session-token', apps[0]!.url)!;
  const aged = token.replace(/~t\d+$/, `~t${Math.floor(at / 1000)}`);
  expect(aged).not.toBe(token);
  await query(mail, 'UPDATE sessions SET session_token = ?, created_at = ? WHERE session_token = ?', [aged, mail.postgres ? new Date(at) : at, token]);
  for (const app of apps) jar.set(app.url, `authjs.session-token=${aged}; Path=/; HttpOnly`);
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

/**
 * Where each trace is in what the database stores, with the characters around it: each SQLite file's bytes (the
 * database, its WAL and shared memory), or every PostgreSQL table's rows and a pg_dump.
 */
async function tracesIn(mail: MailApp, traces: readonly string[]): Promise<string[]> {
  const sources: [string, string][] = [];
  if (!mail.postgres) {
    const dataDir = join(mail.projectDir, 'data');
    for (const file of await readdir(dataDir)) sources.push([file, (await readFile(join(dataDir, file))).toString('latin1')]);
  } else {
    sources.push(['tables', await storedText(mail)]);
    const dump = pgDump();
    if (dump) sources.push(['pg_dump', (await promisify(execFile)(dump, ['--dbname', mail.postgres.url, '--no-owner'], { maxBuffer: 64 * 1024 * 1024 })).stdout]);
  }
  const found: string[] = [];
  for (const [source, text] of sources) {
    for (const trace of traces) {
      for (let at = text.indexOf(trace); at !== -1; at = text.indexOf(trace, at + 1)) {
        found.push(`${trace} in ${source} at ${at}: ${text.slice(Math.max(0, at - 60), at + trace.length + 60).replace(/[^\x20-\x7e]/g, '.')}`);
      }
    }
  }
  return found;
}

/** Every key of a JSON value, nested ones included. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
}

/** Expects the answer that sends a browser to re-authenticate and come back to `<mount>/<back>`. */
function expectReauthRedirect(response: Response, app: RunningApp, back: string): void {
  expect(response.status, `${response.url} should ask for a re-authentication`).toBe(302);
  const location = new URL(response.headers.get('location') ?? '', app.url);
  expect(location.pathname).toBe('/auth/reauth');
  expect(new URL(location.searchParams.get('callbackUrl') ?? '', app.url).pathname).toBe(`/auth/${back}`);
}

describe.each(['sqlite', 'postgres'] as const)('a scaffolded app with the account on %s', (adapter) => {
  let mail: MailApp;
  let smtp: RunningSmtpServer;
  let first: RunningApp;
  let second: RunningApp;

  beforeAll(async () => {
    // Two app processes on one database: what one process ends, the other must see ended.
    mail = await startMailApp(adapter, ['--providers', 'password', '--account'], 2);
    smtp = mail.smtp;
    [first, second] = mail.apps as [RunningApp, RunningApp];
    for (const email of ['ada@example.test', 'grace@example.test', 'linus@example.test', 'erin@example.test', 'mallory@example.test']) await signUp(first, smtp, email);
  }, 600_000);

  afterAll(() => mail?.stop());

  it('compiles with zero errors', () => {
    expect(mail.compile.output).toBe('');
    expect(mail.compile.exitCode).toBe(0);
  });

  it('sends a visitor without a session to the sign-in page, coming back to the account; a JSON client gets 401', async () => {
    const visitor = createJar();
    const page = await visitor.fetch(`${first.url}/auth/account`);
    expect(page.status).toBe(302);
    const location = new URL(page.headers.get('location')!, first.url);
    expect(location.pathname).toBe('/auth/signin');
    expect(new URL(location.searchParams.get('callbackUrl')!, first.url).pathname).toBe('/auth/account');
    expect((await getJson(visitor, first, 'account')).status).toBe(401);
  });

  it('shows a signed-in user their account: the address, the password, the sign-in just made, and the forms', async () => {
    const grace = shareCookies(await signedIn(first, 'grace@example.test'), first, second);
    // The starter server's home page links it for a signed-in user.
    expect(await (await grace.fetch(`${first.url}/`)).text()).toContain("<a href='/auth/account'>Your account</a>");
    const response = await grace.fetch(`${second.url}/auth/account`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toContain('no-store');
    const page = await response.text();
    expect(page).toContain('<h1>Your account</h1>');
    expect(page).toContain('grace@example.test');
    expect(page).toContain('Password: set');
    expect(page).toContain('Signed in');
    expect(page).toContain(`href="/auth/account/export"`);
    for (const action of ['/auth/account/email', '/auth/account/delete']) expect(page).toContain(`action="${action}"`);

    const json = (await (await getJson(grace, second, 'account')).json()) as { user: { email: string }; events: { type: string }[]; emailChange: { offered: boolean } };
    expect(json.user.email).toBe('grace@example.test');
    expect(json.emailChange).toEqual({ offered: true });
    expect(json.events.map((event) => event.type)).toContain('sign-in');
  });

  it('changes the address: a link to the new one, a notice to the old; the link\'s GET changes nothing, its POST does, and the other process\'s session ends', async () => {
    const here = await signedIn(first, 'ada@example.test');
    // Another browser, on the other process (and, with the same cookie, on this one).
    const elsewhere = shareCookies(await signedIn(second, 'ada@example.test'), second, first);
    const count = smtp.messages.length;
    const asked = await postForm(here, first, 'account/email', { newEmail: 'ada.lovelace@example.test' });
    expect(asked.status).toBe(302);
    expect(new URL(asked.headers.get('location')!, first.url).search).toBe('?notice=email-sent');

    const toNew = await messageTo(smtp, count, 'ada.lovelace@example.test', /^Confirm the new email address of an account/);
    const link = /https?:\/\/\S+\/auth\/account\/email\/confirm\?token=\S+/.exec(toNew.text ?? '')?.[0];
    expect(link, toNew.text).toBeDefined();
    expect(new URL(link!).origin).toBe(new URL(first.url).origin);
    const toOld = await messageTo(smtp, count, 'ada@example.test', /is being changed/);
    expect(toOld.text).toContain('ada.lovelace@example.test');
    // The old address is told, and given nothing that changes or signs in.
    expect(toOld.text).not.toMatch(/token=|\/callback\//);
    expect(toOld.html ?? '').not.toMatch(/token=|\/callback\//);

    // The message names the account that would move, its address masked.
    expect(toNew.text).toContain('a•••@example.test');
    expect(toNew.text).not.toContain('ada@example.test');
    // Opening the link (a mail scanner does) changes nothing, however often, and a stranger gets no button.
    for (let opened = 0; opened < 2; opened += 1) {
      const page = await createJar().fetch(link!);
      expect(page.status).toBe(200);
      const text = await page.text();
      expect(text).toContain('a•••@example.test');
      expect(text).toContain('Only that account can confirm the change');
    }
    expect(await sessionEmail(here, first)).toBe('ada@example.test');
    expect(await sessionEmail(elsewhere, second)).toBe('ada@example.test');
    expect(await query(mail, 'SELECT id FROM users WHERE email = ?', ['ada.lovelace@example.test'])).toEqual([]);

    // A stranger's click proves nothing: asked to sign in (401 to a JSON client), and nothing changes.
    const token = new URL(link!).searchParams.get('token')!;
    const strangers = await postForm(createJar(), first, 'account/email/confirm', { token }, true);
    expect(strangers.status).toBe(401);
    expect(await query(mail, 'SELECT id FROM users WHERE email = ?', ['ada.lovelace@example.test'])).toEqual([]);

    // The page's form, sent from the browser that asked for the change.
    const opened = await here.fetch(link!);
    const form = findForm(await opened.text(), link!, 'token')!;
    const confirmed = await here.fetch(form.action, { method: 'POST', ...formBody(form.fields) });
    expect(confirmed.status).toBe(302);
    expect(new URL(confirmed.headers.get('location')!, first.url).search).toBe('?notice=email-changed');
    expect(await sessionEmail(here, first)).toBe('ada.lovelace@example.test');
    // The session on the other process is gone: its row was deleted, not only this process's cache.
    expect(await sessionEmail(elsewhere, second)).toBeNull();
    expect(await sessionEmail(elsewhere, first)).toBeNull();

    // The new address signs in, the old one no longer does.
    await signedIn(second, 'ada.lovelace@example.test');
    const old = createJar();
    await postForm(old, second, 'callback/password', { email: 'ada@example.test', password: PASSWORD });
    expect(await sessionEmail(old, second)).toBeNull();
    const events = (await (await getJson(here, first, 'account')).json()) as { events: { type: string }[] };
    expect(events.events.map((event) => event.type)).toContain('email-changed');

    // The link works once.
    const reused = await here.fetch(link!);
    expect(reused.status).toBe(400);
    expect(await reused.text()).toContain('This link is not valid');
  });

  it('refuses a confirmation POST without the CSRF token, and a change to a malformed or the same address', async () => {
    const linus = await signedIn(first, 'linus@example.test');
    const form = formBody({ newEmail: 'linus.t@example.test' });
    const noToken = await linus.fetch(`${first.url}/auth/account/email`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: 'application/json' } });
    expect(noToken.status).toBe(403);
    for (const newEmail of ['not an address', 'linus@example.test']) {
      const refused = await postForm(linus, first, 'account/email', { newEmail }, true);
      expect(refused.status, newEmail).toBe(400);
      expect(((await refused.json()) as { errors: Record<string, string> }).errors).toHaveProperty('newEmail');
    }
    expect(await sessionEmail(linus, first)).toBe('linus@example.test');
  });

  it('exports what is stored about the user as a JSON download, with no hash, token or secret in it', async () => {
    const grace = shareCookies(await signedIn(first, 'grace@example.test'), first, second);
    await signedIn(second, 'grace@example.test');
    const response = await grace.fetch(`${second.url}/auth/account/export`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="account-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(response.headers.get('cache-control')).toContain('no-store');
    const text = await response.text();
    const exported = JSON.parse(text) as { user: { email: string }; sessions: unknown[]; securityEvents: { type: string }[] };
    expect(exported.user.email).toBe('grace@example.test');
    expect(exported.sessions.length).toBeGreaterThanOrEqual(2);
    expect(exported.securityEvents.map((event) => event.type)).toContain('sign-in');

    expect(keysOf(exported).filter((key) => /hash|token|secret|digest|salt|credentialPublicKey|counter/i.test(key))).toEqual([]);
    const userId = await userIdOf(mail, 'grace@example.test');
    const secrets = [
      ...(await query(mail, 'SELECT session_token FROM sessions WHERE user_id = ?', [userId])).map((row) => String(row['session_token'])),
      ...(await query(mail, 'SELECT hash FROM passwords WHERE user_id = ?', [userId])).map((row) => String(row['hash'])),
    ].filter((value) => value.length >= 16);
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    for (const secret of secrets) expect(text).not.toContain(secret);
    for (const cookie of grace.all()) if (cookie.value.length >= 16) expect(text).not.toContain(cookie.value);
  });

  describe('past reauthMaxAge', () => {
    let mallory: CookieJar;
    let userId: string;

    beforeAll(async () => {
      mallory = shareCookies(await signedIn(first, 'mallory@example.test'), first, second);
      userId = await userIdOf(mail, 'mallory@example.test');
      await ageSignIn(mail, mallory, [first, second], ELEVEN_MINUTES);
    });

    it('still shows the account page itself', async () => {
      expect((await mallory.fetch(`${second.url}/auth/account`)).status).toBe(200);
    });

    it.each([
      ['POST', 'account/email', { newEmail: 'mallory.new@example.test' }],
      ['POST', 'account/unlink', { provider: 'password' }],
      ['POST', 'account/passkeys/remove', { id: 'any' }],
      ['POST', 'account/delete', { confirm: 'yes' }],
      ['GET', 'account/export', {}],
    ] as const)('refuses %s /auth/%s: a browser is sent to /auth/reauth, a JSON client gets 401 reauthentication_required', async (method, path, fields) => {
      const count = smtp.messages.length;
      for (const app of [first, second]) {
        const browser = method === 'GET' ? await mallory.fetch(`${app.url}/auth/${path}`) : await postForm(mallory, app, path, fields);
        expectReauthRedirect(browser, app, path === 'account/export' ? 'account/export' : 'account');
        const json = method === 'GET' ? await getJson(mallory, app, path) : await postForm(mallory, app, path, fields, true);
        expect(json.status).toBe(401);
        expect(((await json.json()) as { error: string }).error).toBe('reauthentication_required');
      }
      // Nothing happened: the user and the session are there, no message went out.
      expect(await sessionEmail(mallory, second)).toBe('mallory@example.test');
      expect(await userIdOf(mail, 'mallory@example.test')).toBe(userId);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(smtp.messages.slice(count).filter((message) => message.rcptTo.some((to) => to.startsWith('mallory')))).toEqual([]);
    });

    it('lets the user through once they re-authenticate at /auth/reauth', async () => {
      const page = await mallory.fetch(`${first.url}/auth/reauth?callbackUrl=${encodeURIComponent('/auth/account/export')}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('mallory@example.test');
      const done = await postForm(mallory, first, 'reauth', { password: PASSWORD, callbackUrl: `${first.url}/auth/account/export` });
      expect(done.status).toBe(302);
      expect(new URL(done.headers.get('location')!, first.url).pathname).toBe('/auth/account/export');
      shareCookies(mallory, first, second);
      expect((await mallory.fetch(`${second.url}/auth/account/export`)).status).toBe(200);
      expect((await getJson(mallory, second, 'account')).status).toBe(200);
    });
  });

  it('refuses to unlink the only way to sign in, and an account the user does not have', async () => {
    const linus = await signedIn(second, 'linus@example.test');
    const missing = await postForm(linus, second, 'account/unlink', { provider: 'github' }, true);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { errors: { unlink: string } }).errors.unlink).toContain('github');
    const passkey = await postForm(linus, second, 'account/passkeys/remove', { id: 'no-such-passkey' }, true);
    expect(passkey.status).toBe(400);
    expect(await sessionEmail(linus, second)).toBe('linus@example.test');
  });

  it('refuses to delete without the confirmation, changing nothing', async () => {
    const linus = await signedIn(first, 'linus@example.test');
    const attempts: Record<string, string>[] = [{}, { email: 'someone@example.test' }, { confirm: 'no' }];
    for (const fields of attempts) {
      const refused = await postForm(linus, first, 'account/delete', fields);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('aria-invalid="true"');
    }
    expect(await sessionEmail(linus, first)).toBe('linus@example.test');
    await userIdOf(mail, 'linus@example.test');
  });

  // The page is the same on both databases: Chromium drives the SQLite app.
  if (adapter === 'sqlite') {
    describe('in Chromium', () => {
      let browser: Browser;
      const contexts: (() => Promise<void>)[] = [];
      const keep = (close: () => Promise<void>): void => void contexts.push(close);

      beforeAll(async () => {
        browser = await launchChromium();
        await signUp(first, smtp, 'hopper@example.test');
      }, 120_000);

      afterAll(async () => {
        for (const close of contexts.splice(0)) await close();
        await browser?.close();
      });

      /** A tab signed in as `email` through the sign-in page's password form, on the account page. */
      async function accountTab(email: string): Promise<Page> {
        const { page } = await openPage(browser, keep);
        await page.goto(`${first.url}/auth/signin?callbackUrl=%2Fauth%2Faccount`);
        await page.getByLabel('Email', { exact: true }).fill(email);
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        expect((await submitForm(page, 'Sign in', '/auth/callback/password')).status()).toBe(302);
        await page.waitForURL(`${first.url}/auth/account`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your account');
        return page;
      }

      /** axe-core on the page as it is, in the light and then the dark scheme: no violation of any impact. */
      async function expectAccessible(page: Page, name: string): Promise<void> {
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme });
          expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), 'the colour scheme is emulated').toBe(colorScheme === 'dark');
          await saveScreenshot(page, `account-${name}-${colorScheme}`);
          const results = await scanAccessibility(page);
          expect(results.passes.length, 'axe ran its checks').toBeGreaterThan(10);
          expect(violationsOf(results, ['critical', 'serious', 'moderate', 'minor']), `${name} in ${colorScheme}`).toEqual([]);
        }
      }

      it('has no axe-core violations on the account page, a refused form and the page the link opens, in the light and the dark scheme', async () => {
        const page = await accountTab('hopper@example.test');
        await expectAccessible(page, 'page');

        // The browser's own check would stop a malformed address; the server's answer is what is scanned.
        await page.getByLabel('New email address').fill('hopper@example.test');
        expect((await submitForm(page, 'Send the link', '/auth/account/email')).status()).toBe(400);
        const field = page.getByLabel('New email address');
        expect(await field.getAttribute('aria-invalid')).toBe('true');
        expect(await field.getAttribute('aria-describedby')).toBe('account-new-email-error');
        expect(await page.locator('#account-new-email-error').isVisible()).toBe(true);
        expect(await field.inputValue()).toBe('hopper@example.test');
        await expectAccessible(page, 'refused');

        const count = smtp.messages.length;
        await page.getByLabel('New email address').fill('grace.hopper@example.test');
        expect((await submitForm(page, 'Send the link', '/auth/account/email')).status()).toBe(302);
        expect(await page.getByRole('status').textContent()).toContain('Check the new address');
        const link = /https?:\/\/\S+\/auth\/account\/email\/confirm\?token=\S+/.exec((await messageTo(smtp, count, 'grace.hopper@example.test', /^Confirm the new email address of an account/)).text ?? '')![0];
        await page.goto(link);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm your new address');
        await expectAccessible(page, 'confirm');
        expect((await submitForm(page, 'Confirm new address', '/auth/account/email/confirm')).status()).toBe(302);
        await page.waitForURL(`${first.url}/auth/account?notice=email-changed`);
        expect(await page.getByText('grace.hopper@example.test').first().isVisible()).toBe(true);
      });

      it('downloads the export from the page\'s link', async () => {
        const page = await accountTab('grace@example.test');
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export my data' }).click()]);
        expect(download.suggestedFilename()).toMatch(/^account-\d{4}-\d{2}-\d{2}\.json$/);
      });
    });
  }

  // Last: the address must be gone from everything the database holds afterwards.
  it('deletes the account: every session on both processes ends, the address is told, and no stored byte holds the address', async () => {
    const email = 'erin@example.test';
    const here = shareCookies(await signedIn(first, email), first, second);
    const elsewhere = shareCookies(await signedIn(second, email), second, first);
    const userId = await userIdOf(mail, email);
    // Some of everything the account keeps: an export, an address change asked for and never confirmed.
    expect((await here.fetch(`${first.url}/auth/account/export`)).status).toBe(200);
    expect((await postForm(here, first, 'account/email', { newEmail: 'erin.pending@example.test' })).status).toBe(302);
    const count = smtp.messages.length;

    const deleted = await postForm(here, first, 'account/delete', { email });
    expect(deleted.status).toBe(302);
    expect(deleted.headers.getSetCookie().some((cookie) => /session-token=;/.test(cookie) || /Max-Age=0/i.test(cookie))).toBe(true);
    for (const [jar, app] of [[here, first], [here, second], [elsewhere, first], [elsewhere, second]] as const) expect(await sessionEmail(jar, app)).toBeNull();
    const notice = await messageTo(smtp, count, email, /was deleted/);
    expect(notice.text).not.toMatch(/token=|\/callback\//);

    // Nobody signs in with it any more.
    const again = createJar();
    await postForm(again, second, 'callback/password', { email, password: PASSWORD });
    expect(await sessionEmail(again, second)).toBeNull();
    expect(await query(mail, 'SELECT id FROM users WHERE email = ?', [email])).toEqual([]);

    // The other users are there, so the search reads real data.
    expect(await storedText(mail)).toContain('grace@example.test');
    expect(await tracesIn(mail, [email, 'erin.pending@example.test', userId])).toEqual([]);
  });
});
