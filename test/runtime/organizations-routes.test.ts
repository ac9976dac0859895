// Organizations over HTTP (issue 48, SPEC §14): <mount>/organizations (list, create, switch, leave), an organization's
// page and its forms (invite, cancel-invitation, role, remove, update, transfer, delete) and the invitations' links,
// against an Express app on 127.0.0.1 with the memory adapter and SQLite (a temp file): the answers for owners, admins,
// members, strangers and signed-out visitors, the refusals of escalation, the last owner's protection, the
// invitations' rules (a GET changes nothing, only the invited proven address accepts, single use, expiry, cancel,
// replacement, rate limits), deletion, JSON and pages.
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import express, { urlencoded } from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { type OrganizationMessage, type OrganizationsOptions, type Permission, Organizations } from '../../templates/runtime/features/organizations/index.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import type { SecurityEvent } from '../../templates/runtime/features/security-events/index.js';
import { FrameworkAuth, createSessionLocals, getSession } from '../../templates/runtime/index.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Password from '../../templates/runtime/providers/password.js';
import { SECRET, memoryAndSqlite, recordingLogger, type MadeAdapter } from './helpers.js';

const PASSWORD = 'violet staple orbit lantern';
const DAY_MS = 24 * 60 * 60 * 1000;
const TOKEN_IN_LINK = /\/auth\/organizations\/invitations\/([A-Za-z0-9_-]{43})\b/;

interface Harness {
  url: string;
  adapter: Required<Adapter>;
  mails: OrganizationMessage[];
  events: SecurityEvent[];
  errors: Error[];
  close(): Promise<void>;
}

let passwordHash: string;

/** An app with the handler on /auth and /whoami (getSession), organizations' mail kept in `mails`. */
async function startHarness(made: MadeAdapter, options: { organizations?: OrganizationsOptions; env?: Record<string, string>; config?: Partial<FrameworkAuthConfig> } = {}): Promise<Harness> {
  const { errors, logger } = recordingLogger();
  const mails: OrganizationMessage[] = [];
  const events: SecurityEvent[] = [];
  const organizations = Organizations(
    {
      maxMembers: 4,
      roles: { developer: ['organization:read', 'project:create' as Permission] },
      allowUserToCreate: (user) => user.name !== 'no-create',
      ...(options.env ? {} : { sendMessage: (message: OrganizationMessage) => void mails.push(message) }),
      ...options.organizations,
    },
    options.env ?? {},
  );
  const config: FrameworkAuthConfig = {
    secret: SECRET,
    trustHost: ['127.0.0.1'],
    adapter: made.adapter,
    providers: [Password({ sendMessage: () => {} })],
    features: [organizations],
    logger,
    events: { onSecurityEvent: (event) => void events.push(event) },
    rateLimit: { credentialsPerClient: false, passwordEmailPerClient: false },
    ...options.config,
  };
  const app = express();
  app.use(urlencoded({ extended: true }));
  app.use('/auth/*splat', FrameworkAuth(config));
  app.use(createSessionLocals(config));
  app.get('/whoami', async (req, res) => void res.json(await getSession(req, config)));
  const running: RunningApp = await listen(app);
  return {
    url: running.url,
    adapter: made.adapter as Required<Adapter>,
    mails,
    events,
    errors,
    async close() {
      await running.close();
      if (made.folder) await rm(made.folder, { recursive: true, force: true });
    },
  };
}

interface TestUser {
  id: string;
  email: string;
  jar: CookieJar;
}

let users = 0;
/**
 * A user with a password, signed in; with `verified: false` their address is no longer proven once signed in (as a
 * user of a provider that does not prove it would be).
 */
async function newUser(h: Harness, name = 'user', verified = true): Promise<TestUser> {
  users += 1;
  const email = `${name}-${users}@example.test`;
  const created = await h.adapter.createUser({ id: crypto.randomUUID(), email, name, emailVerified: new Date() });
  await h.adapter.setPasswordHash(created.id, passwordHash);
  const jar = createJar();
  const response = await jar.fetch(`${h.url}/auth/callback/password`, { method: 'POST', ...formBody({ csrfToken: await csrfOf(h, jar), email, password: PASSWORD }) });
  expect(response.status).toBe(302);
  if (!verified) await h.adapter.updateUser({ id: created.id, emailVerified: null });
  return { id: created.id, email, jar };
}

