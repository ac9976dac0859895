/**
 * Email and password accounts, the flow `Password()` brings (SPEC §10): sign-up with a confirmed address, sign-in,
 * a password reset by email, and a password change for a signed-in user. The routes below the mount path:
 * - GET `/signup`, POST `/signup/<id>`: `email`, `password`, `name?` → "check your email" for any address. A new
 *   address gets a user (address unconfirmed), the password's hash and a confirmation link; a known one gets a
 *   message saying someone tried to sign up, with links to sign in and to reset.
 * - GET `/callback/<id>?token=…&email=…`: the confirmation link (single use, 24 hours): confirms the address and
 *   signs in. POST `/callback/<id>`: `email`, `password` → a session; a wrong password, an unknown address and an
 *   unconfirmed address get one and the same answer (the last also gets a new link, rate-limited).
 * - GET `/reset-password` (the address) and `?token=…&email=…` (the new password); POST `/reset-password` sends a
 *   link (single use, one hour, the newest only) to a known address and answers alike for any, or with `token` sets
 *   the password and ends every session of the user.
 * - GET and POST `/password` (signed in): `currentPassword`, `newPassword` → ends the user's other sessions.
 *
 * Nothing in an answer tells a known address from an unknown one: the same status, Location, cookies and body, the
 * message sent after the answer, and one password hash whether or not the address has one. An address is proven
 * only by a link opened from its mailbox, and an unproven address never joins an existing user (sign-in.ts).
 */
import { randomUUID } from 'node:crypto';
import { type Adapter, type VerificationToken, callAdapter } from '../database/adapter.js';
import { assertAdapterFor } from '../database/adapter-needs.js';
import { endSessionRows } from '../database/session-management.js';
import { askToSignIn } from '../database/sessions-route.js';
import { currentSignIn, hasProvenEmail, isRecentSignIn, openSession, settleAddress, signInStoredUser } from '../database/sign-in.js';
import type { RequestContext, Feature, ResolvedProvider, FlowProviderConfig, ResolvedFlowProvider, Route } from '../../contracts.js';
import { actionUrl, configuredActionUrl, sendHtml, sendJson, sendRedirect } from '../../context.js';
import { askToReauthenticate } from '../database/recent-auth.js';
import { chunkCookie, clearChunkedCookie, readChunkedCookie } from '../../http/cookies.js';
import { csrfTokenOf, verifyCsrf } from '../../http/csrf.js';
import { InvalidEmailAddress, assertSingleAddress, normalizeEmailAddress } from '../../email-address.js';
import { CredentialsSignin, InvalidRequest, MethodNotAllowed, UntrustedHost } from '../../errors.js';
import { emitEvent } from '../../events.js';
import type { ProviderFlow, SignInFormContext } from '../../flow.js';
import { type SafeHtml, html } from '../../pages/html.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import { customPageUrl, requestedCallbackUrl, resolveRedirect, safeCallbackParam } from '../../http/redirect.js';
import { bodyField, prefersJson, queryParams, readBody } from '../../http/request.js';
import type { AdapterUser } from '../../types.js';
import { EmailSignInError, Verification } from '../email/errors.js';
import { newLinkToken, storeLinkToken, useLinkToken } from '../email/link-token.js';
import { emailLinks } from '../email/verify-request-route.js';
import { RateLimited, clearRateLimit, consumeClientRateLimit, consumeRateLimit, rateLimits } from '../rate-limit/rate-limit.js';
import { type BreachedPasswordCheck, DEFAULT_BREACHED_PASSWORDS_URL, isBreachedPassword } from './breached.js';
import { commonPasswords as bundledCommonPasswords } from './common-passwords.js';
import { HashQueueFull, RequestClosed, hashPassword, verifyPassword } from './hash.js';
import { type PasswordMessage, type PasswordMessageKind, type PasswordMessageSender, consoleSender, passwordMessage, smtpSender } from './mail.js';
import { type ConfirmPageParams, type PasswordFormErrors, renderChangePasswordPage, renderConfirmPage, renderNewPasswordPage, renderResetRequestPage, renderSignUpPage } from './pages.js';
import { MAX_PASSWORD_LENGTH, minPasswordLength, passwordProblem } from './policy.js';

export type { BreachedPasswordCheck } from './breached.js';
export type { PasswordMessage, PasswordMessageKind, PasswordMessageSender } from './mail.js';

