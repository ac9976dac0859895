/**
 * Discord, over OAuth 2 with PKCE and state.
 *
 * Setup:
 * - Create an application at https://discord.com/developers/applications; under OAuth2 add the redirect
 *   `<origin><mount>/callback/discord`, e.g. `http://localhost:3000/auth/callback/discord`.
 * - Put its client id and secret in `.env` as `AUTH_DISCORD_ID` and `AUTH_DISCORD_SECRET`.
 *
 * The `email` scope gives the account's address; `profile.verified` tells whether Discord verified it.
 * @see https://discord.com/developers/docs/topics/oauth2
 * @see https://discord.com/developers/docs/resources/user#user-object
 */
import type { OAuthConfig, OAuthUserConfig } from '../contracts.js';

/** The user as `GET /users/@me` returns it. */
export interface DiscordProfile {
  /** A snowflake, as a string. */
  id: string;
  username: string;
  /** "0" for accounts on the unique-username system; a four-digit tag for older ones. */
  discriminator: string;
  global_name: string | null;
  /** The avatar hash, or null for the default avatar. */
  avatar: string | null;
  bot?: boolean;
  system?: boolean;
  mfa_enabled: boolean;
  banner: string | null;
  accent_color: number | null;
  locale: string;
  /** Whether the email has been verified. */
  verified: boolean;
  email: string | null;
  flags: number;
  premium_type: number;
  public_flags: number;
  avatar_decoration_data?: unknown;
  [claim: string]: unknown;
}

/** The URL of the user's avatar: their own (animated ones as GIF) or the default one Discord shows for them. */
export function discordAvatarUrl(profile: Pick<DiscordProfile, 'id' | 'avatar' | 'discriminator'>): string {
  if (profile.avatar === null) {
    // Unique-username accounts get one of six defaults picked from the id; older ones one of five from the tag.
    const index = profile.discriminator === '0' ? Number((BigInt(profile.id) >> 22n) % 6n) : Number.parseInt(profile.discriminator, 10) % 5;
    return `https://cdn.discordapp.com/embed/avatars/${index}.png`;
  }
  const format = profile.avatar.startsWith('a_') ? 'gif' : 'png';
  return `https://cdn.discordapp.com/avatars/${profile.id}/${profile.avatar}.${format}`;
}

export default function Discord(options: OAuthUserConfig<DiscordProfile> = {}): OAuthConfig<DiscordProfile> {
  return {
    id: 'discord',
    name: 'Discord',
    type: 'oauth',
    authorization: { url: 'https://discord.com/api/oauth2/authorize', params: { scope: 'identify email' } },
    token: 'https://discord.com/api/oauth2/token',
    userinfo: 'https://discord.com/api/users/@me',
    checks: ['pkce', 'state'],
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.global_name ?? profile.username,
        email: profile.email ?? null,
        image: discordAvatarUrl(profile),
      };
    },
    isEmailVerified: (profile) => profile.verified === true,
    style: { brandColor: '#5865f2', text: '#fff' },
    options,
  };
}
