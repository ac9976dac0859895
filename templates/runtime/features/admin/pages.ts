/**
 * The administration's pages, in the theme of the built-in pages and without JavaScript: the users
 * (`<mount>/admin`: a search by address or name, 25 a page, each with when they were created, their last sign-in and
 * their state) and one user (`<mount>/admin/users/<id>`: their state, address, sign-in methods, sessions,
 * organizations, recent security events and the admins' actions on them, then one form per action an admin may take).
 *
 * Every action is a form that POSTs to the user's page with the CSRF token and its `action`. A refused one shows its
 * errors beside its fields (`admin-<field>-error`, with `aria-invalid` and `aria-describedby`); an error no form takes
 * is shown at the top. The search is a GET form: it changes nothing.
 */
import type { Theme } from '../../contracts.js';
import { browserOf } from '../../http/browser-name.js';
import { formStyles } from '../../pages/form-styles.js';
import { type SafeHtml, html } from '../../pages/html.js';
import { layout } from '../../pages/layout.js';
import type { SecurityEvent } from '../security-events/index.js';
import type { AdminAction } from './access.js';
import type { AdminActionRecord, AdminUserSummary } from './storage.js';

/** A user as the list shows them: the stored summary, and whether they are an admin (by grant or by the config). */
interface ListedUser extends AdminUserSummary {
  admin: boolean;
}

/** What `<mount>/admin` shows. */
interface UserListPage {
  mountPath: string;
  theme: Theme;
  /** The admin looking: their own row is marked. */
  adminId: string;
  users: readonly ListedUser[];
  /** The search as used (trimmed, shortened); empty: every user. */
  query: string;
  /** The page shown (1-based), how many there are, and how many users match. */
  page: number;
  pages: number;
  total: number;
  /** What an action did (a deletion), shown once at the top. */
  notice?: string | undefined;
}

/** A session of the user, as an admin sees it: never its token. */
export interface ListedSession {
  /** The id `<mount>/sessions` lists it by (a hash of the token). */
  id: string;
  createdAt: Date | null;
  lastSeenAt: Date | null;
  expires: Date;
  userAgent: string | null;
  /** An admin acting as the user. */
  impersonation: boolean;
}

/** How the user signs in, as the features' parts of the account tell it (absent: the app has no such method). */
export interface SignInMethods {
  /** Their linked accounts (OAuth, OpenID Connect, email), by provider. */
  accounts: readonly { provider: string; providerName: string; providerAccountId: string }[];
  /** Whether a password is set. */
  password?: boolean | undefined;
  /** Whether two-factor is on. */
  twoFactor?: boolean | undefined;
  passkeys?: readonly { id: string; deviceType: string | null; backedUp: boolean }[] | undefined;
}

/** Which forms the user's page offers: each only when its action could be taken (the route checks again). */
interface UserActions {
  disable: boolean;
  enable: boolean;
  endSessions: boolean;
  removeTwoFactor: boolean;
  removePasskey: boolean;
  sendReset: boolean;
  grantAdmin: boolean;
  revokeAdmin: boolean;
  impersonate: boolean;
  delete: boolean;
}

/** What `<mount>/admin/users/<id>` shows. */
export interface UserPage {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  user: { id: string; email: string | null; name: string | null; emailVerified: Date | null };
  /** The admin looking at their own account (they may not disable, delete or revoke themselves). */
  self: boolean;
  state: { createdAt: Date | null; disabledAt: Date | null; disabledReason: string | null; granted: boolean; configured: boolean };
  methods: SignInMethods;
  sessions: readonly ListedSession[];
  /** The user's organizations; null when the app has none. */
  memberships: readonly { slug: string; name: string; role: string }[] | null;
  events: readonly SecurityEvent[];
  /** What the events' types are called (`Feature.securityEventLabels`). */
  eventLabels: ReadonlyMap<string, string>;
  /** The configured providers' names by id, for the events' methods. */
  providerNames: ReadonlyMap<string, string>;
  actions: readonly AdminActionRecord[];
  may: UserActions;
  /** Minutes an impersonation lasts, for the impersonate form's hint. */
  impersonationMinutes: number;
  /** A refused form's errors by field (`reason`, `confirm`, `id`); others at the top. */
  errors?: Readonly<Record<string, string>> | undefined;
  /** The refused form's `action`: which form a field's error belongs to (`reason` is both disable's and impersonate's). */
  refusedAction?: string | undefined;
  /** What an action did, shown once at the top. */
  notice?: string | undefined;
}

