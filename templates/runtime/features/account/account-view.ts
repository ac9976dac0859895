/**
 * What `<mount>/account` shows of the signed-in user, as a page or as JSON, and the answers of its forms: the page
 * again with the refused field's error (400), or after a change a redirect back with a notice.
 */
import type { ResolvedConfig } from '../../contracts.js';
import { actionUrl, sendHtml, sendJson, sendRedirect } from '../../context.js';
import { csrfTokenOf } from '../../http/csrf.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import type { AdapterUser } from '../../types.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import { securityEventsOf } from '../security-events/index.js';
import { callOther, hasOther } from './other-features.js';
import { type AccountErrors, type AccountNotice, type AccountPage, type LinkedAccountView, type PasskeyView, notices, renderAccountPage } from './pages.js';
import { type AccountRequest, hasFeature } from './settings.js';

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

/** The user's linked accounts other than passkeys, and their passkeys. */
export async function signInMethodsOf(options: ResolvedConfig, adapter: Adapter, userId: string): Promise<{ accounts: LinkedAccountView[]; passkeys: PasskeyView[] }> {
  const stored = has(adapter, 'listAccountsByUserId') ? await callAdapter(adapter, 'listAccountsByUserId', userId) : [];
  const accounts = stored
    .filter((account) => account.type !== 'webauthn')
    .map((account) => ({ provider: account.provider, providerName: providerNameOf(options, account.provider), providerAccountId: account.providerAccountId }));
  const authenticators = (await callOther(adapter, 'listAuthenticatorsByUserId', userId)) ?? [];
  const passkeys = authenticators.map((authenticator) => ({ id: authenticator.credentialID, deviceType: authenticator.credentialDeviceType, backedUp: authenticator.credentialBackedUp }));
  return { accounts, passkeys };
}

/** Whether the app has a password provider (its routes: change, reset). */
export function hasPasswordProvider(options: ResolvedConfig): boolean {
  return hasFeature(options, 'password') && options.providers.some((provider) => !isOAuthProvider(provider) && provider.type === 'credentials');
}

/** Everything the account page shows of `user`. */
export async function accountViewOf(options: ResolvedConfig, adapter: Adapter, user: AdapterUser, emailChangeUnavailable: string | undefined): Promise<AccountView> {
  const { accounts, passkeys } = await signInMethodsOf(options, adapter, user.id);
  const passwordOn = hasPasswordProvider(options) && hasOther(adapter, 'getPasswordHash');
  const twoFactorOn = hasFeature(options, 'two-factor') && hasOther(adapter, 'getTwoFactor');
  const password = passwordOn ? (await callOther(adapter, 'getPasswordHash', user.id)) !== null : undefined;
  const twoFactor = twoFactorOn ? Boolean((await callOther(adapter, 'getTwoFactor', user.id))?.enabledAt) : undefined;
  return {
    user: { name: user.name ?? null, email: user.email ?? null, emailVerified: Boolean(user.emailVerified) },
    accounts,
    // The OAuth providers not linked yet: signing in with one while signed in links it (database/sign-in.ts), after a
    // recent authentication, and never by an unproven address.
    linkable: options.providers.filter((provider) => isOAuthProvider(provider) && !accounts.some((account) => account.provider === provider.id)).map((provider) => ({ id: provider.id, name: provider.name })),
    passkeys,
    password,
    twoFactor,
    links: {
      sessions: options.session.strategy === 'database' && has(adapter, 'listSessionsByUserId'),
      apiKeys: hasFeature(options, 'api-keys'),
      password: passwordOn,
      twoFactor: twoFactorOn,
    },
    events: await securityEventsOf(options, user.id, SHOWN_EVENTS),
    providerNames: Object.fromEntries(options.providers.map((provider) => [provider.id, provider.name])),
    emailChangeUnavailable,
  };
}

/** Why the address cannot be changed, or undefined when it can. */
export function emailChangeUnavailable(request: Pick<AccountRequest, 'settings'>): string | undefined {
  return request.settings.mailer ? undefined : 'Changing the email address needs an email service, and this app has none configured (AUTH_EMAIL_SERVER).';
}

/** The JSON form of the view: dates in ISO 8601. */
function viewJson(view: AccountView): Record<string, unknown> {
  const { emailChangeUnavailable: unavailable, events, providerNames: _names, ...rest } = view;
  return { ...rest, events: events.map((event) => ({ ...event, at: event.at.toISOString() })), emailChange: unavailable ? { offered: false, reason: unavailable } : { offered: true } };
}

/** The account page (or its JSON), with `extra`: a notice, or a refused form's errors (status 400). */
export async function sendAccount(request: AccountRequest, status: number, extra: { notice?: AccountNotice; errors?: AccountErrors; sentEmail?: string } = {}): Promise<void> {
  const { context, adapter } = request;
  const view = await accountViewOf(context.options, adapter, request.signedIn.user, emailChangeUnavailable(request));
  if (request.json) return sendJson(context, status, status >= 400 ? { error: 'InvalidRequest', errors: extra.errors ?? {} } : viewJson(view));
  sendHtml(context, status, renderAccountPage({ ...view, mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme, ...extra }));
}

/** A refused form: 400, its errors by their field (JSON: `{ error: 'InvalidRequest', errors }`). */
export function refuseForm(request: AccountRequest, errors: AccountErrors, sentEmail?: string): Promise<void> {
  return sendAccount(request, 400, { errors, ...(sentEmail !== undefined && { sentEmail }) });
}

/** A change made: JSON `body`, or back to the account page with its notice. */
export function sendDone(request: AccountRequest, status: number, body: unknown, notice: AccountNotice): void {
  if (request.json) return sendJson(request.context, status, body);
  sendRedirect(request.context, `${actionUrl(request.context, 'account')}?notice=${notice}`);
}

/** The notice a redirect asked the page to show (`?notice=`), if it is one. */
export function noticeOf(value: string | null): AccountNotice | undefined {
  return value !== null && Object.hasOwn(notices, value) ? (value as AccountNotice) : undefined;
}
