// Issue 48's acceptance path on real scaffolds: `--providers password --organizations --api-keys` with SQLite and with
// PostgreSQL, server.ts given an owner-only route (`requirePermission('organization:delete')` on /orgs/:slug/danger)
// as a user would, compiled and started twice on one database, mail through a real SMTP server on loopback. Over
// HTTP: users sign up through the mailed link; an owner creates an organization and invites by email (the link only
// in the mail); the invitee opens it (a GET changes nothing) and accepts; the starter's GET /orgs/:slug answers them.
// A table of every organization route and action × owner, admin, member, removed member, another organization's
// member, signed out and API keys (made for the organization by its owner, admin and a member, made for another
// organization, unbound), each cell's status, a refused change leaving the database as it was; escalation refused;
// the invitations' rules (a scanner's GET, another address, reuse, expiry, cancel, CSRF); a removal seen by the other
// process on the very next request, the member's key stopping with it; and on PostgreSQL, the two owners of each of
// 20 organizations demoting or removing each other at once through the two processes: each keeps an owner. In
// Chromium (on the SQLite app, with JavaScript and without): sign in, create an organization and invite by the forms,
// the invitee opens the mailed link in another browser, signs in and accepts; axe-core in the light and dark scheme.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, saveScreenshot, scanAccessibility, submitForm, violationsOf } from '../browser/helpers.js';
import { type CookieJar, createJar, formBody } from '../support/cookie-jar.js';
import type { RunningSmtpServer } from '../support/smtp-server.js';
import { type MailApp, csrfToken, messageTo, postForm, shareCookies, signUpByMail, signedInWithPassword, startMailApp, storedText } from './helpers/mail-app.js';
import { removeTempDirs } from './helpers/project.js';
import { type Row, type Sql, openSql } from './helpers/sql.js';
import type { RunningApp } from './helpers/project.js';

afterAll(removeTempDirs);

const PASSWORD = 'violet staple orbit lantern';
/** An invitation's link as the mail gives it; the token is its last segment. */
const INVITATION_LINK = /https?:\/\/\S+\/auth\/organizations\/invitations\/([A-Za-z0-9_-]{43})/;

// What this test writes into the scaffold's server.ts, as its user would: a route only an owner passes (the default
// admin lacks organization:delete).
const routesBefore = 'const port = Number(process.env.PORT ?? 3000);';
const ownerRoute = `app.get('/orgs/:slug/danger', requirePermission('organization:delete', { organization: (req) => String(req.params.slug) }), (_req, res) => {
  res.json({ role: res.locals.organization.role });
});

`;

async function addOwnerRoute(projectDir: string): Promise<void> {
  const path = join(projectDir, 'src/server.ts');
  const text = await readFile(path, 'utf8');
  if (text.split(routesBefore).length !== 2 || !text.includes("app.get('/orgs/:slug', requirePermission('organization:read'")) throw new Error(`the scaffold's server.ts changed:\n${text}`);
  await writeFile(path, text.replace(routesBefore, `${ownerRoute}${routesBefore}`));
}

/** An organization's rows: itself, its memberships and its pending invitations, each in a stable order. */
interface OrganizationRows {
  organization: Row | undefined;
  members: Row[];
  invitations: Row[];
}

async function rowsOf(sql: Sql, organizationId: string): Promise<OrganizationRows> {
  const [organization] = await sql.all('SELECT * FROM organizations WHERE id = ?', [organizationId]);
  return {
    organization,
    members: await sql.all('SELECT * FROM organization_members WHERE organization_id = ? ORDER BY user_id', [organizationId]),
    invitations: await sql.all('SELECT * FROM organization_invitations WHERE organization_id = ? ORDER BY id', [organizationId]),
  };
}

async function insertRow(sql: Sql, table: string, row: Row): Promise<void> {
  const columns = Object.keys(row);
  await sql.all(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, columns.map((column) => row[column]));
}

/** Puts an organization's rows back as `rows` holds them (the organization too, when a test deleted it). */
async function restoreRows(sql: Sql, rows: OrganizationRows): Promise<void> {
  const organization = rows.organization!;
  const id = organization['id'];
  await sql.all('DELETE FROM organization_invitations WHERE organization_id = ?', [id]);
  await sql.all('DELETE FROM organization_members WHERE organization_id = ?', [id]);
  if ((await sql.all('SELECT id FROM organizations WHERE id = ?', [id])).length === 0) await insertRow(sql, 'organizations', organization);
  else await sql.all('UPDATE organizations SET name = ? WHERE id = ?', [organization['name'], id]);
  for (const member of rows.members) await insertRow(sql, 'organization_members', member);
  for (const invitation of rows.invitations) await insertRow(sql, 'organization_invitations', invitation);
}

/** GET `url` as a JSON client with the jar's cookies. */
function getJson(jar: CookieJar, url: string): Promise<Response> {
  return jar.fetch(url, { headers: { accept: 'application/json' } });
}