/** The configuration of an email and password provider (`Password()`). Needs an adapter. */
export interface PasswordConfig extends FlowProviderConfig {
  type: 'credentials';
  /**
   * The fewest characters a new password may have: code points as typed (and after NFKC; the lesser counts), without
   * default-ignorable code points such as U+200B and combining marks.
   * @default 15 (never below 8)
   */
  minLength?: number;
  /**
   * Passwords refused as too common (compared lower-cased, after NFKC), also when repeated or with digits, a sequence
   * or a repeated character added at either end.
   * @default the bundled list (common-passwords.ts)
   */
  commonPasswords?: ReadonlySet<string>;
  /**
   * Refuses new passwords found in known breaches, through the k-anonymity range API of Pwned Passwords (only the
   * first five hex digits of the password's SHA-1 are sent). Fails open: when the API does not answer, the password
   * is accepted and a warning logged. `true` uses the public API.
   * @default false
   */
  breachedPasswords?: boolean | BreachedPasswordCheck;
  /**
   * The SMTP server of the messages (an SMTP URL or nodemailer transport options). Outside production, when there
   * is none, the messages are printed on the console; in production, the app refuses to start without one.
   * @default AUTH_<ID>_SERVER, then AUTH_EMAIL_SERVER
   */
  server?: string | Record<string, unknown>;
  /** The sender of the messages. @default AUTH_<ID>_FROM, then AUTH_EMAIL_FROM */
  from?: string;
  /** Sends the messages through another service instead of SMTP; throw to report a failure (it is logged). */
  sendMessage?: PasswordMessageSender;
  /** Seconds an address confirmation link stays valid (at most 24 hours). @default 86400 */
  verificationMaxAge?: number;
  /** Seconds a password reset link stays valid (at most 1 hour). @default 3600 */
  resetMaxAge?: number;
}

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
const verifyIdentifier = (email: string): string => `password-verify:${email}`;
/** The identifier a reset link's token is stored under. */
const resetIdentifier = (email: string): string => `password-reset:${email}`;

/** The user id an unknown address's password is looked up by: nobody's, so that both branches read alike. */
const NOBODY = `nobody-${randomUUID()}`;

/** The longest name accepted at sign-up, in characters. */
const MAX_NAME_LENGTH = 100;
/** Longer input is refused before it is hashed: no password is this long (the policy's limit is 256 code points). */
const MAX_PASSWORD_INPUT = 4 * MAX_PASSWORD_LENGTH;

/** The adapter methods the flow calls. */
const neededMethods = [
  'getUser',
  'getUserByEmail',
  'createUser',
  'updateUser',
  'getPasswordHash',
  'setPasswordHash',
  'createVerificationToken',
  'useVerificationToken',
] as const;

function adapterOf(context: RequestContext): Adapter {
  // The startup check makes a missing adapter impossible here.
  return context.options.adapter!;
}

function isPasswordProvider(provider: ResolvedProvider): provider is ResolvedPasswordProvider {
  return !isOAuthProvider(provider) && provider.flow === passwordFlow;
}

/** The configured password provider; the feature's routes serve it (one per app, checked at startup). */
function passwordProviderOf(context: RequestContext): ResolvedPasswordProvider {
  return context.options.providers.find(isPasswordProvider)!;
}

/**
 * A text field of the body: absent is undefined; anything but one string (a number or an object from JSON, an
 * array from a repeated form field) is refused with 400 naming the field, as is text longer than `max`.
 */
function textField(body: Record<string, unknown>, name: string, max: number): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidRequest(`The "${name}" field must be one text value.`);
  if (value.length > max) throw new InvalidRequest(`The "${name}" field is too long (at most ${max} characters).`);
  return value;
}

/** What the user typed as an address, normalised; throws `InvalidEmailAddress` with the reason. */
function addressOf(typed: string | undefined): string {
  if (!typed?.trim()) throw new InvalidEmailAddress('Enter your email address.');
  const address = normalizeEmailAddress(typed);
  assertSingleAddress(address);
  return address;
}

/** The reason the policy refuses a new password (checked here, without the network), or undefined. */
function newPasswordProblem(provider: ResolvedPasswordProvider, password: string | undefined, email: string | undefined): string | undefined {
  if (!password) return 'Enter a password.';
  return passwordProblem(password, email, { minLength: provider.minLength, commonPasswords: provider.commonPasswords })?.message;
}

/**
 * The optional breach check of a new password, or undefined. It calls a remote API, so it runs last: after the rate
 * limits and after a link's token is known to be good, so that nobody can make the app call it at will.
 */