async function csrfOf(h: Harness, jar: CookieJar): Promise<string> {
  return ((await (await jar.fetch(`${h.url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

const accept = (json: boolean): string => (json ? 'application/json' : 'text/html');

function get(h: Harness, jar: CookieJar, path: string, json = true): Promise<Response> {
  return jar.fetch(`${h.url}/auth/${path}`, { headers: { accept: accept(json) } });
}

/** POSTs a form with the jar's CSRF token (unless `csrfToken` is given, or null to send none). */
async function post(h: Harness, jar: CookieJar, path: string, fields: Record<string, string | null | undefined>, json = true): Promise<Response> {
  const { csrfToken, ...rest } = fields;
  const token = csrfToken === null ? undefined : (csrfToken ?? (await csrfOf(h, jar)));
  const form = formBody({ ...(token === undefined ? {} : { csrfToken: token }), ...(rest as Record<string, string | undefined>) });
  return jar.fetch(`${h.url}/auth/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: accept(json) } });
}

interface Created {
  id: string;
  slug: string;
  name: string;
}

let organizations = 0;
async function createOrganization(h: Harness, owner: TestUser, name?: string): Promise<Created> {
  organizations += 1;
  const response = await post(h, owner.jar, 'organizations', { action: 'create', name: name ?? `Team ${organizations}`, slug: `team-${organizations}` });
  expect(response.status).toBe(201);
  return (await response.json()) as Created;
}

/** Waits for the message to `to` that the route sends after its answer. */
async function mailTo(h: Harness, to: string, kind: OrganizationMessage['kind'] = 'invitation'): Promise<OrganizationMessage> {
  for (let turn = 0; turn < 200; turn++) {
    const found = h.mails.findLast((mail) => mail.to === to && mail.kind === kind);
    if (found) return found;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`no ${kind} message to ${to}`);
}

/** Invites `email` as `role` from `inviter` and answers the link's token, read from the message. */
async function invite(h: Harness, inviter: TestUser, organization: Created, email: string, role = 'member'): Promise<string> {
  const before = h.mails.length;
  const response = await post(h, inviter.jar, `organizations/${organization.slug}`, { action: 'invite', email, role });
  expect(response.status).toBe(201);
  for (let turn = 0; turn < 200 && h.mails.length === before; turn++) await new Promise((resolve) => setImmediate(resolve));
  return TOKEN_IN_LINK.exec((await mailTo(h, email)).text)![1]!;
}

/** A new signed-in member of `organization` with `role`, through an invitation the owner sends and they accept. */
async function newMember(h: Harness, owner: TestUser, organization: Created, role: string, name = role): Promise<TestUser> {
  const user = await newUser(h, name);
  const token = await invite(h, owner, organization, user.email, role);
  expect((await post(h, user.jar, `organizations/invitations/${token}`, { action: 'accept' })).status).toBe(200);
  return user;
}

async function rolesOf(h: Harness, organization: Created): Promise<Record<string, string>> {
  return Object.fromEntries((await h.adapter.listMembers(organization.id)).map((member) => [member.userId, member.role]));
}

const digestOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/** An organization with its owner, an admin and a member, each signed in. */
async function team(h: Harness): Promise<{ organization: Created; owner: TestUser; admin: TestUser; member: TestUser }> {
  const owner = await newUser(h, 'owner');
  const organization = await createOrganization(h, owner);
  const admin = await newMember(h, owner, organization, 'admin');
  const member = await newMember(h, owner, organization, 'member');
  return { organization, owner, admin, member };
}

beforeAll(async () => {
  passwordHash = await hashPassword(PASSWORD);
});

afterEach(() => {
  vi.useRealTimers();
});

describe.each(memoryAndSqlite)('organizations routes with %s', (_name, makeAdapter) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(await makeAdapter());
  });
  afterAll(() => h.close());

  describe('GET <mount>/organizations', () => {
    it('asks a visitor to sign in: 401 JSON, a redirect to the sign-in page coming back here', async () => {
      const jar = createJar();
      const json = await get(h, jar, 'organizations');
      expect(json.status).toBe(401);
      const page = await get(h, jar, 'organizations', false);
      expect(page.status).toBe(302);
      expect(page.headers.get('location')).toBe(`${h.url}/auth/signin?callbackUrl=${encodeURIComponent(`${h.url}/auth/organizations`)}`);
    });

    it('lists the memberships with their roles and the active one, the invitations to the proven address, and whether the user may create', async () => {
      const { organization, owner, member } = await team(h);
      const other = await createOrganization(h, owner);
      await invite(h, owner, other, member.email, 'admin');
      const listed = (await (await get(h, member.jar, 'organizations')).json()) as { organizations: unknown[]; invitations: { organization: { slug: string }; role: string }[]; mayCreate: boolean };
      expect(listed.organizations).toEqual([{ id: organization.id, slug: organization.slug, name: organization.name, role: 'member', active: true }]);
      expect(listed.invitations).toMatchObject([{ organization: { slug: other.slug }, role: 'admin' }]);
      expect(listed.mayCreate).toBe(true);
      const ownerList = (await (await get(h, owner.jar, 'organizations')).json()) as { organizations: { slug: string; role: string; active: boolean }[] };
      expect(ownerList.organizations.map(({ slug, role, active }) => [slug, role, active])).toEqual([
        [organization.slug, 'owner', false],
        [other.slug, 'owner', true],
      ]);
      const page = await get(h, member.jar, 'organizations', false);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(organization.name);
    });

    it('lists no invitation to an address that is not proven', async () => {
      const owner = await newUser(h, 'owner');
      const organization = await createOrganization(h, owner);
      const unproven = await newUser(h, 'unproven', false);
      await invite(h, owner, organization, unproven.email);
      const listed = (await (await get(h, unproven.jar, 'organizations')).json()) as { invitations: unknown[] };
      expect(listed.invitations).toEqual([]);
    });
  });

  describe('POST <mount>/organizations action=create', () => {
    it('creates the organization with its creator as owner and makes it the session’s active one (201 JSON)', async () => {
      const owner = await newUser(h, 'owner');
      const response = await post(h, owner.jar, 'organizations', { action: 'create', name: 'Acme Labs', slug: `acme-${users}` });
      expect(response.status).toBe(201);
      const created = (await response.json()) as Created;
      expect(created).toEqual({ id: expect.any(String), slug: `acme-${users}`, name: 'Acme Labs' });
      expect(await rolesOf(h, created)).toEqual({ [owner.id]: 'owner' });
      const session = (await (await owner.jar.fetch(`${h.url}/whoami`)).json()) as { organization: unknown };
      expect(session.organization).toEqual({ id: created.id, slug: created.slug, name: 'Acme Labs', role: 'owner' });
      expect(h.events.find((event) => event.type === 'organization-created' && event.userId === owner.id)).toMatchObject({ organizationId: created.id });
    });

    it('derives the slug from the name when none is sent, and a form is sent to the new organization’s page', async () => {
      const owner = await newUser(h, 'owner');
      const name = `Ça Marche ${users}!`;
      const response = await post(h, owner.jar, 'organizations', { action: 'create', name }, false);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/organizations/ca-marche-${users}?notice=created`);
      expect(await h.adapter.getOrganization(`ca-marche-${users}`)).toMatchObject({ name });
    });

    const refusals: readonly [string, Record<string, string>, string][] = [
      ['no name', { name: ' ' }, 'name'],
      ['a name over 100 characters', { name: 'x'.repeat(101) }, 'name'],
      ['a slug of one character', { name: 'Fine', slug: 'a' }, 'slug'],
      ['a slug with capitals', { name: 'Fine', slug: 'Acme' }, 'slug'],
      ['a slug over 48 characters', { name: 'Fine', slug: 'a'.repeat(49) }, 'slug'],
      ['the reserved slug "invitations"', { name: 'Fine', slug: 'invitations' }, 'slug'],
      ['a slug shaped like an organization id (a UUID), which a route could take for another organization', { name: 'Fine', slug: '0b9a6c1e-3f2d-4e5a-8b7c-9d0e1f2a3b4c' }, 'slug'],
      ['a name with no letter or digit to derive a slug from', { name: '!!!' }, 'slug'],
    ];
    it.each(refusals)('refuses %s: 400 with the error on its field, nothing created', async (_case, fields, field) => {
      const owner = await newUser(h, 'owner');
      const response = await post(h, owner.jar, 'organizations', { action: 'create', ...fields });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { errors: Record<string, string> };
      expect(Object.keys(body.errors)).toContain(field);
      expect(await h.adapter.listMemberships(owner.id)).toEqual([]);
    });

    it('refuses a taken slug on the slug field, as JSON and as the page', async () => {
      const owner = await newUser(h, 'owner');
      const first = await createOrganization(h, owner);
      const json = await post(h, owner.jar, 'organizations', { action: 'create', name: 'Again', slug: first.slug });
      expect(json.status).toBe(400);
      expect(((await json.json()) as { errors: { slug: string } }).errors.slug).toContain('taken');
      const page = await post(h, owner.jar, 'organizations', { action: 'create', name: 'Again', slug: first.slug }, false);
      expect(page.status).toBe(400);
      expect(await page.text()).toContain(`The slug &quot;${first.slug}&quot; is taken`);
      expect(await h.adapter.listMemberships(owner.id)).toHaveLength(1);
    });

    it('refuses a user whom allowUserToCreate refuses: 403', async () => {
      const user = await newUser(h, 'no-create');
      expect(((await (await get(h, user.jar, 'organizations')).json()) as { mayCreate: boolean }).mayCreate).toBe(false);
      const response = await post(h, user.jar, 'organizations', { action: 'create', name: 'Nope', slug: `nope-${users}` });
      expect(response.status).toBe(403);
      expect(await h.adapter.getOrganization(`nope-${users}`)).toBeNull();
    });

    it('refuses a POST without the CSRF token, creating nothing', async () => {
      const owner = await newUser(h, 'owner');
      const response = await post(h, owner.jar, 'organizations', { csrfToken: null, action: 'create', name: 'No token', slug: `no-token-${users}` });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(await h.adapter.getOrganization(`no-token-${users}`)).toBeNull();
    });
  });

  describe('POST <mount>/organizations action=switch and action=leave', () => {
    it('switches the active organization by slug or id; an organization the user is not in is 404 and changes nothing', async () => {
      const owner = await newUser(h, 'owner');
      const first = await createOrganization(h, owner);
      const second = await createOrganization(h, owner);
      const activeOf = async (user: TestUser) => ((await (await user.jar.fetch(`${h.url}/whoami`)).json()) as { organization: { slug: string } | null }).organization?.slug;
      expect(await activeOf(owner)).toBe(second.slug);
      expect((await post(h, owner.jar, 'organizations', { action: 'switch', organization: first.slug })).status).toBe(200);
      expect(await activeOf(owner)).toBe(first.slug);
      expect((await post(h, owner.jar, 'organizations', { action: 'switch', organization: second.id })).status).toBe(200);
      expect(await activeOf(owner)).toBe(second.slug);
      const stranger = await newUser(h, 'stranger');
      const mine = await createOrganization(h, stranger);
      const refused = await post(h, stranger.jar, 'organizations', { action: 'switch', organization: first.slug });
      expect(refused.status).toBe(404);
      expect(await refused.json()).toEqual({ error: 'not_found', message: 'There is no such organization.' });
      expect(await activeOf(stranger)).toBe(mine.slug);
    });

    it('lets a member leave: no longer a member, member-left recorded', async () => {
      const { organization, member } = await team(h);
      const response = await post(h, member.jar, 'organizations', { action: 'leave', organization: organization.slug });
      expect(response.status).toBe(200);
      expect((await rolesOf(h, organization))[member.id]).toBeUndefined();
      expect((await get(h, member.jar, `organizations/${organization.slug}`)).status).toBe(404);
      const events = await h.adapter.listOrganizationEvents(organization.id, 10);
      expect(events[0]).toMatchObject({ type: 'member-left', actorId: member.id });
    });

    it('refuses the last owner’s leaving: 400 naming transfer and delete, still the owner', async () => {
      const { organization, owner } = await team(h);
      const response = await post(h, owner.jar, 'organizations', { action: 'leave', organization: organization.slug });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; message: string };
      expect(body.error).toBe('last_owner');
      expect(body.message).toMatch(/transfer ownership/);
      expect(body.message).toMatch(/delete the organization/);
      expect((await rolesOf(h, organization))[owner.id]).toBe('owner');
    });
  });

  describe('GET <mount>/organizations/<slug>', () => {
    it('shows an owner the members, the pending invitations, the events and the permissions', async () => {
      const { organization, owner, admin, member } = await team(h);
      await invite(h, owner, organization, `pending-${users}@example.test`);
      const body = (await (await get(h, owner.jar, `organizations/${organization.slug}`)).json()) as Record<string, unknown> & { members: { userId: string; role: string }[]; invitations: unknown[]; events: { type: string }[]; permissions: string[] };
      expect(body['organization']).toMatchObject({ id: organization.id, slug: organization.slug, name: organization.name });
      expect(body['role']).toBe('owner');
      expect(body.members.map(({ userId, role }) => [userId, role])).toEqual([
        [owner.id, 'owner'],
        [admin.id, 'admin'],
        [member.id, 'member'],
      ]);
      expect(body.invitations).toHaveLength(1);
      expect(body.events.map((event) => event.type)).toContain('member-joined');
      expect(body.permissions).toContain('organization:delete');
    });

    it('shows an admin the invitations and events, and a member neither', async () => {
      const { organization, admin, member } = await team(h);
      const asAdmin = (await (await get(h, admin.jar, `organizations/${organization.slug}`)).json()) as Record<string, unknown>;
      expect(asAdmin['invitations']).toEqual([]);
      expect(asAdmin['events']).toEqual(expect.any(Array));
      const asMember = (await (await get(h, member.jar, `organizations/${organization.slug}`)).json()) as Record<string, unknown>;
      expect(asMember['role']).toBe('member');
      expect(asMember['permissions']).toEqual(['organization:read']);
      expect(asMember).not.toHaveProperty('invitations');
      expect(asMember).not.toHaveProperty('events');
      const page = await get(h, member.jar, `organizations/${organization.slug}`, false);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(organization.name);
    });

    it('answers a stranger 404 for an organization that exists, the same as for one that does not (JSON and page)', async () => {
      const { organization } = await team(h);
      const stranger = await newUser(h, 'stranger');
      const existing = await get(h, stranger.jar, `organizations/${organization.slug}`);
      const missing = await get(h, stranger.jar, 'organizations/no-such-organization');
      expect(existing.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(await existing.text()).toBe(await missing.text());
      const existingPage = await get(h, stranger.jar, `organizations/${organization.id}`, false);
      const missingPage = await get(h, stranger.jar, 'organizations/no-such-organization', false);
      expect(existingPage.status).toBe(404);
      expect(missingPage.status).toBe(404);
      const withoutCsrf = (text: string) => text.replace(/name="csrfToken" value="[^"]*"/g, '');
      expect(withoutCsrf(await existingPage.text())).toBe(withoutCsrf(await missingPage.text()));
      expect((await get(h, stranger.jar, 'organizations/invitations')).status).toBe(404);
    });

    it('answers a stranger’s POST 404 whatever the action, changing nothing', async () => {
      const { organization, member } = await team(h);
      const stranger = await newUser(h, 'stranger');
      for (const fields of [{ action: 'invite', email: 'x@example.test', role: 'member' }, { action: 'remove', userId: member.id }, { action: 'delete', confirm: organization.slug }, { action: 'nonsense' }]) {
        const response = await post(h, stranger.jar, `organizations/${organization.slug}`, fields);
        expect(response.status).toBe(404);
      }
      expect(Object.keys(await rolesOf(h, organization))).toHaveLength(3);
    });

    it('asks a visitor to sign in, coming back to the page', async () => {
      const { organization } = await team(h);
      const response = await get(h, createJar(), `organizations/${organization.slug}`, false);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toContain(encodeURIComponent(`/auth/organizations/${organization.slug}`));
    });
  });

  describe('action=invite', () => {
    it('mails a link of 256 random bits to the address; the page, the answer and the logs never hold it; only its SHA-256 is stored', async () => {
      const { organization, owner } = await team(h);
      const email = `new-${users}@example.test`;
      const response = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'invite', email: ` New-${users}@Example.TEST `, role: 'member' });
      expect(response.status).toBe(201);
      const answer = await response.text();
      const mail = await mailTo(h, email);
      const token = TOKEN_IN_LINK.exec(mail.text)![1]!;
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      expect(mail.text).toContain(`${h.url}/auth/organizations/invitations/${token}`);
      expect(mail.text).toContain(organization.name);
      expect(answer).not.toContain(token);
      expect(JSON.parse(answer)).toMatchObject({ invitation: { email, role: 'member' } });
      const page = await (await get(h, owner.jar, `organizations/${organization.slug}`, false)).text();
      const json = await (await get(h, owner.jar, `organizations/${organization.slug}`)).text();
      expect(page).toContain(email);
      expect(page).not.toContain(token);
      expect(json).not.toContain(token);
      expect(h.errors.map((error) => `${error.message} ${String(error.cause)}`).join('\n')).not.toContain(token);
      expect(await h.adapter.getInvitation(digestOf(token))).toMatchObject({ email, role: 'member', inviterId: owner.id });
      const events = await h.adapter.listOrganizationEvents(organization.id, 10);
      expect(events[0]).toMatchObject({ type: 'member-invited', detail: 'member' });
      expect(events.map((event) => event.detail ?? '').join(' ')).not.toContain('@');
    });

    it('refuses a member whose role lacks member:invite: 403 forbidden naming the permission (JSON and page)', async () => {
      const { organization, member } = await team(h);
      const json = await post(h, member.jar, `organizations/${organization.slug}`, { action: 'invite', email: `x-${users}@example.test`, role: 'member' });
      expect(json.status).toBe(403);
      expect(await json.json()).toMatchObject({ error: 'forbidden', permission: 'member:invite' });
      const page = await post(h, member.jar, `organizations/${organization.slug}`, { action: 'invite', email: `x-${users}@example.test`, role: 'admin' }, false);
      expect(page.status).toBe(403);
      expect(await page.text()).toContain('does not let you invite');
      expect(await h.adapter.listInvitations(organization.id, new Date())).toEqual([]);
    });

    it('refuses an admin inviting as owner, or as a role with a permission admin lacks; lets them invite as admin', async () => {
      const { organization, admin } = await team(h);
      const asOwner = await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'invite', email: `o-${users}@example.test`, role: 'owner' });
      expect(asOwner.status).toBe(403);
      expect(await asOwner.json()).toMatchObject({ error: 'forbidden', role: 'owner' });
      const asDeveloper = await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'invite', email: `d-${users}@example.test`, role: 'developer' });
      expect(asDeveloper.status).toBe(403);
      expect(await h.adapter.listInvitations(organization.id, new Date())).toEqual([]);
      await invite(h, admin, organization, `a-${users}@example.test`, 'admin');
      expect(await h.adapter.listInvitations(organization.id, new Date())).toHaveLength(1);
    });

    it('refuses a bad address, an unknown role and a member’s address, each on its field', async () => {
      const { organization, owner, member } = await team(h);
      const path = `organizations/${organization.slug}`;
      const bad = await post(h, owner.jar, path, { action: 'invite', email: 'Ada <ada@example.test>', role: 'member' });
      expect(bad.status).toBe(400);
      expect(Object.keys(((await bad.json()) as { errors: object }).errors)).toEqual(['email']);
      const role = await post(h, owner.jar, path, { action: 'invite', email: `r-${users}@example.test`, role: 'boss' });
      expect(role.status).toBe(400);
      expect(Object.keys(((await role.json()) as { errors: object }).errors)).toEqual(['role']);
      const already = await post(h, owner.jar, path, { action: 'invite', email: member.email.toUpperCase(), role: 'member' }, false);
      expect(already.status).toBe(400);
      expect(await already.text()).toContain('already a member');
      expect(await h.adapter.listInvitations(organization.id, new Date())).toEqual([]);
    });

    it('counts pending invitations against maxMembers (4 here): over it, refused', async () => {
      const { organization, owner } = await team(h);
      await invite(h, owner, organization, `fourth-${users}@example.test`);
      const response = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'invite', email: `fifth-${users}@example.test`, role: 'member' });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain('the most it may have');
      expect(await h.adapter.listInvitations(organization.id, new Date())).toHaveLength(1);
    });

    it('replaces an earlier invitation to the same address: the older link no longer works', async () => {
      const owner = await newUser(h, 'owner');
      const organization = await createOrganization(h, owner);
      const invited = await newUser(h, 'invited');
      const older = await invite(h, owner, organization, invited.email, 'member');
      const newer = await invite(h, owner, organization, invited.email, 'admin');
      expect(older).not.toBe(newer);
      expect((await get(h, invited.jar, `organizations/invitations/${older}`)).status).toBe(404);
      expect((await post(h, invited.jar, `organizations/invitations/${older}`, { action: 'accept' })).status).toBe(404);
      expect((await post(h, invited.jar, `organizations/invitations/${newer}`, { action: 'accept' })).status).toBe(200);
      expect((await rolesOf(h, organization))[invited.id]).toBe('admin');
    });
  });

  describe('action=cancel-invitation', () => {
    it('lets an admin cancel an invitation, whose link then answers 404; a member is refused 403', async () => {
      const { organization, owner, admin, member } = await team(h);
      const invited = await newUser(h, 'invited');
      const token = await invite(h, owner, organization, invited.email);
      const [pending] = await h.adapter.listInvitations(organization.id, new Date());
      const refused = await post(h, member.jar, `organizations/${organization.slug}`, { action: 'cancel-invitation', id: pending!.id });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: 'forbidden', permission: 'invitation:cancel' });
      expect((await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'cancel-invitation', id: pending!.id })).status).toBe(200);
      expect((await get(h, invited.jar, `organizations/invitations/${token}`)).status).toBe(404);
      expect((await post(h, invited.jar, `organizations/invitations/${token}`, { action: 'accept' })).status).toBe(404);
      expect((await rolesOf(h, organization))[invited.id]).toBeUndefined();
      expect((await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'cancel-invitation', id: pending!.id })).status).toBe(404);
    });
  });

  describe('action=role', () => {
    it('lets an owner make a member an admin', async () => {
      const { organization, owner, member } = await team(h);
      const response = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'role', userId: member.id, role: 'admin' });
      expect(response.status).toBe(200);
      expect((await rolesOf(h, organization))[member.id]).toBe('admin');
      expect((await h.adapter.listOrganizationEvents(organization.id, 1))[0]).toMatchObject({ type: 'member-role-changed', subjectId: member.id, detail: 'member → admin' });
    });

    it('refuses a member promoting themselves: 403 member:role', async () => {
      const { organization, member } = await team(h);
      const response = await post(h, member.jar, `organizations/${organization.slug}`, { action: 'role', userId: member.id, role: 'admin' });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: 'forbidden', permission: 'member:role' });
      expect((await rolesOf(h, organization))[member.id]).toBe('member');
    });

    it('refuses an admin making anyone an owner, themselves included', async () => {
      const { organization, admin, member } = await team(h);
      for (const userId of [member.id, admin.id]) {
        const response = await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'role', userId, role: 'owner' });
        expect(response.status).toBe(403);
        expect(await response.json()).toMatchObject({ error: 'forbidden', role: 'owner' });
      }
      const roles = await rolesOf(h, organization);
      expect([roles[member.id], roles[admin.id]]).toEqual(['member', 'admin']);
    });

    it('refuses an admin demoting an owner, and giving a role with a permission admin lacks', async () => {
      const { organization, owner, admin, member } = await team(h);
      const demote = await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'role', userId: owner.id, role: 'member' }, false);
      expect(demote.status).toBe(403);
      expect(await demote.text()).toContain('Only an owner makes or demotes an owner');
      const developer = await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'role', userId: member.id, role: 'developer' });
      expect(developer.status).toBe(403);
      const roles = await rolesOf(h, organization);
      expect([roles[owner.id], roles[member.id]]).toEqual(['owner', 'member']);
    });

    it('refuses demoting the last owner: 400 last_owner, still the owner', async () => {
      const { organization, owner } = await team(h);
      const response = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'role', userId: owner.id, role: 'admin' });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'last_owner' });
      expect((await rolesOf(h, organization))[owner.id]).toBe('owner');
    });

    it('refuses an unknown role (400, on role) and someone who is not a member (404)', async () => {
      const { organization, owner, member } = await team(h);
      const unknown = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'role', userId: member.id, role: 'boss' });
      expect(unknown.status).toBe(400);
      expect(Object.keys(((await unknown.json()) as { errors: object }).errors)).toEqual(['role']);
      const stranger = await newUser(h, 'stranger');
      expect((await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'role', userId: stranger.id, role: 'admin' })).status).toBe(404);
    });
  });

  describe('action=remove', () => {
    it('lets an admin remove a member, who loses the access on the next request and gets a notice by mail', async () => {
      const { organization, admin, member } = await team(h);
      expect((await get(h, member.jar, `organizations/${organization.slug}`)).status).toBe(200);
      const response = await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'remove', userId: member.id });
      expect(response.status).toBe(200);
      expect((await get(h, member.jar, `organizations/${organization.slug}`)).status).toBe(404);
      const session = (await (await member.jar.fetch(`${h.url}/whoami`)).json()) as { organization: unknown };
      expect(session.organization).toBeNull();
      const notice = await mailTo(h, member.email, 'member-removed');
      expect(notice.text).toContain(organization.name);
      expect(notice.text).not.toContain('/invitations/');
      expect((await h.adapter.listOrganizationEvents(organization.id, 1))[0]).toMatchObject({ type: 'member-removed', actorId: admin.id, subjectId: member.id });
    });

    it('refuses a member removing anyone (403 member:remove) and an admin removing an owner (403)', async () => {
      const { organization, owner, admin, member } = await team(h);
      const byMember = await post(h, member.jar, `organizations/${organization.slug}`, { action: 'remove', userId: admin.id });
      expect(byMember.status).toBe(403);
      expect(await byMember.json()).toMatchObject({ error: 'forbidden', permission: 'member:remove' });
      const byAdmin = await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'remove', userId: owner.id });
      expect(byAdmin.status).toBe(403);
      expect(Object.keys(await rolesOf(h, organization))).toHaveLength(3);
    });

    it('refuses removing the last owner (400), and lets an owner remove another owner', async () => {
      const { organization, owner, admin } = await team(h);
      const last = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'remove', userId: owner.id });
      expect(last.status).toBe(400);
      expect(await last.json()).toMatchObject({ error: 'last_owner' });
      expect((await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'role', userId: admin.id, role: 'owner' })).status).toBe(200);
      expect((await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'remove', userId: admin.id })).status).toBe(200);
      expect(await rolesOf(h, organization)).not.toHaveProperty(admin.id);
    });
  });

  describe('action=update', () => {
    it('lets an admin rename the organization; refuses a member (403) and an empty name (400 on name)', async () => {
      const { organization, admin, member } = await team(h);
      const path = `organizations/${organization.slug}`;
      expect((await post(h, member.jar, path, { action: 'update', name: 'Taken over' })).status).toBe(403);
      const empty = await post(h, admin.jar, path, { action: 'update', name: '' });
      expect(empty.status).toBe(400);
      expect(Object.keys(((await empty.json()) as { errors: object }).errors)).toEqual(['name']);
      const renamed = await post(h, admin.jar, path, { action: 'update', name: 'Renamed' }, false);
      expect(renamed.status).toBe(302);
      expect(renamed.headers.get('location')).toBe(`${h.url}/auth/organizations/${organization.slug}?notice=updated`);
      expect(await h.adapter.getOrganization(organization.id)).toMatchObject({ name: 'Renamed' });
    });
  });

  describe('action=transfer', () => {
    it('makes the member an owner and the owner an admin', async () => {
      const { organization, owner, member } = await team(h);
      const response = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'transfer', userId: member.id });
      expect(response.status).toBe(200);
      const roles = await rolesOf(h, organization);
      expect([roles[member.id], roles[owner.id]]).toEqual(['owner', 'admin']);
    });

    it('refuses an admin (403) and a user who is not a member (404)', async () => {
      const { organization, owner, admin } = await team(h);
      const byAdmin = await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'transfer', userId: admin.id });
      expect(byAdmin.status).toBe(403);
      expect(await byAdmin.json()).toMatchObject({ error: 'forbidden', role: 'owner' });
      const stranger = await newUser(h, 'stranger');
      expect((await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'transfer', userId: stranger.id })).status).toBe(404);
      expect((await rolesOf(h, organization))[owner.id]).toBe('owner');
    });
  });

  describe('action=delete', () => {
    it('refuses an admin (403) and an owner who does not type the slug (400 on confirm)', async () => {
      const { organization, owner, admin } = await team(h);
      const byAdmin = await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'delete', confirm: organization.slug });
      expect(byAdmin.status).toBe(403);
      expect(await byAdmin.json()).toMatchObject({ error: 'forbidden', permission: 'organization:delete' });
      for (const confirm of [undefined, 'yes', organization.name]) {
        const response = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'delete', confirm });
        expect(response.status).toBe(400);
        expect(Object.keys(((await response.json()) as { errors: object }).errors)).toEqual(['confirm']);
      }
      expect(await h.adapter.getOrganization(organization.id)).not.toBeNull();
    });

    it('asks for a recent authentication: 401 reauthentication_required to JSON, a redirect to <mount>/reauth for a form', async () => {
      const { organization, owner } = await team(h);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 11 * 60 * 1000);
      const json = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'delete', confirm: organization.slug });
      expect(json.status).toBe(401);
      expect(await json.json()).toMatchObject({ error: 'reauthentication_required' });
      const form = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'delete', confirm: organization.slug }, false);
      expect(form.status).toBe(302);
      expect(form.headers.get('location')).toBe(`${h.url}/auth/reauth?callbackUrl=${encodeURIComponent(`${h.url}/auth/organizations/${organization.slug}`)}`);
      expect(await h.adapter.getOrganization(organization.id)).not.toBeNull();
    });

    it('deletes the organization with its memberships, invitations and events, and ends nobody’s session', async () => {
      const { organization, owner, member } = await team(h);
      const invited = await newUser(h, 'invited');
      const token = await invite(h, owner, organization, invited.email);
      expect(await h.adapter.listOrganizationEvents(organization.id, 50)).not.toEqual([]);
      const response = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'delete', confirm: organization.slug }, false);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/organizations?notice=deleted`);
      expect(await h.adapter.getOrganization(organization.id)).toBeNull();
      expect(await h.adapter.listMembers(organization.id)).toEqual([]);
      expect(await h.adapter.listMemberships(member.id)).toEqual([]);
      expect(await h.adapter.getInvitation(digestOf(token))).toBeNull();
      expect(await h.adapter.listOrganizationEvents(organization.id, 50)).toEqual([]);
      expect((await get(h, member.jar, `organizations/${organization.slug}`)).status).toBe(404);
      for (const user of [owner, member]) {
        const session = (await (await user.jar.fetch(`${h.url}/whoami`)).json()) as { user: { email: string }; organization: unknown };
        expect(session.user.email).toBe(user.email);
        expect(session.organization).toBeNull();
      }
      expect(h.events.find((event) => event.type === 'organization-deleted' && event.userId === owner.id)).toMatchObject({ organizationId: organization.id });
    });
  });

  describe('the invitation’s link', () => {
    it('shows a visitor the invitation with sign-in and sign-up links that come back, and changes nothing', async () => {
      const { organization, owner } = await team(h);
      const invited = await newUser(h, 'invited');
      const token = await invite(h, owner, organization, invited.email, 'admin');
      const here = `${h.url}/auth/organizations/invitations/${token}`;
      const response = await get(h, createJar(), `organizations/invitations/${token}`, false);
      expect(response.status).toBe(200);
      const page = await response.text();
      expect(page).toContain(organization.name);
      expect(page).toContain('owner');
      expect(page).toContain(`/auth/signin?callbackUrl=${encodeURIComponent(here)}`.replace(/&/g, '&amp;'));
      expect(page).toContain(`/auth/signup?callbackUrl=${encodeURIComponent(here)}`.replace(/&/g, '&amp;'));
      expect(await h.adapter.getInvitation(digestOf(token))).not.toBeNull();
      expect((await rolesOf(h, organization))[invited.id]).toBeUndefined();
    });

    it('changes nothing on a GET by the invited user: still pending, not a member', async () => {
      const { organization, owner } = await team(h);
      const invited = await newUser(h, 'invited');
      const token = await invite(h, owner, organization, invited.email);
      const json = await get(h, invited.jar, `organizations/invitations/${token}`);
      expect(json.status).toBe(200);
      expect(await json.json()).toMatchObject({ invitation: { organization: { slug: organization.slug }, role: 'member' }, mayAnswer: true });
      expect((await get(h, invited.jar, `organizations/invitations/${token}`, false)).status).toBe(200);
      expect(await h.adapter.getInvitation(digestOf(token))).not.toBeNull();
      expect((await rolesOf(h, organization))[invited.id]).toBeUndefined();
    });

    it('makes the invited user a member with the role, the organization active; the link works once', async () => {
      const { organization, owner } = await team(h);
      const invited = await newUser(h, 'invited');
      const token = await invite(h, owner, organization, invited.email, 'admin');
      const response = await post(h, invited.jar, `organizations/invitations/${token}`, { action: 'accept' }, false);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(`${h.url}/auth/organizations/${organization.slug}?notice=joined`);
      expect((await rolesOf(h, organization))[invited.id]).toBe('admin');
      const session = (await (await invited.jar.fetch(`${h.url}/whoami`)).json()) as { organization: unknown };
      expect(session.organization).toEqual({ id: organization.id, slug: organization.slug, name: organization.name, role: 'admin' });
      expect((await h.adapter.listOrganizationEvents(organization.id, 1))[0]).toMatchObject({ type: 'member-joined', actorId: invited.id, detail: 'admin' });
      expect((await post(h, invited.jar, `organizations/invitations/${token}`, { action: 'accept' })).status).toBe(404);
      const again = await get(h, invited.jar, `organizations/invitations/${token}`, false);
      expect(again.status).toBe(404);
      expect(await again.text()).toContain('no longer valid');
    });

    it('refuses someone else signed in (403); the invitation stays usable by the invited user', async () => {
      const { organization, owner, admin } = await team(h);
      const invited = await newUser(h, 'invited');
      const token = await invite(h, owner, organization, invited.email);
      const other = await newUser(h, 'other');
      const shown = await (await get(h, other.jar, `organizations/invitations/${token}`)).json();
      expect(shown).toMatchObject({ mayAnswer: false });
      expect(JSON.stringify(shown)).not.toContain(invited.email);
      for (const user of [other, admin]) {
        const refused = await post(h, user.jar, `organizations/invitations/${token}`, { action: 'accept' });
        expect(refused.status).toBe(403);
        expect(await refused.json()).toMatchObject({ error: 'forbidden' });
      }
      expect((await post(h, other.jar, `organizations/invitations/${token}`, { action: 'decline' })).status).toBe(403);
      const page = await post(h, other.jar, `organizations/invitations/${token}`, { action: 'accept' }, false);
      expect(page.status).toBe(403);
      expect((await rolesOf(h, organization))[other.id]).toBeUndefined();
      expect((await post(h, invited.jar, `organizations/invitations/${token}`, { action: 'accept' })).status).toBe(200);
    });

    it('refuses the invited address while it is not proven (403), and the link stays usable', async () => {
      const { organization, owner } = await team(h);
      const unproven = await newUser(h, 'unproven', false);
      const token = await invite(h, owner, organization, unproven.email);
      const refused = await post(h, unproven.jar, `organizations/invitations/${token}`, { action: 'accept' });
      expect(refused.status).toBe(403);
      expect((await rolesOf(h, organization))[unproven.id]).toBeUndefined();
      expect(((await (await get(h, unproven.jar, `organizations/invitations/${token}`)).json()) as { mayAnswer: boolean }).mayAnswer).toBe(false);
      await h.adapter.updateUser({ id: unproven.id, emailVerified: new Date() });
      expect((await post(h, unproven.jar, `organizations/invitations/${token}`, { action: 'accept' })).status).toBe(200);
    });

    it('refuses an expired invitation: 404 to GET and POST', async () => {
      const { organization, owner } = await team(h);
      const invited = await newUser(h, 'invited');
      const token = await invite(h, owner, organization, invited.email);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 7 * DAY_MS + 1000);
      expect((await get(h, invited.jar, `organizations/invitations/${token}`)).status).toBe(404);
      expect((await post(h, invited.jar, `organizations/invitations/${token}`, { action: 'accept' })).status).toBe(404);
      expect((await rolesOf(h, organization))[invited.id]).toBeUndefined();
    });

    it('deletes a declined invitation, records it, and makes nobody a member', async () => {
      const { organization, owner } = await team(h);
      const invited = await newUser(h, 'invited');
      const token = await invite(h, owner, organization, invited.email);
      const response = await post(h, invited.jar, `organizations/invitations/${token}`, { action: 'decline' });
      expect(response.status).toBe(200);
      expect(await h.adapter.getInvitation(digestOf(token))).toBeNull();
      expect((await rolesOf(h, organization))[invited.id]).toBeUndefined();
      expect((await h.adapter.listOrganizationEvents(organization.id, 1))[0]).toMatchObject({ type: 'invitation-declined', actorId: invited.id });
      expect((await post(h, invited.jar, `organizations/invitations/${token}`, { action: 'accept' })).status).toBe(404);
    });

    it('refuses an answer without the CSRF token, or signed out; the invitation stays usable', async () => {
      const { organization, owner } = await team(h);
      const invited = await newUser(h, 'invited');
      const token = await invite(h, owner, organization, invited.email);
      const noToken = await post(h, invited.jar, `organizations/invitations/${token}`, { csrfToken: null, action: 'accept' });
      expect(noToken.status).toBeGreaterThanOrEqual(400);
      expect(noToken.status).toBeLessThan(500);
      const visitor = createJar();
      const signedOut = await post(h, visitor, `organizations/invitations/${token}`, { action: 'accept' });
      expect(signedOut.status).toBe(401);
      expect((await rolesOf(h, organization))[invited.id]).toBeUndefined();
      expect((await post(h, invited.jar, `organizations/invitations/${token}`, { action: 'accept' })).status).toBe(200);
    });

    it('answers 404 for a link that is no token, or no invitation’s', async () => {
      const invited = await newUser(h, 'invited');
      for (const token of ['short', 'A'.repeat(43)]) {
        expect((await get(h, invited.jar, `organizations/invitations/${token}`)).status).toBe(404);
        expect((await post(h, invited.jar, `organizations/invitations/${token}`, { action: 'accept' })).status).toBe(404);
      }
    });
  });
});

