/**
 * Suspensions (a sample feature of the tests, issue 47): an administrator suspends a user with a reason; a suspended
 * user's sign-ins are refused (`AccountSuspended`, by every first factor and API key), the session of one already
 * signed in shows `session.suspension` (read per request), their account cannot be deleted until the suspension is
 * lifted, and the first sign-in after a lift records a `suspension-lifted` security event. It keeps its rows in the
 * `suspensions` table and the open suspension's start in `users.suspended_at`. It touches no file outside its folder:
 * the core and the database feature's public types are all it uses.
 * @example
 * features: [Account(...), Suspensions]; await suspendUser(authConfig, userId, 'Spam');
 */
import { resolveConfigOnce } from '../../../templates/runtime/config.js';
import type { Feature, FrameworkAuthConfig } from '../../../templates/runtime/contracts.js';
import { recordSecurityEvent } from '../../../templates/runtime/events.js';
import { suspensionsAccountPart } from './account.js';
import { AccountSuspended } from './errors.js';
import { suspensionMethods, suspensionStorage } from './storage.js';

export { AccountSuspended, SUSPENDED_MESSAGE } from './errors.js';
export { DELETE_REFUSAL } from './account.js';
export type { Suspension } from './storage.js';

declare module '../../../templates/runtime/contracts.js' {
  interface SecurityEventTypes {
    'suspension-lifted': true;
  }
}

declare module '../../../templates/runtime/types.js' {
  interface Session {
    /** The open suspension of a user still signed in (null: none), read per request by the suspensions feature. */
    suspension?: { reason: string; since: string } | null;
  }
}

export const Suspensions: Feature = {
  id: 'suspensions',
  errors: [AccountSuspended],
  storage: suspensionStorage,
  securityEventLabels: { 'suspension-lifted': 'Suspension lifted' },
  account: suspensionsAccountPart,
  check(options) {
    suspensionMethods(options.adapter);
  },
  async session(session, { options }) {
    const userId = session.user?.id;
    if (!userId) return undefined;
    const open = await suspensionMethods(options.adapter).getOpenSuspension(userId);
    return { suspension: open && { reason: open.reason, since: open.startedAt.toISOString() } };
  },
  async beforeSignIn({ user, isNewUser }, { options }) {
    if (isNewUser || !user.id) return;
    if (await suspensionMethods(options.adapter).getOpenSuspension(user.id)) throw new AccountSuspended(`The user is suspended`);
  },
  async afterSignIn({ user }, context) {
    if (!user.id) return;
    const told = await suspensionMethods(context.options.adapter).markLiftedSuspensionsSeen(user.id, new Date());
    if (told > 0) await recordSecurityEvent(context, { type: 'suspension-lifted', userId: user.id, detail: `${told}` });
  },
};

/** Suspends a user: their sign-ins are refused from now on (a session already open shows `session.suspension`). */
export async function suspendUser(config: FrameworkAuthConfig, userId: string, reason: string): Promise<void> {
  await suspensionMethods(resolveConfigOnce(config).adapter).suspendUser({ id: crypto.randomUUID(), userId, reason, startedAt: new Date() });
}

/** Lifts a user's open suspension; resolves whether there was one. */
export async function liftSuspension(config: FrameworkAuthConfig, userId: string): Promise<boolean> {
  return suspensionMethods(resolveConfigOnce(config).adapter).liftSuspension(userId, new Date());
}
