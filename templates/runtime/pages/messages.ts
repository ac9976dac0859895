import type { PageMessages } from '../contracts.js';
import type { ErrorResponse } from '../errors.js';

export function pageMessages(responses: Readonly<Record<string, ErrorResponse>>): PageMessages {
  const withMessages = Object.entries(responses).flatMap(([type, { messages, status }]) => (messages ? [{ type, status, ...messages }] : []));
  return {
    signIn: {
      ...Object.fromEntries(withMessages.map(({ type, signIn }) => [type, signIn])),
      SessionRequired: 'Please sign in to access this page.',
      default: 'Unable to sign in.',
    },
    errorPage: {
      ...Object.fromEntries(withMessages.map(({ type, heading, errorPage, status }) => [type, { heading, message: errorPage, status }])),
      default: { heading: 'Error', message: 'Something went wrong while signing in.', status: 400 },
    },
  };
}

/**
 * The entry of `table` for `type`, or its `default`. Only the table's own keys count: `?error=constructor` or
 * `?error=__proto__` must not reach Object.prototype.
 */
export function messageFor<Entry>(table: Record<string, Entry>, type: string | undefined): Entry {
  if (type !== undefined && Object.hasOwn(table, type)) return table[type]!;
  return table['default']!;
}

/**
 * The `code` of a `CredentialsSignin` redirect when it looks like a code (letters, digits and `_.:-`, at most 64
 * characters): anything else is not shown, so a crafted link cannot put its own sentence on the page.
 */
export function displayableCode(code: string | undefined): string | undefined {
  return code !== undefined && /^[A-Za-z0-9_.:-]{1,64}$/.test(code) ? code : undefined;
}
