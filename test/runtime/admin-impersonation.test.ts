// Administration's impersonation and requireAdmin (issue 49, SPEC §15), over HTTP on 127.0.0.1 with the memory
// adapter and SQLite: while an admin acts as a user, every POST below the mount is refused but sign-out and stopping
// (the route table read from the features, so a route added later is covered), every page shows the banner with a
// stop button, `session.impersonatedBy` names the admin, the session is never a recent authentication and ends at its
// maxAge however often it is read; stopping gives the admin's own session back. requireAdmin answers 401, 403 and 200.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formBody, type CookieJar } from '../support/cookie-jar.js';
import { Account } from '../../templates/runtime/features/account/index.js';
import { type AdminOptions, createRequireAdmin } from '../../templates/runtime/features/admin/index.js';
import { ApiKeys } from '../../templates/runtime/features/api-keys/index.js';
import { createRequireRecentAuth } from '../../templates/runtime/features/database/recent-auth.js';
import { Organizations } from '../../templates/runtime/features/organizations/index.js';
import { resolveConfig } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import { routes as coreRoutes } from '../../templates/runtime/router.js';
import { type Harness, type TestUser, ADMIN_EMAIL, PASSWORD, newUser, post, startHarness as startAdminHarness } from './admin-harness.js';
import { memoryAndSqlite, type MadeAdapter } from './helpers.js';

/** The harness with the account, API keys and organizations (routes to refuse), /reports (requireAdmin) and /billing (requireRecentAuth). */
function startHarness(made: MadeAdapter, admin: AdminOptions = {}): Promise<Harness> {
  return startAdminHarness(made, {
    admin,
    features: [Account({ sendMessage: () => {} }, {}), ApiKeys(), Organizations({ sendMessage: () => {} }, {})],
    routes: (app, config) => {
      app.get('/reports', createRequireAdmin(config), (_req, res) => void res.json({ reports: [] }));
      app.post('/billing', createRequireRecentAuth(config), (_req, res) => void res.json({ paid: true }));
    },
  });
}

function sessionCookie(jar: CookieJar): string | undefined {
  return jar.get('authjs.session-token');
}

/** The admin acts as `target`: the admin's jar now holds the impersonation's session. */
async function impersonate(h: Harness, admin: TestUser, target: TestUser): Promise<void> {
  const response = await post(h, admin.jar, `admin/users/${target.id}`, { action: 'impersonate', reason: 'ticket 4711: cannot see invoices' });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ impersonating: { id: target.id } });
}

/** Every POST path below the mount the app serves: the core's and its features', a `*` segment filled in. */
function postPaths(config: FrameworkAuthConfig): string[] {
  const options = resolveConfig(config);
  const paths: string[] = [];
  for (const [action, spec] of Object.entries(coreRoutes)) {
    if (!(spec.methods as readonly string[]).includes('POST')) continue;
    paths.push(spec.provider === 'none' ? action : `${action}/password`);
  }
  for (const feature of options.features) {
    for (const [action, entry] of Object.entries(feature.routes ?? {})) {
      if (!entry.methods.includes('POST')) continue;
      paths.push(action, ...(entry.subpaths ?? []).map((subpath) => `${action}/${subpath.replaceAll('*', 'x')}`));
    }
  }
  return paths;
}