async function breachedPasswordProblem(context: RequestContext, provider: ResolvedPasswordProvider, password: string): Promise<string | undefined> {
  if (!provider.breached) return undefined;
  const breached = await isBreachedPassword(password, provider.breached);
  if (breached === undefined) context.options.logger.warn('breached-password-check-failed');
  return breached ? 'This password has appeared in a data breach, so attackers try it. Choose another.' : undefined;
}

/** Answers a form with refused fields: 400, the page again with each reason by its field, or JSON `{ errors }`. */
function refuseForm(context: RequestContext, errors: PasswordFormErrors, page: () => string): void {
  if (prefersJson(context.req) || context.req.headers['x-auth-return-redirect']) return sendJson(context, 400, { error: 'InvalidRequest', errors });
  sendHtml(context, 400, page());
}

/** Sends a finished form on: a redirect, or `{ url }` to a JSON client. */
function answerWith(context: RequestContext, url: string): void {
  if (prefersJson(context.req)) return sendJson(context, 200, { url });
  sendRedirect(context, url);
}

/** "Check your email": the one answer of sign-up and reset requests, whatever the address. */
function checkYourEmail(context: RequestContext, provider: ResolvedPasswordProvider): void {
  const page = new URLSearchParams({ provider: provider.id, type: 'credentials' });
  answerWith(context, `${configuredActionUrl(context, 'verify-request')}?${page}`);
}

/**
 * Sends a message after the answer: the answer's timing is then the same whether a message was sent, and for
 * which address. A failure is logged (`EmailSignInError`), never shown: showing it would tell the addresses apart.
 */
function sendLater(context: RequestContext, provider: ResolvedPasswordProvider, message: PasswordMessage): void {
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
function afterAnswer(context: RequestContext, work: () => Promise<void>): void {
  const { logger } = context.options;
  setImmediate(() => {
    work().catch((error: unknown) => logger.error(error instanceof Error ? error : new Error(String(error))));
  });
}

/** A message of `kind` to `to` with a link to `url`. */
function messageOf(context: RequestContext, kind: PasswordMessageKind, to: string, url: string, resetUrl?: string): PasswordMessage {
  return passwordMessage(kind, { to, url, ...(resetUrl && { resetUrl }), theme: context.options.theme });
}

/** Stores a confirmation link's token for `email` and sends the link (after the answer). */
async function sendConfirmationLink(context: RequestContext, provider: ResolvedPasswordProvider, email: string, callbackUrl: string | undefined): Promise<void> {
  const token = newLinkToken();
  await storeLinkToken(adapterOf(context), { identifier: verifyIdentifier(email), token, secret: context.options.secrets[0]!, maxAge: provider.verificationMaxAge });
  const query = new URLSearchParams();
  if (callbackUrl) query.set('callbackUrl', await resolveRedirect(context, callbackUrl));
  query.set('token', token);
  query.set('email', email);
  sendLater(context, provider, messageOf(context, 'verify-address', email, `${configuredActionUrl(context, `callback/${encodeURIComponent(provider.id)}`)}?${query}`));
}

/** GET `<mount>/signup`: the sign-up page. */
function signUpPage(context: RequestContext, provider: ResolvedPasswordProvider, values: { email?: string; name?: string; errors?: PasswordFormErrors } = {}): string {
  return renderSignUpPage({
    mountPath: context.mountPath,
    csrfToken: csrfTokenOf(context),
    theme: context.options.theme,
    providerId: provider.id,
    callbackUrl: safeCallbackParam(context, queryParams(context.req).get('callbackUrl') ?? context.cookies.get(context.cookieOptions.callbackUrl.name)),
    minLength: provider.minLength,
    ...values,
  });
}

/** POST `<mount>/signup/<id>`. */
async function signUp(context: RequestContext, provider: ResolvedPasswordProvider): Promise<void> {
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  const typed = textField(body, 'email', 320);
  const password = textField(body, 'password', MAX_PASSWORD_INPUT);
  const name = textField(body, 'name', MAX_NAME_LENGTH * 4)?.trim() || undefined;
  const errors: PasswordFormErrors = {};
  let email: string | undefined;
  try {
    email = addressOf(typed);
  } catch (error) {
    errors.email = error instanceof InvalidEmailAddress ? error.message : 'Enter a valid email address.';
  }
  if (name !== undefined && ([...name].length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name))) errors.name = `Use up to ${MAX_NAME_LENGTH} characters, without line breaks.`;
  const problem = newPasswordProblem(provider, password, email ?? typed);
  if (problem) errors.password = problem;
  const refuse = (): void =>
    refuseForm(context, errors, () => signUpPage(context, provider, { ...(typed !== undefined && { email: typed.slice(0, 320) }), ...(name && { name }), errors }));
  if (email === undefined || Object.keys(errors).length > 0) return refuse();
  // The client first: its limit also caps how many address counters one client can create.
  await consumeClientRateLimit(context, 'passwordEmailPerClient');
  await consumeRateLimit(context.options, 'passwordEmailPerAddress', email);
  const breached = await breachedPasswordProblem(context, provider, password!);
  if (breached) {
    errors.password = breached;
    return refuse();
  }
  const adapter = adapterOf(context);
  // Hashed for every address alike: a known address costs the same time as a new one.
  const hash = await hashPassword(password!, undefined, { request: context.req });
  const holder = await callAdapter(adapter, 'getUserByEmail', email);
  const callbackUrl = requestedCallbackUrl(context, body);
  checkYourEmail(context, provider);
  // What differs between a known and a new address happens after the answer (afterAnswer).
  if (holder) {
    const signIn = configuredActionUrl(context, 'signin');
    sendLater(context, provider, messageOf(context, 'sign-up-attempt', email, signIn, configuredActionUrl(context, 'reset-password')));
    return;
  }
  afterAnswer(context, async () => {
    const user = await callAdapter(adapter, 'createUser', { id: randomUUID(), email, emailVerified: null, ...(name && { name }) });
    try {
      await callAdapter(adapter, 'setPasswordHash', user.id, hash);
    } catch (error) {
      await callAdapter(adapter, 'deleteUser', user.id).catch((cleanup: Error) => context.options.logger.error(cleanup));
      throw error;
    }
    await emitEvent(context.options, 'createUser', { user });
    await sendConfirmationLink(context, provider, email, callbackUrl);
  });
}