/** A request with an API key and no cookie, as a JSON client; a POST's form has no CSRF token (a key has no cookie). */
function withKey(key: string, url: string, fields?: Record<string, string>): Promise<Response> {
  const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };
  if (!fields) return fetch(url, { headers, redirect: 'manual' });
  const form = formBody(fields);
  return fetch(url, { method: 'POST', body: form.body, headers: { ...headers, ...form.headers }, redirect: 'manual' });
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe.each(['sqlite', 'postgres'] as const)('a scaffolded app with organizations on %s', (adapter) => {
  let mail: MailApp;
  let smtp: RunningSmtpServer;
  let sql: Sql;
  let first: RunningApp;
  let second: RunningApp;
  // Every invitation token the tests saw: neither the database nor a log line may hold one.
  const tokens: string[] = [];

  beforeAll(async () => {
    mail = await startMailApp(adapter, ['--providers', 'password', '--organizations', '--api-keys'], 2, addOwnerRoute);
    smtp = mail.smtp;
    [first, second] = mail.apps as [RunningApp, RunningApp];
    sql = await openSql(mail);
  }, 600_000);

  afterAll(async () => {
    await sql?.close();
    await mail?.stop();
  });

  let clients = 0;
  /**
   * Signs `email` up through the mailed link (their address proven) and answers a jar signed in, its cookies sent to
   * both apps (as one browser's); each user from a client address of their own (the app allows one client 10 sign-up
   * mails in 15 minutes).
   */
  async function user(email: string): Promise<CookieJar> {
    const client = `198.51.100.${(clients += 1)}`;
    await signUpByMail(first, smtp, email, PASSWORD, client);
    return shareCookies(await signedInWithPassword(first, email, PASSWORD, client), first, second);
  }

  async function userIdOf(email: string): Promise<string> {
    const rows = await sql.all('SELECT id FROM users WHERE email = ?', [email]);
    expect(rows, email).toHaveLength(1);
    return String(rows[0]!['id']);
  }

  /** POSTs a form to `<app>/auth/<path>` with the jar's CSRF token, asking for JSON. */
  const postJson = (jar: CookieJar, path: string, fields: Record<string, string>, app = first): Promise<Response> => postForm(jar, app, path, fields, true);

  async function createOrganization(jar: CookieJar, name: string, slug: string): Promise<{ id: string; slug: string; name: string }> {
    const response = await postJson(jar, 'organizations', { action: 'create', name, slug });
    expect(response.status, await response.clone().text()).toBe(201);
    return (await response.json()) as { id: string; slug: string; name: string };
  }

  /** Invites `email` as `role` (JSON), and answers the token of the link mailed to them. */
  async function invite(jar: CookieJar, slug: string, email: string, role: string): Promise<{ id: string; token: string; answer: string }> {
    const count = smtp.messages.length;
    const response = await postJson(jar, `organizations/${slug}`, { action: 'invite', email, role });
    const answer = await response.text();
    expect(response.status, answer).toBe(201);
    const message = await messageTo(smtp, count, email, /^Join /);
    const token = INVITATION_LINK.exec(message.text ?? '')?.[1];
    expect(token, message.text).toBeDefined();
    tokens.push(token!);
    return { id: ((JSON.parse(answer) as { invitation: { id: string } }).invitation).id, token: token!, answer };
  }

  const invitationUrl = (token: string, app = first): string => `${app.url}/auth/organizations/invitations/${token}`;

  /** Accepts the invitation as the jar's user (JSON): their role. */
  async function accept(jar: CookieJar, token: string): Promise<string> {
    const response = await postJson(jar, `organizations/invitations/${token}`, { action: 'accept' });
    expect(response.status, await response.clone().text()).toBe(200);
    return ((await response.json()) as { role: string }).role;
  }

  /** Creates an API key as the jar's user, made for `organization` (its slug) or for the account: the key. */
  async function apiKey(jar: CookieJar, name: string, organization?: string): Promise<string> {
    const body = JSON.stringify({ csrfToken: await csrfToken(jar, first), action: 'create', name, scopes: [], expiresInDays: 30, ...(organization && { organization }) });
    const response = await jar.fetch(`${first.url}/auth/api-keys`, { method: 'POST', body, headers: { 'content-type': 'application/json', accept: 'application/json' } });
    expect(response.status, await response.clone().text()).toBe(201);
    return ((await response.json()) as { key: string }).key;
  }

  async function membersOf(organizationId: string): Promise<Record<string, string>> {
    return Object.fromEntries((await sql.all('SELECT user_id, role FROM organization_members WHERE organization_id = ?', [organizationId])).map((row) => [String(row['user_id']), String(row['role'])]));
  }

  it('compiles with zero errors, the owner-only route added', () => {
    expect(mail.compile.output).toBe('');
    expect(mail.compile.exitCode).toBe(0);
  });

  it('signs up, creates an organization, invites by email (the link in the mail alone), and the invitee joins through it', async () => {
    const sam = await user('sam@example.test');
    const kim = await user('kim@example.test');
    const story = await createOrganization(sam, 'Story Works', 'story-works');
    expect(story).toEqual({ id: expect.any(String), slug: 'story-works', name: 'Story Works' });
    // The creator is its owner, and it is their session's active organization.
    const session = (await (await getJson(sam, `${first.url}/auth/session`)).json()) as { organization: unknown };
    expect(session.organization).toEqual({ ...story, role: 'owner' });

    const { token, answer } = await invite(sam, 'story-works', 'kim@example.test', 'admin');
    expect(JSON.parse(answer)).toEqual({ invitation: { id: expect.any(String), email: 'kim@example.test', role: 'admin', expiresAt: expect.any(String) } });
    // The link is in the mail alone: not in the answer, nor on the organization's page or in its JSON.
    expect(answer).not.toContain(token);
    for (const accept of ['application/json', 'text/html']) {
      const page = await (await sam.fetch(`${second.url}/auth/organizations/story-works`, { headers: { accept } })).text();
      expect(page).toContain('kim@example.test');
      expect(page).not.toContain(token);
    }

    // A mail scanner opens the link, twice: a page, and nothing changes.
    for (let opened = 0; opened < 2; opened += 1) {
      const scanned = await createJar().fetch(invitationUrl(token));
      expect(scanned.status).toBe(200);
      expect(await scanned.text()).toContain('Join Story Works');
    }
    expect(Object.values(await membersOf(story.id))).toEqual(['owner']);

    // Kim opens it signed in: the page offers to accept; the POST makes her a member with the role.
    const page = await kim.fetch(invitationUrl(token, second));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Accept invitation');
    const accepted = await postForm(kim, second, `organizations/invitations/${token}`, { action: 'accept' });
    expect(accepted.status).toBe(302);
    const joined = new URL(accepted.headers.get('location')!, second.url);
    expect(joined.pathname + joined.search).toBe('/auth/organizations/story-works?notice=joined');
    expect(await membersOf(story.id)).toEqual({ [await userIdOf('sam@example.test')]: 'owner', [await userIdOf('kim@example.test')]: 'admin' });

    // The starter's route answers each of them, on either process.
    for (const [jar, role] of [[kim, 'admin'], [sam, 'owner']] as const) {
      const orgs = await getJson(jar, `${first.url}/orgs/story-works`);
      expect(orgs.status).toBe(200);
      expect(await orgs.json()).toEqual({ organization: story, role });
    }
    expect(await (await getJson(kim, `${second.url}/orgs/${story.id}`)).json()).toEqual({ organization: story, role: 'admin' });
    const events = (await (await getJson(sam, `${first.url}/auth/organizations/story-works`)).json()) as { events: { type: string }[] };
    expect(events.events.map((event) => event.type)).toEqual(expect.arrayContaining(['organization-created', 'member-invited', 'member-joined']));
  });

  describe('one organization, each route × each actor', () => {
    const SLUG = 'acme';
    let acme: { id: string; slug: string; name: string };
    let baseline: OrganizationRows;
    const jars: Record<string, CookieJar> = {};
    const keys: Record<string, string> = {};
    const emails: Record<string, string> = {};
    let targetId: string;
    let pendingId: string;
    let made = 0;

    beforeAll(async () => {
      // Ada owns acme; Grace is its admin, Linus and Hopper members (Hopper the one the actions are done to); Erin was
      // a member and is removed; Mallory owns another organization.
      for (const name of ['ada', 'grace', 'linus', 'hopper', 'erin', 'mallory']) {
        emails[name] = `${name}@example.test`;
        jars[name] = await user(emails[name]);
      }
      acme = await createOrganization(jars['ada']!, 'Acme', SLUG);
      await createOrganization(jars['mallory']!, 'Globex', 'globex');
      await createOrganization(jars['ada']!, 'Ada on the side', 'ada-side');
      // Linus joins as an admin and makes a key for acme, then is lowered to member: his key acts with what he holds
      // now (a member's role grants no api-key:create, so a member's own key for the organization is made this way).
      for (const [name, role] of [['grace', 'admin'], ['linus', 'admin'], ['hopper', 'member'], ['erin', 'member']] as const) {
        expect(await accept(jars[name]!, (await invite(jars['ada']!, SLUG, emails[name]!, role)).token)).toBe(role);
      }
      keys['ownerKey'] = await apiKey(jars['ada']!, 'Acme owner', SLUG);
      keys['adminKey'] = await apiKey(jars['grace']!, 'Acme admin', SLUG);
      keys['memberKey'] = await apiKey(jars['linus']!, 'Acme member', SLUG);
      keys['otherOrganizationKey'] = await apiKey(jars['ada']!, 'Side only', 'ada-side');
      keys['unboundKey'] = await apiKey(jars['ada']!, 'Ada everywhere');
      targetId = await userIdOf(emails['hopper']!);
      expect((await postJson(jars['ada']!, `organizations/${SLUG}`, { action: 'role', userId: await userIdOf(emails['linus']!), role: 'member' })).status).toBe(200);
      expect((await postJson(jars['ada']!, `organizations/${SLUG}`, { action: 'remove', userId: await userIdOf(emails['erin']!) })).status).toBe(200);
      // A pending invitation, for the row that cancels one.
      pendingId = (await invite(jars['ada']!, SLUG, 'pending@example.test', 'member')).id;
      baseline = await rowsOf(sql, acme.id);
      expect(Object.values((await membersOf(acme.id))).sort()).toEqual(['admin', 'member', 'member', 'owner']);
    }, 120_000);

    // The actors: users signed in (their jars), a visitor, and API keys (Authorization, no cookie).
    const people = { owner: 'ada', admin: 'grace', member: 'linus', removed: 'erin', other: 'mallory' } as const;
    type Person = keyof typeof people;
    type Actor = Person | 'signedOut' | 'ownerKey' | 'adminKey' | 'memberKey' | 'otherOrganizationKey' | 'unboundKey';
    const actors: readonly Actor[] = ['owner', 'admin', 'member', 'removed', 'other', 'signedOut', 'ownerKey', 'adminKey', 'memberKey', 'otherOrganizationKey', 'unboundKey'];
    /** Whose address an actor has (a key's is its maker's; a visitor's one no one has). */
    const addressOf = (actor: Actor): string => {
      if (actor in people) return emails[people[actor as Person]]!;
      if (actor === 'adminKey') return emails['grace']!;
      if (actor === 'memberKey') return emails['linus']!;
      return actor === 'signedOut' ? 'visitor@example.test' : emails['ada']!;
    };

    /** A fresh invitation to acme for `email`, written to the database (the rows' form of one): its link's token. */
    async function storedInvitation(email: string): Promise<string> {
      const token = randomBytes(32).toString('base64url');
      const now = Date.now();
      await sql.all('DELETE FROM organization_invitations WHERE organization_id = ? AND email = ?', [acme.id, email]);
      await insertRow(sql, 'organization_invitations', {
        id: randomUUID(),
        organization_id: acme.id,
        email,
        role: 'member',
        inviter_id: await userIdOf(emails['ada']!),
        digest: sha256(token),
        created_at: sql.time(now),
        expires_at: sql.time(now + 86_400_000),
      });
      return token;
    }

    interface Call {
      method: 'GET' | 'POST';
      path: string;
      fields?: Record<string, string>;
    }
    /** One row: the request (made for the actor, after any setup it needs) and each actor's status. */
    interface MatrixRow {
      route: string;
      call(actor: Actor): Promise<Call> | Call;
      statuses: Record<Actor, number>;
    }

    /** Below the mount an API key is refused whatever it holds (403 insufficient_scope): the five keys' columns. */
    const KEYS_REFUSED = [403, 403, 403, 403, 403] as const;
    /** A row: the statuses of owner, admin, member, removed, other, signed out; of the five keys; the request. */
    const row = (route: string, signedIn: readonly number[], keyed: readonly number[], call: MatrixRow['call']): MatrixRow => ({
      route,
      call,
      statuses: Object.fromEntries(actors.map((actor, index) => [actor, [...signedIn, ...keyed][index]!])) as Record<Actor, number>,
    });
    const get = (path: () => string) => (): Call => ({ method: 'GET', path: path() });
    /** A POST to `path` with `fields`, read when the cell runs (the fixture's ids exist by then). */
    const post = (path: string, fields: () => Record<string, string>) => (): Call => ({ method: 'POST', path, fields: fields() });
    const list = '/auth/organizations';
    const acmePath = `/auth/organizations/${SLUG}`;
    /** The link of an invitation written for `email` just before the cell. */
    const link = async (email: string): Promise<string> => `/auth/organizations/invitations/${await storedInvitation(email)}`;

    // prettier-ignore
    const matrix: readonly MatrixRow[] = [
      //                                                  owner admin member removed other out   keys: owner admin member other-org unbound
      row('GET  /auth/organizations',                     [200, 200, 200, 200, 200, 401], KEYS_REFUSED, get(() => list)),
      row('POST /auth/organizations create',              [201, 201, 201, 201, 201, 401], KEYS_REFUSED, post(list, () => ({ action: 'create', name: 'Made', slug: `made-${(made += 1)}` }))),
      row('POST /auth/organizations switch',              [200, 200, 200, 404, 404, 401], KEYS_REFUSED, post(list, () => ({ action: 'switch', organization: SLUG }))),
      row('POST /auth/organizations leave',               [400, 200, 200, 404, 404, 401], KEYS_REFUSED, post(list, () => ({ action: 'leave', organization: SLUG }))),
      row('GET  /auth/organizations/acme',                [200, 200, 200, 404, 404, 401], KEYS_REFUSED, get(() => acmePath)),
      row('POST /auth/organizations/acme invite',         [201, 201, 403, 404, 404, 401], KEYS_REFUSED, post(acmePath, () => ({ action: 'invite', email: `invitee-${(made += 1)}@example.test`, role: 'member' }))),
      row('POST /auth/organizations/acme cancel',         [200, 200, 403, 404, 404, 401], KEYS_REFUSED, post(acmePath, () => ({ action: 'cancel-invitation', id: pendingId }))),
      row('POST /auth/organizations/acme role',           [200, 200, 403, 404, 404, 401], KEYS_REFUSED, post(acmePath, () => ({ action: 'role', userId: targetId, role: 'admin' }))),
      row('POST /auth/organizations/acme remove',         [200, 200, 403, 404, 404, 401], KEYS_REFUSED, post(acmePath, () => ({ action: 'remove', userId: targetId }))),
      row('POST /auth/organizations/acme update',         [200, 200, 403, 404, 404, 401], KEYS_REFUSED, post(acmePath, () => ({ action: 'update', name: 'Acme Renamed' }))),
      row('POST /auth/organizations/acme transfer',       [200, 403, 403, 404, 404, 401], KEYS_REFUSED, post(acmePath, () => ({ action: 'transfer', userId: targetId }))),
      row('POST /auth/organizations/acme delete',         [200, 403, 403, 404, 404, 401], KEYS_REFUSED, post(acmePath, () => ({ action: 'delete', confirm: SLUG }))),
      row('GET  invitation link (another address)',       [200, 200, 200, 200, 200, 200], KEYS_REFUSED, async () => ({ method: 'GET', path: await link('someone@example.test') })),
      row('POST invitation link accept (own address)',    [200, 200, 200, 200, 200, 401], KEYS_REFUSED, async (actor) => ({ method: 'POST', path: await link(addressOf(actor)), fields: { action: 'accept' } })),
      row('POST invitation link decline (own address)',   [200, 200, 200, 200, 200, 401], KEYS_REFUSED, async (actor) => ({ method: 'POST', path: await link(addressOf(actor)), fields: { action: 'decline' } })),
      row('GET  /orgs/acme (organization:read)',          [200, 200, 200, 404, 404, 401], [200, 200, 200, 404, 200], get(() => `/orgs/${SLUG}`)),
      row('GET  /orgs/acme/danger (organization:delete)', [200, 403, 403, 404, 404, 401], [200, 403, 403, 404, 200], get(() => `/orgs/${SLUG}/danger`)),
    ];

    /** Sends the call as the actor, to the second process (the fixture was made through the first). */
    async function send(actor: Actor, call: Call): Promise<Response> {
      const url = `${second.url}${call.path}`;
      if (actor.endsWith('Key')) return withKey(keys[actor]!, url, call.fields);
      const jar = actor === 'signedOut' ? createJar() : jars[people[actor as Person]]!;
      if (!call.fields) return getJson(jar, url);
      const form = formBody({ csrfToken: await csrfToken(jar, second), ...call.fields });
      return jar.fetch(url, { method: 'POST', body: form.body, headers: { ...form.headers, accept: 'application/json' } });
    }

    describe.each(matrix.map((entry) => [entry.route, entry] as const))('%s', (_route, entry) => {
      it.each(actors.map((actor) => [actor, entry.statuses[actor]] as const))('as %s: %i', async (actor, status) => {
        const call = await entry.call(actor);
        const before = await rowsOf(sql, acme.id);
        try {
          const response = await send(actor, call);
          const text = await response.text();
          expect(response.status, text).toBe(status);
          if (status === 401 && actor.endsWith('Key')) expect(text).toContain('invalid_token');
          if (status === 403 && actor.endsWith('Key') && call.path.startsWith('/auth/')) expect(JSON.parse(text)).toMatchObject({ error: 'insufficient_scope' });
          // Not a member: the answer of an organization that does not exist, never a hint that this one does.
          if (status === 404 && !call.path.includes('/invitations/')) expect(JSON.parse(text)).toMatchObject({ error: 'not_found', message: 'There is no such organization.' });
          if (call.path.startsWith('/orgs/') && status === 200) expect(JSON.parse(text)).toMatchObject({ role: actor === 'member' || actor === 'memberKey' ? 'member' : actor === 'admin' || actor === 'adminKey' ? 'admin' : 'owner' });
          if (status === 403 && call.path.startsWith('/orgs/')) expect(JSON.parse(text)).toEqual({ error: 'forbidden', permission: 'organization:delete', message: expect.any(String) });
          // A refusal changed nothing in the organization's rows.
          if (status >= 400) expect(await rowsOf(sql, acme.id)).toEqual(before);
        } finally {
          await restoreRows(sql, baseline);
        }
      });
    });

    it('answers a non-member as for an organization that does not exist, on each route', async () => {
      const mallory = jars['mallory']!;
      for (const path of [`/auth/organizations/${SLUG}`, `/orgs/${SLUG}`, `/orgs/${acme.id}`]) {
        const missing = await getJson(mallory, `${first.url}${path.replace(/acme|[0-9a-f-]{36}/, 'no-such-org')}`);
        const hidden = await getJson(mallory, `${first.url}${path}`);
        expect(hidden.status).toBe(404);
        expect([hidden.status, await hidden.text()]).toEqual([missing.status, await missing.text()]);
      }
    });

    describe('no one grants what they do not hold', () => {
      const attempts: readonly [string, Person, Record<string, string> | (() => Record<string, string>), number][] = [
        ['a member inviting', 'member', { action: 'invite', email: 'friend@example.test', role: 'member' }, 403],
        ['a member inviting an owner', 'member', { action: 'invite', email: 'friend@example.test', role: 'owner' }, 403],
        ['an admin inviting an owner', 'admin', { action: 'invite', email: 'boss@example.test', role: 'owner' }, 403],
        ['a member making themselves admin', 'member', () => ({ action: 'role', userId: jarsUser('linus'), role: 'admin' }), 403],
        ['a member making another admin', 'member', () => ({ action: 'role', userId: targetId, role: 'admin' }), 403],
        ['a member removing another', 'member', () => ({ action: 'remove', userId: targetId }), 403],
        ['an admin making a member owner', 'admin', () => ({ action: 'role', userId: targetId, role: 'owner' }), 403],
        ['an admin making themselves owner', 'admin', () => ({ action: 'role', userId: jarsUser('grace'), role: 'owner' }), 403],
        ['an admin demoting the owner', 'admin', () => ({ action: 'role', userId: jarsUser('ada'), role: 'member' }), 403],
        ['an admin removing the owner', 'admin', () => ({ action: 'remove', userId: jarsUser('ada') }), 403],
        ['an admin transferring ownership', 'admin', () => ({ action: 'transfer', userId: targetId }), 403],
        ['an admin deleting the organization', 'admin', { action: 'delete', confirm: SLUG }, 403],
        ['the last owner demoting themselves', 'owner', () => ({ action: 'role', userId: jarsUser('ada'), role: 'admin' }), 400],
        ['the last owner removing themselves', 'owner', () => ({ action: 'remove', userId: jarsUser('ada') }), 400],
      ];
      const ids: Record<string, string> = {};
      const jarsUser = (name: string): string => ids[name]!;

      beforeAll(async () => {
        for (const name of ['ada', 'grace', 'linus']) ids[name] = await userIdOf(emails[name]!);
      });

      it.each(attempts)('refuses %s, changing nothing', async (_name, person, fields, status) => {
        const before = await rowsOf(sql, acme.id);
        const count = smtp.messages.length;
        try {
          const response = await postJson(jars[people[person]]!, `organizations/${SLUG}`, typeof fields === 'function' ? fields() : fields, second);
          const answer = (await response.json()) as { error: string };
          expect(response.status, JSON.stringify(answer)).toBe(status);
          expect(answer.error).toBe(status === 400 ? 'last_owner' : 'forbidden');
          expect(await rowsOf(sql, acme.id)).toEqual(before);
          await new Promise((resolve) => setTimeout(resolve, 100));
          expect(smtp.messages.slice(count).map((message) => message.rcptTo)).toEqual([]);
        } finally {
          await restoreRows(sql, baseline);
        }
      });
    });

    it('sees a removal on the other process at once: the member\'s next request and their key for the organization get 404', async () => {
      const frank = await user('frank@example.test');
      expect(await accept(frank, (await invite(jars['ada']!, SLUG, 'frank@example.test', 'admin')).token)).toBe('admin');
      const key = await apiKey(frank, 'Frank for acme', SLUG);
      expect((await getJson(frank, `${second.url}/orgs/${SLUG}`)).status).toBe(200);
      expect((await withKey(key, `${second.url}/orgs/${SLUG}`)).status).toBe(200);

      const count = smtp.messages.length;
      expect((await postJson(jars['ada']!, `organizations/${SLUG}`, { action: 'remove', userId: await userIdOf('frank@example.test') })).status).toBe(200);
      for (const response of [await getJson(frank, `${second.url}/orgs/${SLUG}`), await withKey(key, `${second.url}/orgs/${SLUG}`), await getJson(frank, `${second.url}/auth/organizations/${SLUG}`)]) {
        expect(response.status).toBe(404);
        expect(await response.json()).toMatchObject({ error: 'not_found' });
      }
      // The key is still Frank's (the account's own routes take it), and acts in no organization.
      const session = (await (await withKey(key, `${second.url}/auth/session`)).json()) as { user: { email: string }; organization: unknown };
      expect(session.user.email).toBe('frank@example.test');
      expect(session.organization).toBeNull();
      // He is told, by a mail with no link in it.
      const notice = await messageTo(smtp, count, 'frank@example.test', /^You were removed from Acme/);
      expect(notice.text).not.toMatch(/https?:\/\/\S+\/auth\//);
    });
  });

  describe('invitations over HTTP', () => {
    const SLUG = 'invites';
    let owner: CookieJar;
    let mallory: CookieJar;
    let organizationId: string;

    beforeAll(async () => {
      owner = await user('ivy@example.test');
      mallory = await user('mal@example.test');
      organizationId = (await createOrganization(owner, 'Invites', SLUG)).id;
    }, 60_000);

    const isMember = async (email: string): Promise<boolean> => Object.keys(await membersOf(organizationId)).includes(await userIdOf(email));

    it('a scanner\'s GET changes nothing; another signed-in address is refused and the link stays usable; it works once', async () => {
      const kay = await user('kay@example.test');
      const { token } = await invite(owner, SLUG, 'kay@example.test', 'member');
      const before = await rowsOf(sql, organizationId);
      for (const app of [first, second]) {
        const scanned = await createJar().fetch(invitationUrl(token, app));
        expect(scanned.status).toBe(200);
        const page = await scanned.text();
        expect(page).toContain('Sign in with the address this invitation was sent to');
        // A forwarded link tells no address.
        expect(page).not.toContain('kay@example.test');
        const json = await (await getJson(createJar(), invitationUrl(token, app))).text();
        expect(JSON.parse(json)).toMatchObject({ invitation: { organization: { slug: SLUG, name: 'Invites' }, role: 'member', expiresAt: expect.any(String) }, mayAnswer: false });
        expect(json).not.toContain('kay@example.test');
      }
      expect(await rowsOf(sql, organizationId)).toEqual(before);

      // Someone else, signed in: the page says so, and their accept and decline are refused.
      expect(await (await mallory.fetch(invitationUrl(token))).text()).toContain('This invitation was sent to another address');
      expect(((await (await getJson(mallory, invitationUrl(token))).json()) as { mayAnswer: boolean }).mayAnswer).toBe(false);
      for (const action of ['accept', 'decline']) {
        const refused = await postJson(mallory, `organizations/invitations/${token}`, { action });
        expect(refused.status).toBe(403);
        expect(await refused.json()).toMatchObject({ error: 'forbidden' });
      }
      expect(await rowsOf(sql, organizationId)).toEqual(before);
      expect(await isMember('mal@example.test')).toBe(false);

      // Still usable by Kay, through the other process; then used up for everyone.
      expect(((await (await getJson(kay, invitationUrl(token, second))).json()) as { mayAnswer: boolean }).mayAnswer).toBe(true);
      expect(await accept(kay, token)).toBe('member');
      for (const jar of [kay, mallory]) expect((await postJson(jar, `organizations/invitations/${token}`, { action: 'accept' }, second)).status).toBe(404);
      expect((await createJar().fetch(invitationUrl(token))).status).toBe(404);
      expect(await isMember('kay@example.test')).toBe(true);
      expect(await isMember('mal@example.test')).toBe(false);
    });

    it('refuses an answer without the CSRF token, or with another one, and the link stays usable', async () => {
      const lou = await user('lou@example.test');
      const { token } = await invite(owner, SLUG, 'lou@example.test', 'admin');
      for (const csrf of [undefined, 'not-the-token']) {
        const form = formBody({ action: 'accept', ...(csrf === undefined ? {} : { csrfToken: csrf }) });
        const refused = await lou.fetch(invitationUrl(token), { method: 'POST', body: form.body, headers: { ...form.headers, accept: 'application/json' } });
        expect(refused.status).toBe(403);
        expect(await refused.json()).toMatchObject({ error: 'MissingCSRF' });
      }
      expect(await isMember('lou@example.test')).toBe(false);
      expect(await accept(lou, token)).toBe('admin');
    });

    it('refuses an expired invitation (its page and its answer)', async () => {
      const max = await user('max@example.test');
      const { id, token } = await invite(owner, SLUG, 'max@example.test', 'member');
      // As if its days had gone by: its expiry set to its creation.
      await sql.all('UPDATE organization_invitations SET expires_at = created_at WHERE id = ?', [id]);
      const page = await max.fetch(invitationUrl(token, second));
      expect(page.status).toBe(404);
      expect(await page.text()).toContain('no longer valid');
      expect((await postJson(max, `organizations/invitations/${token}`, { action: 'accept' })).status).toBe(404);
      expect(await isMember('max@example.test')).toBe(false);
      // The organization lists it no more.
      const listed = (await (await getJson(owner, `${first.url}/auth/organizations/${SLUG}`)).json()) as { invitations: { id: string }[] };
      expect(listed.invitations.map((invitation) => invitation.id)).not.toContain(id);
    });

    it('cancels an invitation: the link no longer works', async () => {
      const ned = await user('ned@example.test');
      const { id, token } = await invite(owner, SLUG, 'ned@example.test', 'member');
      expect((await postJson(owner, `organizations/${SLUG}`, { action: 'cancel-invitation', id }, second)).status).toBe(200);
      expect((await ned.fetch(invitationUrl(token))).status).toBe(404);
      expect((await postJson(ned, `organizations/invitations/${token}`, { action: 'accept' })).status).toBe(404);
      expect(await isMember('ned@example.test')).toBe(false);
      // A second cancel finds nothing.
      expect((await postJson(owner, `organizations/${SLUG}`, { action: 'cancel-invitation', id })).status).toBe(404);
    });

    it('replaces an earlier invitation to the same address; a declined one is gone', async () => {
      const oli = await user('oli@example.test');
      const older = await invite(owner, SLUG, 'oli@example.test', 'admin');
      const newer = await invite(owner, SLUG, 'oli@example.test', 'member');
      expect((await postJson(oli, `organizations/invitations/${older.token}`, { action: 'accept' })).status).toBe(404);
      const declined = await postJson(oli, `organizations/invitations/${newer.token}`, { action: 'decline' });
      expect(await declined.json()).toEqual({ declined: true });
      expect((await postJson(oli, `organizations/invitations/${newer.token}`, { action: 'accept' })).status).toBe(404);
      expect(await isMember('oli@example.test')).toBe(false);
    });
  });

  // Two processes on one PostgreSQL database: each change is checked and made in one transaction that locks the
  // organization, so two owners demoting or removing each other at once cannot leave it without one.
  if (adapter === 'postgres') {
    it('keeps an owner in each of 20 organizations whose two owners demote or remove each other at once, through the two processes', async () => {
      const aJar = await user('owner-a@example.test');
      const bJar = await user('owner-b@example.test');
      const [aId, bId] = [await userIdOf('owner-a@example.test'), await userIdOf('owner-b@example.test')];
      const organizations: string[] = [];
      for (let index = 0; index < 20; index += 1) {
        const { id } = await createOrganization(aJar, `Pair ${index}`, `pair-${index}`);
        // The second owner written beside the first (inviting 20 times would meet the inviter's rate limit).
        await insertRow(sql, 'organization_members', { organization_id: id, user_id: bId, role: 'owner', created_at: sql.time(Date.now()) });
        organizations.push(id);
      }
      const [aToken, bToken] = [await csrfToken(aJar, first), await csrfToken(bJar, second)];
      const post = (jar: CookieJar, app: RunningApp, token: string, slug: string, fields: Record<string, string>): Promise<number> => {
        const form = formBody({ csrfToken: token, ...fields });
        return jar.fetch(`${app.url}/auth/organizations/${slug}`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: 'application/json' } }).then((response) => response.status);
      };
      const change = (index: number, userId: string): Record<string, string> => (index % 2 === 0 ? { action: 'remove', userId } : { action: 'role', userId, role: 'member' });
      const outcomes = await Promise.all(
        organizations.map((_id, index) => Promise.all([post(aJar, first, aToken, `pair-${index}`, change(index, bId)), post(bJar, second, bToken, `pair-${index}`, change(index, aId))])),
      );
      for (const [index, id] of organizations.entries()) {
        const roles = Object.values(await membersOf(id));
        expect(roles.filter((role) => role === 'owner'), `pair-${index}: ${JSON.stringify(outcomes[index])}`).toHaveLength(1);
        // One change done; the other refused: the last owner (400), or no longer allowed (403, 404).
        expect(outcomes[index]!.filter((status) => status === 200), `pair-${index}`).toHaveLength(1);
        expect([400, 403, 404]).toContain(outcomes[index]!.find((status) => status !== 200));
      }
    }, 60_000);
  }

  // The pages are the same on both databases: Chromium drives the SQLite app.
  if (adapter === 'sqlite') {
    describe('in Chromium', () => {
      let browser: Browser;
      const contexts: (() => Promise<void>)[] = [];
      const keep = (close: () => Promise<void>): void => void contexts.push(close);

      beforeAll(async () => {
        browser = await launchChromium();
      }, 60_000);

      afterAll(async () => {
        for (const close of contexts.splice(0)) await close();
        await browser?.close();
      });

      /** axe-core on the page as it is, in the light and then the dark scheme: no violation of any impact. */
      async function expectAccessible(page: Page, name: string): Promise<void> {
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme });
          expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), 'the colour scheme is emulated').toBe(colorScheme === 'dark');
          await saveScreenshot(page, `organizations-e2e-${name}-${colorScheme}`);
          const results = await scanAccessibility(page);
          expect(results.passes.length, 'axe ran its checks').toBeGreaterThan(10);
          expect(violationsOf(results, ['critical', 'serious', 'moderate', 'minor']), `${name} in ${colorScheme}`).toEqual([]);
        }
      }

      /** Signs in on the open sign-in page (its callbackUrl decides where it lands). */
      async function signIn(page: Page, email: string): Promise<void> {
        await page.getByLabel('Email', { exact: true }).fill(email);
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        expect((await submitForm(page, 'Sign in', '/auth/callback/password')).status()).toBe(302);
      }

      it.each([
        ['with JavaScript', true, 'pia', 'quinn', 'Pia Labs', 'pia-labs'],
        ['without JavaScript', false, 'rae', 'sol', 'Rae & Sol', 'rae-sol'],
      ] as const)('creates an organization and invites by the forms; the invitee opens the mailed link in another browser and joins (%s)', async (_name, javaScriptEnabled, ownerName, inviteeName, name, slug) => {
        const [ownerEmail, inviteeEmail] = [`${ownerName}@example.test`, `${inviteeName}@example.test`];
        for (const email of [ownerEmail, inviteeEmail]) await signUpByMail(first, smtp, email, PASSWORD, `198.51.100.${(clients += 1)}`);
        // axe-core runs in the page: the pages are scanned in the run with JavaScript.
        const scan = (page: Page, step: string): Promise<void> => (javaScriptEnabled ? expectAccessible(page, step) : Promise.resolve());

        const { page } = await openPage(browser, keep, { javaScriptEnabled });
        await page.goto(`${first.url}/auth/signin?callbackUrl=%2Fauth%2Forganizations`);
        await signIn(page, ownerEmail);
        await page.waitForURL(`${first.url}/auth/organizations`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your organizations');
        await scan(page, 'list');

        await page.getByLabel('Name', { exact: true }).fill(name);
        expect((await submitForm(page, 'Create organization', '/auth/organizations')).status()).toBe(302);
        await page.waitForURL(`${first.url}/auth/organizations/${slug}?notice=created`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(name);
        await scan(page, 'organization');

        const count = smtp.messages.length;
        await page.getByLabel('Email address').fill(inviteeEmail);
        await page.getByLabel('Role', { exact: true }).selectOption('admin');
        expect((await submitForm(page, 'Send invitation', `/auth/organizations/${slug}`)).status()).toBe(302);
        expect(await page.getByText(inviteeEmail).first().isVisible()).toBe(true);
        await scan(page, 'invited');
        const link = INVITATION_LINK.exec((await messageTo(smtp, count, inviteeEmail, /^Join /)).text ?? '')![0];
        tokens.push(link.split('/').at(-1)!);
        expect(await page.content()).not.toContain(link.split('/').at(-1));

        // The invitee, in another browser: the link asks them to sign in, and brings them back.
        const invitee = (await openPage(browser, keep, { javaScriptEnabled })).page;
        await invitee.goto(link);
        expect(await invitee.getByRole('heading', { level: 1 }).textContent()).toBe(`Join ${name}`);
        await scan(invitee, 'invitation-signed-out');
        await invitee.getByRole('link', { name: 'Sign in', exact: true }).click();
        await invitee.waitForURL(/\/auth\/signin\?/);
        await signIn(invitee, inviteeEmail);
        await invitee.waitForURL(link);
        await scan(invitee, 'invitation');
        expect((await submitForm(invitee, 'Accept invitation', new URL(link).pathname)).status()).toBe(302);
        await invitee.waitForURL(`${first.url}/auth/organizations/${slug}?notice=joined`);
        expect(await invitee.getByRole('heading', { level: 1 }).textContent()).toBe(name);
        expect(await invitee.getByText('Your role: admin').isVisible()).toBe(true);
        await scan(invitee, 'joined');

        const orgs = await invitee.context().request.get(`${first.url}/orgs/${slug}`);
        expect(orgs.status()).toBe(200);
        expect(await orgs.json()).toEqual({ organization: { id: expect.any(String), slug, name }, role: 'admin' });
      });
    });
  }

  // Last, to search for every link the tests above mailed.
  it('stores no invitation link, only its SHA-256 digest; no log line holds one', async () => {
    expect(tokens.length).toBeGreaterThan(5);
    const stored = await storedText(mail);
    const logs = mail.apps.map((app) => app.output()).join('\n');
    const digests = (await sql.all('SELECT digest FROM organization_invitations')).map((row) => String(row['digest']));
    expect(digests.length).toBeGreaterThan(0);
    for (const digest of digests) expect(digest).toMatch(/^[0-9a-f]{64}$/);
    for (const token of tokens) {
      expect(stored).not.toContain(token);
      expect(stored).not.toContain(token.slice(0, 20));
      expect(logs).not.toContain(token.slice(0, 20));
    }
  });
});
