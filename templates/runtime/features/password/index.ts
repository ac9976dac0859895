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
 * only by a link opened from its mailbox, and an unproven address never joins an existing user (database/sign-in.ts).
 *
 * This file holds the provider's configuration (`PasswordConfig`), the flow (`passwordFlow`: its resolution, startup
 * checks, sign-in form and callback) and the feature that serves the routes. Each route is in a file of its own:
 * sign-up-route.ts, sign-in.ts (the sign-in form's POST), confirm-address.ts (the confirmation link's page and POST),
 * reset-password-route.ts and change-password-route.ts; what they share is in shared.ts.
 */
import { assertAdapterFor } from '../database/adapter-needs.js';
import type { Feature, ResolvedProvider, FlowProviderConfig, RequestContext } from '../../contracts.js';
import { verifyCsrf } from '../../http/csrf.js';
import { UntrustedHost } from '../../errors.js';
import type { ProviderFlow, SignInFormContext } from '../../flow.js';
import { formStyles } from '../../pages/form-styles.js';
import { type SafeHtml, html } from '../../pages/html.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import { readBody } from '../../http/request.js';
import { emailLinks } from '../email/index.js';
import { recipientLimits } from '../email/recipient-limits.js';
import { rateLimits } from '../rate-limit/index.js';
import { type BreachedPasswordCheck, DEFAULT_BREACHED_PASSWORDS_URL } from './breached.js';
import { commonPasswords as bundledCommonPasswords } from './common-passwords.js';
import { HashQueueFull, RequestClosed } from './hash.js';
import type { PasswordMessageSender } from './mail.js';
import { printMessage, smtpSender } from '../email/smtp.js';
import { minPasswordLength } from './policy.js';
import { passwordAccountPart } from './account.js';
import { passwordStorage } from './storage.js';
import { changePasswordRoute } from './change-password-route.js';
import { confirmAddress, confirmationPage } from './confirm-address.js';
import { resetPasswordRoute } from './reset-password-route.js';
import { type ResolvedPasswordProvider, textField } from './shared.js';
import { signIn } from './sign-in.js';
import { signUpRoute } from './sign-up-route.js';

export type { BreachedPasswordCheck } from './breached.js';
export type { PasswordMessage, PasswordMessageKind, PasswordMessageSender } from './mail.js';
export type { ResolvedPasswordProvider } from './shared.js';

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

function isPasswordProvider(provider: ResolvedProvider): provider is ResolvedPasswordProvider {
  return !isOAuthProvider(provider) && provider.flow === passwordFlow;
}

/** The configured password provider; the feature's routes serve it (one per app, checked at startup). */
function passwordProviderOf(context: RequestContext): ResolvedPasswordProvider {
  return context.options.providers.find(isPasswordProvider)!;
}

/** The password provider's form on the sign-in page, with the links to sign up and to reset a password. */
function passwordForm(provider: ResolvedPasswordProvider, { mountPath, hidden, email }: SignInFormContext): SafeHtml {
  const id = `input-${provider.id}`;
  return html`<form action="${mountPath}/callback/${encodeURIComponent(provider.id)}" method="POST">${hidden}<label for="${id}-email">Email</label><input id="${id}-email" name="email" type="email" autocomplete="username"${email ? html` value="${email}"` : ''} required><label for="${id}-password">Password</label><input id="${id}-password" name="password" type="password" autocomplete="current-password" required><button type="submit">Sign in</button></form><p class="actions"><a href="${mountPath}/reset-password">Forgot your password?</a><a href="${mountPath}/signup">Create an account</a></p>`;
}

declare module '../rate-limit/rate-limit.js' {
  interface RateLimitRules {
    /**
     * Messages of the password provider (sign-up, password reset, a new confirmation link after a sign-in before the
     * address was confirmed) per address, counted for every address alike.
     * @default { window: 900, max: 3 }
     */
    passwordEmailPerAddress: true;
    /**
     * Messages of the password provider per client.
     * @default { window: 900, max: 10 }
     */
    passwordEmailPerClient: true;
  }
}

declare module '../../contracts.js' {
  interface FeatureWarningCodes {
    'email-printed-to-console': true;
    'breached-password-check-failed': true;
  }
}

/**
 * Email and password accounts, the feature `Password()` brings: its routes, errors, limits and warnings, and the
 * `passwords` table with the adapter methods over it (storage.ts).
 */
const passwordAccounts: Feature = {
  id: 'password',
  errors: [HashQueueFull, RequestClosed],
  storage: passwordStorage,
  account: passwordAccountPart,
  securityEventLabels: { 'password-set': 'Password set', 'password-changed': 'Password changed', 'password-reset': 'Password reset' },
  rateLimits: { passwordEmailPerAddress: { window: 15 * 60, max: 3 }, passwordEmailPerClient: { window: 15 * 60, max: 10 } },
  warnings: {
    'email-printed-to-console':
      'AUTH_EMAIL_SERVER is empty, so the email below is printed here instead of sent (development only: in production the app refuses to start without it).',
    'breached-password-check-failed': 'the breached-password check did not answer in time; the password was accepted (the check fails open).',
  },
  // Each route is handed the provider here: the routes' files cannot import the flow, which imports them.
  routes: {
    signup: { methods: ['GET', 'POST'], provider: 'optional', errors: 'page', run: (context, route) => signUpRoute(context, route, passwordProviderOf(context)) },
    'reset-password': { methods: ['GET', 'POST'], provider: 'none', errors: 'page', run: (context, route) => resetPasswordRoute(context, route, passwordProviderOf(context)) },
    password: { methods: ['GET', 'POST'], provider: 'none', errors: 'page', run: (context, route) => changePasswordRoute(context, route, passwordProviderOf(context)) },
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
  resolve(config, { env, envPrefix: prefix }) {
    const provider = config as PasswordConfig;
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
      send: send ?? printMessage,
      printsMessages: !send,
      verificationMaxAge: lifetime(provider.verificationMaxAge, 24 * 60 * 60, 24 * 60 * 60, 'verificationMaxAge', provider.id),
      resetMaxAge: lifetime(provider.resetMaxAge, 60 * 60, 60 * 60, 'resetMaxAge', provider.id),
      flow: passwordFlow,
    };
  },
  features: [rateLimits, emailLinks, recipientLimits, passwordAccounts],
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
  pageStyles: formStyles,
};