// Wider than the sign-in card: the list is a table. Danger buttons are outlined in the error colours, as on the
// account page (they reach 4.5:1 on the card in both schemes).
const styles =
  formStyles +
  'main{max-width:760px}h2{font-size:1.1rem;margin:28px 0 8px}.list{list-style:none;padding:0;margin:0}.list>li{border-top:1px solid var(--line);padding:8px 0}.list>li:first-child{border-top:0}.row{display:flex;flex-wrap:wrap;gap:8px 10px;align-items:center;justify-content:space-between}.row button{margin-top:0;width:auto}.badge{display:inline-block;border:1px solid var(--field);border-radius:999px;padding:0 8px;font-size:.85rem;margin-left:6px}table{width:100%;border-collapse:collapse;font-size:.95rem}th,td{text-align:left;vertical-align:top;padding:8px 6px;border-top:1px solid var(--line)}thead th{border-top:0}.nowrap{white-space:nowrap}.facts{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:0 0 8px}.facts dt{font-weight:600}.facts dd{margin:0}.search{display:flex;gap:8px;align-items:stretch}.search button{margin-top:0;width:auto;flex:none;white-space:nowrap}.pager{display:flex;gap:16px;justify-content:space-between;align-items:center;margin-top:16px}.danger button{background:transparent;color:var(--error-text);border-color:var(--error-line)}.notice{border:1px solid var(--line);border-radius:8px;padding:12px 14px;margin:0 0 20px}.notice p{margin:0}.error p+p{margin-top:6px}.events{font-size:.9rem}';

/** A date as `2026-11-24`, or a dash. */
function shownDay(date: Date | null): string {
  return date ? new Date(date).toISOString().slice(0, 10) : '—';
}

/** A date as `2026-11-24 12:30 UTC`, or a dash. */
function shownDate(date: Date | null): string {
  if (!date) return '—';
  const iso = new Date(date).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A sentence's first letter up ("an unknown browser" begins a cell). */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function noticeOf(notice: string | undefined): SafeHtml | string {
  return notice ? html`<div class="notice" role="status"><p>${notice}</p></div>` : '';
}

/** `<mount>/admin` with a search and a page (1: none); the search is a query value, the path fixed. */
function userListUrl(mountPath: string, query: string, page = 1): string {
  const params = new URLSearchParams();
  if (query) params.set('q', query);
  if (page > 1) params.set('page', String(page));
  const search = params.toString();
  return `${mountPath}/admin${search ? `?${search}` : ''}`;
}

/** `<mount>/admin/users/<id>`. */
function userUrl(mountPath: string, userId: string): string {
  return `${mountPath}/admin/users/${encodeURIComponent(userId)}`;
}

function listRow(params: UserListPage, user: ListedUser): SafeHtml {
  const who = user.email ?? user.name ?? user.id;
  const marks = html`${user.admin ? html`<span class="badge">admin</span>` : ''}${user.id === params.adminId ? html` <span class="muted">(you)</span>` : ''}`;
  const name = user.name && user.email ? html`<br><span class="hint">${user.name}</span>` : '';
  const state = user.disabledAt ? html`<strong>Disabled</strong><br><span class="hint">since ${shownDay(user.disabledAt)}</span>` : 'Active';
  return html`<tr><td><a href="${userUrl(params.mountPath, user.id)}">${who}</a>${marks}${name}</td><td class="nowrap">${shownDay(user.createdAt)}</td><td class="nowrap">${shownDay(user.lastSignInAt)}</td><td>${state}</td></tr>`;
}

