/**
 * The types the runtime's parts share, in one module that imports nothing of the runtime but the data types
 * (types.ts) and the error types (errors.ts), which import nothing either: the config and its resolved form, the
 * providers' configurations, the per-request context, routes, session reads, and what a feature brings. Every other
 * module imports its types from here, so the runtime's imports have no cycle (test/runtime/module-graph.test.ts).
 */
import type { Request, Response } from 'express';
import type { ErrorResponse, ErrorType } from './errors.js';
import type { Account, AdapterSession, AdapterUser, AuthEnv, Awaitable, DefaultSession, JWT, Profile, ProviderType, Session, TokenSet, User } from './types.js';

/** Everything `FrameworkAuth` and `getSession` accept. */
export interface FrameworkAuthConfig {
  /** Sign-in methods; a button or form appears for each on the sign-in page. */
  providers: ProviderInput[];
  /**
   * Secret(s) for encrypting tokens and signing cookies, newest first. Each at least 32 characters.
   * @default process.env['AUTH_SECRET'] (comma-separated for rotation)
   */
  secret?: string | string[];
  /**
   * The mount path (`/auth`), by the CLI's `--mount` rules: starts with "/", no trailing "/" (see base-path.ts).
   * Inferred from the request when absent, so mounting anywhere works.
   */
  basePath?: string;
  session?: Partial<SessionOptions>;
  jwt?: Partial<JWTOptions>;
  callbacks?: Partial<CallbacksOptions>;
  events?: Partial<EventCallbacks> & Partial<EventOptions>;
  pages?: Partial<PagesOptions>;
  theme?: Theme;
  logger?: Partial<LoggerInstance>;
  /** Logs each step at debug level (never secrets or tokens). @default false */
  debug?: boolean;
  /**
   * Which request hosts may build the app's URLs when `AUTH_URL` is not set (the Host header, or `X-Forwarded-Host`
   * when Express's `trust proxy` trusts the hop). `AUTH_URL`, when set, always wins.
   * - a list (`['app.example.com', '*.preview.example.com', 'https://admin.example.com']`): only these hosts are
   *   served, and their own origin is used, also for emailed links and as redirect-proxy targets. An entry without a
   *   scheme matches any port and the request's scheme; `*.` matches subdomains.
   * - `true`: any host, for redirects and provider callbacks only. Emailed sign-in links and the redirect proxy never
   *   use an origin a header chose: with an email provider or `redirectProxyUrl`, set `AUTH_URL` or a list.
   * - `false`: none; `AUTH_URL` must be set.
   * @default AUTH_TRUST_HOST (`true`, `false`, or a comma-separated list), else true when AUTH_URL is set or
   * NODE_ENV is not 'production'
   */
  trustHost?: boolean | string[];
  /** @default true when the request is HTTPS (`req.protocol`, so Express's `trust proxy` matters) */
  useSecureCookies?: boolean;
  cookies?: CookiesOverrides;
  /** An origin that receives OAuth callbacks for preview deployments and forwards them. @default AUTH_REDIRECT_PROXY_URL */
  redirectProxyUrl?: string;
  adapter?: Adapter;
  /**
   * Features beyond what the providers and the adapter bring (`Feature` below). The built-in adapters carry the database
   * feature and each provider its own routes, so a generated config lists none; an Auth.js adapter needs
   * `features: [database]` (features/database/index.ts).
   */
  features?: Feature[];
}

/** Callbacks that decide what happens at each step. All may be async. */
export interface CallbacksOptions {
  /**
   * Allows or refuses a sign-in. Return false to refuse (AccessDenied), or a same-origin URL to redirect to.
   * @default () => true
   */
  signIn: (params: {
    user: User | AdapterUser;
    account: Account | null;
    profile?: Profile;
    email?: { verificationRequest?: boolean };
    credentials?: Record<string, unknown>;
  }) => Awaitable<boolean | string>;
  /**
   * Decides where to send the user after sign-in or sign-out. Whatever it returns, a URL of another origin is
   * replaced by `baseUrl`.
   * @default relative URLs are resolved against baseUrl; same-origin URLs are kept; anything else is baseUrl
   */
  redirect: (params: { url: string; baseUrl: string }) => Awaitable<string>;
  /** Shapes the session the app sees. @default the session as built from the token */
  session: (params: { session: Session; token: JWT; user?: AdapterUser; trigger?: 'update'; newSession?: unknown }) => Awaitable<Session | DefaultSession>;
  /**
   * Shapes the session JWT. Called at sign-in (with `user`, `account`, `profile`), on every session read, and on
   * update. Return null to end the session.
   * @default the token unchanged
   */
  jwt: (params: {
    token: JWT;
    user?: User | AdapterUser;
    account?: Account | null;
    profile?: Profile;
    trigger?: 'signIn' | 'signUp' | 'update';
    isNewUser?: boolean;
    session?: unknown;
  }) => Awaitable<JWT | null>;
}

