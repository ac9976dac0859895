// The organizations' part of the account (features/organizations/account.ts) through a real app: the section of the
// user's organizations with a link to <mount>/organizations, the same in the page's JSON, the memberships in the
// export, and the deletion refused while the user is the only owner of an organization with other members.
import express, { urlencoded } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { Account } from '../../templates/runtime/features/account/index.js';
import { Organizations } from '../../templates/runtime/features/organizations/index.js';
import { FrameworkAuth } from '../../templates/runtime/index.js';
import type { Adapter } from '../../templates/runtime/index.js';
import { SECRET, recordingLogger } from './helpers.js';

const OIDC = { id: 'oidc', name: 'Example ID', type: 'oidc' as const, issuer: 'https://issuer.example', clientId: 'id', clientSecret: 'secret' };

let url: string;
let app: RunningApp;
let adapter: Required<Adapter>;
let users = 0;

beforeAll(async () => {
  adapter = MemoryAdapter() as Required<Adapter>;
  const server = express();
  server.use(urlencoded({ extended: true }));
  server.use('/auth/*splat', FrameworkAuth({ secret: SECRET, trustHost: ['127.0.0.1'], adapter, providers: [OIDC], features: [Account({ sendMessage: () => {} }), Organizations()], logger: recordingLogger().logger, rateLimit: false }));
  app = await listen(server);
  url = app.url;
});
afterAll(() => app.close());

