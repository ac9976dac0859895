/**
 * Who may do what in an organization, read on each request (SPEC §14, access.ts): a real Express app on a SQLite
 * file with database sessions (made through the adapter, sent as the session cookie) and API keys. `requirePermission`
 * routes for the organization the URL names and for the active one, answered for the owner, an admin, a member, a
 * removed member, a member of another organization, a signed-out client and API keys (bound to the organization, to
 * another one, and a member's own unbound key): 401 / 404 / 403 / 200 with `res.locals.organization`. A removal or a
 * lower role holds on the next request, also when a second app (its own config and adapter on the same file) made it;
 * `hasPermission`, `getSession().organization` and `<mount>/session`; a guard naming a permission no role grants
 * throws when made; a role the config no longer defines grants nothing and is logged at startup; one membership
 * query per guarded request.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FrameworkAuth, createRequireAuth, createSessionLocals, getSession } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import type { Adapter } from '../../templates/runtime/contracts.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { resolveConfig, resolveConfigOnce } from '../../templates/runtime/config.js';
import Password from '../../templates/runtime/providers/password.js';
import { ApiKeys, createApiKey } from '../../templates/runtime/features/api-keys/index.js';
import { Organizations, createRequirePermission, hasPermissionFor, undefinedRoles } from '../../templates/runtime/features/organizations/index.js';
import type { Permission } from '../../templates/runtime/features/organizations/index.js';
import type { OrganizationRecord } from '../../templates/runtime/features/organizations/storage.js';
import { listen, type RunningApp } from '../support/listen.js';
import { SECRET, recordingLogger } from './helpers.js';

/** One app on the shared file: its config, adapter, the SQL statements its connection ran, and its logged errors. */
interface App {
  url: string;
  running: RunningApp;
  config: FrameworkAuthConfig;
  adapter: Required<Adapter>;
  statements: string[];
  memberships: { count: number };
  errors: Error[];
  connection: Database.Database;
}

let folder: string;
let path: string;
const apps: App[] = [];

/** A better-sqlite3 connection that notes the text of every statement it runs. */
function recordingConnection(statements: string[]): Database.Database {
  const connection = new Database(path);
  const prepare = connection.prepare.bind(connection);
  connection.prepare = ((text: string) => {
    const statement = prepare(text);
    for (const method of ['all', 'get', 'run', 'iterate'] as const) {
      const original = (statement[method] as (...args: unknown[]) => unknown).bind(statement);
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        statements.push(text);
        return original(...args);
      };
    }
    return statement;
  }) as typeof connection.prepare;
  return connection;
}

/**
 * An app: the handler on /auth, `requirePermission` routes for the URL's organization (`/orgs/:slug/<permission>`)
 * and the active one (`/active/read`), `hasPermission` (`/has/:slug`), getSession (`/whoami`). With `sessionLocals`,
 * the middleware runs before every route (as in the starter server).
 */