/** Signs `user` in through the provider's account (the user's id). */
function signInAs(context: RequestContext, provider: ResolvedPasswordProvider, user: AdapterUser, params: { isNewUser: boolean; callbackUrl: string | undefined }): Promise<void> {
  const account = { provider: provider.id, type: 'credentials' as const, providerAccountId: user.id, userId: user.id };
  return signInStoredUser(context, { user, account, ...params });
}

/** POST `<mount>/callback/<id>` (or `<mount>/signin/<id>`): `email`, `password`. */
async function signIn(context: RequestContext, provider: ResolvedPasswordProvider, body: Record<string, unknown>): Promise<void> {
  const typed = textField(body, 'email', 320);
  const password = textField(body, 'password', MAX_PASSWORD_INPUT);
  await consumeClientRateLimit(context, 'credentialsPerClient');
  let email: string;
  try {
    email = addressOf(typed);
  } catch {
    throw new CredentialsSignin('The address is not a valid email address');
  }
  await consumeRateLimit(context.options, 'credentialsPerUser', email);
  const adapter = adapterOf(context);
  const holder = await callAdapter(adapter, 'getUserByEmail', email);
  // An unknown address costs the same database reads and one hash too, so that its answer takes as long.
  const stored = await callAdapter(adapter, 'getPasswordHash', holder?.id ?? NOBODY);
  const check = await verifyPassword(password ?? '', holder ? stored : null, { request: context.req });
  if (!holder || !check.valid) throw new CredentialsSignin(`Wrong password or unknown address for provider "${provider.id}"`);
  if (!hasProvenEmail(holder)) {
    // The same answer as a wrong password; the owner of the address gets a new link, within the message limits.
    try {
      await consumeClientRateLimit(context, 'passwordEmailPerClient');
      await consumeRateLimit(context.options, 'passwordEmailPerAddress', email);
      await sendConfirmationLink(context, provider, email, requestedCallbackUrl(context, body));
    } catch (error) {
      if (!(error instanceof RateLimited)) throw error;
    }
    throw new CredentialsSignin(`The address of provider "${provider.id}"'s user is not confirmed yet`);
  }
  await clearRateLimit(context.options, 'credentialsPerUser', email);
  if (check.needsRehash) await callAdapter(adapter, 'setPasswordHash', holder.id, await hashPassword(password!));
  // A reset link asked for earlier is not needed any more: the user knows their password.
  await voidLinks(adapter, resetIdentifier(email));
  const callbackUrl = bodyField(body, 'callbackUrl') ?? context.cookies.get(context.cookieOptions.callbackUrl.name);
  // With two-factor on, completeSignIn asks for the code before the session (features/two-factor/).
  await signInAs(context, provider, holder, { isNewUser: false, callbackUrl });
}

