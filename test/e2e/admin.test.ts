// Issue 49's acceptance path on real scaffolds: `--providers password --account --api-keys --admin` with SQLite and
// with PostgreSQL (two processes on one database), AUTH_ADMINS set in .env as its user would, compiled and started,
// mail through a real SMTP server on loopback. Over HTTP, through the pages' own forms: an admin is sent to enrol
// two-factor first and does it on the two-factor pages with codes computed here; finds a user by `?q=`, opens their
// page, disables them with a reason: their session ends on the next request (on PostgreSQL, a session made on the
// other process too), their right password is refused with "disabled" while a wrong password and an unknown address
// answer byte for byte as before, their API key is refused, the "disabled" mail arrives; enabling restores sign-in
// and the key, not the ended session. Impersonation: the session names the user and the admin, every runtime page
// shows the banner, the account's POST routes are refused 403 (sign-out is not), stopping gives the admin's own
// session back, another admin cannot be impersonated. Removing a lost phone's two-factor: the next sign-in asks no
// code, the user is mailed, and their account page says an administrator did it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CookieJar, createJar, formBody } from '../support/cookie-jar.js';
import { type HtmlForm, parseForms, parseLinks } from '../support/html-form.js';
import type { RunningSmtpServer } from '../support/smtp-server.js';
import { authenticator } from './helpers/authenticator.js';
import { type MailApp, csrfToken, messageTo, postForm, sessionEmail, shareCookies, signUpByMail, signedInWithPassword, startMailApp } from './helpers/mail-app.js';
import { fillEnv, removeTempDirs } from './helpers/project.js';
import type { RunningApp } from './helpers/project.js';
import { type Sql, openSql } from './helpers/sql.js';

afterAll(removeTempDirs);

const PASSWORD = 'violet staple orbit lantern';
// The admins by the config (AUTH_ADMINS): each is one once their address is proven.
const ROOT = 'root@example.test';
const OPS = 'ops@example.test';
const BANNER = 'An administrator is acting as this user';
// What a browser asks for when it opens a page (without it, the runtime's routes answer JSON).
const PAGE = { headers: { accept: 'text/html' } };

/** The page's POST form whose hidden `action` is `action` (undefined when the page has none). */
function formFor(page: string, pageUrl: string, action: string): HtmlForm | undefined {
  return parseForms(page, pageUrl).find((form) => form.method === 'POST' && form.fields['action'] === action);
}

/** Submits a page's form as a browser would: its own fields (the CSRF token the page gave included), then `fields`. */
function submit(jar: CookieJar, form: HtmlForm, fields: Record<string, string> = {}, json = false): Promise<Response> {
  const body = formBody({ ...form.fields, ...fields });
  return jar.fetch(form.action, { method: 'POST', body: body.body, headers: { ...body.headers, accept: json ? 'application/json' : 'text/html' } });
}

/** A redirect's target as a path and query (its origin checked to be the app's). */
function redirectedTo(response: Response, app: RunningApp): string {
  expect([302, 303], `a redirect, got ${response.status}`).toContain(response.status);
  const target = new URL(response.headers.get('location') ?? '', app.url);
  expect(target.origin).toBe(new URL(app.url).origin);
  return target.pathname + target.search;
}

/** Everything a client sees of an answer; CSRF tokens (one per visitor) blanked in pages. */
async function answerOf(response: Response, app: RunningApp): Promise<{ status: number; location: string | null; cookies: string[]; body: string; page: string | null }> {
  const location = response.headers.get('location');
  const page = location ? await (await createJar().fetch(new URL(location, app.url), PAGE)).text() : null;
  return {
    status: response.status,
    location,
    cookies: response.headers.getSetCookie(),
    body: await response.text(),
    page: page?.replace(/name="csrfToken" value="[^"]*"/g, 'name="csrfToken" value=""') ?? null,
  };
}

/** A copy of the jar's cookies for `app`: a second browser tab sharing its session. */
function copyOf(jar: CookieJar, app: RunningApp): CookieJar {
  const copy = createJar();
  for (const cookie of jar.cookies(app.url)) copy.set(app.url, `${cookie.name}=${cookie.value}; Path=${cookie.path}${cookie.httpOnly ? '; HttpOnly' : ''}`);
  return copy;
}