async function startApp(options: { sessionLocals?: boolean } = {}): Promise<App> {
  const statements: string[] = [];
  const connection = recordingConnection(statements);
  const { errors, logger } = recordingLogger();
  const adapter = SqliteAdapter({ database: connection }) as Required<Adapter>;
  const config: FrameworkAuthConfig = {
    secret: SECRET,
    trustHost: ['127.0.0.1'],
    adapter,
    providers: [Password({ sendMessage: () => {} })],
    features: [Organizations(), ApiKeys({ scopes: ['read'] })],
    logger,
  };
  // Resolving the config gives the adapter its features' methods; the membership reads are then counted.
  resolveConfigOnce(config);
  const memberships = { count: 0 };
  const findMemberships = adapter.findMemberships.bind(adapter);
  adapter.findMemberships = (...args) => {
    memberships.count += 1;
    return findMemberships(...args);
  };
  const app = express();
  app.use('/auth/*splat', FrameworkAuth(config));
  if (options.sessionLocals) app.use(createSessionLocals(config));
  const bySlug = { organization: (req: express.Request) => req.params['slug'] as string };
  const answer = (_req: express.Request, res: express.Response): void => void res.json({ organization: res.locals['organization'] });
  app.get('/orgs/:slug/read', createRequirePermission(config, 'organization:read', bySlug), answer);
  app.get('/orgs/:slug/invite', createRequirePermission(config, 'member:invite', bySlug), answer);
  app.get('/orgs/:slug/delete', createRequirePermission(config, 'organization:delete', bySlug), answer);
  app.get('/orgs/:slug/read-and-invite', createRequirePermission(config, ['organization:read', 'member:invite'], bySlug), answer);
  app.get('/active/read', createRequirePermission(config, 'organization:read'), answer);
  // A route that names its organization wrongly (an empty value, a wildcard's list) is never the active organization.
  app.get('/named-badly/empty', createRequirePermission(config, 'organization:read', { organization: () => '' }), answer);
  app.get('/named-badly/list/*rest', createRequirePermission(config, 'organization:read', { organization: (req) => req.params['rest'] }), answer);
  app.get('/has/:slug', async (req, res) => {
    const slug = req.params['slug'];
    res.json({
      read: await hasPermissionFor(req, config, 'organization:read', slug),
      delete: await hasPermissionFor(req, config, 'organization:delete', slug),
      activeRead: await hasPermissionFor(req, config, 'organization:read'),
    });
  });
  app.get('/whoami', async (req, res) => void res.json(await getSession(req, config)));
  // A route about no organization: a key made for one does not act here.
  app.get('/me', createRequireAuth(config), (_req, res) => void res.json({ me: true }));
  const running = await listen(app);
  const made = { url: running.url, running, config, adapter, statements, memberships, errors, connection };
  apps.push(made);
  return made;
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'framework-auth-organizations-access-'));
  path = join(folder, 'auth.db');
});

afterAll(async () => {
  for (const app of apps.splice(0)) {
    await app.running.close();
    app.connection.close();
  }
  await rm(folder, { recursive: true, force: true });
});

/** A user and a session of theirs (its token, sent as the session cookie). */
async function signedIn(app: App, name: string): Promise<{ id: string; email: string; token: string }> {
  const user = await app.adapter.createUser({ id: randomUUID(), email: `${name}-${randomUUID()}@example.test`, name, emailVerified: new Date() });
  const token = randomUUID();
  const now = new Date();
  await app.adapter.createSession({ sessionToken: token, userId: user.id, expires: new Date(now.valueOf() + 3_600_000), createdAt: now, lastSeenAt: now, userAgent: 'test' });
  return { id: user.id, email: user.email, token };
}

async function organizationOf(app: App, ownerId: string, name: string): Promise<OrganizationRecord> {
  const organization = { id: randomUUID(), slug: `${name}-${randomUUID().slice(0, 8)}`, name, createdAt: new Date() };
  expect(await app.adapter.createOrganization(organization, ownerId)).toBe(true);
  return organization;
}

/** Makes the user a member with `role` as the feature does: an invitation, accepted. */
async function addMember(app: App, organization: OrganizationRecord, user: { id: string; email: string }, role: string): Promise<void> {
  const digest = createHash('sha256').update(randomUUID()).digest('hex');
  const now = new Date();
  await app.adapter.createInvitation({ id: randomUUID(), organizationId: organization.id, email: user.email, role, inviterId: null, digest, createdAt: now, expiresAt: new Date(now.valueOf() + 3_600_000) }, 100);
  expect(await app.adapter.acceptInvitation(digest, user.id, now)).toBe(true);
}

type Credential = { token: string } | { key: string } | null;

async function get(app: App, path: string, credential: Credential): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (credential && 'token' in credential) headers['cookie'] = `authjs.session-token=${credential.token}`;
  if (credential && 'key' in credential) headers['authorization'] = `Bearer ${credential.key}`;
  return fetch(`${app.url}${path}`, { headers, redirect: 'manual' });
}

/** The statuses of the three guarded routes of `organization`: read (member), invite (admin), delete (owner). */
async function statuses(app: App, organization: OrganizationRecord, credential: Credential): Promise<number[]> {
  return Promise.all(['read', 'invite', 'delete'].map(async (permission) => (await get(app, `/orgs/${organization.slug}/${permission}`, credential)).status));
}

const shown = (organization: OrganizationRecord, role: string): Record<string, string> => ({ id: organization.id, slug: organization.slug, name: organization.name, role });

