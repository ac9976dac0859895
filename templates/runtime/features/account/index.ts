/**
 * The account (SPEC §13): add `Account()` to the config's `features`. Signed-in users see their account at
 * `<mount>/account`: name and address, how they sign in (linked accounts, and the features' rows: password, passkeys,
 * two-factor), links to their sessions and the features' pages (API keys), their recent security events, and forms to
 * change the address (a link to the new one), unlink an account, export what is stored about them and delete the
 * account, and the features' forms (remove a passkey). Each feature brings its part (`Feature.account`,
 * features/database/account-parts.ts): the account names none of them. Everything
 * that changes how the account signs in or hands out its data needs a recent authentication (`session.reauthMaxAge`).
 * It brings the security events (features/security-events/) and, with a mail transport, the security notifications
 * (features/security-notifications/). Needs an adapter with the methods named at startup (the
 * built-in ones have them; `migrate` adds the `email_changes` table).
 *
 * The routes below the mount (JSON to a client that prefers it, pages otherwise):
 * - GET `/account`: the page; 302 to the sign-in page (401 JSON) without a session.
 * - POST `/account/email` `newEmail`: 302 `/account?notice=email-sent` (202 `{ sent: true }`), the same whether or
 *   not the address has an account; 400 by the field for a bad or unchanged address, or without a mail transport.
 * - GET `/account/email/confirm?token=`: a confirm button, nothing changed. POST `/account/email/confirm` `token`:
 *   302 `/account?notice=email-changed` in the user's browser, else a page asking to sign in again (200
 *   `{ changed: true, email }`); 400 `InvalidToken` for a used, replaced or expired link, 409 `EmailTaken`.
 * - POST `/account/unlink` `provider` (`providerAccountId`), POST `/account/passkeys/remove` `id`: 302
 *   `/account?notice=…` (200 JSON); 400 by the field for an unknown one or the last way to sign in.
 * - GET `/account/export`: 200 `account-<date>.json` as an attachment.
 * - POST `/account/delete` `confirm=yes` or `email`: 302 `/` (or `callbackUrl`) with the session cookie cleared (200
 *   `{ deleted: true }`); 400 by the field when not confirmed.
 * Each POST without the CSRF token is refused; each but the confirmation, without a recent authentication, is sent to
 * `<mount>/reauth` (401 `reauthentication_required`); an API key is refused (handler.ts).
 * @example
 * features: [Account()]
 * features: [Account({ sendMessage: (message) => mailer.send(message) })]
 */
import type { Feature, ResolvedConfig } from '../../contracts.js';
import { UnsupportedStrategy } from '../../errors.js';
import type { AuthEnv } from '../../types.js';
import { assertAdapterFor } from '../database/adapter-needs.js';
import type { AdapterMethod } from '../database/adapter.js';
import { recipientLimits } from '../email/recipient-limits.js';
import { rateLimits } from '../rate-limit/index.js';
import { SecurityEvents } from '../security-events/index.js';
import { type SecurityNotificationsOptions, SecurityNotifications } from '../security-notifications/index.js';
import { accountRoute, accountSubpaths } from './account-route.js';
import { type AccountMailOptions, type AccountMailer, resolveAccountMailer } from './mail.js';
import { accountPartsOf, useAccountSettings } from './settings.js';
import { emailChangeStorage } from './storage.js';

export { accountExportOf } from './export.js';
export { accountMessage } from './mail.js';
export type { AccountMailOptions, AccountMailer, AccountMessage, AccountMessageKind, AccountMessageSender } from './mail.js';
export type { EmailChange } from './storage.js';

declare module '../../contracts.js' {
  interface FeatureWarningCodes {
    'account-email-printed-to-console': true;
  }
  interface SecurityEventTypes {
    'email-changed': true;
    'account-unlinked': true;
  }
}

declare module '../rate-limit/rate-limit.js' {
  interface RateLimitRules {
    /**
     * Address changes asked per user (each sends two messages): past the limit, 429 until the window ends.
     * @default { window: 900, max: 5 }
     */
    accountEmailPerUser: true;
  }
}

