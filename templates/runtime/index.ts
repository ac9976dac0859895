/**
 * framework-auth: authentication for Express, owned by your project. Mount `FrameworkAuth(config)` below a path,
 * read sessions with `getSession(req, config)`, guard routes with `createRequireAuth(config)`, call provider APIs with
 * `getAccessToken(req, providerId, config)`. Copied with a database adapter: session-management.ts (users list and end
 * their sessions) and its route, routes/sessions.ts, which the generated src/auth/index.ts hands to `FrameworkAuth`.
 */
export { FrameworkAuth } from './handler.js';
export type { FrameworkAuthHandler } from './handler.js';
export { carriedFeatures } from './feature.js';
export type { AccountSignIn, DatabaseHooks, Feature } from './feature.js';
export type { RouteHandler } from './router.js';
export { getSession, createSessionLocals, createRequireAuth } from './session/get-session.js';
export type { RequireAuthOptions } from './session/get-session.js';
export { getAccessToken, ACCESS_TOKEN_SKEW_SECONDS } from './oauth/access-token.js';
export { resolveConfig, readSecrets, MIN_SECRET_LENGTH } from './config.js';
export type {
  FrameworkAuthConfig,
  CallbacksOptions,
  EventCallbacks,
  PagesOptions,
  LoggerInstance,
  WarningCode,
  SessionOptions,
} from './config.js';
export type { Theme } from './theme.js';
export { encode, decode, DEFAULT_MAX_AGE } from './session/jwt.js';
export type { JWTOptions, JWTEncodeParams, JWTDecodeParams } from './session/jwt.js';
export type { CookieOption, CookiesOptions, CookiesOverrides } from './http/cookies.js';
export type { Adapter } from './feature.js';
export {
  AuthError,
  SignInError,
  AccessDenied,
  AccountNotLinked,
  AdapterError,
  CallbackRouteError,
  CredentialsSignin,
  ErrorPageLoop,
  EventError,
  InvalidCallbackUrl,
  InvalidCheck,
  InvalidEndpoints,
  InvalidProvider,
  InvalidRequest,
  JWTSessionError,
  MethodNotAllowed,
  MissingAdapter,
  MissingAdapterMethods,
  MissingCSRF,
  MissingSecret,
  OAuthAccountNotLinked,
  OAuthCallbackError,
  OAuthProfileParseError,
  OAuthSignInError,
  RefreshTokenError,
  SessionTokenError,
  SignOutError,
  UnknownAction,
  UnsupportedStrategy,
  UntrustedHost,
  errorTypes,
} from './errors.js';
export type { ErrorType, ErrorCause, ErrorPageKind, ErrorResponse, FeatureErrorTypes, RefreshTokenFailure } from './errors.js';
export { customFetch, providerFlow } from './providers/types.js';
export type {
  AppProvider,
  AnyProvider,
  AuthorizationEndpointHandler,
  ClientOverrides,
  CommonProviderOptions,
  CustomFetch,
  FlowProviderConfig,
  EndpointHandler,
  OAuthChecks,
  OAuthConfig,
  OAuthEndpointType,
  OAuthProviderButtonStyles,
  OAuthUserConfig,
  OIDCChecks,
  OIDCConfig,
  OIDCUserConfig,
  Provider,
  ProviderInput,
  TokenEndpointHandler,
  TokenRequestContext,
  UserinfoEndpointHandler,
  UserinfoRequestContext,
} from './providers/types.js';
export type {
  Account,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  Awaitable,
  DefaultSession,
  GetSessionResult,
  JWT,
  JsonValue,
  Profile,
  ProfileAddress,
  ProviderId,
  ProviderTokens,
  ProviderType,
  Session,
  TokenSet,
  User,
  VerificationToken,
  WebAuthnProviderType,
} from './types.js';
