/**
 * GitLab, over OAuth 2 with PKCE and state, on gitlab.com or a self-managed instance (`baseUrl`).
 *
 * Setup:
 * - Create an application at https://gitlab.com/-/user_settings/applications (or your instance's) with the
 *   `read_user` scope and the redirect URI `<origin><mount>/callback/gitlab`, e.g.
 *   `http://localhost:3000/auth/callback/gitlab`.
 * - Put its application id and secret in `.env` as `AUTH_GITLAB_ID` and `AUTH_GITLAB_SECRET`.
 * @example
 * GitLab({ baseUrl: 'https://gitlab.example.com' })
 * @see https://docs.gitlab.com/api/oauth2/
 * @see https://docs.gitlab.com/api/users/#for-normal-users-1
 */
import type { OAuthConfig, OAuthUserConfig } from '../contracts.js';

/** The user as `GET /api/v4/user` returns it (the fields every instance sends). */
export interface GitLabProfile {
  /** A number: the provider turns it into a string. */
  id: number;
  username: string;
  name: string;
  /** The primary email. A changed address replaces it only once confirmed; a new account's may be unconfirmed. */
  email: string;
  state: string;
  avatar_url: string | null;
  web_url: string;
  created_at: string;
  bio: string;
  location?: string;
  public_email: string | null;
  website_url: string;
  organization: string;
  job_title: string;
  pronouns?: string | null;
  bot: boolean;
  /** When the user confirmed their email; null (or absent) until then. The address is proven only when set. */
  confirmed_at?: string | null;
  last_sign_in_at?: string;
  current_sign_in_at?: string;
  two_factor_enabled?: boolean;
  external?: boolean;
  private_profile?: boolean;
  [claim: string]: unknown;
}

/** Options of the GitLab provider: the usual OAuth options plus the instance's address. */
export interface GitLabUserConfig extends OAuthUserConfig<GitLabProfile> {
  /** A self-managed GitLab: its base URL. Endpoints given as options still win. @default 'https://gitlab.com' */
  baseUrl?: string;
}

export default function GitLab(options: GitLabUserConfig = {}): OAuthConfig<GitLabProfile> {
  const { baseUrl = 'https://gitlab.com', ...rest } = options;
  const base = baseUrl.replace(/\/+$/, '');
  return {
    id: 'gitlab',
    name: 'GitLab',
    type: 'oauth',
    authorization: { url: `${base}/oauth/authorize`, params: { scope: 'read_user' } },
    token: `${base}/oauth/token`,
    userinfo: `${base}/api/v4/user`,
    checks: ['pkce', 'state'],
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.name ?? profile.username,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      };
    },
    // A user who has not confirmed the address yet has no `confirmed_at`.
    isEmailVerified: (profile) => typeof profile.confirmed_at === 'string' && profile.confirmed_at !== '',
    style: { brandColor: '#fc6d26', text: '#fff' },
    options: rest,
  };
}
