/**
 * The account pages, in the theme of the built-in pages and without JavaScript: the account (`<mount>/account`: who,
 * how they sign in, links to the other account pages, the features' sections, recent security events, the address
 * change, the export and the delete form; each feature's rows, links and section are its own, `Feature.account`), the
 * page a confirmation link opens (a button; opening it changes nothing), and the page that says how a confirmation
 * went. Every form POSTs with the CSRF token; a refused field shows its error beside it
 * (`aria-invalid`, `aria-describedby`).
 */
import type { Theme } from '../../contracts.js';
import { browserOf } from '../../http/browser-name.js';
import { formStyles } from '../../pages/form-styles.js';
import { type SafeHtml, html } from '../../pages/html.js';
import { layout } from '../../pages/layout.js';
import type { AccountPageKit, AccountPartHtml, AccountPartView } from '../database/account-parts.js';
import type { SecurityEvent } from '../security-events/index.js';

/**
 * A refused field of one of the page's forms: `newEmail`, `confirm` (the delete form), `unlink` (an account's button),
 * or a feature's form's field, shown below "How you sign in".
 */
export interface AccountErrors {
  newEmail?: string;
  confirm?: string;
  unlink?: string;
  [field: string]: string | undefined;
}

/** What a form post did, shown once at the top of the page after its redirect (`?notice=`); the features add theirs. */
export const notices: Readonly<Record<string, string>> = {
  'email-sent': 'Check the new address: we sent it a link that makes the change. It works once, for one hour.',
  unlinked: 'The account is unlinked: it no longer signs you in.',
  'email-changed': 'Your email address is changed. Your other sessions were ended.',
};

/** A linked account of another provider, as the page lists it. */
export interface LinkedAccountView {
  provider: string;
  /** The provider's configured name, or its id when it is no longer configured. */
  providerName: string;
  providerAccountId: string;
}

/** Everything the account page shows. */
export interface AccountPage {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  user: { name: string | null; email: string | null; emailVerified: boolean };
  accounts: readonly LinkedAccountView[];
  /** The OAuth providers the user may link (signing in with one while signed in), by id and name. */
  linkable: readonly { id: string; name: string }[];
  /** What each feature shows (`Feature.account`), in their order. */
  parts: readonly AccountPartView[];
  /** Which of the other account pages the app serves: the sessions, and the features' pages. */
  links: Readonly<Record<string, boolean>>;
  events: readonly SecurityEvent[];
  /** What the events' types are called, as the features that declare them say (`Feature.securityEventLabels`). */
  eventLabels: ReadonlyMap<string, string>;
  /** The configured providers' names by id, for the events' methods. */
  providerNames: Readonly<Record<string, string>>;
  /** Why the address cannot be changed (no mail transport), or undefined when it can. */
  emailChangeUnavailable: string | undefined;
  /** The text of the notice a redirect asked for. */
  notice?: string | undefined;
  errors?: AccountErrors | undefined;
  /** What a refused form sent, kept in its field. */
  sentEmail?: string | undefined;
}

// Wider than the sign-in card: the page lists a lot. The delete button is outlined in the error colours, which reach
// 4.5:1 on the card in both schemes (a filled red button with white text would not in the dark one).
const styles =
  formStyles +
  'main{max-width:560px}.methods{list-style:none;padding:0;margin:0}.methods li{padding:4px 0}h2{font-size:1.1rem;margin:28px 0 8px}.facts{margin:0 0 8px}.facts dt{font-weight:600}.facts dd{margin:0 0 8px}.events{list-style:none;padding:0;margin:0;font-size:.9rem}.events li{border-top:1px solid var(--line);padding:8px 0}.events li:first-child{border-top:0}.danger button{background:transparent;color:var(--error-text);border-color:var(--error-line)}.notice{border:1px solid var(--line);border-radius:8px;padding:12px 14px;margin:0 0 20px}.inline{display:flex;gap:10px;align-items:center;justify-content:space-between}.inline form{flex:none}.inline button{margin-top:0;width:auto}.check{display:flex;align-items:center;gap:8px;font-weight:400}.check input{width:auto;min-height:0}';