/** Events: side effects after something happened. Errors in them are logged, never shown to the user. */
export interface EventCallbacks {
  signIn: (message: { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }) => Awaitable<void>;
  signOut: (message: { token: JWT | null } | { session: unknown }) => Awaitable<void>;
  createUser: (message: { user: User }) => Awaitable<void>;
  updateUser: (message: { user: User }) => Awaitable<void>;
  linkAccount: (message: { user: User | AdapterUser; account: Account; profile: User | AdapterUser }) => Awaitable<void>;
  session: (message: { session: Session; token: JWT }) => Awaitable<void>;
}

/**
 * What can happen to an account (SPEC §13), recorded when the app has the security events' feature
 * (features/security-events/, which adds `events.onSecurityEvent` and the event's other fields): the core's types
 * here, each feature's declared by it (`declare module`) with their labels (`Feature.securityEventLabels`).
 */
export interface SecurityEventTypes {
  'sign-in': true;
  'sign-in-failed': true;
  'sign-out': true;
}
export type SecurityEventType = keyof SecurityEventTypes & string;

/**
 * A security event as the code where it happened tells it: whose, what, how (the provider of a sign-in, link or
 * unlink; the factor that failed) and a name the user gave (a passkey's, an API key's). Never a secret, a token, a
 * code or an email address.
 */
export interface SecurityEventInput {
  type: SecurityEventType;
  userId: string;
  method?: string | null | undefined;
  detail?: string | null | undefined;
}

/** Records security events (features/security-events/); never fails the request whose event it records. */
export interface SecurityEventRecorder {
  record(context: { req?: Request | undefined; options: ResolvedConfig }, input: SecurityEventInput): Promise<void>;
}

/** Settings in the config's `events` beside the callbacks, which features declare (the security events' retention). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the features' declarations
export interface EventOptions {}

/** Paths of your own pages, used instead of the built-in ones (they receive `error` and `callbackUrl`). */
export interface PagesOptions {
  signIn: string;
  signOut: string;
  error: string;
  verifyRequest: string;
  newUser: string;
}

/** The codes of the warnings features log, each declared with its hint by its feature (`Feature.warnings`). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the features' declarations
export interface FeatureWarningCodes {}

/** Warnings the runtime can log: Auth.js's, and those of the app's features. */
export type WarningCode = 'debug-enabled' | 'csrf-disabled' | 'experimental-webauthn' | 'env-url-basepath-redundant' | 'env-url-basepath-mismatch' | keyof FeatureWarningCodes;

/** Where the runtime logs. Never receives a secret or a token. */
export interface LoggerInstance {
  error: (error: Error) => void;
  warn: (code: WarningCode) => void;
  debug: (message: string, metadata?: unknown) => void;
}

/** Session options. */
export interface SessionOptions {
  /**
   * `jwt` keeps the session in an encrypted cookie; `database` keeps it in the adapter.
   * @default 'jwt', or 'database' when an adapter is set
   */
  strategy: 'jwt' | 'database';
  /** Seconds until an idle session expires. @default 2592000 (30 days) */
  maxAge: number;
  /**
   * Seconds between refreshes of the session's expiry (its cookie is re-issued, or its database row updated).
   * 0 re-issues on every read.
   * @default 86400 (24 hours)
   */
  updateAge: number;
  /**
   * Seconds a session may live from its sign-in, however often it is renewed: a stolen session cannot be kept
   * alive forever. The sign-in time travels in the JWT (`auth_time`) or in a database session's token
   * (session/session-clock.ts).
   * @default 7776000 (90 days)
   */
  absoluteMaxAge: number;
  /** Generates database session tokens. @default crypto.randomUUID */
  generateSessionToken: () => string;
}

/** Parameters of `encode`. */
export interface JWTEncodeParams<Payload = JWT> {
  /** The claims to encrypt. */
  token?: Payload;
  /** Secret (or secrets, newest first: the first one encrypts). */
  secret: string | string[];
  /** The cookie name the token is stored under; part of the key derivation. */
  salt: string;
  /** Lifetime in seconds. @default 2592000 (30 days) */
  maxAge?: number;
}

/** Parameters of `decode`. */
export interface JWTDecodeParams {
  token: string | undefined;
  /** Secret (or secrets: each is tried, found by `kid`). */
  secret: string | string[];
  salt: string;
}

