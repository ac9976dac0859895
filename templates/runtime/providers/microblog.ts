/**
 * The microblog network (X, formerly Twitter), over OAuth 2 with PKCE and state. Set `AUTH_MICROBLOG_ID` and
 * `AUTH_MICROBLOG_SECRET`; register `<origin><mount>/callback/microblog` as the callback URL.
 *
 * Email is not available over OAuth 2 for this network: `user.email` is null unless the API returns one.
 * `version: '2.0'` is accepted and means the same as the default.
 * @see https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/authorization-code
 */
import type { OAuthConfig, OAuthUserConfig } from './types.js';

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
 * The profile the network's `users/me` endpoint returns. Fields beyond id, name and username appear when requested
 * through `user.fields` (the `userFields` option).
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

/** `user.fields` the profile can ask for. */
export const microblogUserFields = ['created_at', 'description', 'entities', 'location', 'pinned_tweet_id', 'profile_image_url', 'protected', 'url', 'verified'] as const;
export type MicroblogUserField = (typeof microblogUserFields)[number];

/** Options of the microblog provider: the usual OAuth options plus the API version and `user.fields`. */
export interface MicroblogUserConfig extends OAuthUserConfig<TwitterProfile> {
  /** `'2.0'` (the default; OAuth 2 with PKCE). */
  version?: '2.0' | (string & {});
  /** `user.fields` requested from `users/me`. @default ['profile_image_url'] */
  userFields?: MicroblogUserField[];
}

export default function Microblog(options: MicroblogUserConfig = {}): OAuthConfig<TwitterProfile> {
  const { userFields = ['profile_image_url'], version, ...rest } = options;
  if (version !== undefined && version !== '2.0') {
    throw new TypeError(`Microblog provider: version "${version}" is not supported; use "2.0" (OAuth 2, the default). OAuth 1.0a is not available in this runtime version.`);
  }
  for (const field of userFields) {
    if (!microblogUserFields.includes(field)) {
      throw new TypeError(`Microblog provider: unknown user field "${field}"; valid fields are ${microblogUserFields.join(', ')}`);
    }
  }
  const userinfo = new URL('https://api.x.com/2/users/me');
  if (userFields.length > 0) userinfo.searchParams.set('user.fields', userFields.join(','));
  return {
    id: 'microblog',
    name: 'X',
    type: 'oauth',
    version: '2.0',
    authorization: { url: 'https://x.com/i/oauth2/authorize', params: { scope: 'users.read tweet.read offline.access' } },
    token: 'https://api.x.com/2/oauth2/token',
    userinfo: userinfo.href,
    checks: ['pkce', 'state'],
    profile({ data }) {
      return { id: String(data.id), name: data.name, email: data.email ?? null, image: data.profile_image_url ?? null };
    },
    style: { brandColor: '#000000', text: '#ffffff' },
    options: rest,
  };
}