describe('requirePermission, hasPermission and the session organization (SQLite, database sessions)', () => {
  let app: App;
  let acme: OrganizationRecord;
  let globex: OrganizationRecord;
  let people: Record<'owner' | 'admin' | 'member' | 'removed' | 'stranger', { id: string; email: string; token: string }>;
  let keys: Record<'bound' | 'boundElsewhere' | 'unbound', string>;

  beforeAll(async () => {
    app = await startApp();
    people = {
      owner: await signedIn(app, 'owner'),
      admin: await signedIn(app, 'admin'),
      member: await signedIn(app, 'member'),
      removed: await signedIn(app, 'removed'),
      stranger: await signedIn(app, 'stranger'),
    };
    acme = await organizationOf(app, people.owner.id, 'acme');
    globex = await organizationOf(app, people.stranger.id, 'globex');
    await addMember(app, acme, people.admin, 'admin');
    await addMember(app, acme, people.member, 'member');
    await addMember(app, acme, people.removed, 'member');
    expect(await app.adapter.removeMember(acme.id, people.removed.id)).toBe('done');
    // The owner of acme is a member of globex too: their key made for globex must not act in acme.
    await addMember(app, globex, people.owner, 'member');
    keys = {
      bound: (await createApiKey(app.config, { userId: people.owner.id, name: 'acme ci', organizationId: acme.id })).key,
      boundElsewhere: (await createApiKey(app.config, { userId: people.owner.id, name: 'globex ci', organizationId: globex.id })).key,
      unbound: (await createApiKey(app.config, { userId: people.member.id, name: 'mine' })).key,
    };
  });

  const matrix: { who: string; credential: () => Credential; expected: number[] }[] = [
    { who: 'the owner', credential: () => ({ token: people.owner.token }), expected: [200, 200, 200] },
    { who: 'an admin', credential: () => ({ token: people.admin.token }), expected: [200, 200, 403] },
    { who: 'a member', credential: () => ({ token: people.member.token }), expected: [200, 403, 403] },
    { who: 'a removed member', credential: () => ({ token: people.removed.token }), expected: [404, 404, 404] },
    { who: 'a member of another organization', credential: () => ({ token: people.stranger.token }), expected: [404, 404, 404] },
    { who: 'a signed-out client', credential: () => null, expected: [401, 401, 401] },
    { who: "the owner's API key made for the organization", credential: () => ({ key: keys.bound }), expected: [200, 200, 200] },
    { who: "the owner's API key made for another organization", credential: () => ({ key: keys.boundElsewhere }), expected: [404, 404, 404] },
    { who: "a member's own API key (made for no organization)", credential: () => ({ key: keys.unbound }), expected: [200, 403, 403] },
  ];
  it.each(matrix)('answers $who on the read, invite and delete routes with $expected', async ({ credential, expected }) => {
    expect(await statuses(app, acme, credential())).toEqual(expected);
  });

  it('gives the route the organization and the role (res.locals.organization), and says what is missing', async () => {
    const read = await get(app, `/orgs/${acme.slug}/read`, { token: people.admin.token });
    expect(await read.json()).toEqual({ organization: shown(acme, 'admin') });
    // By its id as well as its slug.
    expect(await (await get(app, `/orgs/${acme.id}/read`, { token: people.member.token })).json()).toEqual({ organization: shown(acme, 'member') });
    expect(await (await get(app, `/orgs/${acme.slug}/read`, { key: keys.bound })).json()).toEqual({ organization: shown(acme, 'owner') });
    const forbidden = await get(app, `/orgs/${acme.slug}/read-and-invite`, { token: people.member.token });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: 'forbidden', permission: 'member:invite' });
    const hidden = await get(app, `/orgs/${acme.slug}/read`, { token: people.stranger.token });
    const missing = await get(app, '/orgs/no-such-organization/read', { token: people.stranger.token });
    // A stranger learns nothing: an existing organization is answered as one that does not exist.
    expect([hidden.status, await hidden.json()]).toEqual([missing.status, await missing.json()]);
    expect(await (await get(app, `/orgs/${acme.slug}/read`, null)).json()).toMatchObject({ error: 'Unauthorized' });
  });

  it('guards the active organization when the route names none, and getSession().organization is it with the role', async () => {
    const user = await signedIn(app, 'active');
    await addMember(app, acme, user, 'admin');
    expect((await get(app, '/active/read', user)).status).toBe(404);
    expect((await (await get(app, '/whoami', user)).json()).organization).toBeNull();
    await app.adapter.setActiveOrganization(user.token, acme.id);
    const guarded = await get(app, '/active/read', user);
    expect([guarded.status, await guarded.json()]).toEqual([200, { organization: shown(acme, 'admin') }]);
    expect((await (await get(app, '/whoami', user)).json()).organization).toEqual(shown(acme, 'admin'));
    expect((await (await get(app, '/auth/session', user)).json()).organization).toEqual(shown(acme, 'admin'));
    // A route whose organization function gives an empty value or a list names no organization: 404, not the active one.
    expect((await get(app, '/named-badly/empty', user)).status).toBe(404);
    expect((await get(app, `/named-badly/list/${acme.slug}/x`, user)).status).toBe(404);
    // The URL's organization and the active one are told apart: globex is not theirs.
    expect((await get(app, `/orgs/${globex.slug}/read`, user)).status).toBe(404);
    // A key made for an organization has it as its active one.
    expect((await get(app, '/active/read', { key: keys.bound })).status).toBe(200);
    expect((await (await get(app, '/whoami', { key: keys.bound })).json()).organization).toEqual(shown(acme, 'owner'));
    // A key made for an organization acts there alone: requireAuth() of a route about no organization refuses it
    // (403 insufficient_scope), and lets the user's own key through.
    const outside = await get(app, '/me', { key: keys.bound });
    expect([outside.status, outside.headers.get('www-authenticate')]).toEqual([403, 'Bearer error="insufficient_scope"']);
    expect((await get(app, '/me', { key: keys.unbound })).status).toBe(200);
    expect((await (await get(app, '/whoami', { key: keys.unbound })).json()).organization).toBeNull();
  });

  it('answers hasPermission for the named and the active organization, false signed out and for a non-member', async () => {
    const user = await signedIn(app, 'has');
    await addMember(app, acme, user, 'member');
    await app.adapter.setActiveOrganization(user.token, acme.id);
    expect(await (await get(app, `/has/${acme.slug}`, user)).json()).toEqual({ read: true, delete: false, activeRead: true });
    expect(await (await get(app, `/has/${acme.slug}`, { token: people.owner.token })).json()).toEqual({ read: true, delete: true, activeRead: false });
    expect(await (await get(app, `/has/${acme.slug}`, { token: people.stranger.token })).json()).toEqual({ read: false, delete: false, activeRead: false });
    expect(await (await get(app, `/has/${acme.slug}`, null)).json()).toEqual({ read: false, delete: false, activeRead: false });
  });

  it('refuses a removed member and a lowered role on the next request, also when a second app made the change', async () => {
    const second = await startApp();
    const user = await signedIn(app, 'changing');
    await addMember(app, acme, user, 'admin');
    await app.adapter.setActiveOrganization(user.token, acme.id);
    for (const each of [app, second]) expect(await statuses(each, acme, user)).toEqual([200, 200, 403]);
    // Lowered through the second app's adapter: the first app answers by it at once, and so does the second.
    expect(await second.adapter.changeMemberRole(acme.id, user.id, 'member')).toBe('done');
    for (const each of [app, second]) {
      expect(await statuses(each, acme, user)).toEqual([200, 403, 403]);
      expect((await (await get(each, '/whoami', user)).json()).organization).toEqual(shown(acme, 'member'));
    }
    // Removed through the first: both refuse, and the session's organization is gone, the session kept.
    expect(await app.adapter.removeMember(acme.id, user.id)).toBe('done');
    for (const each of [app, second]) {
      expect(await statuses(each, acme, user)).toEqual([404, 404, 404]);
      expect((await get(each, '/active/read', user)).status).toBe(404);
      const session = await (await get(each, '/whoami', user)).json();
      expect(session).toMatchObject({ user: { id: user.id }, organization: null });
    }
    // A key made for the organization by a member who is then removed stops there at once.
    const member = await signedIn(app, 'keyed');
    await addMember(app, acme, member, 'admin');
    const { key } = await createApiKey(app.config, { userId: member.id, name: 'acme', organizationId: acme.id });
    expect(await statuses(second, acme, { key })).toEqual([200, 200, 403]);
    expect(await second.adapter.changeMemberRole(acme.id, member.id, 'member')).toBe('done');
    expect(await statuses(app, acme, { key })).toEqual([200, 403, 403]);
    expect(await second.adapter.removeMember(acme.id, member.id)).toBe('done');
    expect(await statuses(app, acme, { key })).toEqual([404, 404, 404]);
  });

  it('refuses, when the guard is made, a permission no role grants', async () => {
    expect(() => createRequirePermission(app.config, 'projet:create' as Permission)).toThrow(/requirePermission: no role grants the permission "projet:create"/);
    expect(() => createRequirePermission(app.config, ['organization:read', 'member:invit' as Permission])).toThrow(TypeError);
    expect(() => createRequirePermission(app.config, [])).toThrow(/name at least one permission/);
    await expect(hasPermissionFor({} as express.Request, app.config, 'organization:reed' as Permission)).rejects.toThrow(/hasPermission: no role grants/);
  });

  it('grants nothing for a role the config no longer defines, and logs it at startup', async () => {
    const user = await signedIn(app, 'gone');
    await addMember(app, acme, user, 'member');
    expect(await app.adapter.changeMemberRole(acme.id, user.id, 'gone')).toBe('done');
    // Still a member (403, not 404), without any permission.
    expect(await statuses(app, acme, user)).toEqual([403, 403, 403]);
    expect(await (await get(app, `/has/${acme.slug}`, user)).json()).toMatchObject({ read: false });
    expect(await undefinedRoles(resolveConfig(app.config))).toEqual([{ role: 'gone', members: 1 }]);
    const restarted = await startApp();
    await vi.waitFor(() => expect(restarted.errors.map((error) => error.message)).toEqual([expect.stringContaining('"gone" (1 member)')]));
    expect(restarted.errors[0]!.message).toContain('grant nothing');
  });
});