/** A date as `2026-11-24 12:30 UTC`. */
function shownDate(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function csrfField(params: AccountPage): SafeHtml {
  return html`<input type="hidden" name="csrfToken" value="${params.csrfToken}">`;
}

function fieldError(id: string, error: string | undefined): SafeHtml | string {
  return error ? html`<p class="field-error" id="${id}-error">${error}</p>` : '';
}

/** `aria-invalid` and `aria-describedby` of a control whose form was refused. */
function invalid(id: string, error: string | undefined): SafeHtml | string {
  return error ? html` aria-invalid="true" aria-describedby="${id}-error"` : '';
}

/** A one-button form below `<mount>/account`. */
function buttonForm(params: AccountPage, path: string, fields: Record<string, string>, label: string, attributes: SafeHtml | string = ''): SafeHtml {
  const hidden = Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form action="${params.mountPath}/account/${path}" method="POST">${csrfField(params)}${hidden}<button type="submit" class="secondary"${attributes}>${label}</button></form>`;
}

/** The fields of the forms below "How you sign in": every refused field but the address change's and the deletion's. */
function methodErrors(errors: AccountErrors | undefined): (SafeHtml | string)[] {
  return Object.entries(errors ?? {}).flatMap(([field, error]) => (field === 'newEmail' || field === 'confirm' ? [] : [fieldError(`account-${field}`, error)]));
}

function signInMethods(params: AccountPage, methods: readonly SafeHtml[]): SafeHtml {
  const { errors } = params;
  const accounts = params.accounts.map(
    (account) =>
      html`<li class="inline"><span>${account.providerName}</span>${buttonForm(params, 'unlink', { provider: account.provider, providerAccountId: account.providerAccountId }, 'Unlink', html` aria-label="Unlink ${account.providerName}"${invalid('account-unlink', errors?.unlink)}`)}</li>`,
  );
  // A sign-in with the provider from this session links it; back here after.
  const linkable = params.linkable.map(
    (provider) =>
      html`<li class="inline"><span>${provider.name} <span class="muted">(not linked)</span></span><form action="${params.mountPath}/signin/${encodeURIComponent(provider.id)}" method="POST">${csrfField(params)}<input type="hidden" name="callbackUrl" value="${params.mountPath}/account"><button type="submit" class="secondary" aria-label="Link ${provider.name}">Link</button></form></li>`,
  );
  return html`<h2>How you sign in</h2><ul class="methods">${accounts}${linkable}${[...methods]}</ul>${methodErrors(errors)}`;
}

/** A feature's section: its heading, its rows and its links. */
function section(part: NonNullable<AccountPartHtml['section']>): SafeHtml {
  const rows = part.rows && part.rows.length > 0 ? html`<ul class="methods">${[...part.rows]}</ul>` : '';
  const links = part.links && part.links.length > 0 ? html`<p class="actions">${[...part.links]}</p>` : '';
  return html`<h2>${part.heading}</h2>${rows}${links}`;
}

/** The factors a failed sign-in names, as a person says them. */
const factorNames: Readonly<Record<string, string>> = { code: 'two-factor code', 'recovery-code': 'recovery code' };

/** An event's method as shown: a provider's name, a factor, or the method as recorded (a provider since removed). */
function methodName(params: AccountPage, method: string): string {
  return params.providerNames[method] ?? factorNames[method] ?? method;
}

function eventsList(params: AccountPage): SafeHtml {
  if (params.events.length === 0) return html`<h2>Recent activity</h2><p class="muted">No security events yet.</p>`;
  const items = params.events.map(
    (event) =>
      html`<li><strong>${params.eventLabels.get(event.type) ?? 'Security event'}</strong>${event.method ? html` <span class="muted">(${methodName(params, event.method)})</span>` : ''}<br><span class="hint">${shownDate(event.at)}${event.userAgent ? html` · ${browserOf(event.userAgent)}` : ''}${event.ip ? html` · ${event.ip}` : ''}</span></li>`,
  );
  return html`<h2>Recent activity</h2><ul class="events">${items}</ul>`;
}

function emailForm(params: AccountPage): SafeHtml {
  if (params.emailChangeUnavailable) return html`<h2>Change your email address</h2><p class="muted">${params.emailChangeUnavailable}</p>`;
  const error = params.errors?.newEmail;
  return html`<h2>Change your email address</h2><form action="${params.mountPath}/account/email" method="POST">${csrfField(params)}<label for="account-new-email">New email address</label><input id="account-new-email" name="newEmail" type="email" autocomplete="email" required value="${params.sentEmail ?? ''}"${invalid('account-new-email', error)}>${fieldError('account-new-email', error)}<p class="hint">We send a link to the new address; the change happens when it is opened.</p><button type="submit">Send the link</button></form>`;
}

function deleteForm(params: AccountPage): SafeHtml {
  const error = params.errors?.confirm;
  const confirmation = params.user.email
    ? html`<label for="account-delete-email">Type your email address to confirm</label><input id="account-delete-email" name="email" type="email" autocomplete="off" required${invalid('account-delete-email', error)}>${fieldError('account-delete-email', error)}`
    : html`<label class="check" for="account-delete-confirm"><input id="account-delete-confirm" name="confirm" type="checkbox" value="yes" required${invalid('account-delete-confirm', error)}>Yes, delete my account</label>${fieldError('account-delete-confirm', error)}`;
  return html`<h2>Delete your account</h2><p class="muted">This deletes your account and everything stored with it, and signs you out everywhere. It cannot be undone.</p><form class="danger" action="${params.mountPath}/account/delete" method="POST">${csrfField(params)}${confirmation}<button type="submit">Delete my account</button></form>`;
}

export function renderAccountPage(params: AccountPage): string {
  const { user, links, mountPath } = params;
  const kit: AccountPageKit = { mountPath, errors: params.errors ?? {}, buttonForm: (path, fields, label, attributes) => buttonForm(params, path, fields, label, attributes), invalid };
  const shown = params.parts.map((part) => part.html?.(kit) ?? {});
  const notice = params.notice ? html`<div class="notice" role="status"><p>${params.notice}</p></div>` : '';
  const refused = params.errors && Object.keys(params.errors).length > 0 ? html`<div class="error" role="alert"><p>The form was not accepted: see the field below.</p></div>` : '';
  const facts = html`<dl class="facts"><dt>Name</dt><dd>${user.name ?? '—'}</dd><dt>Email address</dt><dd>${user.email ?? '—'}${user.email && !user.emailVerified ? html` <span class="muted">(not confirmed)</span>` : ''}</dd></dl>`;
  const pages = [
    links['sessions'] ? html`<a href="${mountPath}/sessions">Your sessions</a>` : '',
    ...shown.flatMap((part) => part.links ?? []),
    html`<a href="${mountPath}/account/export">Export my data</a>`,
  ];
  const methods = shown.flatMap((part) => part.methods ?? []);
  const sections = shown.flatMap((part) => (part.section ? [section(part.section)] : []));
  const body = html`<h1>Your account</h1>${notice}${refused}${facts}${signInMethods(params, methods)}<p class="actions">${pages}</p>${sections}${eventsList(params)}${emailForm(params)}${deleteForm(params)}<p class="actions"><a href="/">Back</a></p>`;
  return layout({ title: 'Your account', theme: params.theme, body, styles });
}

/** What the confirmation page shows: the change, the account it would move, and whether this browser may confirm. */
export interface ConfirmEmailPage {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  token: string;
  newEmail: string;
  /** The account that asked, as the page may name it (its address masked). */
  account: string;
  host: string;
  /** This browser is signed in as the account that asked: it gets the button. */
  confirmable: boolean;
  signInUrl: string;
}

/**
 * The page a confirmation link opens: what would change and for which account, and, in the requesting user's own
 * browser, a button that POSTs the token. Mail scanners and link previews open links, so opening it changes nothing.
 */
export function renderConfirmEmailPage(params: ConfirmEmailPage): string {
  const what = html`<p>The account <strong>${params.account}</strong> on ${params.host} asked to make <strong>${params.newEmail}</strong> its email address.</p>`;
  const ignore = html`<p class="muted">If you have no account on ${params.host}, or did not ask for this, close this page and do not confirm: nothing changes without it.</p>`;
  const action = params.confirmable
    ? html`<form action="${params.mountPath}/account/email/confirm" method="POST"><input type="hidden" name="csrfToken" value="${params.csrfToken}"><input type="hidden" name="token" value="${params.token}"><button type="submit">Confirm new address</button></form>`
    : html`<p>Only that account can confirm the change: if it is yours, <a href="${params.signInUrl}">sign in to it</a> in this browser, then open the link from the email again.</p>`;
  const body = html`<h1>Confirm your new address</h1>${what}${ignore}${action}`;
  return layout({ title: 'Confirm your new address', theme: params.theme, body, styles: formStyles });
}

/** A page that says how something went, with one link onwards. */
export function renderAccountMessagePage(params: { theme: Theme; heading: string; message: string; link: { href: string; label: string }; alert?: boolean }): string {
  const message = params.alert ? html`<div class="error" role="alert"><p>${params.message}</p></div>` : html`<p>${params.message}</p>`;
  const body = html`<h1>${params.heading}</h1>${message}<p class="actions"><a href="${params.link.href}">${params.link.label}</a></p>`;
  return layout({ title: params.heading, theme: params.theme, body, styles: formStyles });
}
