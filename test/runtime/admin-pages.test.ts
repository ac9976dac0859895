// The administration's pages (issue 49, SPEC §15). As rendered (features/admin/pages.ts): the users' list with its
// GET search and its pages, a user's page with each section, each action's form only where its rules allow it, every
// form with the CSRF token, names escaped, and a refused form's errors beside its fields. Over HTTP (admin-view.ts,
// on 127.0.0.1 with the memory adapter and SQLite): the list's search and pages, each user's state, a user's page and
// JSON with what the features know of them and never a session token, 404 for an unknown user, the notices.
import { afterEach, describe, expect, it } from 'vitest';
import { renderUserListPage, renderUserPage } from '../../templates/runtime/features/admin/pages.js';
import { impersonationToken } from '../../templates/runtime/features/admin/impersonation.js';
import { Organizations } from '../../templates/runtime/features/organizations/index.js';
import { CSRF, userListPage, userPage } from '../support/admin-pages.js';
import { type Harness, type TestUser, ADMIN_EMAIL, csrfOf, get, newUser, post, startHarness as startAdminHarness } from './admin-harness.js';
import { memoryAndSqlite, type MadeAdapter } from './helpers.js';

/** The actions of the page's forms, in order. */
function actionsOf(page: string): string[] {
  return [...page.matchAll(/name="action" value="([^"]+)"/g)].map((match) => match[1]!);
}

function expectEveryFormPostsWithCsrf(page: string): void {
  const forms = page.match(/<form /g) ?? [];
  expect(forms.length).toBeGreaterThan(0);
  expect((page.match(new RegExp(`<input type="hidden" name="csrfToken" value="${CSRF}">`, 'g')) ?? []).length).toBe(forms.length);
  expect((page.match(/ action="\/auth\/admin\/users\/user-1" method="POST">/g) ?? []).length).toBe(forms.length);
}

const every = { disable: true, enable: false, endSessions: true, removeTwoFactor: true, removePasskey: true, sendReset: true, grantAdmin: true, revokeAdmin: false, impersonate: true, delete: true };
const none = { disable: false, enable: false, endSessions: false, removeTwoFactor: false, removePasskey: false, sendReset: false, grantAdmin: false, revokeAdmin: false, impersonate: false, delete: false };

describe('the users page', () => {
  it('lists each user with a link to their page, their name (escaped), created, last sign-in and state', () => {
    const page = renderUserListPage(userListPage());
    expect(page).toContain('<h1>Users</h1>');
    expect(page).toContain('<td><a href="/auth/admin/users/user-1">mia@example.test</a><br><span class="hint">&lt;img src=x onerror=alert(1)&gt;</span></td><td class="nowrap">2026-01-05</td><td class="nowrap">—</td><td>Active</td>');
    expect(page).toContain('<a href="/auth/admin/users/user%2F2">max@example.test</a>');
    expect(page).toContain('<td><strong>Disabled</strong><br><span class="hint">since 2026-01-21</span></td>');
    expect(page).not.toContain('<img');
  });

  it('marks the admins and the admin looking', () => {
    const page = renderUserListPage(userListPage());
    expect(page).toContain('<a href="/auth/admin/users/user-admin">ada@example.test</a><span class="badge">admin</span> <span class="muted">(you)</span>');
    expect(page.match(/class="badge">admin</g)).toHaveLength(1);
  });

  it('searches with a GET form that keeps the search (escaped), with no POST and no CSRF token', () => {
    const page = renderUserListPage(userListPage({ query: '"mia" <b>', total: 1 }));
    expect(page).toContain('<form action="/auth/admin" method="GET" role="search"><label for="admin-q">Search by address or name</label>');
    expect(page).toContain('<input id="admin-q" name="q" type="search" maxlength="200" autocomplete="off" spellcheck="false" value="&quot;mia&quot; &lt;b&gt;">');
    expect(page).toContain('1 user match “&quot;mia&quot; &lt;b&gt;”. <a href="/auth/admin">Show every user</a>');
    expect(page).not.toContain('method="POST"');
    expect(page).not.toContain('csrfToken');
  });

  it('links the previous and the next page, keeping the search as a query value', () => {
    const page = renderUserListPage(userListPage({ query: 'a&b=c', page: 2, pages: 3, total: 70 }));
    expect(page).toContain('<nav class="pager" aria-label="Pages of users"><a href="/auth/admin?q=a%26b%3Dc" rel="prev">Previous page</a><span>Page 2 of 3</span><a href="/auth/admin?q=a%26b%3Dc&amp;page=3" rel="next">Next page</a></nav>');
    expect(renderUserListPage(userListPage({ page: 3, pages: 3, total: 70 }))).toContain('<a href="/auth/admin?page=2" rel="prev">Previous page</a><span>Page 3 of 3</span><span></span>');
    expect(renderUserListPage(userListPage())).not.toContain('class="pager"');
  });

  it('says when no user matches, when there are none, and when a page is past the last', () => {
    expect(renderUserListPage(userListPage({ users: [], total: 0, query: 'nobody' }))).toContain('No user matches this search.');
    expect(renderUserListPage(userListPage({ users: [], total: 0 }))).toContain('There are no users yet.');
    const past = renderUserListPage(userListPage({ users: [], total: 3, page: 9, pages: 1 }));
    expect(past).toContain('No users on this page. <a href="/auth/admin">Go to the first page</a>');
    expect(past).toContain('<a href="/auth/admin" rel="prev">Previous page</a><span>Page 9 of 1</span>');
  });

  it('shows a notice', () => {
    expect(renderUserListPage(userListPage({ notice: 'The user was deleted.' }))).toContain('<div class="notice" role="status"><p>The user was deleted.</p></div>');
  });
});