interface SessionJson {
  user?: { id?: string; email?: string };
  impersonatedBy?: { id: string; email: string | null; name: string | null };
}

async function sessionOf(jar: CookieJar, app: RunningApp): Promise<SessionJson | null> {
  const response = await jar.fetch(`${app.url}/auth/session`, { headers: { accept: 'application/json' } });
  expect(response.status).toBe(200);
  return (await response.json()) as SessionJson | null;
}

/** What the scaffold's user does first: the admins' addresses in the AUTH_ADMINS the scaffold left empty in .env. */
async function setAdmins(projectDir: string): Promise<void> {
  const env = await readFile(join(projectDir, '.env'), 'utf8');
  const config = await readFile(join(projectDir, 'src/auth/config.ts'), 'utf8');
  if (!/^AUTH_ADMINS=$/m.test(env) || !config.includes('Admin()')) throw new Error(`the scaffold wrote no empty AUTH_ADMINS in .env or no Admin() in its config:\n${env}\n${config}`);
  await fillEnv(projectDir, { AUTH_ADMINS: `${ROOT}, ${OPS}` });
}

describe.each(['sqlite', 'postgres'] as const)('a scaffolded app with administration on %s', (adapter) => {
  let mail: MailApp;
  let smtp: RunningSmtpServer;
  let sql: Sql;
  let first: RunningApp;
  // The other process on the same database (PostgreSQL only).
  let second: RunningApp | undefined;
  let root: CookieJar;

  beforeAll(async () => {
    mail = await startMailApp(adapter, ['--providers', 'password', '--account', '--api-keys', '--admin'], adapter === 'postgres' ? 2 : 1, setAdmins);
    smtp = mail.smtp;
    [first, second] = mail.apps as [RunningApp, RunningApp | undefined];
    sql = await openSql(mail);
  }, 600_000);

  afterAll(async () => {
    await sql?.close();
    await mail?.stop();
  });

  let clients = 0;
  /**
   * Signs `email` up through the mailed link (their address proven) and answers a jar signed in on the first process;
   * each user from a client address of their own (the app counts sign-up mails and sign-ins per client).
   */
  async function user(email: string): Promise<CookieJar> {
    const client = `198.51.100.${(clients += 1)}`;
    await signUpByMail(first, smtp, email, PASSWORD, client);
    return signedInWithPassword(first, email, PASSWORD, client);
  }

  async function userIdOf(email: string): Promise<string> {
    const rows = await sql.all('SELECT id FROM users WHERE email = ?', [email]);
    expect(rows, email).toHaveLength(1);
    return String(rows[0]!['id']);
  }

  /** Signs in with the password from a fresh jar (no second factor asked): the answer and the jar. */
  async function signIn(email: string, client: string, app = first): Promise<{ response: Response; jar: CookieJar }> {
    const jar = createJar();
    return { response: await postForm(jar, app, 'callback/password', { email, password: PASSWORD }, false, client), jar };
  }

  /** The admin finds `email` by a search of `query` in the users' list and opens their page: its URL and text. */
  async function openUser(admin: CookieJar, query: string, email: string, app = first): Promise<{ url: string; page: string; id: string }> {
    const listUrl = `${app.url}/auth/admin?q=${encodeURIComponent(query)}`;
    const list = await admin.fetch(listUrl, PAGE);
    const listed = await list.text();
    expect(list.status, listed).toBe(200);
    expect(listed).toContain(email);
    const links = parseLinks(listed, listUrl).filter((link) => new URL(link).pathname.startsWith('/auth/admin/users/'));
    expect(links, `one user found by ${query}`).toHaveLength(1);
    const id = decodeURIComponent(new URL(links[0]!).pathname.slice('/auth/admin/users/'.length));
    expect(id).toBe(await userIdOf(email));
    const opened = await admin.fetch(links[0]!, PAGE);
    const page = await opened.text();
    expect(opened.status, page).toBe(200);
    expect(page).toContain(email);
    return { url: links[0]!, page, id };
  }

  /**
   * Does `action` on the user's page through its form: the redirect back to the page with the notice of what was done
   * (`notice`, the action as recorded), which the page then shows.
   */
  async function act(admin: CookieJar, user: { url: string; page: string; id: string }, action: string, notice: string, fields: Record<string, string> = {}, app = first): Promise<void> {
    const form = formFor(user.page, user.url, action);
    expect(form, `the user's page has a form for ${action}`).toBeDefined();
    const done = await submit(admin, form!, fields);
    expect(redirectedTo(done, app), await done.clone().text()).toBe(`/auth/admin/users/${encodeURIComponent(user.id)}?notice=${notice}`);
    const shown = await admin.fetch(new URL(done.headers.get('location')!, user.url), PAGE);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('role="status"');
  }

  it('compiles with zero errors', () => {
    expect(mail.compile.output).toBe('');
    expect(mail.compile.exitCode).toBe(0);
  });

  it('sends an admin without a second factor to enrol one, which they do on the two-factor pages; strangers get 404', async () => {
    root = await user(ROOT);
    // Signed out: asked to sign in. Not an admin: nothing is there.
    expect(redirectedTo(await createJar().fetch(`${first.url}/auth/admin`, PAGE), first)).toMatch(/^\/auth\/signin\b/);
    expect((await createJar().fetch(`${first.url}/auth/admin`, { headers: { accept: 'application/json' } })).status).toBe(401);
    const stranger = await user('stranger@example.test');
    for (const path of ['admin', `admin/users/${await userIdOf(ROOT)}`]) expect((await stranger.fetch(`${first.url}/auth/${path}`, PAGE)).status, path).toBe(404);

    // An admin by AUTH_ADMINS, without a second factor yet: sent to enrol one.
    expect(redirectedTo(await root.fetch(`${first.url}/auth/admin`, PAGE), first)).toBe('/auth/two-factor');
    const refused = await root.fetch(`${first.url}/auth/admin`, { headers: { accept: 'application/json' } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'second_factor_required', url: '/auth/two-factor' });
    // The starter's GET /admin-only (requireAdmin): 401 signed out, 403 to a user, and to an admin without a second factor.
    const adminOnly = (jar: CookieJar): Promise<Response> => jar.fetch(`${first.url}/admin-only`, { headers: { accept: 'application/json' } });
    expect((await adminOnly(createJar())).status).toBe(401);
    expect(await (await adminOnly(stranger)).json()).toMatchObject({ error: 'forbidden' });
    expect(await (await adminOnly(root)).json()).toMatchObject({ error: 'second_factor_required' });

    // The two-factor pages, as a browser without JavaScript uses them: set up, then the code the secret gives.
    const twoFactorUrl = `${first.url}/auth/two-factor`;
    const off = await (await root.fetch(twoFactorUrl, PAGE)).text();
    const enrolling = await submit(root, formFor(off, twoFactorUrl, 'enroll')!);
    const enrollPage = await enrolling.text();
    expect(enrolling.status, enrollPage).toBe(200);
    const secret = /id="two-factor-secret">([A-Z2-7 ]+)</.exec(enrollPage)?.[1]?.replace(/ /g, '');
    expect(secret).toBeDefined();
    const enabled = await submit(root, formFor(enrollPage, twoFactorUrl, 'enable')!, { code: authenticator(secret!).next() });
    expect(enabled.status).toBe(200);
    expect(await enabled.text()).toContain('Two-factor authentication is on.');

    const list = await root.fetch(`${first.url}/auth/admin`, PAGE);
    expect(list.status).toBe(200);
    expect(await list.text()).toContain(ROOT);
    const passed = await adminOnly(root);
    expect(passed.status).toBe(200);
    expect(await passed.json()).toMatchObject({ admin: { email: ROOT } });
  });

  it('disables a user with a reason: their session ends, their password and API key are refused, a wrong password answers as before; enabling restores sign-in, not the session', async () => {
    const client = `198.51.100.${(clients += 1)}`;
    const ann = await user('ann@example.test');
    await user('bea@example.test');
    // Her API key, for the starter's /me; and how a wrong password and an unknown address are answered now.
    const created = await ann.fetch(`${first.url}/auth/api-keys`, {
      method: 'POST',
      body: JSON.stringify({ csrfToken: await csrfToken(ann, first), action: 'create', name: 'Laptop script', scopes: [], expiresInDays: 30 }),
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { key } = (await created.json()) as { key: string };
    const me = (path = '/me'): Promise<Response> => fetch(`${first.url}${path}`, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
    expect((await me()).status).toBe(200);
    // A key is never an admin's way in.
    expect((await me('/admin-only')).status).toBe(403);
    const wrongBefore = await answerOf(await postForm(createJar(), first, 'callback/password', { email: 'ann@example.test', password: 'not the password, sorry' }, false, client), first);
    const unknownBefore = await answerOf(await postForm(createJar(), first, 'callback/password', { email: 'nobody@example.test', password: PASSWORD }, false, client), first);
    expect(wrongBefore.status).toBe(302);
    expect(wrongBefore.location).toBe(unknownBefore.location);

    // The admin searches by part of the address: Ann alone, not Bea.
    const found = await openUser(root, 'ann', 'ann@example.test');
    expect(found.page).not.toContain('bea@example.test');
    const count = smtp.messages.length;
    await act(root, found, 'disable', 'disabled', { reason: 'Chargeback fraud, ticket 4411' });

    // Her session is gone on her very next request; her key with it.
    expect(await sessionEmail(ann, first)).toBeNull();
    expect((await ann.fetch(`${first.url}/me`, { headers: { accept: 'application/json' } })).status).toBe(401);
    expect(await sql.all('SELECT session_token FROM sessions WHERE user_id = ?', [found.id])).toEqual([]);
    const keyRefused = await me();
    expect(keyRefused.status).toBe(401);
    expect(keyRefused.headers.get('www-authenticate')).toContain('error="invalid_token"');

    // The right password: refused, and the page says why. A wrong one and an unknown address: as before.
    const right = await signIn('ann@example.test', client);
    const refusal = redirectedTo(right.response, first);
    expect(refusal).toMatch(/^\/auth\/signin\?(.*&)?error=AccountDisabled\b/);
    expect(await (await createJar().fetch(`${first.url}${refusal}`, PAGE)).text()).toContain('This account is disabled');
    expect(await sessionEmail(right.jar, first)).toBeNull();
    expect(await answerOf(await postForm(createJar(), first, 'callback/password', { email: 'ann@example.test', password: 'not the password, sorry' }, false, client), first)).toEqual(wrongBefore);
    expect(await answerOf(await postForm(createJar(), first, 'callback/password', { email: 'nobody@example.test', password: PASSWORD }, false, client), first)).toEqual(unknownBefore);

    // She is told by mail; the admin's page shows the state and the reason.
    const message = await messageTo(smtp, count, 'ann@example.test', /was disabled/);
    expect(message.text).toContain('disabled your account');
    const disabledPage = await (await root.fetch(found.url, PAGE)).text();
    expect(disabledPage).toContain('Disabled');
    expect(disabledPage).toContain('Chargeback fraud, ticket 4411');

    // Enabled: the password and the key work again; the ended session stays ended.
    await act(root, { ...found, page: disabledPage }, 'enable', 'enabled');
    expect(await sessionEmail(ann, first)).toBeNull();
    const again = await signIn('ann@example.test', client);
    expect(again.response.status).toBe(302);
    expect(await sessionEmail(again.jar, first)).toBe('ann@example.test');
    expect((await me()).status).toBe(200);
    // Her account page tells her what an administrator did.
    const account = await (await again.jar.fetch(`${first.url}/auth/account`, PAGE)).text();
    expect(account).toContain('An administrator disabled the account');
    expect(account).toContain('An administrator enabled the account');
  });

  // Two processes share a database here only with PostgreSQL.
  if (adapter === 'postgres') {
    it('ends at once, on process A, the session of a user an admin disables on process B', async () => {
      const other = second!;
      const dan = await user('dan@example.test');
      expect(await sessionEmail(dan, first)).toBe('dan@example.test');
      shareCookies(root, first, other);
      const found = await openUser(root, 'dan@', 'dan@example.test', other);
      const count = smtp.messages.length;
      await act(root, found, 'disable', 'disabled', { reason: 'Account takeover reported by the owner' }, other);
      expect(await sessionEmail(dan, first)).toBeNull();
      expect((await dan.fetch(`${first.url}/me`, { headers: { accept: 'application/json' } })).status).toBe(401);
      await messageTo(smtp, count, 'dan@example.test', /was disabled/);
    });
  }

  it('impersonates a user for a reason: the session names both, every page shows the banner, nothing in the account changes, stopping gives the admin back', async () => {
    const bob = await user('bob@example.test');
    // The admin's browser: a copy of their cookies, so that a failure here leaves the other tests their admin.
    const admin = copyOf(root, first);
    const [rootId, bobId] = [await userIdOf(ROOT), await userIdOf('bob@example.test')];
    const found = await openUser(admin, 'bob', 'bob@example.test');
    const impersonate = formFor(found.page, found.url, 'impersonate');
    expect(impersonate?.inputNames).toContain('reason');

    // No reason: refused beside the field, still the admin.
    const unexplained = await submit(admin, impersonate!, { reason: '' });
    expect(unexplained.status).toBe(400);
    expect(await unexplained.text()).toContain('admin-reason-error');
    expect(await sessionEmail(admin, first)).toBe(ROOT);

    const started = await submit(admin, impersonate!, { reason: 'Ticket 981: their dashboard is empty' });
    expect(redirectedTo(started, first)).toBe('/');
    expect(await sessionOf(admin, first)).toMatchObject({ user: { id: bobId, email: 'bob@example.test' }, impersonatedBy: { id: rootId, email: ROOT } });
    expect(await (await admin.fetch(`${first.url}/`, PAGE)).text()).toContain('bob@example.test');

    // Every page of the runtime shows the banner and its stop button.
    let bannered = '';
    for (const path of ['/auth/signin', '/auth/sessions', '/auth/account', '/auth/two-factor']) {
      const page = await admin.fetch(`${first.url}${path}`, PAGE);
      const text = await page.text();
      expect(page.status, path).toBe(200);
      expect(text, path).toContain(BANNER);
      expect(parseForms(text, `${first.url}${path}`).some((form) => new URL(form.action).pathname === '/auth/admin/stop-impersonating'), path).toBe(true);
      bannered = text;
    }

    // Nothing in the account changes, nor does anyone sign in: every POST but sign-out is refused, the token given.
    const keysBefore = await sql.all('SELECT id FROM api_keys WHERE user_id = ?', [bobId]);
    for (const [path, fields] of [
      ['password', { currentPassword: PASSWORD, newPassword: 'a new passphrase of mine' }],
      ['two-factor', { action: 'enroll' }],
      ['sessions', { action: 'end-others' }],
      ['reauth', { password: PASSWORD }],
      ['api-keys', { action: 'create', name: 'sneaky', expiresInDays: '30' }],
      ['account', { action: 'delete' }],
      ['callback/password', { email: 'bob@example.test', password: PASSWORD }],
    ] as const) {
      const refused = await postForm(admin, first, path, fields, true);
      expect(refused.status, `POST /auth/${path}: ${await refused.clone().text()}`).toBe(403);
      expect(await refused.json(), path).toMatchObject({ error: 'ImpersonationRefused' });
    }
    const asForm = await postForm(admin, first, 'password', { currentPassword: PASSWORD, newPassword: 'a new passphrase of mine' });
    expect(asForm.status).toBe(403);
    expect(await asForm.text()).toContain('Not while acting as this user');
    expect(await sql.all('SELECT id FROM api_keys WHERE user_id = ?', [bobId])).toEqual(keysBefore);
    expect(await sql.all('SELECT user_id FROM two_factor WHERE user_id = ?', [bobId])).toEqual([]);

    // Stopping (the banner's button) gives the admin's own session back, on their page of Bob.
    const stop = parseForms(bannered, first.url).find((form) => new URL(form.action).pathname === '/auth/admin/stop-impersonating')!;
    expect(redirectedTo(await submit(admin, stop), first)).toBe(`/auth/admin/users/${encodeURIComponent(bobId)}`);
    const own = await sessionOf(admin, first);
    expect(own?.user?.email).toBe(ROOT);
    expect(own).not.toHaveProperty('impersonatedBy');
    expect(await sql.all('SELECT session_token FROM sessions WHERE impersonated_by IS NOT NULL')).toEqual([]);
    const back = await admin.fetch(found.url, PAGE);
    const backPage = await back.text();
    expect(back.status).toBe(200);
    expect(backPage).not.toContain(BANNER);
    expect(backPage).toContain('Ticket 981: their dashboard is empty');
    // And an action again, without signing in: Bob's sessions end.
    await act(admin, { ...found, page: backPage }, 'end-sessions', 'sessions-ended');
    expect(await sessionEmail(bob, first)).toBeNull();
    // Bob's password is the one it was.
    expect(await sessionEmail((await signIn('bob@example.test', `198.51.100.${(clients += 1)}`)).jar, first)).toBe('bob@example.test');

    // Signing out while impersonating is allowed: it ends the impersonation, not the admin's session (another tab).
    const tab = copyOf(root, first);
    const restarted = await submit(tab, formFor(await (await tab.fetch(found.url, PAGE)).text(), found.url, 'impersonate')!, { reason: 'Ticket 982' });
    expect(redirectedTo(restarted, first)).toBe('/');
    expect((await sessionOf(tab, first))?.impersonatedBy?.id).toBe(rootId);
    expect((await postForm(tab, first, 'signout', {})).status).toBe(302);
    expect(await sessionEmail(tab, first)).toBeNull();
    expect(await sql.all('SELECT session_token FROM sessions WHERE impersonated_by IS NOT NULL')).toEqual([]);
    expect(await sessionEmail(root, first)).toBe(ROOT);
  });

  it('refuses to impersonate another admin (an address of AUTH_ADMINS): no form, and the POST is refused', async () => {
    await user(OPS);
    const found = await openUser(root, 'ops', OPS);
    expect(formFor(found.page, found.url, 'impersonate')).toBeUndefined();
    const fields = { csrfToken: await csrfToken(root, first), action: 'impersonate', reason: 'Curious' };
    for (const json of [true, false]) {
      const body = formBody(fields);
      const refused = await root.fetch(found.url, { method: 'POST', body: body.body, headers: { ...body.headers, accept: json ? 'application/json' : 'text/html' } });
      expect(refused.status).toBe(400);
      if (json) expect(await refused.json()).toMatchObject({ error: 'InvalidRequest', errors: { action: expect.any(String) } });
      else expect(await refused.text()).toContain('An admin cannot be impersonated');
    }
    expect(await sessionOf(root, first)).not.toHaveProperty('impersonatedBy');
    expect(await sessionEmail(root, first)).toBe(ROOT);
    expect(await sql.all('SELECT session_token FROM sessions WHERE impersonated_by IS NOT NULL')).toEqual([]);
  });

  it('removes the two-factor of a user who lost their phone: their next sign-in asks no code, they are mailed, their account page says so', async () => {
    const client = `198.51.100.${(clients += 1)}`;
    const carl = await user('carl@example.test');
    const enroll = (await (await postForm(carl, first, 'two-factor', { action: 'enroll' }, true)).json()) as { secret: string };
    expect((await postForm(carl, first, 'two-factor', { action: 'enable', code: authenticator(enroll.secret).next() }, true)).status).toBe(200);
    const pending = await signIn('carl@example.test', client);
    expect(redirectedTo(pending.response, first)).toBe('/auth/two-factor');
    expect(await sessionEmail(pending.jar, first)).toBeNull();

    const found = await openUser(root, 'carl', 'carl@example.test');
    const count = smtp.messages.length;
    await act(root, found, 'remove-two-factor', 'two-factor-removed');

    const message = await messageTo(smtp, count, 'carl@example.test', /^Two-factor authentication was turned off/);
    expect(message.text).toContain('turned off two-factor authentication');
    const signedIn = await signIn('carl@example.test', client);
    expect(redirectedTo(signedIn.response, first)).toBe('/');
    expect(await sessionEmail(signedIn.jar, first)).toBe('carl@example.test');
    const account = await signedIn.jar.fetch(`${first.url}/auth/account`, PAGE);
    expect(account.status).toBe(200);
    expect(await account.text()).toContain('An administrator removed two-factor');
  });
});