function pager(params: UserListPage): SafeHtml | string {
  if (params.pages <= 1 && params.page <= 1) return '';
  const previous = params.page > 1 ? html`<a href="${userListUrl(params.mountPath, params.query, Math.min(params.page - 1, params.pages))}" rel="prev">Previous page</a>` : html`<span></span>`;
  const next = params.page < params.pages ? html`<a href="${userListUrl(params.mountPath, params.query, params.page + 1)}" rel="next">Next page</a>` : html`<span></span>`;
  return html`<nav class="pager" aria-label="Pages of users">${previous}<span>Page ${String(params.page)} of ${String(params.pages)}</span>${next}</nav>`;
}

/** `<mount>/admin`: the users, searched and paged. */
export function renderUserListPage(params: UserListPage): string {
  const { mountPath, query } = params;
  const search = html`<form action="${mountPath}/admin" method="GET" role="search"><label for="admin-q">Search by address or name</label><div class="search"><input id="admin-q" name="q" type="search" maxlength="200" autocomplete="off" spellcheck="false" value="${query}"><button type="submit">Search</button></div></form>`;
  const counted = `${String(params.total)} ${params.total === 1 ? 'user' : 'users'}`;
  const summary = query ? html`<p class="hint">${counted} match “${query}”. <a href="${userListUrl(mountPath, '')}">Show every user</a></p>` : html`<p class="hint">${counted}</p>`;
  let list: SafeHtml;
  if (params.users.length > 0) {
    list = html`<table><thead><tr><th scope="col">User</th><th scope="col">Created</th><th scope="col">Last sign-in</th><th scope="col">State</th></tr></thead><tbody>${params.users.map((user) => listRow(params, user))}</tbody></table>`;
  } else if (params.total > 0) {
    list = html`<p class="muted">No users on this page. <a href="${userListUrl(mountPath, query)}">Go to the first page</a></p>`;
  } else {
    list = html`<p class="muted">${query ? 'No user matches this search.' : 'There are no users yet.'}</p>`;
  }
  const body = html`<h1>Users</h1>${noticeOf(params.notice)}${search}${summary}${list}${pager(params)}<p class="actions"><a href="${mountPath}/account">Your account</a></p>`;
  return layout({ title: 'Users', theme: params.theme, body, styles });
}

/** The CSRF token, the action and the form's other hidden fields. */
function hiddenFields(csrfToken: string, fields: Readonly<Record<string, string>>): SafeHtml {
  return html`<input type="hidden" name="csrfToken" value="${csrfToken}">${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}`;
}

/** The error of a refused field, below its control: `admin-<field>-error`. */
function fieldError(field: string, error: string | undefined): SafeHtml | string {
  return error ? html`<p class="field-error" id="admin-${field}-error">${error}</p>` : '';
}

/** `aria-invalid` and `aria-describedby` of a control whose form was refused (`hint`: its hint's id, always described). */
function invalid(field: string, error: string | undefined, hint?: string): SafeHtml | string {
  if (error) return html` aria-invalid="true" aria-describedby="${hint ? `${hint} ` : ''}admin-${field}-error"`;
  return hint ? html` aria-describedby="${hint}"` : '';
}

/** A button's `aria-describedby` when its form was refused (`aria-invalid` belongs to fields, not buttons). */
function describedBy(field: string, error: string | undefined): SafeHtml | string {
  return error ? html` aria-describedby="admin-${field}-error"` : '';
}

/**
 * The refused form's errors, handed to the form they belong to: `of(action, field)` gives the field's error when the
 * refused form was `action` (or, unnamed, to the first form that asks) and marks it shown; `unplaced()` is what no form
 * took, for the top of the page.
 */
function errorPlacer(errors: Readonly<Record<string, string>> | undefined, refusedAction: string | undefined) {
  const shown = new Set<string>();
  return {
    of(action: string, field: string): string | undefined {
      if (!errors || !Object.hasOwn(errors, field) || shown.has(field)) return undefined;
      if (refusedAction !== undefined && refusedAction !== action) return undefined;
      shown.add(field);
      return errors[field];
    },
    unplaced(): string[] {
      return Object.entries(errors ?? {}).flatMap(([field, error]) => (shown.has(field) ? [] : [error]));
    },
  };
}
type ErrorPlacer = ReturnType<typeof errorPlacer>;

