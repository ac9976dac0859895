/**
 * The microblog network (X, formerly Twitter). OAuth 2 with PKCE and state by default; OAuth 1.0a on request.
 *
 * Setup:
 * - In the developer portal (https://developer.x.com/en/portal/dashboard), set up "User authentication" for your
 *   app (type "Web App"), with the callback URL `<origin><mount>/callback/microblog`, e.g.
 *   `http://localhost:3000/auth/callback/microblog`.
 * - Put the OAuth 2.0 Client ID and Client Secret in `.env` as `AUTH_MICROBLOG_ID` and `AUTH_MICROBLOG_SECRET`
 *   (for `version: '1.0A'`: the API Key and API Key Secret).
 *
 * Versions:
 * - `'2.0'` (the default; passing it changes nothing): OAuth 2 with PKCE and state, scopes
 *   `users.read tweet.read offline.access`; the profile comes from `GET /2/users/me` with the `user.fields`
 *   (`userFields`) and `expansions` you choose. **Email is not available over OAuth 2**: `user.email` is null
 *   unless the API returns one.
 * - `'1.0A'`: OAuth 1.0a with HMAC-SHA1 signed requests; the profile comes from `GET /1.1/account/verify_credentials`
 *   (the v1.1 user object, `MicroblogLegacyProfile`). The account holds `oauth_token` and `oauth_token_secret` instead
 *   of `access_token` and `refresh_token`: with an adapter, your Account table needs those two columns. For the
 *   email, enable "Request email address from users" in the app's permissions; it is requested with
 *   `include_email=true`.
 * @example
 * Microblog({ userFields: ['description', 'entities', 'profile_image_url'], expansions: ['pinned_tweet_id'] })
 * @see https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/authorization-code
 * @see https://docs.x.com/x-api/users/user-lookup-me
 * @see https://docs.x.com/resources/fundamentals/authentication/oauth-1-0a/api-key-and-secret
 */
import { oauth1Protocol } from '../oauth1/flow.js';
import { providerFlow, type AuthorizationEndpointHandler, type OAuthConfig, type OAuthUserConfig, type UserinfoEndpointHandler } from '../contracts.js';

/** A hashtag in the user's bio (`user.fields=entities`). */
export interface TwitterHashtag {
  start: number;
  end: number;
  tag: string;
}

/** A URL in the user's bio or profile (`user.fields=entities`). */
export interface TwitterUrlEntity {
  start: number;
  end: number;
  url: string;
  expanded_url: string;
  display_url: string;
}

/**
 * The profile the network's `GET /2/users/me` returns. Fields beyond id, name and username appear when requested
 * through `user.fields` (the `userFields` option); `includes.tweets` with `expansions=pinned_tweet_id`.
 */
export interface TwitterProfile {
  data: {
    /** Unique user id: a string, to avoid large-integer problems. */
    id: string;
    /** Display name. */
    name: string;
    /** Handle. */
    username: string;
    created_at?: string;
    /** Bio; with `user.fields=description`. */
    description?: string;
    /** Not supported by the network over OAuth 2. */
    email?: string;
    /** With `user.fields=entities`. */
    entities?: {
      description?: { hashtags?: TwitterHashtag[] };
      url?: { urls?: TwitterUrlEntity[] };
    };
    /** Free-form; with `user.fields=location`. */
    location?: string;
    /** The pinned post; expanded in `includes.tweets` with `expansions=pinned_tweet_id`. */
    pinned_tweet_id?: string;
    profile_image_url?: string;
    protected?: boolean;
    /** With `user.fields=url`. */
    url?: string;
    /** With `user.fields=verified`. */
    verified?: boolean;
  };
  includes?: { tweets?: { id: string; text: string }[] };
  [claim: string]: unknown;
}

/** The v1.1 user object of `account/verify_credentials`, the profile over OAuth 1.0a (`version: '1.0A'`). */
export interface MicroblogLegacyProfile {
  /** A number that may exceed JavaScript's safe integers: use `id_str`. */
  id: number;
  id_str: string;
  name: string;
  screen_name: string;
  location?: string | null;
  description?: string | null;
  url?: string | null;
  protected?: boolean;
  verified?: boolean;
  created_at?: string;
  profile_image_url_https?: string;
  /** With `include_email=true` and the app permission "Request email address from users"; only a verified address. */
  email?: string;
  [claim: string]: unknown;
}

/** `user.fields` the OAuth 2 profile can ask for. */
export const microblogUserFields = [
  'created_at',
  'description',
  'entities',
  'id',
  'location',
  'most_recent_tweet_id',
  'name',
  'pinned_tweet_id',
  'profile_image_url',
  'protected',
  'public_metrics',
  'url',
  'username',
  'verified',
  'verified_type',
  'withheld',
] as const;
export type MicroblogUserField = (typeof microblogUserFields)[number];

/** `expansions` of `GET /2/users/me`: the expanded objects come back in `includes`. */
export const microblogExpansions = ['pinned_tweet_id', 'most_recent_tweet_id', 'affiliation.user_id'] as const;
export type MicroblogExpansion = (typeof microblogExpansions)[number];

/** The API versions the provider speaks. */
export const microblogVersions = ['2.0', '1.0A'] as const;
export type MicroblogVersion = (typeof microblogVersions)[number];

