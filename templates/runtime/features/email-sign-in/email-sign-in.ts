/**
 * Email (magic link) sign-in, as Auth.js does it, the flow `Email()` brings: POST `<mount>/signin/<id>` stores a
 * single-use, expiring verification token and sends a link holding it; GET `<mount>/callback/<id>?token=…&email=…`
 * uses the token once. Only the SHA-256 of `token + secret` is stored, so a database leak yields no working link.
 * Unlike Auth.js, a link lives one hour by default, and a new link voids the earlier ones of its address when the
 * adapter has `deleteVerificationTokens`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Request } from 'express';
import { callAdapter } from '../database/adapter.js';
import type { SignInResolution, RequestContext, FlowProviderConfig, ResolvedFlowProvider, Theme } from '../../contracts.js';
import { completeSignIn } from '../../complete-sign-in.js';
import { hashVerificationToken } from '../email/link-token.js';
import { configuredActionUrl, sendHtml, sendJson, sendRedirect } from '../../context.js';
import { csrfTokenOf } from '../../http/csrf.js';
import { InvalidEmailAddress, assertSingleAddress } from '../../email-address.js';
import { AccessDenied, MissingAdapter } from '../../errors.js';
import { EmailSignInError, Verification } from '../email/errors.js';
import { emitEvent } from '../../events.js';
import type { SignInFormContext } from '../../flow.js';
import { type SafeHtml, html } from '../../pages/html.js';
import { renderSignInPage, signInPageScriptHashes } from '../../pages/signin.js';
import { consumeClientRateLimit, consumeRateLimit } from '../rate-limit/rate-limit.js';
import { consumeRecipientRateLimit } from '../email/recipient-limits.js';
import { customPageUrl, resolveRedirect, safeCallbackParam } from '../../http/redirect.js';
import { requestedCallbackUrl } from '../../http/requested-callback-url.js';
import { bodyField, prefersJson, queryParams } from '../../http/request.js';
import { hasProvenEmail, settleAddress } from '../database/addresses.js';
import type { Account, AdapterUser, Awaitable, User } from '../../types.js';

/** What `sendVerificationRequest` receives: where to send the link, and the link itself. */
export interface EmailVerificationRequest {
  /** The normalised email address the link goes to. */
  identifier: string;
  /** The sign-in link: `<origin><mount>/callback/<id>?callbackUrl=…&token=…&email=…`. The only secret in the message. */
  url: string;
  /** When the link stops working. */
  expires: Date;
  /** The token inside `url` (for senders that build their own link); never log it. */
  token: string;
  /** The provider's settings, with `server` and `from` read from the env when not configured. */
  provider: EmailProviderSettings;
  /** The theme of the built-in pages, for branded messages. */
  theme: Theme;
  /** The Express request that asked for the link. */
  request: Request;
}

/** The settings of an email provider as senders see them. */
export interface EmailProviderSettings {
  id: string;
  name: string;
  /** An SMTP URL (`smtp://user:password@host:587`, `smtps://…`) or nodemailer transport options. */
  server: string | Record<string, unknown> | undefined;
  /** The sender, `Name <address>` or an address. */
  from: string | undefined;
  /** Seconds a link stays valid. */
  maxAge: number;
}

/**
 * The configuration of an email (magic link) provider. Needs an `adapter`: links are single-use verification tokens
 * stored (hashed) in the database.
 */
