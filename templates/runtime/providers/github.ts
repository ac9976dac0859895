/**
 * GitHub, over OAuth 2 (GitHub Apps and OAuth Apps alike).
 *
 * Setup:
 * - Create an OAuth App at https://github.com/settings/developers (or a GitHub App) and register the callback URL
 *   `<origin><mount>/callback/github`, e.g. `http://localhost:3000/auth/callback/github`.
 * - Put its client id and a client secret in `.env` as `AUTH_GITHUB_ID` and `AUTH_GITHUB_SECRET`.
 *
 * GitHub's profile carries an email only when the user made one public. The provider also asks `GET /user/emails`
 * (allowed by the `user:email` scope): without a public email it uses the primary address, and only if GitHub has
 * verified it (an unverified address is not the user's to claim, so `email` stays null then). The profile's
 * `email_verified` says whether the address is among the verified ones of that list; it is false when the list
 * could not be read, so a public email is then kept but not proven.
 * @example
 * GitHub({ enterprise: { baseUrl: 'https://github.example.com' } })
 * @see https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
 * @see https://docs.github.com/en/rest/users/emails#list-email-addresses-for-the-authenticated-user
 */
import { PROVIDER_TIMEOUT_MS } from '../oauth/server.js';
import type { Profile, TokenSet } from '../types.js';
import { customFetch, type OAuthConfig, type OAuthUserConfig, type UserinfoRequestContext } from '../contracts.js';

/** One entry of `GET /user/emails`. */
export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  visibility: 'public' | 'private' | null;
}

/** The user as `GET /user` returns it. */
export interface GitHubProfile {
  login: string;
  /** A number: the provider turns it into a string. */
  id: number;
  node_id: string;
  avatar_url: string;
  gravatar_id: string | null;
  url: string;
  html_url: string;
  type: string;
  site_admin: boolean;
  name: string | null;
  company: string | null;
  blog: string | null;
  location: string | null;
  /** The public email; filled in from `/user/emails` by this provider when absent (primary and verified only). */
  email: string | null;
  /**
   * Not GitHub's: set by this provider, true when `email` is a verified entry of `GET /user/emails` (always so for
   * an address filled in from there), false otherwise, also when the list could not be read.
   */
  email_verified?: boolean;
  hireable: boolean | null;
  bio: string | null;
  twitter_username?: string | null;
  public_repos: number;
  public_gists: number;
  followers: number;
  following: number;
  created_at: string;
  updated_at: string;
  private_gists?: number;
  total_private_repos?: number;
  owned_private_repos?: number;
  disk_usage?: number;
  collaborators?: number;
  two_factor_authentication?: boolean;
  plan?: { collaborators: number; name: string; space: number; private_repos: number };
  [claim: string]: unknown;
}

/** Options of the GitHub provider: the usual OAuth options plus a GitHub Enterprise Server address. */
export interface GitHubUserConfig extends OAuthUserConfig<GitHubProfile> {
  /** GitHub Enterprise Server: its base URL; the API is then `<baseUrl>/api/v3`. @default github.com */
  enterprise?: { baseUrl?: string };
}