/** Options of the microblog provider over OAuth 2: the usual OAuth options plus `user.fields` and `expansions`. */
export interface MicroblogUserConfig extends OAuthUserConfig<TwitterProfile> {
  /** `'2.0'`: OAuth 2 with PKCE, the same as leaving it out. */
  version?: '2.0';
  /**
   * `user.fields` requested from `users/me`, added to the userinfo URL (also to an overridden one, unless it sets
   * `user.fields` itself).
   * @default ['profile_image_url']
   */
  userFields?: MicroblogUserField[];
  /** `expansions` requested from `users/me`, e.g. `['pinned_tweet_id']` for `includes.tweets`. @default [] */
  expansions?: MicroblogExpansion[];
}

/** Options of the microblog provider over OAuth 1.0a. */
export interface MicroblogOAuth1UserConfig extends OAuthUserConfig<MicroblogLegacyProfile> {
  version: '1.0A';
}

const logo = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#fff" d="M18.244 2.25h3.308l-7.227 8.26 8.502 11.24H16.17l-5.214-6.817L4.99 21.75H1.68l7.73-8.835L1.254 2.25H8.08l4.713 6.231zm-1.161 17.52h1.833L7.084 4.126H5.117z"/></svg>',
)}`;

const style = { brandColor: '#000000', logo, text: '#ffffff' };

function checkList<T extends string>(option: string, values: readonly string[], valid: readonly T[]): T[] {
  for (const value of values) {
    if (!(valid as readonly string[]).includes(value)) {
      throw new TypeError(`Microblog provider: unknown ${option} "${value}"; valid values are ${valid.join(', ')}`);
    }
  }
  return values as T[];
}

/** The userinfo endpoint with `user.fields` and `expansions` added, wherever it points. */
function withQuery(userinfo: UserinfoEndpointHandler | undefined, query: Record<string, string>): UserinfoEndpointHandler {
  const base = typeof userinfo === 'string' ? userinfo : typeof userinfo === 'object' ? userinfo.url : undefined;
  const url = new URL(base ?? 'https://api.x.com/2/users/me');
  for (const [key, value] of Object.entries(query)) {
    if (value && !url.searchParams.has(key)) url.searchParams.set(key, value);
  }
  if (typeof userinfo === 'function') return userinfo;
  return typeof userinfo === 'object' ? { ...userinfo, url: url.href } : url.href;
}

export default function Microblog(options?: MicroblogUserConfig): OAuthConfig<TwitterProfile>;
export default function Microblog(options: MicroblogOAuth1UserConfig): OAuthConfig<MicroblogLegacyProfile>;
export default function Microblog(
  options: MicroblogUserConfig | MicroblogOAuth1UserConfig = {},
): OAuthConfig<TwitterProfile> | OAuthConfig<MicroblogLegacyProfile> {
  const version: unknown = options.version ?? '2.0';
  if (!(microblogVersions as readonly unknown[]).includes(version)) {
    throw new TypeError(`Microblog provider: version "${String(version)}" is not supported; use "2.0" (OAuth 2, the default) or "1.0A" (OAuth 1.0a)`);
  }
  if (version === '1.0A') {
    const { version: _version, ...rest } = options as MicroblogOAuth1UserConfig & { userFields?: unknown; expansions?: unknown };
    if (rest.userFields !== undefined || rest.expansions !== undefined) {
      throw new TypeError('Microblog provider: userFields and expansions apply to OAuth 2 (version "2.0") only');
    }
    return {
      id: 'microblog',
      name: 'X',
      type: 'oauth',
      version: '1.0A',
      requestTokenUrl: 'https://api.x.com/oauth/request_token',
      // `authenticate` (Sign in with X) skips the consent screen for users who already authorized the app.
      authorization: 'https://api.x.com/oauth/authenticate',
      token: 'https://api.x.com/oauth/access_token',
      userinfo: 'https://api.x.com/1.1/account/verify_credentials.json?include_email=true&skip_status=true',
      checks: ['none'],
      profile(profile: MicroblogLegacyProfile) {
        return {
          id: profile.id_str ?? String(profile.id),
          name: profile.name,
          email: profile.email ?? null,
          image: profile.profile_image_url_https ?? null,
        };
      },
      // verify_credentials returns only an address the network has verified (none otherwise).
      isEmailVerified: (profile: MicroblogLegacyProfile) => typeof profile.email === 'string' && profile.email !== '',
      style,
      options: rest,
      [providerFlow]: oauth1Protocol,
    };
  }

  const { version: _version, userFields = ['profile_image_url'], expansions = [], userinfo, ...rest } = options as MicroblogUserConfig;
  checkList('user field', userFields, microblogUserFields);
  checkList('expansion', expansions, microblogExpansions);
  const authorization: AuthorizationEndpointHandler = {
    url: 'https://x.com/i/oauth2/authorize',
    params: { scope: 'users.read tweet.read offline.access' },
  };
  return {
    id: 'microblog',
    name: 'X',
    type: 'oauth',
    version: '2.0',
    authorization,
    token: 'https://api.x.com/2/oauth2/token',
    userinfo: withQuery(userinfo, { 'user.fields': userFields.join(','), expansions: expansions.join(',') }),
    checks: ['pkce', 'state'],
    profile(profile: TwitterProfile) {
      const { data } = profile;
      if (!data || data.id === undefined || data.id === null || data.id === '') throw new TypeError('the users/me answer has no data.id');
      return { id: String(data.id), name: data.name ?? null, email: data.email ?? null, image: data.profile_image_url ?? null };
    },
    // OAuth 2 gives no email, and nothing would say that one was verified.
    isEmailVerified: () => false,
    style,
    options: rest,
  };
}