/** Deletes every unused link of an identifier (when the adapter can). */
async function voidLinks(adapter: Adapter, identifier: string): Promise<void> {
  if (typeof adapter.deleteVerificationTokens === 'function') await callAdapter(adapter, 'deleteVerificationTokens', identifier);
}

/** A link's token used to see that it is good, stored again as it was: the link stays usable (until it expires). */
async function restoreLink(adapter: Adapter, row: VerificationToken): Promise<void> {
  await callAdapter(adapter, 'createVerificationToken', row);
}

/**
 * GET `<mount>/callback/<id>?token=…&email=…`: the confirmation link opens a page and changes nothing, since mail
 * scanners and link previews open links. The page confirms by POST and asks for the password chosen at sign-up, or
 * lets the opener choose a new one (which voids the old): opening a link can never confirm a password the opener does
 * not know, nor sign a browser in (login CSRF).
 */
function confirmationPage(context: RequestContext, provider: ResolvedPasswordProvider): void {
  const query = queryParams(context.req);
  const token = query.get('token');
  const email = query.get('email');
  if (!token || !email) throw new Verification('The confirmation link has no token or no email: it was opened incompletely');
  sendHtml(context, 200, renderConfirmPage(confirmPageParams(context, provider, { token, email, callbackUrl: query.get('callbackUrl') ?? undefined })));
}

function confirmPageParams(context: RequestContext, provider: ResolvedPasswordProvider, link: { token: string; email: string; callbackUrl: string | undefined }, errors: PasswordFormErrors = {}): ConfirmPageParams {
  return { mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme, providerId: provider.id, minLength: provider.minLength, ...link, callbackUrl: safeCallbackParam(context, link.callbackUrl), errors };
}

/**
 * POST `<mount>/callback/<id>` with the link's `token` and `email`: `password` (the one chosen at sign-up) or
 * `newPassword` (replacing it). The address's unproven holder is confirmed and signed in. A wrong or refused password
 * leaves the link usable; an address proven since (a magic link, a reset, a provider) refuses the link, so an unused
 * link never outlives the address being proven another way. Any other failure is `Verification`.
 */
async function confirmAddress(context: RequestContext, provider: ResolvedPasswordProvider, body: Record<string, unknown>, token: string): Promise<void> {
  const email = textField(body, 'email', 320) ?? '';
  const password = textField(body, 'password', MAX_PASSWORD_INPUT);
  const newPassword = textField(body, 'newPassword', MAX_PASSWORD_INPUT);
  const callbackUrl = requestedCallbackUrl(context, body);
  const refuse = (errors: PasswordFormErrors): void => refuseForm(context, errors, () => renderConfirmPage(confirmPageParams(context, provider, { token, email, callbackUrl }, errors)));
  if (!password && !newPassword) return refuse({ password: 'Enter the password you chose when you signed up, or choose a new one.' });
  const problem = newPassword === undefined || newPassword === '' ? undefined : newPasswordProblem(provider, newPassword, email);
  if (problem) return refuse({ newPassword: problem });
  await consumeClientRateLimit(context, 'credentialsPerClient');
  await consumeRateLimit(context.options, 'credentialsPerUser', email);
  const adapter = adapterOf(context);
  const row = await useLinkToken(adapter, verifyIdentifier(email), token, context.options.secrets);
  if (!row) throw new Verification('The confirmation link is unknown, used or expired');
  const holder = await callAdapter(adapter, 'getUserByEmail', email);
  if (!holder) throw new Verification('Nobody holds the address of this confirmation link any more');
  if (hasProvenEmail(holder)) throw new Verification('The address of this confirmation link was proven another way since: sign in instead');
  let hash: string;
  if (newPassword) {
    const breached = await breachedPasswordProblem(context, provider, newPassword);
    if (breached) {
      await restoreLink(adapter, row);
      return refuse({ newPassword: breached });
    }
    hash = await hashPassword(newPassword);
  } else {
    const stored = await callAdapter(adapter, 'getPasswordHash', holder.id);
    if (!stored) throw new Verification('The address of this confirmation link belongs to a user without a password');
    if (!(await verifyPassword(password!, stored)).valid) {
      await restoreLink(adapter, row);
      return refuse({ password: 'That is not the password chosen at sign-up. Enter it again, or choose a new password below.' });
    }
    hash = stored;
  }
  await clearRateLimit(context.options, 'credentialsPerUser', email);
  if (newPassword) await callAdapter(adapter, 'setPasswordHash', holder.id, hash);
  const user = await callAdapter(adapter, 'updateUser', { id: holder.id, emailVerified: new Date() });
  await emitEvent(context.options, 'updateUser', { user });
  await voidLinks(adapter, verifyIdentifier(email));
  await signInAs(context, provider, user, { isNewUser: true, callbackUrl });
}