/** The `jwt` config option: lifetime and, for custom formats, your own encode/decode. */
export interface JWTOptions {
  /** @default session.maxAge */
  maxAge: number;
  encode: (params: JWTEncodeParams) => Promise<string>;
  decode: (params: JWTDecodeParams) => Promise<JWT | null>;
}

/** Options of one cookie, as written in `Set-Cookie`. */
export interface CookieOption {
  name: string;
  options: {
    httpOnly: boolean;
    sameSite: 'lax' | 'strict' | 'none';
    path: string;
    secure: boolean;
    /** Seconds; absent for session cookies. */
    maxAge?: number;
    domain?: string;
  };
}

/** Every cookie the runtime uses; override any of them with the `cookies` config option. */
export interface CookiesOptions {
  sessionToken: CookieOption;
  callbackUrl: CookieOption;
  csrfToken: CookieOption;
  pkceCodeVerifier: CookieOption;
  state: CookieOption;
  nonce: CookieOption;
  webauthnChallenge: CookieOption;
}

/** Partial overrides, merged over the defaults per cookie. */
export type CookiesOverrides = { [K in keyof CookiesOptions]?: { name?: string; options?: Partial<CookieOption['options']> } };

/** A cookie to send in `Set-Cookie`. */
export interface OutgoingCookie {
  name: string;
  value: string;
  options: CookieOption['options'] & { expires?: Date };
}

/** The look of the built-in pages (and of the email provider's message). */
export interface Theme {
  /**
   * `light` or `dark` fixes the pages' colour scheme; `auto` follows the browser's `prefers-color-scheme`.
   * @default 'auto'
   */
  colorScheme?: 'auto' | 'dark' | 'light';
  /** Shown above each page's heading: an https URL, a path on this site, or an image data URI. */
  logo?: string;
  /** The colour of the pages' buttons (CSS hex, `rgb()`, `hsl()` or a name). @default '#3451b2' */
  brandColor?: string;
  /**
   * The text colour on `brandColor`. Without it, or when it is below 4.5:1 on `brandColor`, black or white is
   * used, whichever reads better.
   * @default '#ffffff'
   */
  buttonText?: string;
}

/**
 * Key of a provider's `fetch` replacement. Every HTTP call to the provider's endpoints goes through it (corporate
 * proxies, mocks, caching, custom headers). Using it wrongly can weaken security: it sees every token request.
 * @example
 * GitHub({ [customFetch]: (url, init) => fetch(url, { ...init, dispatcher: proxyAgent }) })
 */
export const customFetch = Symbol.for('framework-auth.custom-fetch');

/** The shape of a `fetch` replacement. */
export type CustomFetch = (input: string | URL | globalThis.Request, init?: RequestInit) => Promise<globalThis.Response>;

/** Shared by every provider type. */
export interface CommonProviderOptions {
  /** Uniquely identifies the provider in the providers list; part of its URLs (`/signin/<id>`). */
  id: string;
  /** Label on the default sign-in page: the button reads "Sign in with <name>". */
  name: string;
  type: ProviderType;
}

/** A provider as `GET <mount>/providers` lists it. */
export interface AppProvider extends CommonProviderOptions {
  signinUrl: string;
  callbackUrl: string;
}

/** Which endpoint a handler configures. */
export type OAuthEndpointType = 'authorization' | 'token' | 'userinfo';

/** OAuth checks run on the callback. `nonce` exists only for OpenID Connect. */
export type OAuthChecks = 'none' | 'state' | 'pkce';
export type OIDCChecks = OAuthChecks | 'nonce';

/** Context of a custom token request. */
export interface TokenRequestContext {
  /** The checks that passed on the callback (PKCE verifier, state, nonce). */
  checks: { code_verifier?: string; state?: string; nonce?: string };
  /** The callback's query parameters (`code`, `state`, …) and the `redirect_uri` that was sent. */
  params: Record<string, string> & { redirect_uri: string };
  provider: OAuthConfig<Profile> | OIDCConfig<Profile>;
}

/** Context of a custom userinfo request. */
export interface UserinfoRequestContext {
  tokens: TokenSet;
  provider: OAuthConfig<Profile> | OIDCConfig<Profile>;
}

/**
 * An endpoint given as a URL string, or as an object with a `url`, extra `params`, and/or a `request` handler that
 * replaces the HTTP call.
 */
export interface EndpointHandler<Params, Context, Result> {
  url?: string;
  params?: Params;
  request?: (context: Context) => Awaitable<Result>;
}

