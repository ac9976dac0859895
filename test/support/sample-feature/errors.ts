/** The suspensions feature's error: a suspended user's sign-in is refused, and the sign-in page says why. */
import { AuthError, clientSafe } from '../../../templates/runtime/errors.js';
import type { ErrorResponse, ErrorType } from '../../../templates/runtime/errors.js';

declare module '../../../templates/runtime/errors.js' {
  interface FeatureErrorTypes {
    AccountSuspended: true;
  }
}

/** What the sign-in page shows a suspended user (`?error=AccountSuspended`). */
export const SUSPENDED_MESSAGE = 'This account is suspended. Contact support to have the suspension reviewed.';

export class AccountSuspended extends AuthError {
  static type: ErrorType = 'AccountSuspended';
  static kind = 'signIn' as const;
  static override response: ErrorResponse = clientSafe('AccountSuspended', 403, 'signIn', SUSPENDED_MESSAGE, 'Account suspended');
}