export interface EmailConfig extends FlowProviderConfig {
  type: 'email';
  /**
   * The SMTP server the default sender uses: an SMTP URL or nodemailer transport options.
   * @default AUTH_<ID>_SERVER, then AUTH_EMAIL_SERVER
   */
  server?: string | Record<string, unknown>;
  /**
   * The sender of the sign-in message.
   * @default AUTH_<ID>_FROM, then AUTH_EMAIL_FROM
   */
  from?: string;
  /**
   * Seconds a link stays valid. Shorter than Auth.js's 24 hours: a link is a sign-in secret sitting in a mailbox.
   * @default 3600 (1 hour)
   */
  maxAge?: number;
  /**
   * Sends the sign-in link. `Email()` sets a sender that uses nodemailer over `server`; replace it to send through
   * an HTTP email API. Throw to report a failure (the user sees "The sign-in email could not be sent").
   */
  sendVerificationRequest?: (params: EmailVerificationRequest) => Awaitable<void>;
  /** Makes the token of a link. @default 32 random bytes, hex encoded */
  generateVerificationToken?: () => Awaitable<string>;
  /**
   * Turns what the user typed into the address to use, or throws to refuse it. The result is still checked to be
   * exactly one address without line breaks.
   * @default trims, lower-cases, drops comments, checks for one plain address (see email-address.ts)
   */
  normalizeIdentifier?: (identifier: string) => string;
  /** The secret the stored token hashes are made with. @default the first AUTH_SECRET */
  secret?: string;
  options?: Partial<EmailConfig>;
}


/** An email (magic link) provider, with `server` and `from` read from the env when not configured. */
export interface ResolvedEmailProvider extends ResolvedFlowProvider, EmailProviderSettings {
  type: 'email';
  secret: string | undefined;
  sendVerificationRequest: (params: EmailVerificationRequest) => Awaitable<void>;
  generateVerificationToken: (() => Awaitable<string>) | undefined;
  normalizeIdentifier: (identifier: string) => string;
  /** The env var names that configure it, for error messages. */
  env: { server: string; from: string };
}

/** The default lifetime of an email sign-in link: one hour (Auth.js's is 24 hours). */
export const DEFAULT_EMAIL_MAX_AGE = 60 * 60;

/** What the user typed, as the provider's address; throws what `normalizeIdentifier` threw. */
export function emailIdentifier(provider: ResolvedEmailProvider, typed: string): string {
  const identifier = provider.normalizeIdentifier(typed);
  if (typeof identifier !== 'string') throw new TypeError(`normalizeIdentifier of provider "${provider.id}" did not return a string`);
  assertSingleAddress(identifier);
  return identifier;
}

/**
 * Starts an email sign-in for an already normalised address: the `signIn` callback (with
 * `email.verificationRequest`), the stored token (replacing the address's earlier ones when the adapter has
 * `deleteVerificationTokens`), the message, then a redirect to the "check your email" page.
 */
export async function sendVerificationLink(
  context: RequestContext,
  provider: ResolvedEmailProvider,
  params: { identifier: string; callbackUrl: string | undefined },
): Promise<void> {
  const { options } = context;
  const adapter = options.adapter;
  if (!adapter) throw new MissingAdapter(`Provider "${provider.id}" needs an adapter`);
  const { identifier } = params;
  const existing = await callAdapter(adapter, 'getUserByEmail', identifier);
  const user: AdapterUser = existing ?? { id: randomUUID(), email: identifier, emailVerified: null };
  const account: Account = { providerAccountId: identifier, userId: user.id, type: 'email', provider: provider.id };
  let allowed: boolean | string;
  try {
    allowed = await options.callbacks.signIn({ user, account, email: { verificationRequest: true } });
  } catch (error) {
    throw new AccessDenied('The signIn callback threw', { cause: error instanceof Error ? error : undefined });
  }
  if (allowed === false) throw new AccessDenied('The signIn callback refused the email sign-in');
  if (typeof allowed === 'string') return sendRedirect(context, await resolveRedirect(context, allowed));

  const token = (await provider.generateVerificationToken?.()) ?? randomBytes(32).toString('hex');
  const expires = new Date(Date.now() + provider.maxAge * 1000);
  const secret = provider.secret ?? options.secrets[0]!;
  const query = new URLSearchParams();
  if (params.callbackUrl) query.set('callbackUrl', await resolveRedirect(context, params.callbackUrl));
  query.set('token', token);
  query.set('email', identifier);
  // The link's origin is configuration's, never the Host header's: whoever could choose it would receive the token.
  const url = `${configuredActionUrl(context, `callback/${encodeURIComponent(provider.id)}`)}?${query}`;
  const hashed = hashVerificationToken(token, secret);
  // One live link per address: a link left in an old message (or a mailbox someone else reads) stops working once
  // a newer one is asked for. Auth.js adapters lack the method; their earlier links stay valid until used or expired.
  if (typeof adapter.deleteVerificationTokens === 'function') await callAdapter(adapter, 'deleteVerificationTokens', identifier);
  // Stored before sending, so that a link opened at once already works.
  await callAdapter(adapter, 'createVerificationToken', { identifier, token: hashed, expires });
  try {
    await provider.sendVerificationRequest({
      identifier,
      url,
      expires,
      token,
      provider: { id: provider.id, name: provider.name, server: provider.server, from: provider.from, maxAge: provider.maxAge },
      theme: options.theme,
      request: context.req,
    });
  } catch (error) {
    // A link that was never delivered must not stay usable.
    await callAdapter(adapter, 'useVerificationToken', { identifier, token: hashed }).catch((cleanup: Error) => options.logger.error(cleanup));
    throw new EmailSignInError(`Sending the sign-in email of provider "${provider.id}" failed`, { cause: error instanceof Error ? error : undefined });
  }
  const page = new URLSearchParams({ provider: provider.id, type: provider.type });
  sendRedirect(context, `${configuredActionUrl(context, 'verify-request')}?${page}`);
}