describe.each(memoryAndSqlite)('impersonation with %s', (_name, make) => {
  let h: Harness;
  afterEach(async () => {
    vi.useRealTimers();
    await h?.close();
  });

  it('refuses every POST below the mount while an admin acts as a user, but sign-out and stopping, and the account\'s export, and changes nothing', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h, { name: 'bea' });
    await impersonate(h, admin, target);
    const allowed = new Set(['signout', 'admin/stop-impersonating']);
    const paths = postPaths(h.config).filter((path) => !allowed.has(path));
    expect(paths).toEqual(expect.arrayContaining(['account', 'account/delete', 'account/email', 'password', 'two-factor', 'sessions', 'reauth', 'api-keys', 'organizations', 'callback/password', 'signin/password', 'session']));
    for (const path of paths) {
      const response = await post(h, admin.jar, path, { action: 'create', name: 'key', confirm: target.email, newEmail: 'other@example.test', currentPassword: PASSWORD, newPassword: 'another long passphrase here', email: target.email, password: PASSWORD });
      // Also on the routes whose own errors redirect (sign-in, callback, reauth): a guard's refusal is never a redirect.
      expect(response.status, path).toBe(403);
    }
    // Nor does a GET take the user's data away: the export is theirs.
    expect((await admin.jar.fetch(`${h.url}/auth/account/export`, { headers: { accept: 'application/json' } })).status).toBe(403);
    expect((await target.jar.fetch(`${h.url}/auth/account/export`, { headers: { accept: 'application/json' } })).status).toBe(200);
    expect(await h.adapter.getUser(target.id)).not.toBeNull();
    expect(await h.adapter.listApiKeys(target.id)).toEqual([]);
    expect((await h.adapter.getUser(target.id))?.email).toBe(target.email);
  });

  it('shows the banner with a stop button on every page of the runtime while an admin acts as a user, with the page\'s own CSRF token', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h);
    await impersonate(h, admin, target);
    for (const path of ['signin', 'account', 'sessions', 'two-factor', 'api-keys', 'organizations', 'reauth', 'error']) {
      const page = await (await admin.jar.fetch(`${h.url}/auth/${path}`, { headers: { accept: 'text/html' } })).text();
      expect(page, path).toContain('An administrator is acting as this user');
      expect(page, path).toContain('action="/auth/admin/stop-impersonating"');
      const tokens = new Set([...page.matchAll(/name="csrfToken" value="([0-9a-f]+)"/g)].map((match) => match[1]));
      expect(tokens.size, path).toBe(1);
    }
    const own = await newUser(h);
    expect(await (await own.jar.fetch(`${h.url}/auth/account`, { headers: { accept: 'text/html' } })).text()).not.toContain('An administrator is acting');
  });

  it('names the admin in session.impersonatedBy, and never counts the impersonation as a recent authentication', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h);
    expect(await (await admin.jar.fetch(`${h.url}/whoami`)).json()).not.toHaveProperty('impersonatedBy');
    const { key } = (await (await post(h, admin.jar, 'api-keys', { action: 'create', name: 'script' })).json()) as { key: string };
    await impersonate(h, admin, target);
    expect(await (await admin.jar.fetch(`${h.url}/whoami`)).json()).toMatchObject({ user: { id: target.id }, impersonatedBy: { id: admin.id, email: ADMIN_EMAIL } });
    expect(await (await admin.jar.fetch(`${h.url}/auth/session`)).json()).toMatchObject({ user: { id: target.id }, impersonatedBy: { id: admin.id } });
    // A staging site's Basic authentication in front of the app hides nothing.
    expect(await (await admin.jar.fetch(`${h.url}/whoami`, { headers: { authorization: 'Basic c3RhZ2luZzpzdGFnaW5n' } })).json()).toMatchObject({ impersonatedBy: { id: admin.id } });
    // An API key sent beside the impersonation's cookie is the key's owner, acting as themselves.
    const asKey = (await (await admin.jar.fetch(`${h.url}/whoami`, { headers: { authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;
    expect(asKey).toMatchObject({ user: { id: admin.id } });
    expect(asKey).not.toHaveProperty('impersonatedBy');
    expect((await admin.jar.fetch(`${h.url}/billing`, { method: 'POST', headers: { accept: 'application/json' } })).status).toBe(401);
    // The user's own session is not an impersonation.
    expect(await (await target.jar.fetch(`${h.url}/whoami`)).json()).not.toHaveProperty('impersonatedBy');
  });

  it('gives the admin their own session back when they stop, and the impersonation\'s session is gone', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h);
    const own = sessionCookie(admin.jar);
    await impersonate(h, admin, target);
    const impersonation = sessionCookie(admin.jar)!;
    expect(impersonation).not.toBe(own);
    expect(impersonation).toMatch(/~i\d+$/);
    const stopped = await post(h, admin.jar, 'admin/stop-impersonating', {}, false);
    expect(stopped.status).toBe(302);
    expect(stopped.headers.get('location')).toBe(`${h.url}/auth/admin/users/${target.id}`);
    expect(sessionCookie(admin.jar)).toBe(own);
    expect(await (await admin.jar.fetch(`${h.url}/whoami`)).json()).toMatchObject({ user: { id: admin.id } });
    expect((await admin.jar.fetch(`${h.url}/auth/admin`, { headers: { accept: 'application/json' } })).status).toBe(200);
    expect(await h.adapter.getSessionAndUser(impersonation)).toBeNull();
  });

  it('refuses a GET to stop (a GET changes nothing) and a POST without the CSRF token', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h);
    await impersonate(h, admin, target);
    const impersonation = sessionCookie(admin.jar);
    expect((await admin.jar.fetch(`${h.url}/auth/admin/stop-impersonating`)).status).toBe(405);
    const form = formBody({});
    expect((await admin.jar.fetch(`${h.url}/auth/admin/stop-impersonating`, { method: 'POST', ...form })).status).toBeGreaterThanOrEqual(400);
    expect(sessionCookie(admin.jar)).toBe(impersonation);
    expect(await (await admin.jar.fetch(`${h.url}/whoami`)).json()).toMatchObject({ user: { id: target.id } });
  });

  it('ends the impersonation at its maxAge however often it is read', async () => {
    h = await startHarness(await make(), { impersonation: { maxAge: 120 } });
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h);
    await impersonate(h, admin, target);
    vi.useFakeTimers({ toFake: ['Date'] });
    for (const minutes of [0.5, 1, 1.5]) {
      vi.setSystemTime(Date.now() + 30_000);
      expect(await (await admin.jar.fetch(`${h.url}/whoami`)).json(), `${minutes} min`).toMatchObject({ user: { id: target.id } });
    }
    vi.setSystemTime(Date.now() + 31_000);
    expect(await (await admin.jar.fetch(`${h.url}/whoami`)).json()).toBeNull();
  });

  it('refuses to act as another admin, leaving the admin\'s session as it was', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const other = await newUser(h, { name: 'grace' });
    expect((await post(h, admin.jar, `admin/users/${other.id}`, { action: 'grant-admin' })).status).toBe(200);
    const own = sessionCookie(admin.jar);
    const response = await post(h, admin.jar, `admin/users/${other.id}`, { action: 'impersonate', reason: 'curious' });
    expect(response.status).toBe(400);
    expect(sessionCookie(admin.jar)).toBe(own);
    expect(await (await admin.jar.fetch(`${h.url}/whoami`)).json()).not.toHaveProperty('impersonatedBy');
  });
});