const logo = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path fill="#fff" d="M8 0c4.42 0 8 3.58 8 8a8.013 8.013 0 0 1-5.45 7.59c-.4.08-.55-.17-.55-.38 0-.27.01-1.13.01-2.2 0-.75-.25-1.23-.54-1.48 1.78-.2 3.65-.88 3.65-3.95 0-.88-.31-1.59-.82-2.15.08-.2.36-1.02-.08-2.12 0 0-.67-.22-2.2.82-.64-.18-1.32-.27-2-.27-.68 0-1.36.09-2 .27-1.53-1.03-2.2-.82-2.2-.82-.44 1.1-.16 1.92-.08 2.12-.51.56-.82 1.28-.82 2.15 0 3.06 1.86 3.75 3.64 3.95-.23.2-.44.55-.51 1.07-.46.21-1.61.55-2.33-.66-.15-.24-.6-.83-1.23-.82-.67.01-.27.38.01.53.34.19.73.9.82 1.13.16.45.68 1.31 2.69.94 0 .67.01 1.3.01 1.49 0 .21-.15.45-.55.38A7.995 7.995 0 0 1 0 8c0-4.42 3.58-8 8-8Z"/></svg>',
)}`;

/** The primary address, if GitHub verified it. */
export function primaryVerifiedEmail(emails: readonly GitHubEmail[]): string | null {
  return emails.find((entry) => entry.primary && entry.verified)?.email ?? null;
}

async function getJson(context: UserinfoRequestContext, url: string, tokens: TokenSet): Promise<{ ok: boolean; status: number; body: unknown }> {
  const fetchFunction = context.provider[customFetch] ?? fetch;
  const response = await fetchFunction(url, {
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${tokens.access_token ?? ''}`,
      // GitHub's API refuses requests without a User-Agent.
      'user-agent': 'framework-auth',
    },
    signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
  });
  const body: unknown = response.ok ? await response.json() : undefined;
  return { ok: response.ok, status: response.status, body };
}

/** Whether `email` is one of the addresses GitHub verified. */
export function isVerifiedEmail(emails: readonly GitHubEmail[], email: string): boolean {
  return emails.some((entry) => entry.verified && entry.email === email);
}

/**
 * Reads `GET /user` and `GET /user/emails`: the list fills in a missing public email and says whether the email is
 * verified. The emails URL is the userinfo URL plus `/emails`, so an overridden userinfo endpoint (Enterprise, a
 * proxy, a test) moves both.
 */
async function requestProfile(context: UserinfoRequestContext): Promise<Profile> {
  const { provider, tokens } = context;
  const userinfo = provider.userinfo;
  const url = typeof userinfo === 'string' ? userinfo : typeof userinfo === 'object' ? userinfo.url : undefined;
  if (!url) throw new Error('GitHub provider: the userinfo endpoint has no url');
  const user = await getJson(context, url, tokens);
  if (!user.ok || !user.body || typeof user.body !== 'object') throw new Error(`GitHub answered GET /user with HTTP ${user.status}`);
  const profile = { ...(user.body as GitHubProfile) };
  const answer = await getJson(context, `${url.replace(/\/+$/, '')}/emails`, tokens);
  // Without the user:email scope (or when GitHub is unwell) the list is empty: a public email stays but is not
  // proven, and a profile without one simply has no email.
  const emails = answer.ok && Array.isArray(answer.body) ? (answer.body as GitHubEmail[]) : [];
  if (!profile.email) profile.email = primaryVerifiedEmail(emails);
  profile.email_verified = profile.email !== null && isVerifiedEmail(emails, profile.email);
  return profile as unknown as Profile;
}

export default function GitHub(options: GitHubUserConfig = {}): OAuthConfig<GitHubProfile> {
  const { enterprise, ...rest } = options;
  const baseUrl = (enterprise?.baseUrl ?? 'https://github.com').replace(/\/+$/, '');
  const apiBaseUrl = enterprise?.baseUrl ? `${baseUrl}/api/v3` : 'https://api.github.com';
  return {
    id: 'github',
    name: 'GitHub',
    type: 'oauth',
    // GitHub sends `iss` with its authorization responses (RFC 9207); knowing the issuer lets it be checked.
    issuer: `${baseUrl}/login/oauth`,
    authorization: { url: `${baseUrl}/login/oauth/authorize`, params: { scope: 'read:user user:email' } },
    token: `${baseUrl}/login/oauth/access_token`,
    userinfo: { url: `${apiBaseUrl}/user`, request: requestProfile },
    checks: ['pkce', 'state'],
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.name ?? profile.login,
        email: profile.email ?? null,
        image: profile.avatar_url ?? null,
      };
    },
    // Set by requestProfile from GET /user/emails; a replaced userinfo request that does not set it proves nothing.
    isEmailVerified: (profile) => profile.email_verified === true,
    style: { brandColor: '#24292f', logo, text: '#fff' },
    options: rest,
  };
}