/** The alert at the top of a refused page: the unplaced errors, or where to look. */
function refusal(errors: Readonly<Record<string, string>> | undefined, unplaced: readonly string[]): SafeHtml | string {
  if (!errors || Object.keys(errors).length === 0) return '';
  const lines = unplaced.length > 0 ? unplaced : ['The form was not accepted: see the field below.'];
  return html`<div class="error" role="alert">${lines.map((line) => html`<p>${line}</p>`)}</div>`;
}

/** A form that POSTs `action` (and `fields`) to the user's page with one button. */
function actionForm(params: UserPage, action: string, label: string, options: { fields?: Readonly<Record<string, string>>; attributes?: SafeHtml | string; danger?: boolean; secondary?: boolean } = {}): SafeHtml {
  const button = html`<button type="submit"${options.secondary ? html` class="secondary"` : ''}${options.attributes ?? ''}>${label}</button>`;
  return html`<form${options.danger ? html` class="danger"` : ''} action="${userUrl(params.mountPath, params.user.id)}" method="POST">${hiddenFields(params.csrfToken, { action, ...options.fields })}${button}</form>`;
}

function stateFacts(params: UserPage): SafeHtml {
  const { state, user } = params;
  const disabled = state.disabledAt
    ? html`<strong>Disabled</strong> since ${shownDate(state.disabledAt)}${state.disabledReason ? html`<br><span class="muted">Reason: ${state.disabledReason}</span>` : ''}`
    : 'Active';
  let admin: SafeHtml | string = 'No';
  if (state.configured && state.granted) admin = 'Yes, by the app’s configuration (AUTH_ADMINS) and by a grant';
  else if (state.configured) admin = 'Yes, by the app’s configuration (AUTH_ADMINS)';
  else if (state.granted) admin = 'Yes, granted by an admin';
  const address = user.email
    ? html`${user.email} <span class="muted">(${user.emailVerified ? `verified ${shownDay(user.emailVerified)}` : 'not verified'})</span>`
    : html`<span class="muted">none</span>`;
  return html`<dl class="facts"><dt>State</dt><dd>${disabled}</dd><dt>Admin</dt><dd>${admin}</dd><dt>Email address</dt><dd>${address}</dd><dt>Name</dt><dd>${user.name ?? html`<span class="muted">none</span>`}</dd><dt>Created</dt><dd>${shownDate(state.createdAt)}</dd><dt>User id</dt><dd><code>${user.id}</code></dd></dl>`;
}

function signInMethods(params: UserPage, placer: ErrorPlacer): SafeHtml {
  const { methods, may } = params;
  const rows: SafeHtml[] = methods.accounts.map((account) => html`<li>${account.providerName} <span class="muted">(account ${account.providerAccountId})</span></li>`);
  if (methods.password !== undefined) rows.push(html`<li>Password: ${methods.password ? 'set' : 'not set'}</li>`);
  if (methods.twoFactor !== undefined) {
    const remove = methods.twoFactor && may.removeTwoFactor ? actionForm(params, 'remove-two-factor', 'Remove two-factor', { secondary: true }) : '';
    rows.push(html`<li class="row"><span>Two-factor: ${methods.twoFactor ? 'on' : 'off'}</span>${remove}</li>`);
  }
  const passkeyError = placer.of('remove-passkey', 'id');
  for (const [index, passkey] of (methods.passkeys ?? []).entries()) {
    const number = String(index + 1);
    const remove = may.removePasskey ? actionForm(params, 'remove-passkey', 'Remove', { fields: { id: passkey.id }, secondary: true, attributes: html` aria-label="Remove passkey ${number}"${describedBy('id', passkeyError)}` }) : '';
    rows.push(html`<li class="row"><span>Passkey ${number} <span class="muted">(${passkey.backedUp ? 'synced' : 'this device only'})</span></span>${remove}</li>`);
  }
  const list = rows.length > 0 ? html`<ul class="list">${rows}</ul>` : html`<p class="muted">No way to sign in is stored for this user.</p>`;
  return html`<h2>Sign-in methods</h2>${list}${fieldError('id', passkeyError)}`;
}

