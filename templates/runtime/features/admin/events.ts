/**
 * The events of administration (SPEC §15): each admin action is a security event of the user it was done to, with the
 * admin as its actor (SPEC §13: the user's account page shows it, `events.onSecurityEvent` receives `actorId`). The
 * admins' own record (`admin_actions`) keeps who did it and why.
 */
import type { SecurityEventType } from '../../contracts.js';

declare module '../../contracts.js' {
  interface SecurityEventTypes {
    'admin-disabled': true;
    'admin-enabled': true;
    'admin-sessions-ended': true;
    'admin-two-factor-removed': true;
    'admin-passkey-removed': true;
    'admin-reset-sent': true;
    'admin-granted': true;
    'admin-revoked': true;
    'admin-impersonated': true;
    'admin-deleted': true;
  }
}

/** The security events of administration. */
export type AdminEventType = Extract<SecurityEventType, `admin-${string}`>;

/** What each event is called on the user's account page and the admin's page of the user (`Feature.securityEventLabels`). */
export const adminEventLabels = {
  'admin-disabled': 'An administrator disabled the account',
  'admin-enabled': 'An administrator enabled the account',
  'admin-sessions-ended': 'An administrator ended every session',
  'admin-two-factor-removed': 'An administrator removed two-factor',
  'admin-passkey-removed': 'An administrator removed a passkey',
  'admin-reset-sent': 'An administrator sent a password reset link',
  'admin-granted': 'An administrator granted admin rights',
  'admin-revoked': 'An administrator withdrew admin rights',
  'admin-impersonated': 'An administrator acted as this account',
  'admin-deleted': 'An administrator deleted the account',
} as const satisfies Record<AdminEventType, string>;