/** Ends sessions of a user (database sessions): all of them, or all but `keep`. Returns how many. */
async function endSessionsOfUser(context: RequestContext, userId: string, keep?: string): Promise<number> {
  const adapter = adapterOf(context);
  if (context.options.session.strategy !== 'database' || typeof adapter.listSessionsByUserId !== 'function') return 0;
  const rows = await callAdapter(adapter, 'listSessionsByUserId', userId);
  return endSessionRows(context.options, adapter, rows.filter((row) => row.sessionToken !== keep));
}

/** `<mount>/reset-password`: GET shows the address form or, with a link's token, the new-password form. */
async function resetPasswordRoute(context: RequestContext, route: Route): Promise<void> {
  const provider = passwordProviderOf(context);
  const base = { mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme };
  if (route.method === 'GET') {
    const query = queryParams(context.req);
    const token = query.get('token');
    const email = query.get('email');
    // The token is used only when the form is sent: a mail scanner that opens the link does not spend it.
    if (token && email) return sendHtml(context, 200, renderNewPasswordPage({ ...base, token, email, minLength: provider.minLength }));
    return sendHtml(context, 200, renderResetRequestPage(base));
  }
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  const token = textField(body, 'token', 256);
  if (token !== undefined) return resetPassword(context, provider, body, token);
  const typed = textField(body, 'email', 320);
  let email: string;
  try {
    email = addressOf(typed);
  } catch (error) {
    const message = error instanceof InvalidEmailAddress ? error.message : 'Enter a valid email address.';
    return refuseForm(context, { email: message }, () => renderResetRequestPage({ ...base, email: typed?.slice(0, 320), errors: { email: message } }));
  }
  await consumeClientRateLimit(context, 'passwordEmailPerClient');
  await consumeRateLimit(context.options, 'passwordEmailPerAddress', email);
  const adapter = adapterOf(context);
  const holder = await callAdapter(adapter, 'getUserByEmail', email);
  checkYourEmail(context, provider);
  // The link is stored and sent after the answer: a known address answers as fast as an unknown one.
  if (!holder) return;
  afterAnswer(context, async () => {
    const linkToken = newLinkToken();
    await storeLinkToken(adapter, { identifier: resetIdentifier(email), token: linkToken, secret: context.options.secrets[0]!, maxAge: provider.resetMaxAge });
    const url = `${configuredActionUrl(context, 'reset-password')}?${new URLSearchParams({ token: linkToken, email })}`;
    sendLater(context, provider, messageOf(context, 'reset-password', email, url));
  });
}

/**
 * POST `<mount>/reset-password` with a link's token: the link proves the address. Its proven holder gets the new
 * password; an address nobody proved is claimed for a new user (settleAddress), so that a reset never hands a
 * squatted account to the address's owner or the other way round. Every session of the user ends.
 */
async function resetPassword(context: RequestContext, provider: ResolvedPasswordProvider, body: Record<string, unknown>, token: string): Promise<void> {
  const email = textField(body, 'email', 320) ?? '';
  const password = textField(body, 'password', MAX_PASSWORD_INPUT);
  const base = { mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme };
  const refuse = (problem: string): void => refuseForm(context, { password: problem }, () => renderNewPasswordPage({ ...base, token, email, minLength: provider.minLength, errors: { password: problem } }));
  const problem = newPasswordProblem(provider, password, email);
  if (problem) return refuse(problem);
  const adapter = adapterOf(context);
  const row = await useLinkToken(adapter, resetIdentifier(email), token, context.options.secrets);
  if (!row) throw new Verification('The password reset link is unknown, used or expired');
  const breached = await breachedPasswordProblem(context, provider, password!);
  if (breached) {
    await restoreLink(adapter, row);
    return refuse(breached);
  }
  const hash = await hashPassword(password!);
  const outcome = await settleAddress(context.options, adapter, { email, proven: true, joinProvenHolder: true });
  let user: AdapterUser;
  if (outcome.action === 'join') {
    user = outcome.user;
  } else if (outcome.action === 'create') {
    user = await callAdapter(adapter, 'createUser', { id: randomUUID(), email, emailVerified: outcome.emailVerified });
    await emitEvent(context.options, 'createUser', { user });
  } else {
    throw new Verification('The address of this reset link cannot be given to a user');
  }
  await callAdapter(adapter, 'setPasswordHash', user.id, hash);
  // The address is proven now: an unused confirmation link for it is void (F3 of security review 4).
  await voidLinks(adapter, verifyIdentifier(email));
  await endSessionsOfUser(context, user.id);
  await clearRateLimit(context.options, 'credentialsPerUser', email);
  context.outgoing.push(...clearChunkedCookie(context.cookies, context.cookieOptions.sessionToken));
  const signInPage = context.options.pages.signIn ?? `${context.mountPath}/signin`;
  answerWith(context, customPageUrl(context, signInPage, {}));
}

