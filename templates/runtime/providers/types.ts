/**
 * Provider configurations of the seed's §2: OAuth 2 (`oauth`) and OpenID Connect (`oidc`) with every field and
 * default of the seed's tables, plus credentials, email (magic link) and WebAuthn (passkey) providers.
 */
import type { Request } from 'express';
import type { Theme } from '../theme.js';
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

/** What `sendVerificationRequest` receives: where to send the link, and the link itself. */
export interface EmailVerificationRequest {
  /** The normalised email address the link goes to. */
  identifier: string;
  /** The sign-in link: `<origin><mount>/callback/<id>?callbackUrl=…&token=…&email=…`. The only secret in the message. */
  url: string;
  /** When the link stops working. */
  expires: Date;
  /** The token inside `url` (for senders that build their own link); never log it. */
  token: string;
  /** The provider's settings, with `server` and `from` read from the env when not configured. */
  provider: EmailProviderSettings;
  /** The theme of the built-in pages, for branded messages. */
  theme: Theme;
  /** The Express request that asked for the link. */
  request: Request;
}

/** The settings of an email provider as senders see them. */
export interface EmailProviderSettings {
  id: string;
  name: string;
  /** An SMTP URL (`smtp://user:password@host:587`, `smtps://…`) or nodemailer transport options. */
  server: string | Record<string, unknown> | undefined;
  /** The sender, `Name <address>` or an address. */
  from: string | undefined;
  /** Seconds a link stays valid. */
  maxAge: number;
}

/**
 * The configuration of an email (magic link) provider. Needs an `adapter`: links are single-use verification tokens
 * stored (hashed) in the database.
 */
export interface EmailConfig extends CommonProviderOptions {
  type: 'email';
  /**
   * The SMTP server the default sender uses: an SMTP URL or nodemailer transport options.
   * @default AUTH_<ID>_SERVER, then AUTH_EMAIL_SERVER
   */
  server?: string | Record<string, unknown>;
  /**
   * The sender of the sign-in message.
   * @default AUTH_<ID>_FROM, then AUTH_EMAIL_FROM
   */
  from?: string;
  /** Seconds a link stays valid. @default 86400 (24 hours) */
  maxAge?: number;
  /**
   * Sends the sign-in link. `Email()` sets a sender that uses nodemailer over `server`; replace it to send through
   * an HTTP email API. Throw to report a failure (the user sees "The sign-in email could not be sent").
   */
  sendVerificationRequest?: (params: EmailVerificationRequest) => Awaitable<void>;
  /** Makes the token of a link. @default 32 random bytes, hex encoded */
  generateVerificationToken?: () => Awaitable<string>;
  /**
   * Turns what the user typed into the address to use, or throws to refuse it. The result is still checked to be
   * exactly one address without line breaks.
   * @default trims, lower-cases, drops comments, checks for one plain address (see email-address.ts)
   */
  normalizeIdentifier?: (identifier: string) => string;
  /** The secret the stored token hashes are made with. @default the first AUTH_SECRET */
  secret?: string;
  options?: Partial<EmailConfig>;
}

/** A WebAuthn credential as the ceremonies see it: `id` is base64url. */
export interface WebAuthnCredentialDescriptor {
  id: string;
  transports: string[] | undefined;
}

/** A credential that passed registration. */
export interface WebAuthnRegisteredCredential extends WebAuthnCredentialDescriptor {
  publicKey: Uint8Array;
  counter: number;
  /** `singleDevice` or `multiDevice` (a synced passkey). */
  deviceType: string;
  backedUp: boolean;
}

/** The options JSON for the browser, and the challenge inside it (kept in the challenge cookie). */
export interface WebAuthnCeremonyOptions {
  challenge: string;
  options: unknown;
}

/**
 * The four WebAuthn ceremonies. `Passkey()` implements them with @simplewebauthn/server; the runtime calls them and
 * stores what they return. The verify functions throw when the response does not verify.
 * @see https://www.w3.org/TR/webauthn-3/#sctn-rp-operations
 */
export interface WebAuthnCeremonies {
  registrationOptions(params: {
    rpID: string;
    rpName: string;
    userName: string;
    userDisplayName: string | undefined;
    excludeCredentials: WebAuthnCredentialDescriptor[];
  }): Promise<WebAuthnCeremonyOptions>;
  verifyRegistration(params: { response: unknown; expectedChallenge: string; expectedOrigin: string; expectedRPID: string }): Promise<WebAuthnRegisteredCredential>;
  authenticationOptions(params: { rpID: string; allowCredentials: WebAuthnCredentialDescriptor[] }): Promise<WebAuthnCeremonyOptions>;
  verifyAuthentication(params: {
    response: unknown;
    expectedChallenge: string;
    expectedOrigin: string;
    expectedRPID: string;
    credential: WebAuthnCredentialDescriptor & { publicKey: Uint8Array; counter: number };
  }): Promise<{ newCounter: number }>;
}

/**
 * The configuration of a WebAuthn (passkey) provider; create it with `Passkey()`. Needs an `adapter` with the
 * authenticator methods.
 */
export interface WebAuthnConfig extends CommonProviderOptions {
  type: 'webauthn';
  /**
   * The relying party (Auth.js's spelling): `id` is the domain passkeys are bound to, `name` is shown by the
   * authenticator, `origin` is where the sign-in page runs.
   * @default from the app's origin (AUTH_URL when set, else the request's): its hostname, host and origin
   */
  relayingParty?: { id?: string; name?: string; origin?: string };
  /** Accepted for Auth.js compatibility; the built-in page does not offer passkeys in the browser's autofill yet. */
  enableConditionalUI?: boolean;
  /** The ceremonies; `Passkey()` sets them. */
  ceremonies: WebAuthnCeremonies;
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