// With sessionLocals before the guard and a URL naming another organization than the active one, the session's
// field has read the active membership before the guard names its organization: that case costs a second query.
describe('one membership query per guarded request', () => {
  it.each([
    ['without sessionLocals', false],
    ['after sessionLocals, naming the active organization', true],
  ] as const)('%s', async (_title, sessionLocals) => {
    const app = await startApp({ sessionLocals });
    const owner = await signedIn(app, 'counted');
    const organization = await organizationOf(app, owner.id, 'counted');
    const other = await organizationOf(app, owner.id, 'other');
    await app.adapter.setActiveOrganization(owner.token, organization.id);
    const paths = [`/orgs/${organization.slug}/read`, '/active/read', ...(sessionLocals ? [] : [`/orgs/${other.slug}/read`])];
    // The first request of a process also reads the schema's ledger; counted from the second.
    await get(app, paths[0]!, owner);
    for (const path of paths) {
      app.statements.length = 0;
      app.memberships.count = 0;
      const response = await get(app, path, owner);
      expect(response.status, path).toBe(200);
      expect(app.memberships.count, path).toBe(1);
      expect(app.statements.filter((text) => text.includes('organization_members')), path).toHaveLength(1);
    }
    // A key made for the organization, on its slug and as the active one; the user's own key, on the slug.
    const { key } = await createApiKey(app.config, { userId: owner.id, name: 'counted', organizationId: organization.id });
    const { key: own } = await createApiKey(app.config, { userId: owner.id, name: 'own' });
    for (const [path, credential] of [[`/orgs/${organization.slug}/read`, key], ['/active/read', key], [`/orgs/${organization.slug}/read`, own]] as const) {
      app.statements.length = 0;
      app.memberships.count = 0;
      expect((await get(app, path, { key: credential })).status, path).toBe(200);
      expect(app.memberships.count, `${path} with a key`).toBe(1);
      expect(app.statements.filter((text) => text.includes('organization_members')), path).toHaveLength(1);
    }
  });
});
