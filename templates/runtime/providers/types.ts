/**
 * Provider configurations of the seed's §2: OAuth 2 (`oauth`), OpenID Connect (`oidc`) and credentials, with every
 * field and default of the seed's tables. Email and WebAuthn configurations are declared for completeness; their
 * routes answer a clear error until those providers land.
 */
import type { Request } from 'express';
import type { Account, Awaitable, Profile, ProviderId, ProviderType, TokenSet, User } from '../types.js';

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

/** One input of the credentials form. */
export interface CredentialInput {
  label?: string;
  type?: string;
  placeholder?: string;
  required?: boolean;
  autocomplete?: string;
  value?: string;
}

/** The configuration of a credentials provider. Credentials sign-in uses JWT sessions. */
export interface CredentialsConfig<Fields extends string = string> extends CommonProviderOptions {
  type: 'credentials';
  /** The form fields; their names are the keys of `credentials` in `authorize`. */
  credentials: Record<Fields, CredentialInput>;
  /**
   * Checks the submitted credentials. Return the user (its `id` becomes `providerAccountId`), or null / throw
   * `CredentialsSignin` for wrong credentials. The second argument is the Express request.
   */
  authorize: (credentials: Partial<Record<Fields, unknown>>, request: Request) => Awaitable<User | null>;
}

/** The configuration of an email (magic link) provider. */
export interface EmailConfig extends CommonProviderOptions {
  type: 'email';
  server?: string;
  from?: string;
  /** Seconds a link stays valid. @default 86400 */
  maxAge?: number;
  sendVerificationRequest?: (params: { identifier: string; url: string; expires: Date; provider: EmailConfig; token: string; request: Request }) => Awaitable<void>;
  normalizeIdentifier?: (identifier: string) => string;
  options?: Partial<EmailConfig>;
}

/** The configuration of a WebAuthn (passkey) provider. */
export interface WebAuthnConfig extends CommonProviderOptions {
  type: 'webauthn';
  relayingParty?: { id?: string; name?: string; origin?: string };
  enableConditionalUI?: boolean;
  options?: Partial<WebAuthnConfig>;
}

/** Any provider configuration. */
export type Provider<P = Profile> = OAuthConfig<P> | OIDCConfig<P> | CredentialsConfig | EmailConfig | WebAuthnConfig;

/**
 * A provider in `providers`: a configuration, or a factory called with no options (`providers: [GitHub]`). Each
 * provider types its own profile, so the list accepts any profile type.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- profile types differ per provider (as in Auth.js)
export type AnyProvider = OAuthConfig<any> | OIDCConfig<any> | CredentialsConfig<any> | EmailConfig | WebAuthnConfig;
export type ProviderInput = AnyProvider | (() => AnyProvider);

/** The stored account for `account()`'s input, with provider details the defaults need. */
export type AccountInput = Account;

export type { ProviderId };
