/**
 * What the password provider's routes share (sign-up-route.ts, sign-in.ts, confirm-address.ts,
 * reset-password-route.ts, change-password-route.ts): the resolved provider's type, the identifiers its links are
 * stored under, reading a form's fields, the answers the forms give, the messages sent after an answer, signing a user
 * in and ending their sessions.
 */
import { type Adapter, type VerificationToken, callAdapter } from '../database/adapter.js';
import { endSessionRows } from '../database/session.js';
import { completeSignIn } from '../../complete-sign-in.js';
import type { RequestContext, ResolvedConfig, ResolvedFlowProvider } from '../../contracts.js';
import { configuredActionUrl, sendHtml, sendJson, sendRedirect } from '../../context.js';
import { InvalidEmailAddress, assertSingleAddress, normalizeEmailAddress } from '../../email-address.js';
import { InvalidRequest } from '../../errors.js';
import { resolveRedirect } from '../../http/redirect.js';
import { prefersJson } from '../../http/request.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import type { Account, AdapterUser } from '../../types.js';
import { EmailSignInError } from '../email/errors.js';
import { newLinkToken, storeLinkToken } from '../email/link-token.js';
import { type BreachedPasswordCheck, isBreachedPassword } from './breached.js';
import { type PasswordMessage, type PasswordMessageKind, type PasswordMessageSender, passwordMessage } from './mail.js';
import type { PasswordFormErrors } from './pages.js';
import { MAX_PASSWORD_LENGTH, passwordProblem } from './policy.js';

/** A password provider, ready for the routes. */
export interface ResolvedPasswordProvider extends ResolvedFlowProvider {
  type: 'credentials';
  minLength: number;
  commonPasswords: ReadonlySet<string>;
  breached: Required<BreachedPasswordCheck> | undefined;
  send: PasswordMessageSender;
  /** No SMTP server outside production: messages are printed on the console, each with a warning. */
  printsMessages: boolean;
  verificationMaxAge: number;
  resetMaxAge: number;
}

/** The identifier a confirmation link's token is stored under (apart from the email provider's sign-in links). */
export const verifyIdentifier = (email: string): string => `password-verify:${email}`;
/** The identifier a reset link's token is stored under. */
export const resetIdentifier = (email: string): string => `password-reset:${email}`;

/** Longer input is refused before it is hashed: no password is this long (the policy's limit is 256 code points). */
export const MAX_PASSWORD_INPUT = 4 * MAX_PASSWORD_LENGTH;

/** The app's adapter, which every password route uses. */
export function adapterOf(context: RequestContext): Adapter {
  // The startup check makes a missing adapter impossible here.
  return context.options.adapter!;
}

/**
 * A text field of the body: absent is undefined; anything but one string (a number or an object from JSON, an
 * array from a repeated form field) is refused with 400 naming the field, as is text longer than `max`.
 */
export function textField(body: Record<string, unknown>, name: string, max: number): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidRequest(`The "${name}" field must be one text value.`);
  if (value.length > max) throw new InvalidRequest(`The "${name}" field is too long (at most ${max} characters).`);
  return value;
}

/** What the user typed as an address, normalised; throws `InvalidEmailAddress` with the reason. */
export function addressOf(typed: string | undefined): string {
  if (!typed?.trim()) throw new InvalidEmailAddress('Enter your email address.');
  const address = normalizeEmailAddress(typed);
  assertSingleAddress(address);
  return address;
}

/** The reason the policy refuses a new password (checked here, without the network), or undefined. */
export function newPasswordProblem(provider: ResolvedPasswordProvider, password: string | undefined, email: string | undefined): string | undefined {
  if (!password) return 'Enter a password.';
  return passwordProblem(password, email, { minLength: provider.minLength, commonPasswords: provider.commonPasswords })?.message;
}

/**
 * The optional breach check of a new password, or undefined. It calls a remote API, so it runs last: after the rate
 * limits and after a link's token is known to be good, so that nobody can make the app call it at will.
 */
export async function breachedPasswordProblem(context: RequestContext, provider: ResolvedPasswordProvider, password: string): Promise<string | undefined> {
  if (!provider.breached) return undefined;
  const breached = await isBreachedPassword(password, provider.breached);
  if (breached === undefined) context.options.logger.warn('breached-password-check-failed');
  return breached ? 'This password has appeared in a data breach, so attackers try it. Choose another.' : undefined;
}

/** Answers a form with refused fields: 400, the page again with each reason by its field, or JSON `{ errors }`. */
export function refuseForm(context: RequestContext, errors: PasswordFormErrors, page: () => string): void {
  if (prefersJson(context.req) || context.req.headers['x-auth-return-redirect']) return sendJson(context, 400, { error: 'InvalidRequest', errors });
  sendHtml(context, 400, page());
}

/** Sends a finished form on: a redirect, or `{ url }` to a JSON client. */
export function answerWith(context: RequestContext, url: string): void {
  if (prefersJson(context.req)) return sendJson(context, 200, { url });
  sendRedirect(context, url);
}

/** "Check your email": the one answer of sign-up and reset requests, whatever the address. */
export function checkYourEmail(context: RequestContext, provider: ResolvedPasswordProvider): void {
  const page = new URLSearchParams({ provider: provider.id, type: 'credentials' });
  answerWith(context, `${configuredActionUrl(context, 'verify-request')}?${page}`);
}