function sessionsList(params: UserPage): SafeHtml {
  if (params.sessions.length === 0) return html`<h2>Sessions</h2><p class="muted">No live sessions.</p>`;
  const items = params.sessions.map(
    (session) =>
      html`<li><strong>${capitalized(browserOf(session.userAgent))}</strong>${session.impersonation ? html`<span class="badge">an admin acting as the user</span>` : ''}<br><span class="hint">Signed in ${shownDate(session.createdAt)} · last seen ${shownDate(session.lastSeenAt)} · expires ${shownDate(session.expires)}</span></li>`,
  );
  const end = params.may.endSessions ? actionForm(params, 'end-sessions', 'End every session', { secondary: true }) : '';
  return html`<h2>Sessions</h2><ul class="list">${items}</ul>${end}`;
}

function membershipsList(params: UserPage): SafeHtml | string {
  if (params.memberships === null) return '';
  if (params.memberships.length === 0) return html`<h2>Organizations</h2><p class="muted">No organization.</p>`;
  return html`<h2>Organizations</h2><ul class="list">${params.memberships.map((membership) => html`<li>${membership.name} <span class="muted">(${membership.role}, <code>${membership.slug}</code>)</span></li>`)}</ul>`;
}

function eventsList(params: UserPage): SafeHtml {
  if (params.events.length === 0) return html`<h2>Recent activity</h2><p class="muted">No security events.</p>`;
  const items = params.events.map((event) => {
    const method = event.method ? html` <span class="muted">(${params.providerNames.get(event.method) ?? event.method})</span>` : '';
    const by = event.actorId ? ' · by an administrator' : '';
    const where = html`${event.userAgent ? html` · ${browserOf(event.userAgent)}` : ''}${event.ip ? html` · ${event.ip}` : ''}`;
    return html`<li><strong>${params.eventLabels.get(event.type) ?? 'Security event'}</strong>${method}<br><span class="hint">${shownDate(event.at)}${by}${where}</span></li>`;
  });
  return html`<h2>Recent activity</h2><ul class="list events">${items}</ul>`;
}

/** What each recorded admin action is called on the page (a deleted user's are deleted with them); another as stored. */
const actionNames: Readonly<Partial<Record<AdminAction, string>>> = {
  disabled: 'Disabled the user',
  enabled: 'Enabled the user',
  'sessions-ended': 'Ended every session',
  'two-factor-removed': 'Removed two-factor',
  'passkey-removed': 'Removed a passkey',
  'reset-sent': 'Sent a password reset link',
  granted: 'Made the user an admin',
  revoked: 'Revoked the user’s admin grant',
  impersonated: 'Acted as the user',
};

function actionsList(params: UserPage): SafeHtml {
  if (params.actions.length === 0) return html`<h2>Admin actions</h2><p class="muted">No admin has acted on this user.</p>`;
  const items = params.actions.map((action) => {
    const name = Object.hasOwn(actionNames, action.action) ? actionNames[action.action as AdminAction] : action.action;
    const actor = action.actorEmail ?? (action.actorId === null ? 'a deleted admin' : 'an admin');
    return html`<li><strong>${name}</strong>${action.detail ? html`<br>Reason: ${action.detail}` : ''}<br><span class="hint">by ${actor} · ${shownDate(action.at)}</span></li>`;
  });
  return html`<h2>Admin actions</h2><ul class="list events">${items}</ul>`;
}

function adminForms(params: UserPage): SafeHtml | string {
  const { may, state } = params;
  if (may.grantAdmin) return html`<h2>Admin</h2>${actionForm(params, 'grant-admin', 'Make admin', { secondary: true })}<p class="hint">An admin sees every user and can act on them. They need a second factor first.</p>`;
  if (may.revokeAdmin) return html`<h2>Admin</h2>${actionForm(params, 'revoke-admin', 'Revoke admin', { secondary: true })}`;
  if (state.configured && !params.self) return html`<h2>Admin</h2><p class="muted">An admin by the app’s configuration: remove the address from AUTH_ADMINS to revoke it.</p>`;
  return '';
}