describe('invitation rate limits and the mail service', () => {
  it('answers 429 past invitationsPerInviter, across the inviter’s organizations', async () => {
    const h = await startHarness({ adapter: MemoryAdapter(), folder: undefined }, { config: { rateLimit: { credentialsPerClient: false, passwordEmailPerClient: false, invitationsPerInviter: { max: 2 } } } });
    try {
      const owner = await newUser(h, 'owner');
      const first = await createOrganization(h, owner);
      const second = await createOrganization(h, owner);
      await invite(h, owner, first, 'one@example.test');
      await invite(h, owner, first, 'two@example.test');
      const refused = await post(h, owner.jar, `organizations/${second.slug}`, { action: 'invite', email: 'three@example.test', role: 'member' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await h.adapter.listInvitations(second.id, new Date())).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('answers 429 past invitationsPerOrganization, whoever invites', async () => {
    const h = await startHarness({ adapter: MemoryAdapter(), folder: undefined }, { config: { rateLimit: { credentialsPerClient: false, passwordEmailPerClient: false, invitationsPerOrganization: { max: 2 } } } });
    try {
      const owner = await newUser(h, 'owner');
      const organization = await createOrganization(h, owner);
      const admin = await newMember(h, owner, organization, 'admin');
      await invite(h, admin, organization, 'two@example.test');
      const refused = await post(h, admin.jar, `organizations/${organization.slug}`, { action: 'invite', email: 'three@example.test', role: 'member' });
      expect(refused.status).toBe(429);
      expect(await h.adapter.listInvitations(organization.id, new Date())).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it('refuses invitations in production without a mail service (400 on email), and the rest works', async () => {
    const h = await startHarness({ adapter: MemoryAdapter(), folder: undefined }, { env: { NODE_ENV: 'production' } });
    try {
      const owner = await newUser(h, 'owner');
      const organization = await createOrganization(h, owner);
      const response = await post(h, owner.jar, `organizations/${organization.slug}`, { action: 'invite', email: 'one@example.test', role: 'member' });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { errors: { email: string } }).errors.email).toContain('AUTH_EMAIL_SERVER');
      expect(await h.adapter.listInvitations(organization.id, new Date())).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