describe("a user's page", () => {
  it('shows the state, admin, address (verified or not), name (escaped), creation and id', () => {
    const page = renderUserPage(userPage());
    expect(page).toContain('<h1>Mia &lt;b&gt;Member&lt;/b&gt;</h1>');
    expect(page).toContain('<dt>State</dt><dd>Active</dd><dt>Admin</dt><dd>No</dd><dt>Email address</dt><dd>mia@example.test <span class="muted">(verified 2026-01-05)</span></dd>');
    expect(page).toContain('<dt>Created</dt><dd>2026-01-05 00:00 UTC</dd><dt>User id</dt><dd><code>user-1</code></dd>');
    const unverified = renderUserPage(userPage({ user: { id: 'user-1', email: 'mia@example.test', name: null, emailVerified: null } }));
    expect(unverified).toContain('<h1>mia@example.test</h1>');
    expect(unverified).toContain('mia@example.test <span class="muted">(not verified)</span>');
  });

  it('shows since when and why a user is disabled, and how they are an admin', () => {
    const disabled = renderUserPage(userPage({ state: { createdAt: null, disabledAt: new Date('2026-02-05T08:30:00Z'), disabledReason: 'Spam <a>', granted: false, configured: false } }));
    expect(disabled).toContain('<dt>State</dt><dd><strong>Disabled</strong> since 2026-02-05 08:30 UTC<br><span class="muted">Reason: Spam &lt;a&gt;</span></dd>');
    expect(renderUserPage(userPage({ state: { createdAt: null, disabledAt: null, disabledReason: null, granted: true, configured: false } }))).toContain('<dt>Admin</dt><dd>Yes, granted by an admin</dd>');
    expect(renderUserPage(userPage({ state: { createdAt: null, disabledAt: null, disabledReason: null, granted: false, configured: true } }))).toContain('<dt>Admin</dt><dd>Yes, by the app’s configuration (AUTH_ADMINS)</dd>');
  });

  it('lists the sign-in methods: linked accounts, password, two-factor and each passkey with its remove form', () => {
    const page = renderUserPage(userPage());
    expect(page).toContain('<li>GitHub <span class="muted">(account 5821)</span></li><li>Password: set</li><li class="row"><span>Two-factor: on</span><form action="/auth/admin/users/user-1" method="POST">');
    expect(page).toContain('<input type="hidden" name="action" value="remove-passkey"><input type="hidden" name="id" value="credential-a"><button type="submit" class="secondary" aria-label="Remove passkey 1">Remove</button>');
    expect(page).toContain('<span>Passkey 2 <span class="muted">(this device only)</span></span>');
    expect(page).toContain('name="id" value="credential-b"><button type="submit" class="secondary" aria-label="Remove passkey 2">Remove</button>');
  });

  it('shows only the methods the app has, and two-factor off without its remove form', () => {
    const page = renderUserPage(userPage({ methods: { accounts: [], twoFactor: false }, may: { ...every, removeTwoFactor: false, removePasskey: false, sendReset: false } }));
    expect(page).toContain('<li class="row"><span>Two-factor: off</span></li>');
    expect(page).not.toContain('Password:');
    expect(page).not.toContain('Passkey');
    expect(actionsOf(page)).not.toContain('remove-two-factor');
    expect(renderUserPage(userPage({ methods: { accounts: [] } }))).toContain('No way to sign in is stored for this user.');
  });

  it('lists the live sessions by browser and dates, marks an impersonation, and shows no session id or token', () => {
    const page = renderUserPage(userPage());
    expect(page).toContain('<li><strong>Firefox on Linux</strong><br><span class="hint">Signed in 2026-02-01 10:00 UTC · last seen 2026-02-02 11:00 UTC · expires 2026-03-01 10:00 UTC</span></li>');
    expect(page).toContain('<li><strong>An unknown browser</strong><span class="badge">an admin acting as the user</span><br><span class="hint">Signed in 2026-02-03 09:00 UTC · last seen — · expires 2026-02-03 10:00 UTC</span></li>');
    expect(page).not.toContain('session-id-');
    expect(renderUserPage(userPage({ sessions: [], may: { ...every, endSessions: false } }))).toContain('<h2>Sessions</h2><p class="muted">No live sessions.</p>');
  });

  it('lists the organizations (escaped) only when the app has them', () => {
    expect(renderUserPage(userPage())).toContain('<h2>Organizations</h2><ul class="list"><li>Acme &lt;script&gt;alert(1)&lt;/script&gt; <span class="muted">(owner, <code>acme</code>)</span></li></ul>');
    expect(renderUserPage(userPage({ memberships: [] }))).toContain('<h2>Organizations</h2><p class="muted">No organization.</p>');
    expect(renderUserPage(userPage({ memberships: null }))).not.toContain('<h2>Organizations</h2>');
  });

  it('lists the recent events by their labels, an admin’s as by an administrator, an unlabelled one as a security event', () => {
    const page = renderUserPage(userPage());
    expect(page).toContain('<li><strong>An administrator removed two-factor</strong><br><span class="hint">2026-02-04 12:00 UTC · by an administrator · Firefox on Linux · 203.0.113.9</span></li>');
    expect(page).toContain('<li><strong>Signed in</strong> <span class="muted">(GitHub)</span><br><span class="hint">2026-02-01 10:00 UTC · Firefox on Linux · 203.0.113.9</span></li>');
    expect(page).toContain('<li><strong>Security event</strong><br><span class="hint">2026-01-30 10:00 UTC</span></li>');
    expect(renderUserPage(userPage({ events: [] }))).toContain('No security events.');
  });

  it('lists the admin actions: what, the reason (escaped), who and when', () => {
    const page = renderUserPage(userPage());
    expect(page).toContain('<li><strong>Removed two-factor</strong><br>Reason: Lost her phone &lt;script&gt;<br><span class="hint">by ada@example.test · 2026-02-04 12:00 UTC</span></li>');
    expect(page).toContain('<li><strong>Acted as the user</strong><br>Reason: Ticket 42<br><span class="hint">by a deleted admin · 2026-02-03 09:00 UTC</span></li>');
    expect(renderUserPage(userPage({ actions: [] }))).toContain('No admin has acted on this user.');
  });

  it('offers every action the rules allow, each a POST to the user’s page with the CSRF token', () => {
    const page = renderUserPage(userPage());
    expect(actionsOf(page)).toEqual(['remove-two-factor', 'remove-passkey', 'remove-passkey', 'end-sessions', 'send-reset', 'grant-admin', 'disable', 'impersonate', 'delete']);
    expectEveryFormPostsWithCsrf(page);
    expect(page).toContain('<label for="admin-impersonate-reason">Reason</label><input id="admin-impersonate-reason" name="reason" type="text" maxlength="500" autocomplete="off" required aria-describedby="admin-impersonate-hint">');
    expect(page).toContain('for at most 60 minutes');
    expect(page).toContain('<label for="admin-disable-reason">Reason</label><input id="admin-disable-reason" name="reason"');
    expect(page).toContain('<label for="admin-delete-confirm">Type <code>mia@example.test</code> to confirm</label><input id="admin-delete-confirm" name="confirm" type="text"');
    expect(page).not.toContain('<script>');
  });

  it('offers enable, not disable nor impersonate, for a disabled user', () => {
    const page = renderUserPage(userPage({ may: { ...every, disable: false, enable: true, impersonate: false } }));
    expect(actionsOf(page)).toContain('enable');
    expect(actionsOf(page)).not.toContain('disable');
    expect(actionsOf(page)).not.toContain('impersonate');
  });

  it('offers revoke for an admin by grant, and says how to revoke an admin by the configuration', () => {
    expect(actionsOf(renderUserPage(userPage({ state: { createdAt: null, disabledAt: null, disabledReason: null, granted: true, configured: false }, may: { ...every, grantAdmin: false, revokeAdmin: true, impersonate: false } })))).toContain('revoke-admin');
    const configured = renderUserPage(userPage({ state: { createdAt: null, disabledAt: null, disabledReason: null, granted: false, configured: true }, may: { ...every, grantAdmin: false, impersonate: false } }));
    expect(actionsOf(configured)).not.toContain('revoke-admin');
    expect(actionsOf(configured)).not.toContain('grant-admin');
    expect(configured).toContain('remove the address from AUTH_ADMINS to revoke it');
  });

  it('offers the admin no action on themselves that the rules refuse, and says so', () => {
    const page = renderUserPage(userPage({ self: true, state: { createdAt: null, disabledAt: null, disabledReason: null, granted: false, configured: true }, may: { ...every, disable: false, grantAdmin: false, impersonate: false, delete: false } }));
    expect(actionsOf(page)).toEqual(['remove-two-factor', 'remove-passkey', 'remove-passkey', 'end-sessions', 'send-reset']);
    expect(page).toContain('This is your own account');
    expect(page).not.toContain('AUTH_ADMINS to revoke');
  });

  it('offers no form at all when no action is allowed', () => {
    expect(renderUserPage(userPage({ may: none }))).not.toContain('<form');
  });

  it('shows a refused disable’s reason beside its field, not beside the impersonation’s', () => {
    const page = renderUserPage(userPage({ errors: { reason: 'Give a reason.' }, refusedAction: 'disable' }));
    expect(page).toContain('<input id="admin-disable-reason" name="reason" type="text" maxlength="500" autocomplete="off" required aria-invalid="true" aria-describedby="admin-disable-hint admin-reason-error"><p class="hint" id="admin-disable-hint">Only admins see it.</p><p class="field-error" id="admin-reason-error">Give a reason.</p>');
    expect(page).toContain('<input id="admin-impersonate-reason" name="reason" type="text" maxlength="500" autocomplete="off" required aria-describedby="admin-impersonate-hint">');
    expect(page.match(/id="admin-reason-error"/g)).toHaveLength(1);
    expect(page).toContain('<div class="error" role="alert"><p>The form was not accepted: see the field below.</p></div>');
  });

  it('shows a refused impersonation’s reason beside its own field', () => {
    const page = renderUserPage(userPage({ errors: { reason: 'Give a reason.' }, refusedAction: 'impersonate' }));
    expect(page).toContain('<input id="admin-impersonate-reason" name="reason" type="text" maxlength="500" autocomplete="off" required aria-invalid="true" aria-describedby="admin-impersonate-hint admin-reason-error">');
    expect(page).not.toMatch(/id="admin-disable-reason"[^>]*aria-invalid/);
  });

  it('shows a refused deletion’s confirmation beside its field, and a refused passkey beside the passkeys', () => {
    const deletion = renderUserPage(userPage({ errors: { confirm: 'Type the address exactly.' }, refusedAction: 'delete' }));
    expect(deletion).toContain('required aria-invalid="true" aria-describedby="admin-confirm-error"><p class="field-error" id="admin-confirm-error">Type the address exactly.</p><button type="submit">Delete this user</button>');
    const passkey = renderUserPage(userPage({ errors: { id: 'The user has no passkey with this id.' }, refusedAction: 'remove-passkey' }));
    expect(passkey).toContain('aria-label="Remove passkey 1" aria-describedby="admin-id-error">Remove</button>');
    expect(passkey).toContain('<p class="field-error" id="admin-id-error">The user has no passkey with this id.</p>');
  });

  it('shows an error no form takes at the top (escaped), and a notice', () => {
    const page = renderUserPage(userPage({ errors: { form: 'There must always be one <admin>.' }, refusedAction: 'revoke-admin', notice: 'The user is an admin now.' }));
    expect(page).toContain('<div class="error" role="alert"><p>There must always be one &lt;admin&gt;.</p></div>');
    expect(page).toContain('<div class="notice" role="status"><p>The user is an admin now.</p></div>');
    // A field whose form is not the refused one is not marked.
    expect(renderUserPage(userPage({ errors: { confirm: 'No.' }, refusedAction: 'disable' }))).toContain('<div class="error" role="alert"><p>No.</p></div>');
  });

  it('places a field’s error in the first form that has the field (disable before impersonate) when the refused form is not named', () => {
    const page = renderUserPage(userPage({ errors: { reason: 'Give a reason.' } }));
    expect(page.match(/aria-invalid="true"/g)).toHaveLength(1);
    expect(page).toMatch(/<input id="admin-disable-reason" [^>]*aria-invalid="true" aria-describedby="admin-disable-hint admin-reason-error">/);
    const disabled = renderUserPage(userPage({ errors: { reason: 'Give a reason.' }, may: { ...every, disable: false, enable: true } }));
    expect(disabled).toMatch(/<input id="admin-impersonate-reason" [^>]*aria-invalid="true" aria-describedby="admin-impersonate-hint admin-reason-error">/);
  });
});