/**
 * `<mount>/password`: a signed-in user changes their password, after a recent authentication (a copied session cookie
 * alone must not change how the account signs in). The user's other sessions end, the current one gets a new token
 * (a copy of the old cookie stops working), and an unused reset link is void.
 */
async function changePasswordRoute(context: RequestContext, route: Route): Promise<void> {
  const provider = passwordProviderOf(context);
  const adapter = adapterOf(context);
  const signedIn = await currentSignIn(context, adapter);
  const json = prefersJson(context.req);
  if (!signedIn) return askToSignIn(context, json, { action: 'password', message: 'Sign in to change your password.' });
  if (!isRecentSignIn(context, signedIn)) return askToReauthenticate(context, actionUrl(context, 'password'));
  const { user } = signedIn;
  const page = (errors: PasswordFormErrors, changed: boolean): string =>
    renderChangePasswordPage({ mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme, email: user.email ?? undefined, minLength: provider.minLength, changed, errors });
  if (route.method === 'GET') return sendHtml(context, 200, page({}, queryParams(context.req).get('changed') === '1'));
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  const current = textField(body, 'currentPassword', MAX_PASSWORD_INPUT);
  const next = textField(body, 'newPassword', MAX_PASSWORD_INPUT);
  await consumeRateLimit(context.options, 'credentialsPerUser', user.email ?? user.id);
  const stored = await callAdapter(adapter, 'getPasswordHash', user.id);
  const check = await verifyPassword(current ?? '', stored, { request: context.req });
  if (!check.valid) {
    const message = stored ? 'The current password is not correct.' : 'Your account has no password yet: set one with "Forgot your password?" on the sign-in page.';
    return refuseForm(context, { currentPassword: message }, () => page({ currentPassword: message }, false));
  }
  const problem = newPasswordProblem(provider, next, user.email ?? undefined) ?? (await breachedPasswordProblem(context, provider, next!));
  if (problem) return refuseForm(context, { newPassword: problem }, () => page({ newPassword: problem }, false));
  await clearRateLimit(context.options, 'credentialsPerUser', user.email ?? user.id);
  await callAdapter(adapter, 'setPasswordHash', user.id, await hashPassword(next!));
  if (user.email) await voidLinks(adapter, resetIdentifier(user.email));
  const ended = await endSessionsOfUser(context, user.id, readChunkedCookie(context.cookies, context.cookieOptions.sessionToken.name));
  await renewCurrentSession(context, user.id);
  if (json) return sendJson(context, 200, { changed: true, endedSessions: ended });
  sendRedirect(context, `${context.origin}${context.mountPath}/password?changed=1`);
}

/**
 * Gives the current browser a new database session in place of its row, as a sign-in would (the user has just proved
 * their password): a copy of the old cookie stops working. A JWT session cannot be revoked (README, "Sessions").
 */
async function renewCurrentSession(context: RequestContext, userId: string): Promise<void> {
  if (context.options.session.strategy !== 'database') return;
  const session = await openSession(context, userId);
  context.outgoing.push(...chunkCookie(context.cookies, context.cookieOptions.sessionToken, session.sessionToken, { expires: session.expires }));
}

/** `<mount>/signup[/<id>]`. */
async function signUpRoute(context: RequestContext, route: Route): Promise<void> {
  const provider = passwordProviderOf(context);
  if (route.providerId !== undefined && route.providerId !== provider.id) throw new InvalidRequest(`Sign-up is at ${context.mountPath}/signup/${provider.id}.`);
  if (route.method === 'GET') return sendHtml(context, 200, signUpPage(context, provider));
  if (route.providerId === undefined) throw new MethodNotAllowed(`Post the sign-up form to ${context.mountPath}/signup/${provider.id}`, { allow: ['GET'] });
  await signUp(context, provider);
}

