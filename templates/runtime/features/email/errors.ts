/** The errors of email sign-in, with their responses (the pages show them by type). */
import { type ErrorResponse, type ErrorType, AuthError, SignInError, clientSafe } from '../../errors.js';

declare module '../../errors.js' {
  interface FeatureErrorTypes {
    EmailSignInError: true;
    Verification: true;
  }
}

/** Sending the email sign-in link failed. */
export class EmailSignInError extends SignInError {
  static type: ErrorType = 'EmailSignInError';
  static override response: ErrorResponse = clientSafe(
    'EmailSignInError',
    400,
    'signIn',
    'The sign-in email could not be sent. Check the address and try again.',
    'Unable to sign in',
    'The sign-in email could not be sent. Please try again.',
  );
}

/** An email sign-in link was used twice, expired, or never existed. */
export class Verification extends AuthError {
  static type: ErrorType = 'Verification';
  static override response: ErrorResponse = clientSafe(
    'Verification',
    403,
    'error',
    'The sign-in link is no longer valid. It may have been used already or it may have expired.',
    'Unable to sign in',
  );
}