/** The harness with organizations (a user's page lists their memberships). */
function startHarness(made: MadeAdapter): Promise<Harness> {
  return startAdminHarness(made, { features: [Organizations({ sendMessage: () => {} }, {})] });
}

interface ListJson {
  users: { id: string; email: string | null; name: string | null; createdAt: string | null; lastSignInAt: string | null; state: string; admin: boolean }[];
  total: number;
  page: number;
  pages: number;
}

async function listJson(h: Harness, admin: TestUser, search = ''): Promise<ListJson> {
  const response = await get(h, admin.jar, `admin${search}`);
  expect(response.status).toBe(200);
  return (await response.json()) as ListJson;
}

describe.each(memoryAndSqlite)('the administration pages over HTTP with %s', (_name, make) => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  it('lists the users 25 a page with how many match and how many pages; a page that is not a whole number from 1 is the first', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    for (let index = 0; index < 26; index++) await newUser(h, { name: `member ${index}`, signIn: false });
    const first = await listJson(h, admin);
    expect(first).toMatchObject({ total: 27, page: 1, pages: 2 });
    expect(first.users).toHaveLength(25);
    const second = await listJson(h, admin, '?page=2');
    expect(second).toMatchObject({ total: 27, page: 2, pages: 2 });
    expect(second.users).toHaveLength(2);
    expect(new Set([...first.users, ...second.users].map((user) => user.id)).size).toBe(27);
    for (const bad of ['0', '-1', 'two', '1.5', '', '99999999999']) {
      const shown = await listJson(h, admin, `?page=${encodeURIComponent(bad)}`);
      expect(shown.page, `?page=${bad}`).toBe(1);
      expect(shown.users).toHaveLength(25);
    }
    expect((await listJson(h, admin, '?page=3')).users).toEqual([]);
  });

  it('searches by address or name, whatever the case, the search trimmed', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const byName = await newUser(h, { name: 'Grace Hopper', signIn: false });
    const byAddress = await newUser(h, { name: 'hopper-fan', signIn: false });
    await newUser(h, { name: 'Alan Turing', signIn: false });
    const found = await listJson(h, admin, `?q=${encodeURIComponent('  HOPPER ')}`);
    expect(found.users.map((user) => user.id).sort()).toEqual([byName.id, byAddress.id].sort());
    expect(found).toMatchObject({ total: 2, page: 1, pages: 1 });
    expect((await listJson(h, admin, '?q=nobody-at-all')).users).toEqual([]);
  });

  it('keeps at most 200 characters of a search, and shows it escaped in the search field', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const page = await (await get(h, admin.jar, `admin?q=${encodeURIComponent(`"<b>${'x'.repeat(300)}`)}`, false)).text();
    expect(page).toContain(`value="&quot;&lt;b&gt;${'x'.repeat(196)}"`);
    expect(page).not.toContain('<b>x');
  });

  it('shows whether each user is active or disabled, an admin by configuration or by grant, and their last sign-in', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const disabled = await newUser(h, { name: 'disabled' });
    const granted = await newUser(h, { name: 'granted', signIn: false });
    const plain = await newUser(h, { name: 'plain', signIn: false });
    await h.adapter.disableUser(disabled.id, { at: new Date(), reason: 'Spam' });
    await h.adapter.grantAdmin({ userId: granted.id, grantedBy: admin.id, at: new Date() });
    const byId = new Map((await listJson(h, admin)).users.map((user) => [user.id, user]));
    expect(byId.get(admin.id)).toMatchObject({ email: ADMIN_EMAIL, state: 'active', admin: true });
    expect(byId.get(disabled.id)).toMatchObject({ state: 'disabled', admin: false });
    expect(byId.get(disabled.id)!.lastSignInAt).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    expect(byId.get(granted.id)).toMatchObject({ state: 'active', admin: true, lastSignInAt: null });
    expect(byId.get(plain.id)).toMatchObject({ state: 'active', admin: false });
    const page = await (await get(h, admin.jar, 'admin', false)).text();
    expect(page).toContain('<strong>Disabled</strong>');
    expect(page).toContain(`<a href="/auth/admin/users/${admin.id}">${ADMIN_EMAIL}</a><span class="badge">admin</span> <span class="muted">(you)</span>`);
  });

  it("shows a user's address, sign-in methods, sessions, organizations, events and the admins' actions as JSON, never a session's token", async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h, { name: 'Bea' });
    await h.adapter.setTwoFactor(target.id, { secret: 'unused-in-these-tests', enabledAt: new Date() });
    await h.adapter.createOrganization({ id: crypto.randomUUID(), slug: 'beas-team', name: 'Bea’s team', createdAt: new Date() }, target.id);
    await h.adapter.createAdminAction({ id: crypto.randomUUID(), userId: target.id, actorId: admin.id, action: 'two-factor-removed', detail: 'lost her phone', at: new Date() });
    const response = await get(h, admin.jar, `admin/users/${target.id}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body['user']).toEqual({ id: target.id, email: target.email, name: 'Bea', emailVerified: expect.stringMatching(/T/) });
    expect(body['state']).toMatchObject({ state: 'active', disabledAt: null, admin: false, granted: false, configured: false });
    expect(body['methods']).toEqual({ accounts: [], password: true, twoFactor: true });
    expect(body['memberships']).toEqual([{ slug: 'beas-team', name: 'Bea’s team', role: 'owner' }]);
    const sessions = body['sessions'] as { id: string; impersonation: boolean; expires: string }[];
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ impersonation: false, expires: expect.stringMatching(/T/) });
    expect(body['events']).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'sign-in', label: 'Signed in', method: 'password' })]));
    expect(body['actions']).toEqual([expect.objectContaining({ action: 'two-factor-removed', actorId: admin.id, actorEmail: ADMIN_EMAIL, detail: 'lost her phone' })]);
    const token = target.jar.get('authjs.session-token');
    expect(token).toBeTruthy();
    expect(text).not.toContain(token!);
    expect(text).not.toContain(token!.split('~')[0]!);
  });

  it("shows a user's page with the forms their state allows, each with the request's CSRF token", async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h, { name: 'Bea' });
    const response = await get(h, admin.jar, `admin/users/${target.id}`, false);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await response.text();
    expect(actionsOf(page)).toEqual(['end-sessions', 'send-reset', 'grant-admin', 'disable', 'impersonate', 'delete']);
    // The token of the browser's CSRF cookie, as <mount>/csrf reads it.
    const token = await csrfOf(h, admin.jar);
    const fields = page.match(/name="csrfToken" value="[^"]+"/g)!;
    expect(fields).toHaveLength(actionsOf(page).length);
    expect(new Set(fields)).toEqual(new Set([`name="csrfToken" value="${token}"`]));
    expect(page).toContain('<h1>Bea</h1>');
  });

  it('shows a disabled user with their reason and the enable form, not the disable or impersonate ones', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h, { name: 'Bea', signIn: false });
    await h.adapter.disableUser(target.id, { at: new Date('2026-02-05T08:30:00Z'), reason: 'Sends <spam>' });
    const page = await (await get(h, admin.jar, `admin/users/${target.id}`, false)).text();
    expect(page).toContain('<dd><strong>Disabled</strong> since 2026-02-05 08:30 UTC<br><span class="muted">Reason: Sends &lt;spam&gt;</span></dd>');
    expect(actionsOf(page)).toEqual(['send-reset', 'grant-admin', 'enable', 'delete']);
  });

  it('shows an admin their own page without the actions they may not take on themselves', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const page = await (await get(h, admin.jar, `admin/users/${admin.id}`, false)).text();
    expect(actionsOf(page)).toEqual(['remove-two-factor', 'end-sessions', 'send-reset']);
    expect(page).toContain('<dt>Admin</dt><dd>Yes, by the app’s configuration (AUTH_ADMINS)</dd>');
  });

  it('offers revoke for an admin by grant, and never impersonating an admin', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const granted = await newUser(h, { name: 'granted', signIn: false });
    await h.adapter.grantAdmin({ userId: granted.id, grantedBy: admin.id, at: new Date() });
    const page = await (await get(h, admin.jar, `admin/users/${granted.id}`, false)).text();
    expect(actionsOf(page)).toEqual(['send-reset', 'revoke-admin', 'disable', 'delete']);
  });

  it("marks an admin's impersonation among the user's sessions", async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h, { name: 'Bea', signIn: false });
    const expires = new Date(Date.now() + 600_000);
    const sessionToken = impersonationToken('impersonation-token-never-shown', expires);
    await h.adapter.createImpersonationSession({ session: { sessionToken, userId: target.id, expires, createdAt: new Date(), userAgent: null }, adminId: admin.id, adminSessionToken: admin.jar.get('authjs.session-token')! });
    const text = await (await get(h, admin.jar, `admin/users/${target.id}`)).text();
    expect((JSON.parse(text) as { sessions: unknown[] }).sessions).toEqual([expect.objectContaining({ impersonation: true })]);
    expect(text).not.toContain('impersonation-token-never-shown');
    expect(await (await get(h, admin.jar, `admin/users/${target.id}`, false)).text()).toContain('<span class="badge">an admin acting as the user</span>');
  });

  it('answers 404 for a user that does not exist, as a page and as JSON', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    expect((await get(h, admin.jar, 'admin/users/no-such-user')).status).toBe(404);
    const page = await get(h, admin.jar, `admin/users/${crypto.randomUUID()}`, false);
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain('name="action"');
  });

  it('shows the notice a redirect names, and no text of the URL', async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h, { name: 'Bea', signIn: false });
    expect(await (await get(h, admin.jar, `admin/users/${target.id}?notice=sessions-ended`, false)).text()).toContain('<div class="notice" role="status"><p>Every session of the user ended.</p></div>');
    expect(await (await get(h, admin.jar, 'admin?notice=deleted', false)).text()).toContain('<p>The user was deleted.</p>');
    for (const notice of ['constructor', '%3Cb%3Ehi', 'toString']) {
      const page = await (await get(h, admin.jar, `admin/users/${target.id}?notice=${notice}`, false)).text();
      expect(page).not.toContain('class="notice"');
    }
  });

  it("shows a refused action's error beside its field, at 400", async () => {
    h = await startHarness(await make());
    const admin = await newUser(h, { admin: true });
    const target = await newUser(h, { name: 'Bea', signIn: false });
    const response = await post(h, admin.jar, `admin/users/${target.id}`, { action: 'disable', reason: '   ' }, false);
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toMatch(/<input id="admin-disable-reason" [^>]*aria-invalid="true" aria-describedby="admin-disable-hint admin-reason-error">/);
    expect(page).toContain('<p class="field-error" id="admin-reason-error">');
    expect(page.match(/aria-invalid="true"/g)).toHaveLength(1);
  });
});