/**
 * Uses the token of a sign-in link: found once, unexpired, for this address. Every failure is `Verification` (the
 * error page says the link is no longer valid) without saying which check failed. Tokens hashed with a previous
 * secret (`AUTH_SECRET` rotation) are still found.
 */
export async function useVerificationLink(
  context: RequestContext,
  provider: ResolvedEmailProvider,
  query: URLSearchParams,
): Promise<{ user: User | AdapterUser; storedUser: AdapterUser | null; account: Account; identifier: string; callbackUrl: string | undefined }> {
  const { options } = context;
  const adapter = options.adapter;
  if (!adapter) throw new MissingAdapter(`Provider "${provider.id}" needs an adapter`);
  const token = query.get('token');
  const email = query.get('email');
  if (!token || !email) throw new Verification('The sign-in link has no token or no email: it was opened incompletely');
  const secrets = provider.secret ? [provider.secret] : options.secrets;
  let invite = null;
  for (const secret of secrets) {
    invite = await callAdapter(adapter, 'useVerificationToken', { identifier: email, token: hashVerificationToken(token, secret) });
    if (invite) break;
  }
  if (!invite) throw new Verification('The sign-in link is unknown or was already used');
  if (new Date(invite.expires).valueOf() < Date.now()) throw new Verification('The sign-in link has expired');
  if (invite.identifier !== email) throw new Verification('The sign-in link belongs to another address');
  const identifier = invite.identifier;
  // A holder who never proved the address is not who signs in: the link claims it for a new user (sign-in.ts).
  const holder = await callAdapter(adapter, 'getUserByEmail', identifier);
  const storedUser = holder && hasProvenEmail(holder) ? holder : null;
  const user: User | AdapterUser = storedUser ?? { id: randomUUID(), email: identifier, emailVerified: null } as AdapterUser;
  const account: Account = { providerAccountId: identifier, userId: String(user.id), type: 'email', provider: provider.id };
  return { user, storedUser, account, identifier, callbackUrl: query.get('callbackUrl') ?? undefined };
}

/**
 * Email sign-in: the link proved the address. A user who proved it before is signed in (`emailVerified` set to
 * now, as Auth.js); a user who holds it unproven loses it to a new user who gets it; otherwise a user is created
 * with it. No account row is linked; the account passed to callbacks has type `email` and the address as
 * `providerAccountId`. With database sessions, the browser's previous session row is deleted: the new session
 * replaces it (also when it belonged to another user, who is thereby signed out).
 */
