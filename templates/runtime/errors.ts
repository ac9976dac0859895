/**
 * Errors shaped as Auth.js's, so that code which catches them keeps working: one `AuthError` base, a `type` from a
 * fixed union, the original failure in `cause.err`; subclasses set a static `type` (and `kind`, see `SignInError`).
 */

/** Every error type the runtime can raise. */
export const errorTypes = [
  'AccessDenied',
  'AccountNotLinked',
  'AdapterError',
  'CallbackRouteError',
  'Configuration',
  'CredentialsSignin',
  'ErrorPageLoop',
  'EventError',
  'InvalidCallbackUrl',
  'InvalidCheck',
  'InvalidEndpoints',
  'InvalidProvider',
  'InvalidRequest',
  'JWTSessionError',
  'MethodNotAllowed',
  'MissingAdapter',
  'MissingAdapterMethods',
  'MissingCSRF',
  'MissingSecret',
  'OAuthAccountNotLinked',
  'OAuthCallbackError',
  'OAuthProfileParseError',
  'OAuthSignInError',
  'RefreshTokenError',
  'SessionTokenError',
  'SignOutError',
  'UnknownAction',
  'UnsupportedStrategy',
  'UntrustedHost',
] as const;

/** A type of the core's errors (the table below). */
type CoreErrorType = (typeof errorTypes)[number];

/**
 * The error types that features bring, each declared by its feature (`declare module` in the feature's errors), so
 * that a project's `ErrorType` names exactly the errors it can raise.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the features' declarations
export interface FeatureErrorTypes {}

/** Identifies an error in logs and, for client-safe types, in the `error` query parameter. */
export type ErrorType = CoreErrorType | keyof FeatureErrorTypes;

/** Where an error sends the user: back to the sign-in page, or to the error page. */
export type ErrorPageKind = 'signIn' | 'error';

/** How the handler answers an error of one type. */
export interface ErrorResponse {
  /** The status of the answer (an inline answer, or the error page showing the type). */
  status: number;
  /**
   * Where a failed form post or provider callback sends the browser (on the sign-in page the user can simply try
   * again), or `inline`: answered on the spot with the error's message (JSON or HTML), which is safe to show.
   */
  page: ErrorPageKind | 'inline';
  /**
   * The type a URL or a response body shows: the type itself when it is client-safe, otherwise `Configuration`
   * (or `OAuthCallbackError` for a failed check or profile), so that no internal detail reaches the browser.
   */
  shownAs: ErrorType;
  /** The texts the user reads, for client-safe types: the sign-in page's alert, the error page's heading and text. */
  messages?: { signIn: string; heading: string; errorPage: string };
}

const sameAccount = 'To confirm your identity, sign in with the same account you used originally.';
/** The response of an error whose details stay on the server: the error page, shown as `Configuration`. */
export const configuration: ErrorResponse = { status: 400, page: 'error', shownAs: 'Configuration' };
const inline = (status: number): ErrorResponse => ({ status, page: 'inline', shownAs: 'Configuration' });

/**
 * The response of a client-safe type: shown as itself, with the sign-in page's alert and the error page's heading
 * and text. The core's table below uses it, and so does a feature's error class (your own features' too).
 * @example
 * static override response: ErrorResponse = clientSafe('QuotaExceeded', 429, 'signIn', 'Too many tries. Wait a minute.', 'Slow down')
 */
export function clientSafe(type: ErrorType, status: number, page: ErrorResponse['page'], signIn: string, heading: string, errorPage = signIn): ErrorResponse {
  return { status, page, shownAs: type, messages: { signIn, heading, errorPage } };
}

/**
 * The one table of the core's error responses (status, page, what a URL may show, the user's texts), read by
 * `respondWithError`, the `AuthError` status and the built-in pages; a feature's error class carries its own.
 */
