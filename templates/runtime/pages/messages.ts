/** What the user reads for each error type. Never internal details: those go to the server log. */
export const signInErrorMessages: Record<string, string> = {
  OAuthSignInError: 'Sign-in could not start with this provider. Try again, or use another way to sign in.',
  OAuthCallbackError: 'Sign-in with this provider did not complete. Try again.',
  OAuthAccountNotLinked: 'To confirm your identity, sign in with the same account you used originally.',
  AccountNotLinked: 'To confirm your identity, sign in with the same account you used originally.',
  EmailSignInError: 'The sign-in email could not be sent. Check the address and try again.',
  WebAuthnVerificationError: 'The passkey could not be verified. Try again, or use another way to sign in.',
  CredentialsSignin: 'Sign-in failed. Check the details you provided are correct.',
  MissingCSRF: 'Your sign-in form expired. Please try again.',
  SessionRequired: 'Please sign in to access this page.',
  AccessDenied: 'You do not have permission to sign in.',
  Verification: 'The sign-in link is no longer valid. It may have been used already or it may have expired.',
  RateLimited: 'Too many attempts. Please wait a few minutes and try again.',
  default: 'Unable to sign in.',
};

/** Headings and texts of the error page, by the `error` query parameter. */
export const errorPageMessages: Record<string, { heading: string; message: string; status: number }> = {
  Configuration: {
    heading: 'Server error',
    message: 'There is a problem with the server configuration. Check the server logs for more information.',
    status: 400,
  },
  AccessDenied: { heading: 'Access denied', message: 'You do not have permission to sign in.', status: 403 },
  Verification: {
    heading: 'Unable to sign in',
    message: 'The sign-in link is no longer valid. It may have been used already or it may have expired.',
    status: 403,
  },
  OAuthCallbackError: { heading: 'Unable to sign in', message: 'Sign-in with the provider did not complete. Please try again.', status: 400 },
  OAuthSignInError: { heading: 'Unable to sign in', message: 'Sign-in with this provider could not start. Please try again.', status: 400 },
  OAuthAccountNotLinked: {
    heading: 'Unable to sign in',
    message: 'To confirm your identity, sign in with the same account you used originally.',
    status: 400,
  },
  AccountNotLinked: {
    heading: 'Unable to sign in',
    message: 'To confirm your identity, sign in with the same account you used originally.',
    status: 400,
  },
  MissingCSRF: { heading: 'Unable to continue', message: 'The form expired. Please go back and try again.', status: 403 },
  CredentialsSignin: { heading: 'Unable to sign in', message: 'Sign-in failed. Check the details you provided are correct.', status: 401 },
  EmailSignInError: { heading: 'Unable to sign in', message: 'The sign-in email could not be sent. Please try again.', status: 400 },
  WebAuthnVerificationError: { heading: 'Unable to sign in', message: 'The passkey could not be verified. Please try again.', status: 400 },
  RateLimited: { heading: 'Too many attempts', message: 'Too many attempts. Please wait a few minutes and try again.', status: 429 },
  default: { heading: 'Error', message: 'Something went wrong while signing in.', status: 400 },
};

/**
 * The entry of `table` for `type`, or its `default`. Only the table's own keys count: `?error=constructor` or
 * `?error=__proto__` must not reach Object.prototype.
 */
export function messageFor<Entry>(table: Record<string, Entry>, type: string | undefined): Entry {
  if (type !== undefined && Object.hasOwn(table, type)) return table[type]!;
  return table['default']!;
}

/**
 * The `code` of a `CredentialsSignin` redirect when it looks like a code (`credentials`, `account_locked`): letters,
 * digits and `_.:-`, at most 64 characters. Anything else is not shown, so a crafted link cannot put its own
 * sentence on the page.
 */
export function displayableCode(code: string | undefined): string | undefined {
  return code !== undefined && /^[A-Za-z0-9_.:-]{1,64}$/.test(code) ? code : undefined;
}