/** The options of `Account()`. */
export interface AccountOptions extends AccountMailOptions {
  /** Seconds a link that confirms a new address works (at most one hour). @default 3600 */
  linkMaxAge?: number;
  /**
   * The security notifications (features/security-notifications/), sent through the same transport: a changed or
   * reset password, two-factor turned off, a recovery code used, a passkey or API key added, and with `newDevice:
   * true` a sign-in from a new device. `false` sends none. Without a transport (production without a mail service)
   * there are none.
   * @default {}
   */
  notifications?: false | Omit<SecurityNotificationsOptions, 'send'>;
}

/** The adapter methods the account page calls (each feature's part checks its own). */
const neededMethods: readonly AdapterMethod[] = ['getUser', 'getUserByEmail', 'updateUser', 'deleteUser', 'listAccountsByUserId', 'unlinkAccount', 'setEmailChange', 'findEmailChange', 'useEmailChange', 'deleteEmailChangesTo'];

const mailers = new WeakMap<Feature, AccountMailer | undefined>();

/**
 * The account feature: its route, the security events it brings, the `email_changes` table and its startup check.
 * `server`, `from` and `sendMessage` choose how its messages are sent (AUTH_EMAIL_SERVER and AUTH_EMAIL_FROM by
 * default; printed on the console outside production when there is none).
 */
export function Account(options: AccountOptions = {}, env: AuthEnv = process.env): Feature {
  const linkMaxAge = options.linkMaxAge ?? 60 * 60;
  if (!Number.isFinite(linkMaxAge) || linkMaxAge <= 0 || linkMaxAge > 60 * 60) throw new TypeError(`Account({ linkMaxAge }) must be a number of seconds from 1 to 3600 (got ${String(linkMaxAge)})`);
  const mailer = resolveAccountMailer(options, env);
  const notifications = mailer && options.notifications !== false ? [SecurityNotifications({ ...options.notifications, send: (message) => mailer.send({ kind: 'security-notification', ...message }) })] : [];
  // Its own paths, and the forms of the features of each config it is checked with.
  const subpaths: string[] = [...accountSubpaths];
  const feature: Feature = {
    id: 'account',
    routes: { account: { methods: ['GET', 'POST'], provider: 'none', errors: 'page', subpaths, run: accountRoute } },
    securityEventLabels: { 'email-changed': 'Email address changed', 'account-unlinked': 'Account unlinked' },
    signedInPage: { path: 'account', text: 'Your account' },
    storage: emailChangeStorage,
    rateLimits: { accountEmailPerUser: { window: 15 * 60, max: 5 } },
    features: [SecurityEvents, rateLimits, recipientLimits, ...notifications],
    warnings: {
      'account-email-printed-to-console':
        'AUTH_EMAIL_SERVER is empty, so the account email below is printed here instead of sent (development only: in production the address change is not offered without it).',
    },
    check(resolved: ResolvedConfig) {
      if (resolved.adapter && resolved.session.strategy !== 'database') {
        throw new UnsupportedStrategy(
          'Account() needs database sessions: after an address change or a deletion it ends the sessions by deleting their rows, which a JWT session has none of. Remove `session.strategy: "jwt"` (an adapter defaults to database sessions).',
        );
      }
      assertAdapterFor({ id: 'account', type: 'feature' }, resolved.adapter, resolved.session.strategy, {
        what: 'the account page reads and changes the user',
        methods: neededMethods,
      });
      for (const part of accountPartsOf(resolved)) {
        part.check?.(resolved);
        for (const path of Object.keys(part.forms ?? {})) if (!subpaths.includes(path)) subpaths.push(path);
      }
      useAccountSettings(resolved, { mailer, linkMaxAge });
    },
  };
  mailers.set(feature, mailer);
  return feature;
}

/**
 * The transport of an `Account()` feature, for the features that email the user too (security notifications):
 * undefined in production without a mail service, or for a feature `Account()` did not make.
 * @example
 * const account = Account(); const mailer = accountMailerOf(account)
 */
export function accountMailerOf(feature: Feature): AccountMailer | undefined {
  return mailers.get(feature);
}