/** The password provider's form on the sign-in page, with the links to sign up and to reset a password. */
function passwordForm(provider: ResolvedPasswordProvider, { mountPath, hidden, email }: SignInFormContext): SafeHtml {
  const id = `input-${provider.id}`;
  return html`<form action="${mountPath}/callback/${encodeURIComponent(provider.id)}" method="POST">${hidden}<label for="${id}-email">Email</label><input id="${id}-email" name="email" type="email" autocomplete="username"${email ? html` value="${email}"` : ''} required><label for="${id}-password">Password</label><input id="${id}-password" name="password" type="password" autocomplete="current-password" required><button type="submit">Sign in</button></form><p class="actions"><a href="${mountPath}/reset-password">Forgot your password?</a><a href="${mountPath}/signup">Create an account</a></p>`;
}

/** The routes of email and password accounts (the feature `Password()` brings). */
const passwordAccounts: Feature = {
  id: 'password',
  errors: [HashQueueFull, RequestClosed],
  routes: {
    signup: { methods: ['GET', 'POST'], provider: 'optional', errors: 'page', run: signUpRoute },
    'reset-password': { methods: ['GET', 'POST'], provider: 'none', errors: 'page', run: resetPasswordRoute },
    password: { methods: ['GET', 'POST'], provider: 'none', errors: 'page', run: changePasswordRoute },
  },
  check(options) {
    if (options.providers.filter(isPasswordProvider).length > 1) throw new TypeError('Configure one Password() provider: the sign-up, reset and change routes serve one.');
  },
};

/** A positive number of seconds, at most `max`. */
function lifetime(value: number | undefined, fallback: number, max: number, name: string, id: string): number {
  const seconds = value ?? fallback;
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > max) throw new TypeError(`Password provider "${id}": ${name} must be a number of seconds from 1 to ${max} (got ${String(seconds)})`);
  return seconds;
}

/** The flow of an email and password provider. */
export const passwordFlow: ProviderFlow<ResolvedPasswordProvider> = {
  resolve(config, { env }) {
    const provider = config as PasswordConfig;
    const prefix = `AUTH_${provider.id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
    const server = provider.server ?? (env[`${prefix}_SERVER`] || env['AUTH_EMAIL_SERVER'] || undefined);
    const from = provider.from ?? (env[`${prefix}_FROM`] || env['AUTH_EMAIL_FROM'] || undefined);
    let send = provider.sendMessage;
    if (!send && server) {
      if (!from) throw new TypeError(`Password provider "${provider.id}" sends email through AUTH_EMAIL_SERVER but has no sender: set AUTH_EMAIL_FROM (e.g. "Example <no-reply@example.com>")`);
      send = smtpSender(server, from);
    }
    if (!send && env['NODE_ENV'] === 'production') {
      throw new TypeError(`Password provider "${provider.id}" needs an SMTP server to send its messages in production: set AUTH_EMAIL_SERVER (smtp://user:password@host:587) and AUTH_EMAIL_FROM`);
    }
    const breached = provider.breachedPasswords === true ? {} : provider.breachedPasswords || undefined;
    return {
      id: provider.id,
      name: provider.name,
      type: 'credentials',
      minLength: minPasswordLength(provider.minLength === undefined ? {} : { minLength: provider.minLength }),
      commonPasswords: provider.commonPasswords ?? bundledCommonPasswords,
      breached: breached && { url: breached.url ?? DEFAULT_BREACHED_PASSWORDS_URL, timeout: breached.timeout ?? 2000 },
      send: send ?? consoleSender,
      printsMessages: !send,
      verificationMaxAge: lifetime(provider.verificationMaxAge, 24 * 60 * 60, 24 * 60 * 60, 'verificationMaxAge', provider.id),
      resetMaxAge: lifetime(provider.resetMaxAge, 60 * 60, 60 * 60, 'resetMaxAge', provider.id),
      flow: passwordFlow,
    };
  },
  features: [rateLimits, emailLinks, passwordAccounts],
  check(provider, config) {
    assertAdapterFor(provider, config.adapter, config.strategy, { what: 'Email and password accounts keep users, password hashes and single-use links', methods: neededMethods });
    if (!config.originConfigured) {
      throw new UntrustedHost(
        `Provider "${provider.id}" emails links (address confirmation, password reset), which must point at this app: set AUTH_URL to the URL users reach it at (e.g. AUTH_URL=https://app.example.com), or list its hosts in trustHost / AUTH_TRUST_HOST.`,
      );
    }
  },
  signIn,
  async callback(context, provider, method) {
    if (method === 'GET') return confirmationPage(context, provider);
    const body = await readBody(context.req);
    verifyCsrf(context, body);
    const token = textField(body, 'token', 256);
    if (token !== undefined) return confirmAddress(context, provider, body, token);
    await signIn(context, provider, body);
  },
  signInForm: passwordForm,
};