function impersonateForm(params: UserPage, placer: ErrorPlacer): SafeHtml | string {
  if (!params.may.impersonate) return '';
  const error = placer.of('impersonate', 'reason');
  return html`<h2>Act as this user</h2><form action="${userUrl(params.mountPath, params.user.id)}" method="POST">${hiddenFields(params.csrfToken, { action: 'impersonate' })}<label for="admin-impersonate-reason">Reason</label><input id="admin-impersonate-reason" name="reason" type="text" maxlength="500" autocomplete="off" required${invalid('reason', error, 'admin-impersonate-hint')}><p class="hint" id="admin-impersonate-hint">Recorded with your address. You see the app as this user for at most ${String(params.impersonationMinutes)} minutes and can change nothing in their account; a banner on every page ends it.</p>${fieldError('reason', error)}<button type="submit">Act as this user</button></form>`;
}

function disableForm(params: UserPage, placer: ErrorPlacer): SafeHtml | string {
  if (params.may.enable) return html`<h2>Enable</h2>${actionForm(params, 'enable', 'Enable this user', { secondary: true })}<p class="hint">They can sign in again. Their ended sessions stay ended.</p>`;
  if (!params.may.disable) return '';
  const error = placer.of('disable', 'reason');
  return html`<h2>Disable</h2><p class="muted">Every session of the user ends at once, their API keys stop working and they can no longer sign in.</p><form class="danger" action="${userUrl(params.mountPath, params.user.id)}" method="POST">${hiddenFields(params.csrfToken, { action: 'disable' })}<label for="admin-disable-reason">Reason</label><input id="admin-disable-reason" name="reason" type="text" maxlength="500" autocomplete="off" required${invalid('reason', error, 'admin-disable-hint')}><p class="hint" id="admin-disable-hint">Only admins see it.</p>${fieldError('reason', error)}<button type="submit">Disable this user</button></form>`;
}

function deleteForm(params: UserPage, placer: ErrorPlacer): SafeHtml | string {
  if (!params.may.delete) return '';
  const error = placer.of('delete', 'confirm');
  const typed = params.user.email ?? params.user.id;
  return html`<h2>Delete</h2><p class="muted">This deletes the user, their sign-in methods, sessions and history. It cannot be undone. They are told by email.</p><form class="danger" action="${userUrl(params.mountPath, params.user.id)}" method="POST">${hiddenFields(params.csrfToken, { action: 'delete' })}<label for="admin-delete-confirm">Type <code>${typed}</code> to confirm</label><input id="admin-delete-confirm" name="confirm" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" required${invalid('confirm', error)}>${fieldError('confirm', error)}<button type="submit">Delete this user</button></form>`;
}

/** `<mount>/admin/users/<id>`: what an admin knows of one user, and the actions they may take. */
export function renderUserPage(params: UserPage): string {
  const { user } = params;
  const placer = errorPlacer(params.errors, params.refusedAction);
  const reset = params.may.sendReset ? html`<h2>Password reset</h2>${actionForm(params, 'send-reset', 'Send a reset link', { secondary: true })}<p class="hint">A link to set a new password, sent to ${user.email ?? ''}.</p>` : '';
  const self = params.self ? html`<p class="hint">This is your own account: you cannot disable, delete or revoke yourself here.</p>` : '';
  // Built before the alert at the top, which shows what no form took.
  const sections = html`${signInMethods(params, placer)}${sessionsList(params)}${membershipsList(params)}${eventsList(params)}${actionsList(params)}${self}${reset}${adminForms(params)}${disableForm(params, placer)}${impersonateForm(params, placer)}${deleteForm(params, placer)}`;
  const heading = user.name ?? user.email ?? 'User';
  const body = html`<h1>${heading}</h1>${noticeOf(params.notice)}${refusal(params.errors, placer.unplaced())}${stateFacts(params)}${sections}<p class="actions"><a href="${params.mountPath}/admin">All users</a></p>`;
  return layout({ title: `${heading} · Users`, theme: params.theme, body, styles });
}