/** `authorization`: a URL or a URL plus extra query parameters (`scope`, `prompt`, …). */
export type AuthorizationEndpointHandler = string | EndpointHandler<Record<string, string | undefined>, never, never>;

/** `token`: a handler receives `{ checks, params }` and returns `{ tokens }`. */
export type TokenEndpointHandler =
  | string
  | EndpointHandler<Record<string, string>, TokenRequestContext, { tokens: TokenSet }>
  | ((context: TokenRequestContext) => Awaitable<{ tokens: TokenSet }>);

/** `userinfo`: a handler receives `{ tokens }` and returns a Profile. */
export type UserinfoEndpointHandler =
  | string
  | EndpointHandler<Record<string, string>, UserinfoRequestContext, Profile>
  | ((context: UserinfoRequestContext) => Awaitable<Profile>);

/** Brand styling of the sign-in button. */
export interface OAuthProviderButtonStyles {
  /** Brand colour (CSS colour). */
  brandColor?: string;
  /** Logo URL or data URI. */
  logo?: string;
  /** Text colour on the button. */
  text?: string;
  /** @deprecated use `brandColor` */
  bg?: string;
  /** @deprecated use `logo` */
  logoDark?: string;
}

/** Client overrides handed to oauth4webapi, plus the token endpoint authentication method. */
export interface ClientOverrides {
  /**
   * How the client authenticates at the token endpoint.
   * @default 'client_secret_basic' ('none' when there is no client secret)
   */
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt' | 'none' | (string & {});
  id_token_signed_response_alg?: string;
  userinfo_signed_response_alg?: string;
  authorization_signed_response_alg?: string;
  default_max_age?: number;
  require_auth_time?: boolean;
  [metadata: string]: unknown;
}

/** The configuration of an OAuth 2 provider (`type: 'oauth'`). */
export interface OAuthConfig<P = Profile> extends CommonProviderOptions {
  type: 'oauth';
  clientId?: string;
  clientSecret?: string;
  /** The URL to which sign-in sends the user. */
  authorization?: AuthorizationEndpointHandler;
  token?: TokenEndpointHandler;
  userinfo?: UserinfoEndpointHandler;
  /**
   * For providers that publish metadata: replaces separate `authorization`/`token`/`userinfo` settings; those may
   * still be set to override single endpoints.
   */
  wellKnown?: string;
  issuer?: string;
  /** The provider's JWKS URL when there is no discovery; discovered otherwise. */
  jwks_endpoint?: string;
  /** Checks run on the callback. @default ['pkce'] ('state' is added when `redirectProxyUrl` is set) */
  checks?: OAuthChecks[];
  /** Overrides for the underlying OAuth library's client. */
  client?: ClientOverrides;
  /**
   * Receives the full token set and returns the subset stored on the account.
   * @default access_token, id_token, refresh_token, expires_at, scope, token_type, session_state
   */
  account?: (tokens: TokenSet) => TokenSet | undefined | void;
  /** Receives the provider's profile and returns the user. @default id (sub or id), name, email, image (picture) */
  profile?: (profile: P, tokens: TokenSet) => Awaitable<User>;
  /**
   * Link to an existing user with the same email automatically. Enable only for providers that verify emails.
   * @default false
   */
  allowDangerousEmailAccountLinking?: boolean;
  /**
   * Whether the provider vouches for the `email` of this profile: it checked that the user controls the address.
   * Only a vouched-for address is proven: a new user gets `emailVerified` set, it may claim the address from a user
   * who never proved it, and (with `allowDangerousEmailAccountLinking`) join a user who did. An address the provider
   * does not vouch for is stored only on a new user, when nobody else has it, and never joins an existing one.
   * Answer for the address that `profile()` returns as `email`. See SECURITY.md, "Email proof and account linking".
   * @default `profile.email_verified === true` for `oidc` providers; always false for `oauth` providers (fail closed)
   * @example
   * isEmailVerified: (profile) => profile.email_verified === true
   */
  isEmailVerified?: (profile: P) => boolean;
  /** An origin that receives the provider's callback for preview deployments and forwards it here. */
  redirectProxyUrl?: string;
  style?: OAuthProviderButtonStyles;
  /** User overrides, merged over the provider's defaults. */
  options?: OAuthUserConfig<P>;
  [customFetch]?: CustomFetch;
  /** Internal flag (the seed's `[conformInternal]`). */
  conformInternal?: true;
  /**
   * The protocol: OAuth 2 when absent or `'2.0'`; `'1.0A'` signs in over OAuth 1.0a (HMAC-SHA1 signed requests),
   * as the microblog provider can.
   */
  version?: string;
  /** OAuth 1.0a only: where the request token (temporary credentials) is obtained. */
  requestTokenUrl?: string;
  /** The flow of an OAuth version other than 2, brought by the provider's module (microblog's OAuth 1.0a). */
  [providerFlow]?: CarriedFlow;
}