describe.each(memoryAndSqlite)('requireAdmin with %s', (_name, make) => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('answers 401 signed out, 403 to a user, 200 to an admin with a second factor', async () => {
    h = await startHarness(await make());
    expect((await fetch(`${h.url}/reports`, { headers: { accept: 'application/json' } })).status).toBe(401);
    const user = await newUser(h);
    const refused = await user.jar.fetch(`${h.url}/reports`, { headers: { accept: 'application/json' } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'forbidden' });
    const admin = await newUser(h, { admin: true });
    expect((await admin.jar.fetch(`${h.url}/reports`)).status).toBe(200);
  });

  it('sends an admin without a second factor to enrol one: 403 second_factor_required, or the two-factor page', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    await h.adapter.deleteTwoFactor(admin.id);
    const json = await admin.jar.fetch(`${h.url}/reports`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(403);
    expect(await json.json()).toMatchObject({ error: 'second_factor_required', url: '/auth/two-factor' });
    const page = await admin.jar.fetch(`${h.url}/reports`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/auth/two-factor');
  });

  it('does not take an unproven address in AUTH_ADMINS for an admin', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true, verified: false });
    expect((await admin.jar.fetch(`${h.url}/reports`, { headers: { accept: 'application/json' } })).status).toBe(403);
  });

  it('refuses an API key, even an admin\'s, with 403', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const created = await post(h, admin.jar, 'api-keys', { action: 'create', name: 'script' });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    const response = await fetch(`${h.url}/reports`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(403);
  });

  it('lets an admin by grant through, and refuses them once the grant is withdrawn', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const granted = await newUser(h, { name: 'grace', secondFactor: true });
    expect((await post(h, admin.jar, `admin/users/${granted.id}`, { action: 'grant-admin' })).status).toBe(200);
    expect((await granted.jar.fetch(`${h.url}/reports`)).status).toBe(200);
    expect((await post(h, admin.jar, `admin/users/${granted.id}`, { action: 'revoke-admin' })).status).toBe(200);
    expect((await granted.jar.fetch(`${h.url}/reports`, { headers: { accept: 'application/json' } })).status).toBe(403);
  });

  it('links the administration pages from an admin\'s account page, and from nobody else\'s; the export says who is an admin', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const user = await newUser(h);
    const adminPage = await (await admin.jar.fetch(`${h.url}/auth/account`, { headers: { accept: 'text/html' } })).text();
    expect(adminPage).toContain('<a href="/auth/admin">Administration</a>');
    expect(await (await admin.jar.fetch(`${h.url}/auth/account`, { headers: { accept: 'application/json' } })).json()).toMatchObject({ links: { admin: true } });
    const userPage = await (await user.jar.fetch(`${h.url}/auth/account`, { headers: { accept: 'text/html' } })).text();
    expect(userPage).not.toContain('/auth/admin');
    expect(await (await admin.jar.fetch(`${h.url}/auth/account/export`)).json()).toMatchObject({ administration: { admin: true, adminByGrant: false } });
    expect(await (await user.jar.fetch(`${h.url}/auth/account/export`)).json()).toMatchObject({ administration: { admin: false, adminByGrant: false } });
  });
});