export const errorResponses: Readonly<Record<CoreErrorType, ErrorResponse>> = {
  AccessDenied: clientSafe('AccessDenied', 403, 'error', 'You do not have permission to sign in.', 'Access denied'),
  AccountNotLinked: clientSafe('AccountNotLinked', 400, 'signIn', sameAccount, 'Unable to sign in'),
  AdapterError: { ...configuration, status: 503 },
  CallbackRouteError: configuration,
  Configuration: clientSafe(
    'Configuration',
    400,
    'error',
    'Unable to sign in.',
    'Server error',
    'There is a problem with the server configuration. Check the server logs for more information.',
  ),
  CredentialsSignin: clientSafe('CredentialsSignin', 401, 'signIn', 'Sign-in failed. Check the details you provided are correct.', 'Unable to sign in'),
  ErrorPageLoop: configuration,
  EventError: configuration,
  InvalidCallbackUrl: configuration,
  InvalidCheck: { status: 400, page: 'signIn', shownAs: 'OAuthCallbackError' },
  InvalidEndpoints: configuration,
  InvalidProvider: inline(404),
  InvalidRequest: inline(400),
  JWTSessionError: configuration,
  MethodNotAllowed: inline(405),
  MissingAdapter: configuration,
  MissingAdapterMethods: configuration,
  MissingCSRF: clientSafe('MissingCSRF', 403, 'signIn', 'Your sign-in form expired. Please try again.', 'Unable to continue', 'The form expired. Please go back and try again.'),
  MissingSecret: configuration,
  OAuthAccountNotLinked: clientSafe('OAuthAccountNotLinked', 400, 'signIn', sameAccount, 'Unable to sign in'),
  OAuthCallbackError: clientSafe(
    'OAuthCallbackError',
    400,
    'signIn',
    'Sign-in with this provider did not complete. Try again.',
    'Unable to sign in',
    'Sign-in with the provider did not complete. Please try again.',
  ),
  OAuthProfileParseError: { status: 400, page: 'signIn', shownAs: 'OAuthCallbackError' },
  OAuthSignInError: clientSafe(
    'OAuthSignInError',
    400,
    'signIn',
    'Sign-in could not start with this provider. Try again, or use another way to sign in.',
    'Unable to sign in',
    'Sign-in with this provider could not start. Please try again.',
  ),
  // Raised by getAccessToken in the app's own routes, never by the auth routes: 401, the user must sign in again.
  RefreshTokenError: { ...configuration, status: 401 },
  SessionTokenError: configuration,
  SignOutError: configuration,
  UnknownAction: inline(404),
  UnsupportedStrategy: configuration,
  UntrustedHost: inline(400),
};

/** The `cause` of an `AuthError`: the original error plus any safe details for logs. */
export type ErrorCause = Record<string, unknown> & { err?: Error };

/**
 * Base class of every error the runtime raises. Formatted for server logs through `logger.error`.
 * @example
 * throw new AuthError('Could not reach the provider', { cause: { err: fetchError } })
 */
export class AuthError extends Error {
  /** Identifies the error in logs. */
  type: ErrorType;
  /** HTTP status the handler answers with when this error ends a request. */
  status: number;
  /** Where the user is sent: the sign-in page or the error page. */
  kind: ErrorPageKind;
  /** Headers the answer carries (`Allow` of a 405, `Retry-After` of a 429). */
  headers?: Readonly<Record<string, string>>;
  /** An expected refusal (a 404, a repeated 429): logged at debug level, not as an error. */
  quiet = false;
  /** A feature's error carries its response (errors.ts's table holds the core's). */
  static response?: ErrorResponse;
  declare cause?: ErrorCause;

  constructor(message?: string | ErrorOptions, errorOptions?: ErrorOptions) {
    if (message instanceof Error) {
      super(undefined, { cause: { err: message, ...(message.cause as object | undefined) } });
    } else if (typeof message === 'string') {
      super(message, errorOptions?.cause instanceof Error ? { cause: { err: errorOptions.cause } } : errorOptions);
    } else {
      super(undefined, message);
    }
    const constructor = new.target as unknown as { type?: ErrorType; kind?: ErrorPageKind; status?: number };
    this.name = new.target.name;
    this.type = constructor.type ?? 'Configuration';
    this.kind = constructor.kind ?? 'error';
    this.status = constructor.status ?? errorResponseOf(this).status;
    Error.captureStackTrace?.(this, new.target);
  }
}

/** Sign-in failures that send the user back to the sign-in page with `?error=<type>`. */
export class SignInError extends AuthError {
  static kind: ErrorPageKind = 'signIn';
}

/** The `signIn` callback returned false, or the provider answered `access_denied`. */
export class AccessDenied extends AuthError {
  static type: ErrorType = 'AccessDenied';
}

/** An adapter method failed (the database is down, a constraint was hit). */
export class AdapterError extends AuthError {
  static type: ErrorType = 'AdapterError';
}

/** Something in the callback route failed; the original error is in `cause.err`. */
export class CallbackRouteError extends AuthError {
  static type: ErrorType = 'CallbackRouteError';
}

/** The error page redirected to itself. */
export class ErrorPageLoop extends AuthError {
  static type: ErrorType = 'ErrorPageLoop';
}

/** An `events.*` handler threw; logged, never shown to the user. */
export class EventError extends AuthError {
  static type: ErrorType = 'EventError';
}

/** A `callbackUrl` that is not a same-origin URL. */
export class InvalidCallbackUrl extends AuthError {
  static type: ErrorType = 'InvalidCallbackUrl';
}

/** The request is malformed: a bad body, a bad encoding, an oversized payload. */
export class InvalidRequest extends AuthError {
  static type: ErrorType = 'InvalidRequest';
}

/** A method the route does not accept. */
export class MethodNotAllowed extends AuthError {
  static type: ErrorType = 'MethodNotAllowed';
  /** The methods the route accepts: the answer's `Allow` header. */
  allow: readonly string[];

  constructor(message: string, details: { allow: readonly string[] }) {
    super(message);
    this.allow = details.allow;
    this.headers = { Allow: details.allow.join(', ') };
  }
}

/** A database session or an email/WebAuthn provider was configured without an adapter. */
export class MissingAdapter extends AuthError {
  static type: ErrorType = 'MissingAdapter';
}

/** The adapter lacks methods that the configured features need. */
export class MissingAdapterMethods extends AuthError {
  static type: ErrorType = 'MissingAdapterMethods';
}