/** The configuration of an OpenID Connect provider (`type: 'oidc'`). */
export interface OIDCConfig<P = Profile> extends Omit<OAuthConfig<P>, 'type' | 'checks' | 'options'> {
  type: 'oidc';
  /** @default ['pkce'] */
  checks?: OIDCChecks[];
  /**
   * When false, the profile comes from the userinfo endpoint instead of the ID token. An ID token must still be
   * returned by the token endpoint.
   * @default true
   */
  idToken?: boolean;
  options?: OIDCUserConfig<P>;
}

/** What a user may pass to a provider factory. */
export type OAuthUserConfig<P = Profile> = Omit<Partial<OAuthConfig<P>>, 'options' | 'type'>;
export type OIDCUserConfig<P = Profile> = Omit<Partial<OIDCConfig<P>>, 'options' | 'type'>;

/**
 * Key under which a provider configuration carries the code of its sign-in, so that the runtime's core imports none
 * of it and a project holds only the flows of its providers: the flow of a credentials, email or passkey provider
 * (`Credentials()`, `Email()`, `Passkey()`), or another OAuth version (the microblog provider's OAuth 1.0a).
 */
export const providerFlow = Symbol.for('framework-auth.provider-flow');

/** What a flow's startup check sees of the config. */
export interface FlowCheckContext {
  adapter: Adapter | undefined;
  strategy: 'jwt' | 'database';
  /** `AUTH_URL` or a `trustHost` list is set, so links can be built on a configured origin. */
  originConfigured: boolean;
}

/** What the config needs of a carried flow, at startup. Its routes are typed in flow.ts. */
export interface CarriedFlow {
  /** Checks the provider's configuration and returns it ready for the routes (`envPrefix`: `AUTH_<ID>`, as `AUTH_EMAIL`). */
  resolve?(provider: CommonProviderOptions, context: { env: AuthEnv; envPrefix: string }): ResolvedFlowProvider;
  /** Checks the provider against the rest of the config (an adapter and its methods, an origin, the session strategy). */
  check?(provider: ResolvedFlowProvider, config: FlowCheckContext): void;
  /** The features the flow brings with it (`Feature` below): its own routes, such as the email flow's `verify-request`. */
  features?: readonly Feature[];
}

/** A provider whose sign-in flow its module brings: credentials, email, passkeys. */
export interface FlowProviderConfig extends CommonProviderOptions {
  type: Exclude<ProviderType, 'oauth' | 'oidc'>;
  [providerFlow]: CarriedFlow;
}

/** A flow provider after `resolve`: it keeps its flow, which the routes call (flow.ts). */
export interface ResolvedFlowProvider {
  id: string;
  name: string;
  type: Exclude<ProviderType, 'oauth' | 'oidc'>;
  flow: CarriedFlow;
}

/** Any provider configuration. */
export type Provider<P = Profile> = OAuthConfig<P> | OIDCConfig<P> | FlowProviderConfig;

/**
 * A provider in `providers`: a configuration, or a factory called with no options (`providers: [GitHub]`). Profile
 * types differ per provider (as in Auth.js), and a flow provider's own options are its flow's to check.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProvider = OAuthConfig<any> | OIDCConfig<any> | (FlowProviderConfig & { [option: string]: any });
export type ProviderInput = AnyProvider | (() => AnyProvider);

/** The config after checks and defaults, computed once per config object. */
export interface ResolvedConfig {
  source: FrameworkAuthConfig;
  secrets: string[];
  basePath: string | undefined;
  /** `AUTH_URL`'s origin when set: every URL the app builds uses it. */
  envOrigin: string | undefined;
  /** `trustHost: true`: any well-formed host may build redirects and callback URLs (never emailed links). */
  trustHost: boolean;
  /** The `trustHost` allow-list: hosts that build every URL, emailed links included, on their own origin. */
  trustedHosts: readonly TrustedHostRule[];
  providers: ResolvedProvider[];
  providersById: Map<string, ResolvedProvider>;
  /** The pages' `form-action` sources: this origin and the OAuth providers' (config.ts). */
  formAction: string;
  session: SessionOptions;
  jwt: JWTOptions;
  callbacks: CallbacksOptions;
  events: Partial<EventCallbacks>;
  /** The features' recorders of security events, each called in order; empty: none are recorded. */
  securityEvents: readonly SecurityEventRecorder[];
  pages: Partial<PagesOptions>;
  theme: Required<Pick<Theme, 'colorScheme'>> & Theme;
  logger: LoggerInstance;
  useSecureCookies: boolean | undefined;
  cookies: { secure: CookiesOptions; plain: CookiesOptions };
  adapter: Adapter | undefined;
  /** The config's features, the adapter's and the providers' flows', each once. */
  features: readonly Feature[];
  /** The database feature's hooks: set whenever `adapter` is. */
  database: DatabaseHooks | undefined;
  /** The features' `bearer` (API keys) as one, the first whose `resultOf` answers; undefined: only cookies count. */
  bearer: BearerAuthentication | undefined;
  /** The features with a `session` hook, in order (none: a session read costs nothing more). */
  sessionFeatures: readonly Feature[];
  /** What the pages say for each client-safe error type: the core's and those of its features. */
  pageMessages: PageMessages;
}

