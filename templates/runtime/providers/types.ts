/**
 * Provider configurations of the seed's §2: OAuth 2 (`oauth`) and OpenID Connect (`oidc`) with every field and
 * default of the seed's tables. Credentials, email (magic link) and WebAuthn (passkey) providers bring their own
 * sign-in flow (`providerFlow`), with their types: credentials-sign-in.ts, email-sign-in.ts, webauthn.ts.
 */
import type { Adapter, Feature } from '../feature.js';
import type { Account, AuthEnv, Awaitable, Profile, ProviderId, ProviderType, TokenSet, User } from '../types.js';

/**
 * Key of a provider's `fetch` replacement. Every HTTP call to the provider's endpoints goes through it (corporate
 * proxies, mocks, caching, custom headers). Using it wrongly can weaken security: it sees every token request.
 * @example
 * GitHub({ [customFetch]: (url, init) => fetch(url, { ...init, dispatcher: proxyAgent }) })
 */
export const customFetch = Symbol.for('framework-auth.custom-fetch');

/** The shape of a `fetch` replacement. */
export type CustomFetch = (input: string | URL | globalThis.Request, init?: RequestInit) => Promise<Response>;

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
  /** Used to sign in with this provider. */
  id: string;
  name: string;
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
  /**
   * Checks run on the callback.
   * @default ['pkce'] ('state' is added when `redirectProxyUrl` is set)
   */
  checks?: OAuthChecks[];
  /** Overrides for the underlying OAuth library's client. */
  client?: ClientOverrides;
  /**
   * Receives the full token set and returns the subset stored on the account.
   * @default access_token, id_token, refresh_token, expires_at, scope, token_type, session_state
   */
  account?: (tokens: TokenSet) => TokenSet | undefined | void;
  /**
   * Receives the provider's profile and returns the user.
   * @default id (sub or id), name, email, image (picture)
   */
  profile?: (profile: P, tokens: TokenSet) => Awaitable<User>;
  /**
   * Link to an existing user with the same email automatically. Enable only for providers that verify emails.
   * @default false
   */
  allowDangerousEmailAccountLinking?: boolean;
  /**
   * Whether a user who turned two-factor on (`TwoFactor()`) enters their code after signing in with this provider,
   * as after every other first factor but a passkey. Set it to false only for a provider that asks its own second
   * factor of every user (an identity provider that enforces MFA): its sign-in then counts as both.
   * @default true
   */
  twoFactor?: boolean;
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
  /** Internal flag. */
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
  /** Checks the provider's configuration and returns it ready for the routes. */
  resolve?(provider: CommonProviderOptions, context: { env: AuthEnv }): ResolvedFlowProvider;
  /** Checks the provider against the rest of the config (an adapter and its methods, an origin, the session strategy). */
  check?(provider: ResolvedFlowProvider, config: FlowCheckContext): void;
  /** The features the flow brings with it (feature.ts): its own routes, such as the email flow's `verify-request`. */
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
 * A provider in `providers`: a configuration, or a factory called with no options (`providers: [GitHub]`). Each
 * provider types its own profile, so the list accepts any profile type.
 */
// Profile types differ per provider (as in Auth.js), and a flow provider's own options are its flow's to check.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProvider = OAuthConfig<any> | OIDCConfig<any> | (FlowProviderConfig & { [option: string]: any });
export type ProviderInput = AnyProvider | (() => AnyProvider);

/** The stored account for `account()`'s input, with provider details the defaults need. */
export type AccountInput = Account;

export type { ProviderId };