/**
 * Sends a message after the answer: the answer's timing is then the same whether a message was sent, and for
 * which address. A failure is logged (`EmailSignInError`), never shown: showing it would tell the addresses apart.
 */
export function sendLater(context: RequestContext, provider: ResolvedPasswordProvider, message: PasswordMessage): void {
  const { logger } = context.options;
  if (provider.printsMessages) logger.warn('email-printed-to-console');
  setImmediate(() => {
    Promise.resolve()
      .then(() => provider.send(message))
      .catch((error: unknown) => logger.error(new EmailSignInError(`Sending the "${message.kind}" message of provider "${provider.id}" failed`, { cause: error instanceof Error ? error : undefined })));
  });
}

/**
 * Runs work that depends on whether an address is known after the answer has been sent, so that the answer's timing
 * is the same for every address (a database one round trip away would otherwise tell them apart). A failure is
 * logged; the answer already said "check your email" either way.
 */
export function afterAnswer(context: RequestContext, work: () => Promise<void>): void {
  const { logger } = context.options;
  setImmediate(() => {
    work().catch((error: unknown) => logger.error(error instanceof Error ? error : new Error(String(error))));
  });
}

/** A message of `kind` to `to` with a link to `url`. */
export function messageOf(context: RequestContext, kind: PasswordMessageKind, to: string, url: string, resetUrl?: string): PasswordMessage {
  return passwordMessage(kind, { to, url, ...(resetUrl && { resetUrl }), theme: context.options.theme });
}

/** Stores a confirmation link's token for `email` and sends the link (after the answer). */
export async function sendConfirmationLink(context: RequestContext, provider: ResolvedPasswordProvider, email: string, callbackUrl: string | undefined): Promise<void> {
  const token = newLinkToken();
  await storeLinkToken(adapterOf(context), { identifier: verifyIdentifier(email), token, secret: context.options.secrets[0]!, maxAge: provider.verificationMaxAge });
  const query = new URLSearchParams();
  if (callbackUrl) query.set('callbackUrl', await resolveRedirect(context, callbackUrl));
  query.set('token', token);
  query.set('email', email);
  sendLater(context, provider, messageOf(context, 'verify-address', email, `${configuredActionUrl(context, `callback/${encodeURIComponent(provider.id)}`)}?${query}`));
}

/**
 * Stores a reset link's token for `email` (normalised; only the newest link works) and sends the link (after the
 * answer): the reset form's, and the one an admin sends (features/admin/).
 */
export async function sendResetLink(context: RequestContext, provider: ResolvedPasswordProvider, email: string): Promise<void> {
  const token = newLinkToken();
  await storeLinkToken(adapterOf(context), { identifier: resetIdentifier(email), token, secret: context.options.secrets[0]!, maxAge: provider.resetMaxAge });
  sendLater(context, provider, messageOf(context, 'reset-password', email, `${configuredActionUrl(context, 'reset-password')}?${new URLSearchParams({ token, email })}`));
}

/**
 * The app's password provider (one per app: the feature's startup check), or undefined. For what sends a reset link
 * from outside the provider's routes: an admin (features/admin/). This file, unlike the routes, needs no hashing.
 */
export function passwordProviderIn(options: ResolvedConfig): ResolvedPasswordProvider | undefined {
  return options.providers.find((provider): provider is ResolvedPasswordProvider => !isOAuthProvider(provider) && provider.type === 'credentials' && 'resetMaxAge' in provider);
}

/** Signs `user` in through the provider's account (the user's id). */
export function signInAs(context: RequestContext, provider: ResolvedPasswordProvider, user: AdapterUser, params: { isNewUser: boolean; callbackUrl: string | undefined }): Promise<void> {
  const account = { provider: provider.id, type: 'credentials' as const, providerAccountId: user.id, userId: user.id };
  return signInStoredUser(context, { user, account, ...params });
}

/** Deletes every unused link of an identifier (when the adapter can). */
export async function voidLinks(adapter: Adapter, identifier: string): Promise<void> {
  if (typeof adapter.deleteVerificationTokens === 'function') await callAdapter(adapter, 'deleteVerificationTokens', identifier);
}

/** A link's token used to see that it is good, stored again as it was: the link stays usable (until it expires). */
export async function restoreLink(adapter: Adapter, row: VerificationToken): Promise<void> {
  await callAdapter(adapter, 'createVerificationToken', row);
}

/** Ends sessions of a user (database sessions): all of them, or all but `keep`. Returns how many. */
export async function endSessionsOfUser(context: RequestContext, userId: string, keep?: string): Promise<number> {
  const adapter = adapterOf(context);
  if (context.options.session.strategy !== 'database' || typeof adapter.listSessionsByUserId !== 'function') return 0;
  const rows = await callAdapter(adapter, 'listSessionsByUserId', userId);
  return endSessionRows(context.options, adapter, rows.filter((row) => row.sessionToken !== keep));
}

/**
 * Signs in a stored user whom a flow has proven (a password, a confirmation link) through an account it knows them
 * by: the shared `signIn` callback, the second factor, the session and the redirect (complete-sign-in.ts).
 */
async function signInStoredUser(
  context: RequestContext,
  params: { user: AdapterUser; account: Account; isNewUser: boolean; callbackUrl: string | undefined },
): Promise<void> {
  const { user } = params;
  await completeSignIn(context, {
    user,
    account: params.account,
    storedUser: user,
    callbackUrl: params.callbackUrl,
    resolve: async () => ({ user, isNewUser: params.isNewUser }),
  });
}
