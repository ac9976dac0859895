/** The resources of the seed's §2, with the seed's names. Shapes follow Auth.js so code and databases move over. */
import type { AuthorizationDetails } from 'oauth4webapi';

/** Values a provider can return in JSON; `Profile` claims and token extras are of this type. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue | undefined };

/** Environment variables the runtime reads. */
export type AuthEnv = Partial<Record<string, string>>;

/** A value or a promise of it: every callback may be async. */
export type Awaitable<T> = T | PromiseLike<T>;

/** The type of a WebAuthn provider (`passkey` is the catalog's WebAuthn provider). */
export type WebAuthnProviderType = 'webauthn';

/** `oidc`, `oauth`, `email`, `credentials`, or the WebAuthn provider type. */
export type ProviderType = 'oidc' | 'oauth' | 'email' | 'credentials' | WebAuthnProviderType;

/** Ids of the built-in providers, or any string for custom ones. */
export type ProviderId =
  | 'credentials'
  | 'email'
  | 'passkey'
  | 'oidc'
  | 'github'
  | 'google'
  | 'microblog'
  | 'discord'
  | 'gitlab'
  | 'microsoft-entra-id'
  | 'auth0'
  | 'keycloak'
  | (string & {});

/**
 * The token set an OAuth provider returned, as stored on an account. All token fields are optional and read-only.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.1
 */
export interface TokenSet {
  readonly access_token?: string;
  readonly refresh_token?: string;
  readonly id_token?: string;
  /** Lifetime in seconds, as reported by the provider. */
  readonly expires_in?: number;
  /** Absolute expiry of the access token in seconds since the epoch, computed from `expires_in`. */
  readonly expires_at?: number;
  readonly scope?: string;
  /** Always lowercased, because the value is case-insensitive. */
  readonly token_type?: Lowercase<string>;
  readonly authorization_details?: AuthorizationDetails[];
  readonly session_state?: string;
  /** OAuth 1.0a providers (the microblog network's `version: '1.0A'`) return these instead. */
  readonly oauth_token?: string;
  readonly oauth_token_secret?: string;
  readonly [parameter: string]: JsonValue | AuthorizationDetails[] | undefined;
}

/** A user's link to one provider: the provider's token set plus who it belongs to. */
export interface Account extends TokenSet {
  /** The provider's id. */
  provider: string;
  /** oauth/oidc: the id returned by `profile()`; email: the address; credentials: the id returned by `authorize()`. */
  providerAccountId: string;
  type: ProviderType;
  /** Id of the user that owns the account (set when an adapter stores it). */
  userId?: string;
}

/** The user returned by a provider's `profile()` or credentials `authorize()`. */
export interface User {
  id?: string;
  name?: string | null;
  email?: string | null;
  image?: string | null;
}

/** A user as stored by an adapter: `id` and `email` are known, `emailVerified` is when the address was proven. */
export interface AdapterUser extends User {
  id: string;
  email: string;
  emailVerified: Date | null;
}

/** The session the app sees (`GET <mount>/session`, `getSession`). */
export interface DefaultSession {
  /** When the session expires, as an ISO 8601 string. */
  expires: string;
  user?: User;
  /**
   * `'RefreshTokenError'` once `getAccessToken` cannot give an access token until the user signs in with its provider
   * again (`RefreshTokenError`): the shape of Auth.js's refresh-token guide.
   */
  error?: 'RefreshTokenError';
}

/** The session object; extend it through the `session` callback (and declaration merging for its type). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an interface so that apps can augment it
export interface Session extends DefaultSession {}

/** The address claim of OpenID Connect. */
export interface ProfileAddress {
  country?: string | null;
  formatted?: string | null;
  locality?: string | null;
  postal_code?: string | null;
  region?: string | null;
  street_address?: string | null;
}

/**
 * The user info an OAuth provider returned: the OpenID Connect standard claims, indexable by any claim name.
 * @see https://openid.net/specs/openid-connect-core-1_0.html#StandardClaims
 */
export interface Profile {
  id?: string | null;
  sub?: string | null;
  name?: string | null;
  given_name?: string | null;
  family_name?: string | null;
  middle_name?: string | null;
  nickname?: string | null;
  preferred_username?: string | null;
  profile?: string | null;
  picture?: unknown;
  website?: string | null;
  email?: string | null;
  email_verified?: boolean | null;
  gender?: string | null;
  birthdate?: string | null;
  zoneinfo?: string | null;
  locale?: string | null;
  phone_number?: string | null;
  updated_at?: string | number | Date | null;
  address?: ProfileAddress | null;
  [claim: string]: unknown;
}

/**
 * The tokens a JWT session keeps for one provider, in `token.providerTokens[<provider id>]`: what `getAccessToken`
 * reads, refreshes and writes back. The fields are those of the account (after the provider's `account()`), without
 * the ID token, which only the sign-in needs and which would double the cookie.
 */
export interface ProviderTokens {
  providerAccountId: string;
  access_token?: string;
  refresh_token?: string;
  /** Seconds since the epoch; absent when the provider did not say (the token is then used until refused). */
  expires_at?: number;
  token_type?: string;
  scope?: string;
  /** Set, and the tokens dropped, when the provider refused the refresh token or none was left to refresh with. */
  error?: 'RefreshTokenError';
}

/**
 * The contents of the session JWT. Default claims: `name`, `email`, `picture`, `sub`, and after an OAuth/OIDC sign-in
 * `providerTokens` (delete it in the `jwt` callback to keep provider tokens out of the cookie).
 */
export interface JWT extends Record<string, unknown> {
  name?: string | null;
  email?: string | null;
  picture?: string | null;
  sub?: string;
  iat?: number;
  exp?: number;
  jti?: string;
  /** When the user signed in (seconds): kept across re-issues, it ends the session at `session.absoluteMaxAge`. */
  auth_time?: number;
  /** When a session without `auth_time` (issued by Auth.js) started: its first `iat`, kept across re-issues. */
  session_start?: number;
  /** Per provider id: the tokens of the account the session signed in with (see `ProviderTokens`). */
  providerTokens?: Record<string, ProviderTokens>;
}

/** A session as stored by an adapter (database strategy). */
export interface AdapterSession {
  sessionToken: string;
  userId: string;
  expires: Date;
}

/** `getSession`'s result: the session, or null when there is none. */
export type GetSessionResult = Promise<Session | null>;