/** `AUTH_SECRET` is missing or shorter than 32 characters. */
export class MissingSecret extends AuthError {
  static type: ErrorType = 'MissingSecret';
}

/** A provider's endpoints are missing or not URLs. */
export class InvalidEndpoints extends AuthError {
  static type: ErrorType = 'InvalidEndpoints';
}

/** PKCE, `state` or `nonce` could not be verified on the callback. */
export class InvalidCheck extends AuthError {
  static type: ErrorType = 'InvalidCheck';
}

/** The session token could not be decoded or encoded. */
export class JWTSessionError extends AuthError {
  static type: ErrorType = 'JWTSessionError';
}

/** The email is already linked to another provider's account and linking was not allowed. */
export class OAuthAccountNotLinked extends SignInError {
  static type: ErrorType = 'OAuthAccountNotLinked';
}

/** The provider answered the callback with an error, or its answer could not be processed. */
export class OAuthCallbackError extends SignInError {
  static type: ErrorType = 'OAuthCallbackError';
}

/** `profile()` failed or returned no id. */
export class OAuthProfileParseError extends AuthError {
  static type: ErrorType = 'OAuthProfileParseError';
}

/** Starting the OAuth sign-in failed (discovery unreachable, bad configuration). */
export class OAuthSignInError extends SignInError {
  static type: ErrorType = 'OAuthSignInError';
}

/** Why `getAccessToken` has no access token to give (`RefreshTokenError.reason`). */
export type RefreshTokenFailure =
  /** The provider refused the refresh token (`invalid_grant`): the user must sign in with it again. */
  | 'refused'
  /** The access token expired and the provider gave no refresh token: the user must sign in with it again. */
  | 'no-refresh-token'
  /** The refresh could not be done (the provider unreachable, an error answer other than `invalid_grant`, a
   * response already sent): the stored tokens are kept, a later call may succeed. */
  | 'failed';

/**
 * `getAccessToken` could not give a valid access token; with `reason` `refused` or `no-refresh-token` the session
 * shows it too (`DefaultSession.error`). The message names the provider and what happened, never a token.
 */
export class RefreshTokenError extends AuthError {
  static type: ErrorType = 'RefreshTokenError';
  /** The provider whose token could not be had. */
  provider: string;
  reason: RefreshTokenFailure;

  constructor(message: string, details: { provider: string; reason: RefreshTokenFailure }, options?: ErrorOptions) {
    super(message, options);
    this.provider = details.provider;
    this.reason = details.reason;
  }
}

/** Reading the session from the adapter failed. */
export class SessionTokenError extends AuthError {
  static type: ErrorType = 'SessionTokenError';
}

/** Ending the session failed. */
export class SignOutError extends AuthError {
  static type: ErrorType = 'SignOutError';
}

/** No route of the handler matches the request path. */
export class UnknownAction extends AuthError {
  static type: ErrorType = 'UnknownAction';
}

/** The session strategy does not fit the provider (credentials with database sessions). */
export class UnsupportedStrategy extends AuthError {
  static type: ErrorType = 'UnsupportedStrategy';
}

/** The provider id in the URL is not configured, or is of the wrong type for the route. */
export class InvalidProvider extends AuthError {
  static type: ErrorType = 'InvalidProvider';
}

/** The Host header is not trusted: set `AUTH_URL`, or `trustHost: true` / `AUTH_TRUST_HOST=true`. */
export class UntrustedHost extends AuthError {
  static type: ErrorType = 'UntrustedHost';
}

/** The CSRF token is missing or does not match the CSRF cookie. */
export class MissingCSRF extends SignInError {
  static type: ErrorType = 'MissingCSRF';
}

/** The email belongs to a user who has no account with this provider. */
export class AccountNotLinked extends SignInError {
  static type: ErrorType = 'AccountNotLinked';
}

/**
 * Thrown from a credentials provider's `authorize()` when the credentials are wrong: the user is sent back to the
 * sign-in page with `error=CredentialsSignin&code=<code>`. `code` appears in the URL: keep it generic, never say
 * whether the user name or the password was wrong (the full error is logged on the server).
 * @example
 * class InvalidLogin extends CredentialsSignin { code = 'invalid_credentials' }
 */
export class CredentialsSignin extends SignInError {
  static type: ErrorType = 'CredentialsSignin';
  code = 'credentials';
}

/** True when `error` is one of ours (also across copies of the module, by duck typing the `type`). */
export function isAuthError(error: unknown): error is AuthError {
  return error instanceof AuthError || (error instanceof Error && (errorTypes as readonly string[]).includes((error as AuthError).type));
}

/**
 * How the handler answers `error`: its class's own response (a feature's error), else the table's entry of its type
 * (`Configuration`'s for a type it does not know).
 */
export function errorResponseOf(error: AuthError): ErrorResponse {
  const own = (error.constructor as typeof AuthError).response;
  return own ?? (Object.hasOwn(errorResponses, error.type) ? errorResponses[error.type as CoreErrorType] : errorResponses.Configuration);
}
