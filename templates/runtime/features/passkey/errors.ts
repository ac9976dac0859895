/** The errors of passkey sign-in, with their responses (the pages show them by type). */
import { type ErrorResponse, type ErrorType, AuthError, clientSafe, configuration } from '../../errors.js';

declare module '../../errors.js' {
  interface FeatureErrorTypes {
    WebAuthnVerificationError: true;
    MissingWebAuthnAutocomplete: true;
  }
}

/** The WebAuthn response could not be verified. */
export class WebAuthnVerificationError extends AuthError {
  static type: ErrorType = 'WebAuthnVerificationError';
  static override response: ErrorResponse = clientSafe(
    'WebAuthnVerificationError',
    400,
    'signIn',
    'The passkey could not be verified. Try again, or use another way to sign in.',
    'Unable to sign in',
    'The passkey could not be verified. Please try again.',
  );
}

/** A WebAuthn field lacks `autocomplete="webauthn"`. */
export class MissingWebAuthnAutocomplete extends AuthError {
  static type: ErrorType = 'MissingWebAuthnAutocomplete';
  static override response: ErrorResponse = configuration;
}
