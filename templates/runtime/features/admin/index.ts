/**
 * Administration (SPEC §15): add `Admin()` to the config's `features`. Admins (the users whose verified address is in
 * AUTH_ADMINS, and those another admin granted) search users at `<mount>/admin`, and on a user's page see their
 * addresses, sign-in methods, sessions, memberships and events, and help or stop them: disable and enable, end their
 * sessions, remove two-factor or a passkey, send a password reset link, grant or revoke admin, delete, or act as them
 * for a while (impersonation). Each action needs the admin's cookie session with a second factor and a recent
 * authentication, never an API key; each is a security event of the user with the admin as its actor. `requireAdmin()`
 * guards the app's own admin routes. Needs an adapter and database sessions (`migrate` adds the tables and columns).
 * @example
 * features: [Admin()] // AUTH_ADMINS=ada@example.com in .env
 * app.get('/reports', requireAdmin, reports)
 */
import type { Feature } from '../../contracts.js';
import { UnsupportedStrategy } from '../../errors.js';
import type { AuthEnv } from '../../types.js';
import { assertAdapterFor } from '../database/adapter-needs.js';
import { resolveMailer } from '../email/smtp.js';
import { rateLimits } from '../rate-limit/index.js';
import { SecurityEvents } from '../security-events/index.js';
import { TwoFactor } from '../two-factor/index.js';
import { AccountDisabled, refuseDisabled } from './access.js';
import { adminAccountPart } from './account.js';
import { adminRoute, adminSubpaths } from './admin-route.js';
import { adminEventLabels } from './events.js';
import { ImpersonationRefused, impersonationGuard, sessionImpersonation } from './impersonation.js';
import { type AdminMessage, useAdminMailer } from './mail.js';
import { type AdminOptions, resolveAdmin, useAdminSettings } from './settings.js';
import { adminMethods, adminStorage } from './storage.js';

export { AccountDisabled, createRequireAdmin, isAdmin } from './access.js';
export type { SignedInAdmin } from './access.js';
export { ImpersonationRefused } from './impersonation.js';
export type { SessionImpersonation } from './impersonation.js';
export type { AdminMessage, AdminMessageKind } from './mail.js';
export type { AdminOptions } from './settings.js';
export type { AdminActionRecord, AdminState, AdminUserSummary } from './storage.js';

/**
 * The administration feature: its route (`<mount>/admin`), tables and columns, the disabled users' refusal, the
 * impersonation's guard, banner and session field, its part of the account, its events and startup checks. It brings
 * the two-factor feature (an admin needs a second factor) unless `requireSecondFactor: false`.
 */
export function Admin(options: AdminOptions = {}, env: AuthEnv = process.env): Feature {
  const settings = resolveAdmin(options, env);
  const mailer = resolveMailer<AdminMessage>('Admin()', options, env);
  return {
    id: 'admin',
    routes: { admin: { methods: ['GET', 'POST'], provider: 'none', errors: 'page', subpaths: adminSubpaths, run: adminRoute } },
    errors: [AccountDisabled, ImpersonationRefused],
    storage: adminStorage,
    securityEventLabels: adminEventLabels,
    features: [SecurityEvents, rateLimits, ...(settings.requireSecondFactor ? [TwoFactor()] : [])],
    warnings: {
      'admin-email-printed-to-console': 'AUTH_EMAIL_SERVER is empty, so the notice below (to a user an administrator changed) is printed here instead of sent (development only).',
      'admin-without-second-factor': 'Admin({ requireSecondFactor: false }): admins act without a second factor, so a stolen password is a stolen admin account. Keep it only where admins sign in another strong way.',
      'admin-without-admins': 'Admin() has no admin addresses: set AUTH_ADMINS in .env (a comma list of addresses) so that someone can open <mount>/admin.',
    },
    beforeSignIn: refuseDisabled,
    async afterSignIn({ user, isNewUser }, context) {
      if (isNewUser) await context.options.adapter!.markUserCreated?.(user.id!, new Date());
    },
    beforeRoute: impersonationGuard,
    session: sessionImpersonation,
    account: adminAccountPart,
    check(resolved) {
      assertAdapterFor({ id: 'admin', type: 'feature' }, resolved.adapter, resolved.session.strategy, { what: 'admins, disabled users and impersonations are kept', methods: adminMethods });
      if (resolved.session.strategy !== 'database') {
        throw new UnsupportedStrategy('Administration ends a user\'s sessions at once and keeps an impersonation on its session\'s row: use database sessions (session.strategy "database", the default with an adapter).');
      }
      useAdminSettings(resolved, settings);
      useAdminMailer(resolved, mailer);
      if (!settings.requireSecondFactor) resolved.logger.warn('admin-without-second-factor');
      if (settings.admins.size === 0) resolved.logger.warn('admin-without-admins');
    },
  };
}