/** A user with a linked OIDC account and a fresh session (its cookie in a new jar). */
async function signedInUser(): Promise<{ id: string; email: string; jar: CookieJar }> {
  users += 1;
  const email = `organizations-${users}@example.test`;
  const user = await adapter.createUser({ id: crypto.randomUUID(), email, name: `User ${users}`, emailVerified: new Date() });
  await adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}` });
  const sessionToken = crypto.randomUUID();
  const now = new Date();
  await adapter.createSession({ sessionToken, userId: user.id, expires: new Date(now.valueOf() + 3_600_000), createdAt: now, lastSeenAt: now, userAgent: 'test' });
  const jar = createJar();
  jar.set(url, `authjs.session-token=${sessionToken}; Path=/; HttpOnly`);
  return { id: user.id, email, jar };
}

/** An organization owned by `ownerId`, with `others` joined as members through an accepted invitation each. */
async function organization(slug: string, name: string, ownerId: string, others: readonly { id: string; email: string }[] = [], role = 'member'): Promise<void> {
  const id = crypto.randomUUID();
  expect(await adapter.createOrganization({ id, slug, name, createdAt: new Date() }, ownerId)).toBe(true);
  for (const other of others) {
    const digest = crypto.randomUUID();
    const now = new Date();
    expect(await adapter.createInvitation({ id: crypto.randomUUID(), organizationId: id, email: other.email, role, inviterId: ownerId, createdAt: now, expiresAt: new Date(now.valueOf() + 86_400_000), digest }, 100)).toBe(true);
    expect(await adapter.acceptInvitation(digest, other.id, now)).toBe(true);
  }
}

async function deleteAccount(jar: CookieJar, email: string, json = false): Promise<Response> {
  const { csrfToken } = (await (await jar.fetch(`${url}/auth/csrf`)).json()) as { csrfToken: string };
  const form = formBody(json ? { csrfToken, confirm: 'yes' } : { csrfToken, email });
  return jar.fetch(`${url}/auth/account/delete`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: json ? 'application/json' : 'text/html' } });
}

describe("the organizations' part of the account", () => {
  it('lists the user’s organizations (names escaped) with their roles and links to the organizations page', async () => {
    const owner = await signedInUser();
    const member = await signedInUser();
    await organization('acme-1', 'Acme <b>1</b>', owner.id, [member], 'admin');
    const page = await (await member.jar.fetch(`${url}/auth/account`)).text();
    expect(page).toContain('<h2>Organizations</h2><ul class="methods"><li><a href="/auth/organizations/acme-1">Acme &lt;b&gt;1&lt;/b&gt;</a> <span class="muted">(admin)</span></li></ul><p class="actions"><a href="/auth/organizations">Your organizations</a></p>');
  });

  it('says when the user belongs to no organization, still linking the page', async () => {
    const { jar } = await signedInUser();
    const page = await (await jar.fetch(`${url}/auth/account`)).text();
    expect(page).toContain('<h2>Organizations</h2><ul class="methods"><li class="muted">You belong to no organization yet.</li></ul><p class="actions"><a href="/auth/organizations">Your organizations</a></p>');
  });

  it('gives the memberships and the link in the JSON view', async () => {
    const { id, jar } = await signedInUser();
    await organization('json-org', 'JSON Org', id);
    const view = (await (await jar.fetch(`${url}/auth/account`, { headers: { accept: 'application/json' } })).json()) as Record<string, unknown>;
    expect(view['organizations']).toEqual([{ id: expect.any(String), slug: 'json-org', name: 'JSON Org', role: 'owner' }]);
    expect(view).toMatchObject({ links: { organizations: true } });
  });

  it('lists the memberships in the export', async () => {
    const { id, jar } = await signedInUser();
    await organization('export-org', 'Export Org', id);
    const exported = (await (await jar.fetch(`${url}/auth/account/export`)).json()) as Record<string, unknown>;
    expect(exported['organizations']).toEqual([{ slug: 'export-org', name: 'Export Org', role: 'owner', joinedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }]);
  });

  it('refuses to delete the only owner of organizations with other members, naming them, and deletes nothing', async () => {
    const owner = await signedInUser();
    const member = await signedInUser();
    await organization('sole-a', 'Sole <A>', owner.id, [member]);
    await organization('sole-b', 'Sole B', owner.id, [member]);
    const browser = await deleteAccount(owner.jar, owner.email);
    expect(browser.status).toBe(400);
    expect(await browser.text()).toContain('Transfer ownership of Sole &lt;A&gt;, Sole B or delete them first.');
    const json = await deleteAccount(owner.jar, owner.email, true);
    expect(json.status).toBe(400);
    expect(await json.json()).toEqual({ error: 'InvalidRequest', errors: { confirm: 'You are the only owner of Sole <A>, Sole B, where others are members. Transfer ownership of Sole <A>, Sole B or delete them first.' } });
    expect(await adapter.getUser(owner.id)).not.toBeNull();
  });

  it('deletes the owner of an organization they alone are in, and a member who is no owner', async () => {
    const owner = await signedInUser();
    const member = await signedInUser();
    await organization('alone', 'Alone', owner.id);
    await organization('shared', 'Shared', (await signedInUser()).id, [member]);
    expect((await deleteAccount(owner.jar, owner.email, true)).status).toBe(200);
    expect((await deleteAccount(member.jar, member.email, true)).status).toBe(200);
    expect(await adapter.getUser(owner.id)).toBeNull();
    expect(await adapter.getUser(member.id)).toBeNull();
  });

  it('forgets the invitations to a deleted account’s address, which no cascade from the user reaches', async () => {
    const invited = await signedInUser();
    const owner = await signedInUser();
    await organization('inviting', 'Inviting', owner.id);
    const organizationId = (await adapter.getOrganization('inviting'))!.id;
    const now = new Date();
    const digest = crypto.randomUUID();
    await adapter.createInvitation({ id: crypto.randomUUID(), organizationId, email: invited.email, role: 'member', inviterId: owner.id, createdAt: now, expiresAt: new Date(now.valueOf() + 86_400_000), digest }, 100);
    expect(await adapter.getInvitation(digest)).not.toBeNull();
    expect((await deleteAccount(invited.jar, invited.email, true)).status).toBe(200);
    expect(await adapter.getInvitation(digest)).toBeNull();
    expect(await adapter.listInvitationsByEmail(invited.email, new Date(0))).toEqual([]);
  });
});