/** One entry of the `trustHost` allow-list, parsed. */
export interface TrustedHostRule {
  /** Set when the entry named an origin (`https://app.example.com`): only that scheme matches. */
  protocol?: 'http:' | 'https:';
  /** Lower-case host name; for `*.example.com` the suffix `.example.com`. */
  hostname: string;
  /** `*.example.com`: any subdomain (not the apex). */
  subdomains: boolean;
  /** Set when the entry named a port: only that port matches; otherwise any port. */
  port?: string;
}

/** What the pages say for each client-safe error type: the sign-in page's alert, the error page's heading and text. */
export interface PageMessages {
  /** The sign-in page's alert (and Auth.js's `SessionRequired`). Never internal details. */
  signIn: Record<string, string>;
  /** Headings and texts of the error page, by the `error` query parameter. */
  errorPage: Record<string, { heading: string; message: string; status: number }>;
}

/** An OAuth 2 or OpenID Connect provider, ready for the sign-in and callback routes. */
export interface ResolvedOAuthProvider {
  id: string;
  name: string;
  type: 'oauth' | 'oidc';
  clientId: string | undefined;
  clientSecret: string | undefined;
  issuer: string | undefined;
  wellKnown: string | undefined;
  authorization: { url: string | undefined; params: Record<string, string> };
  token: { url: string | undefined; request: ((context: TokenRequestContext) => Awaitable<{ tokens: TokenSet }>) | undefined };
  userinfo: { url: string | undefined; request: ((context: UserinfoRequestContext) => Awaitable<Profile>) | undefined };
  checks: ReadonlyArray<'pkce' | 'state' | 'nonce'>;
  client: ClientOverrides;
  idToken: boolean;
  profile: (profile: Profile, tokens: TokenSet) => Awaitable<User>;
  account: (tokens: TokenSet) => TokenSet | undefined | void;
  allowDangerousEmailAccountLinking: boolean;
  /** Whether the provider vouches for the profile's email (the configured rule, else the default of the type). */
  isEmailVerified: (profile: Profile) => boolean;
  redirectProxyUrl: string | undefined;
  style: OAuthProviderButtonStyles | undefined;
  customFetch: CustomFetch | undefined;
  /** The env var names that configure it, for error messages. */
  env: { id: string; secret: string; issuer: string };
  /** The merged configuration, handed to custom endpoint handlers. */
  config: OAuthConfig<Profile> | OIDCConfig<Profile>;
  /** The flow of another OAuth version that the provider brings (`version: '1.0A'`); OAuth 2 when absent. */
  protocol: CarriedFlow | undefined;
}

/** A provider ready for the routes: OAuth 2 / OpenID Connect (the core), or one that brings its own flow. */
export type ResolvedProvider = ResolvedOAuthProvider | ResolvedFlowProvider;

/** The per-request state every route shares (context.ts builds it). */
export interface RequestContext {
  req: Request;
  res: Response;
  options: ResolvedConfig;
  /** `https://app.example.com`: where every URL the app builds starts. */
  origin: string;
  /**
   * The origin configuration vouches for (`AUTH_URL`, or a `trustHost` entry's scheme and port on the requested
   * host); undefined when `trustHost: true` let a header choose `origin`.
   */
  linkOrigin: string | undefined;
  /** `/auth`: the mount path as the browser sees it. */
  mountPath: string;
  cookieOptions: CookiesOptions;
  cookies: Map<string, string>;
  /** Cookies to send with the response. */
  outgoing: OutgoingCookie[];
  /** HTML a feature shows at the top of every page of this answer (an admin acting as this user, and a way back). */
  banner?: string;
}

