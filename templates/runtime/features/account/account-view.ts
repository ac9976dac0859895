/**
 * What `<mount>/account` shows of the signed-in user, as a page or as JSON (the account's own facts, and each
 * feature's part: `Feature.account.view`), and the answers of its forms: the page again with the refused field's
 * error (400), or after a change a redirect back with a notice.
 */
import type { ResolvedConfig } from '../../contracts.js';
import { actionUrl, sendHtml, sendJson, sendRedirect } from '../../context.js';
import { csrfTokenOf } from '../../http/csrf.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import type { Awaitable } from '../../types.js';
import type { AccountPartRequest, AccountPartView } from '../database/account-parts.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import { securityEventLabelsOf, securityEventsOf } from '../security-events/index.js';
import { type AccountErrors, type AccountPage, type LinkedAccountView, notices, renderAccountPage } from './pages.js';
import { type AccountRequest, accountPartsOf } from './settings.js';

/** How many security events the page shows: the newest. */
export const SHOWN_EVENTS = 20;

/** The account of a user as the page and its JSON show it (no token, hash, secret or key). */
export type AccountView = Omit<AccountPage, 'mountPath' | 'csrfToken' | 'theme' | 'notice' | 'errors' | 'sentEmail'>;

/** Whether the adapter has the method: each part of the account shows only what the adapter keeps. */
export function has(adapter: Adapter, method: keyof Adapter): boolean {
  return typeof adapter[method] === 'function';
}

/** The name a provider id is shown by: the configured provider's, else the id (a provider since removed). */
export function providerNameOf(options: ResolvedConfig, id: string): string {
  return options.providersById.get(id)?.name ?? id;
}

/** The user's linked accounts (a passkey's `webauthn` row is its feature's to show). */
export async function linkedAccountsOf(options: ResolvedConfig, adapter: Adapter, userId: string): Promise<LinkedAccountView[]> {
  const stored = has(adapter, 'listAccountsByUserId') ? await callAdapter(adapter, 'listAccountsByUserId', userId) : [];
  return stored
    .filter((account) => account.type !== 'webauthn')
    .map((account) => ({ provider: account.provider, providerName: providerNameOf(options, account.provider), providerAccountId: account.providerAccountId }));
}

/** Everything the account page shows of `user`. */
export async function accountViewOf(request: AccountPartRequest, emailChangeUnavailable: string | undefined): Promise<AccountView> {
  const { adapter, user } = request;
  const { options } = request.context;
  const accounts = await linkedAccountsOf(options, adapter, user.id);
  const parts = await Promise.all(accountPartsOf(options).map((part): Awaitable<AccountPartView> => part.view?.(request) ?? {}));
  return {
    user: { name: user.name ?? null, email: user.email ?? null, emailVerified: Boolean(user.emailVerified) },
    accounts,
    // The OAuth providers not linked yet: signing in with one while signed in links it (database/sign-in.ts), after a
    // recent authentication, and never by an unproven address.
    linkable: options.providers.filter((provider) => isOAuthProvider(provider) && !accounts.some((account) => account.provider === provider.id)).map((provider) => ({ id: provider.id, name: provider.name })),
    parts,
    links: Object.assign({ sessions: options.session.strategy === 'database' && has(adapter, 'listSessionsByUserId') }, ...parts.map((part) => part.links ?? {})) as Record<string, boolean>,
    events: await securityEventsOf(options, user.id, SHOWN_EVENTS),
    eventLabels: securityEventLabelsOf(options),
    providerNames: Object.fromEntries(options.providers.map((provider) => [provider.id, provider.name])),
    emailChangeUnavailable,
  };
}

/** Why the address cannot be changed, or undefined when it can. */
export function emailChangeUnavailable(request: Pick<AccountRequest, 'settings'>): string | undefined {
  return request.settings.mailer ? undefined : 'Changing the email address needs an email service, and this app has none configured (AUTH_EMAIL_SERVER).';
}

/** The JSON form of the view: the features' fields beside the account's own, dates in ISO 8601. */
function viewJson(view: AccountView): Record<string, unknown> {
  const { user, accounts, linkable, parts, links, events, emailChangeUnavailable: unavailable } = view;
  return {
    user,
    accounts,
    linkable,
    ...Object.assign({}, ...parts.map((part) => part.json ?? {})),
    links,
    events: events.map((event) => ({ ...event, at: event.at.toISOString() })),
    emailChange: unavailable ? { offered: false, reason: unavailable } : { offered: true },
  };
}

/** What the features' parts are given of an account request. */
export function partRequestOf(request: AccountRequest): AccountPartRequest {
  return { context: request.context, adapter: request.adapter, user: request.signedIn.user };
}

/** The account page (or its JSON), with `extra`: a notice, or a refused form's errors (status 400). */
export async function sendAccount(request: AccountRequest, status: number, extra: { notice?: string; errors?: AccountErrors; sentEmail?: string } = {}): Promise<void> {
  const { context } = request;
  const view = await accountViewOf(partRequestOf(request), emailChangeUnavailable(request));
  if (request.json) return sendJson(context, status, status >= 400 ? { error: 'InvalidRequest', errors: extra.errors ?? {} } : viewJson(view));
  sendHtml(context, status, renderAccountPage({ ...view, mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme, ...extra }));
}

/** A refused form: 400, its errors by their field (JSON: `{ error: 'InvalidRequest', errors }`). */
export function refuseForm(request: AccountRequest, errors: AccountErrors, sentEmail?: string): Promise<void> {
  return sendAccount(request, 400, { errors, ...(sentEmail !== undefined && { sentEmail }) });
}

/** A change made: JSON `body`, or back to the account page with its notice (the account's or a feature's name). */
export function sendDone(request: AccountRequest, status: number, body: unknown, notice: string): void {
  if (request.json) return sendJson(request.context, status, body);
  sendRedirect(request.context, `${actionUrl(request.context, 'account')}?notice=${notice}`);
}

/** The text of the notice a redirect asked the page to show (`?notice=`): the account's or a feature's, if it is one. */
export function noticeOf(options: ResolvedConfig, value: string | null): string | undefined {
  if (value === null) return undefined;
  const all = [notices, ...accountPartsOf(options).map((part) => part.notices ?? {})];
  return all.find((own) => Object.hasOwn(own, value))?.[value];
}