async function resolveEmailSignIn(context: RequestContext, params: { identifier: string }): Promise<SignInResolution> {
  const { options } = context;
  const adapter = options.adapter;
  // The startup check makes this unreachable; kept for custom wiring.
  if (!adapter) throw new MissingAdapter('Email sign-in needs an adapter');
  const outcome = await settleAddress(options, adapter, { email: params.identifier, proven: true, joinProvenHolder: true });
  let user: AdapterUser;
  let isNewUser = false;
  if (outcome.action === 'join') {
    user = await callAdapter(adapter, 'updateUser', { id: outcome.user.id, emailVerified: new Date() });
    await emitEvent(options, 'updateUser', { user });
  } else {
    // A proven address joining a proven holder is never refused; 'refuse' cannot happen here.
    user = await callAdapter(adapter, 'createUser', { id: randomUUID(), email: params.identifier, emailVerified: new Date() });
    isNewUser = true;
    await emitEvent(options, 'createUser', { user });
  }
  return { user, isNewUser };
}

/** POST `<mount>/signin/<email provider>`: a malformed address is answered 400, anything else sends a link. */
export async function emailSignIn(context: RequestContext, provider: ResolvedEmailProvider, body: Record<string, unknown>): Promise<void> {
  const typed = bodyField(body, 'email') ?? '';
  let identifier: string;
  try {
    identifier = emailIdentifier(provider, typed);
  } catch (error) {
    return refuseEmailAddress(context, typed, error, body);
  }
  // The client first: its limit also caps how many address counters one client can create.
  await consumeClientRateLimit(context, 'emailPerClient');
  await consumeRateLimit(context.options, 'emailPerAddress', identifier);
  await consumeRecipientRateLimit(context.options, identifier);
  await sendVerificationLink(context, provider, { identifier, callbackUrl: requestedCallbackUrl(context, body) });
}

/**
 * A malformed address is bad input, answered 400 where it was typed: the sign-in page with the reason and the
 * address to correct (JSON for clients that ask for it). A custom sign-in page gets a redirect with
 * `error=EmailSignInError`.
 */
function refuseEmailAddress(context: RequestContext, typed: string, error: unknown, body: Record<string, unknown>): void {
  // Only our own reasons are shown: a custom normalizeIdentifier's message could say anything.
  const message = error instanceof InvalidEmailAddress ? error.message : 'Enter a valid email address.';
  context.options.logger.debug('email address refused', { reason: message });
  if (prefersJson(context.req) || context.req.headers['x-auth-return-redirect']) {
    return sendJson(context, 400, { error: 'EmailSignInError', message });
  }
  const callbackUrl = safeCallbackParam(context, bodyField(body, 'callbackUrl'));
  if (context.options.pages.signIn) {
    return sendRedirect(context, customPageUrl(context, context.options.pages.signIn, { callbackUrl, error: 'EmailSignInError' }));
  }
  const page = renderSignInPage({
    providers: context.options.providers,
    mountPath: context.mountPath,
    csrfToken: csrfTokenOf(context),
    callbackUrl,
    error: 'EmailSignInError',
    errorMessage: message,
    email: typed.slice(0, 320),
    theme: context.options.theme,
    messages: context.options.pageMessages,
  });
  sendHtml(context, 400, page, signInPageScriptHashes(context.options.providers));
}

/** GET `<mount>/callback/<email provider>?token=…&email=…`: the link of the message, usable once. */
export async function emailCallback(context: RequestContext, provider: ResolvedEmailProvider): Promise<void> {
  const link = await useVerificationLink(context, provider, queryParams(context.req));
  await completeSignIn(context, {
    user: link.user,
    account: link.account,
    storedUser: link.storedUser,
    callbackUrl: link.callbackUrl ?? context.cookies.get(context.cookieOptions.callbackUrl.name),
    resolve: () => resolveEmailSignIn(context, { identifier: link.identifier }),
  });
}

export function emailForm(provider: ResolvedEmailProvider, { mountPath, hidden, email }: SignInFormContext): SafeHtml {
  const id = `input-email-for-${provider.id}-provider`;
  return html`<form action="${mountPath}/signin/${encodeURIComponent(provider.id)}" method="POST">${hidden}<label for="${id}">Email</label><input id="${id}" name="email" type="email" autocomplete="email" placeholder="email@example.com"${email ? html` value="${email}"` : ''} required><button type="submit">Sign in with ${provider.name}</button></form>`;
}