/** How an action's failures are answered: a redirect to the sign-in or error page, JSON, or an error page. */
export type ErrorAnswer = 'redirect' | 'json' | 'page';

/** One action's route: the methods it accepts, whether it takes a provider id segment, how its errors are answered. */
export interface RouteSpec {
  methods: readonly ('GET' | 'POST')[];
  provider: 'none' | 'optional' | 'required';
  errors: ErrorAnswer;
  /**
   * The paths below the action it also serves (`['email/confirm']` for `<mount>/account/email/confirm`; `*` is any one
   * segment), given to the route as `Route.subpath`; any other path below it is 404. Only with `provider: 'none'`.
   */
  subpaths?: readonly string[];
}

/** A route and the function that runs it: the core's below, a feature's in its `routes`. */
export interface RouteEntry extends RouteSpec {
  run: RouteHandler;
}

/** A request matched to its route: the method (HEAD answered as GET) and the provider segment. */
export interface Route {
  method: 'GET' | 'POST';
  providerId: string | undefined;
  /** The path below the action, one of its spec's `subpaths` (`email/confirm`); undefined for the action itself. */
  subpath?: string | undefined;
}

/** Runs one action. */
export type RouteHandler = (context: RequestContext, route: Route) => void | Promise<void>;

/** How a session is read: whether cookies may be written, and an update's trigger and data (`POST <mount>/session`). */
export interface SessionReadParams {
  write: boolean;
  cookies?: Map<string, string>;
  cookieOptions?: CookiesOptions;
  trigger?: 'update';
  newSession?: unknown;
}

/** What the database feature's `readSession` is given beside the token: the request's cookies and how to clear them. */
export interface SessionRead extends Omit<SessionReadParams, 'cookies'> {
  /** The request's cookies, parsed when first asked for: a read that sets no cookie leaves them unparsed. */
  cookies: () => Map<string, string>;
  cookieOptions: CookiesOptions;
  clear: () => SessionResult;
}

/** What reading a session produced: the session (or null) and the cookies the response should carry. */
export interface SessionResult {
  session: Session | null;
  token: JWT | null;
  cookies: OutgoingCookie[];
  /**
   * When the user last authenticated for this session (seconds since the epoch): the sign-in or re-authentication
   * that made it, never a renewal (session/session-clock.ts). Absent when unknown: never recent.
   */
  authTime?: number | undefined;
}

/** What a sign-in resolved to: the user, and whether this sign-in created them. */
export interface SignInResolution {
  user: User | AdapterUser;
  isNewUser: boolean;
}

/**
 * Key under which an adapter carries the features that use it (the built-in adapters carry the database feature).
 * @example adapter: { ...myAdapter, [carriedFeatures]: [database] }
 */
export const carriedFeatures = Symbol.for('framework-auth.features');

/**
 * Storage for users, accounts and sessions (the config's `adapter`). Its methods (Auth.js's `Adapter` interface) are
 * declared by the database feature (features/database/adapter.ts), which comes with an adapter; without one, a
 * project has no adapter code.
 */
export interface Adapter {
  [carriedFeatures]?: readonly Feature[];
}

/**
 * What a feature brings; every part is optional. A feature is a part of the runtime that not every app has (users,
 * accounts and sessions in a database; email links; passkeys): one folder that brings its routes, its startup check
 * and the hooks the core calls. The core imports none of a feature's code, so a project holds only the features it
 * uses, each brought by what needs it (see `FrameworkAuthConfig.features`).
 */
export interface Feature {
  /** Names the feature; a feature listed twice (in the config and by an adapter) counts once. */
  id: string;
  /** Routes below the mount path, by action name (the first path segment); none may shadow another's. */
  routes?: Readonly<Record<string, RouteEntry>>;
  /** The error classes it adds (each with its `type` and `response`), so that the pages can show `?error=<type>`. */
  errors?: readonly { readonly type: ErrorType; readonly response?: ErrorResponse | undefined }[];
  /** Checks the resolved config at startup: throws a clear error when something the feature needs is missing. */
  check?(options: ResolvedConfig): void;
  /** The warnings it logs, each with what the default logger adds: what to do about it. */
  warnings?: { readonly [Code in keyof FeatureWarningCodes]?: string };
  /** The users, accounts and sessions kept through the adapter (the database feature). */
  database?: DatabaseHooks;
  /** A credential a request may carry in `Authorization: Bearer …` instead of a session cookie (the API-keys feature). */
  bearer?: BearerAuthentication;
  /** Records the security events (SPEC §13) that the runtime and the features report. */
  securityEvents?: SecurityEventRecorder;
  /** The features it needs beside it (the account page brings the security events): listed once, after it. */
  features?: readonly Feature[];
  /** The signed-in user's page it serves (`account`, below the mount) and its link text: the sign-in page links it. */
  signedInPage?: { path: string; text: string };
  /**
   * Fields it adds to the session of `getSession`, `sessionLocals`, `requireAuth` and `GET <mount>/session`, read per
   * request, merged in feature order (an API key's too: its `bearer` adds them with `withFeatureFields`).
   */
  session?(session: Session, context: Pick<RequestContext, 'options' | 'req'>): Awaitable<Record<string, unknown> | undefined>;
  /**
   * Once a first factor is proven and its user known (`method`: the provider's id), before the second factor and the
   * session; and per request with an API key (`method: 'api-key'`). Throwing one of its `errors` refuses.
   */
  beforeSignIn?(signIn: { user: User | AdapterUser; method: string; account?: Account; isNewUser?: boolean }, context: Pick<RequestContext, 'options' | 'req'>): Awaitable<void>;
  /** Once a sign-in opened its session (to accept an invitation); its failure is logged, the sign-in stands. */
  afterSignIn?(signIn: { user: User | AdapterUser; account: Account; isNewUser: boolean }, context: Pick<RequestContext, 'options' | 'req'>): Awaitable<void>;
  /** Before each route below the mount runs (an admin acting as a user may change nothing); throwing an error refuses. */
  beforeRoute?(context: RequestContext, action: string, route: Route): Awaitable<void>;
}

/**
 * Who a request is when it carries `Authorization: Bearer <credential>` (an API key): `getSession`, the guards and
 * `GET <mount>/session` ask `resultOf` (once per request; undefined without a credential) instead of reading the
 * cookie; `refuse` answers a refusal, or 403 when the credential lacks `scopes` or may not use the route (`message`).
 */
export interface BearerAuthentication {
  resultOf(req: Request, options: ResolvedConfig): BearerResult | Promise<BearerResult> | undefined;
  refuse(res: Response, result: BearerResult, needed: { scopes?: readonly string[]; message?: string }): void;
}

/** What a bearer credential proved: a session with its scopes (and the organization it alone acts in), or a refusal. */
export type BearerResult =
  | { session: Session; scopes: readonly string[]; organizationId?: string | undefined }
  | { session: null; refused: 'invalid_token' | 'too_many_requests' | 'temporarily_unavailable'; retryAfter?: number | undefined };

/**
 * What the core asks of the database feature (features/database/): with it, sign-ins find, link and create users,
 * and sessions may live in the database.
 */
export interface DatabaseHooks {
  /** The user an account belongs to, before any change: what the `signIn` callback is shown. */
  userOfAccount(options: ResolvedConfig, account: Account): Promise<AdapterUser | null>;
  /** Finds or creates the user of an account's sign-in, links the account, and opens a database session if configured. */
  resolveSignIn(context: RequestContext, signIn: AccountSignIn): Promise<SignInResolution>;
  /**
   * Opens the database session of a proven sign-in (`session.strategy: 'database'`), replacing the browser's previous
   * session row.
   */
  openSession(context: RequestContext, userId: string): Promise<AdapterSession>;
  /** Reads a database session by the token in its cookie (`session.strategy: 'database'`). */
  readSession(options: ResolvedConfig, sessionToken: string, read: SessionRead): SessionResult | Promise<SessionResult>;
  /** Deletes a session's row at sign-out; resolves the deleted row, or null (also when the database failed). */
  endSession(options: ResolvedConfig, sessionToken: string): Promise<AdapterSession | null>;
  /** `getAccessToken` with database sessions: the tokens live in the account row. */
  accessToken(req: Request, options: ResolvedConfig, provider: ResolvedOAuthProvider): Promise<string | null>;
  /**
   * After a proven first factor, before the session: asks the second factor of a user who turned it on (a feature's
   * `secondFactor`, which needs the database), which then answers the request and finishes the sign-in; resolves true
   * when it did.
   */
  askSecondFactor(context: RequestContext, signIn: { user: User | AdapterUser; account: Account; callbackUrl: string | undefined }): Promise<boolean>;
  /** At startup: gives the adapter the app's features, whose tables and methods a built-in adapter adds. */
  useFeatures(adapter: Adapter, features: readonly Feature[]): void;
}

/**
 * A sign-in through an account (OAuth or OpenID Connect; credentials with database sessions) that the database
 * feature resolves to a user, linking the account.
 */
export interface AccountSignIn {
  user: User;
  account: Account;
  profile?: Profile;
  allowDangerousEmailAccountLinking: boolean;
}
