/**
 * Google, over OpenID Connect: endpoints and keys come from discovery at `https://accounts.google.com`.
 *
 * Setup:
 * - Create an OAuth client ("Web application") at https://console.cloud.google.com/apis/credentials and add the
 *   authorized redirect URI `<origin><mount>/callback/google`, e.g. `http://localhost:3000/auth/callback/google`.
 * - Put its client id and secret in `.env` as `AUTH_GOOGLE_ID` and `AUTH_GOOGLE_SECRET`.
 *
 * Google returns a refresh token only when asked for offline access, and only at the first consent:
 * `Google({ authorization: { params: { access_type: 'offline', prompt: 'consent' } } })`.
 * `profile.email_verified` tells whether Google verified the address; `hd` is the Workspace domain, if any.
 * @see https://developers.google.com/identity/openid-connect/openid-connect
 */
import type { OIDCConfig, OIDCUserConfig } from '../contracts.js';

/** The claims of Google's ID token. */
export interface GoogleProfile {
  aud: string;
  azp: string;
  email: string;
  email_verified: boolean;
  exp: number;
  family_name?: string;
  given_name: string;
  /** The Google Workspace domain of the account, if any. */
  hd?: string;
  iat: number;
  iss: string;
  jti?: string;
  locale?: string;
  name: string;
  nbf?: number;
  picture: string;
  sub: string;
  [claim: string]: unknown;
}

const logo = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><path fill="#EA4335" d="M24 9.5c3.54 0 6.71 1.22 9.21 3.6l6.85-6.85C35.9 2.38 30.47 0 24 0 14.62 0 6.51 5.38 2.56 13.22l7.98 6.19C12.43 13.72 17.74 9.5 24 9.5z"/><path fill="#4285F4" d="M46.98 24.55c0-1.57-.15-3.09-.38-4.55H24v9.02h12.94c-.58 2.96-2.26 5.48-4.78 7.18l7.73 6c4.51-4.18 7.09-10.36 7.09-17.65z"/><path fill="#FBBC05" d="M10.53 28.59c-.48-1.45-.76-2.99-.76-4.59s.27-3.14.76-4.59l-7.98-6.19C.92 16.46 0 20.12 0 24c0 3.88.92 7.54 2.56 10.78l7.97-6.19z"/><path fill="#34A853" d="M24 48c6.48 0 11.93-2.13 15.89-5.81l-7.73-6c-2.15 1.45-4.92 2.3-8.16 2.3-6.26 0-11.57-4.22-13.47-9.91l-7.98 6.19C6.51 42.62 14.62 48 24 48z"/></svg>',
)}`;

export default function Google(options: OIDCUserConfig<GoogleProfile> = {}): OIDCConfig<GoogleProfile> {
  return {
    id: 'google',
    name: 'Google',
    type: 'oidc',
    issuer: 'https://accounts.google.com',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: profile.picture ?? null };
    },
    // OpenID Connect's claim: only an address the provider verified is proven here.
    isEmailVerified: (profile) => profile.email_verified === true,
    style: { brandColor: '#1a73e8', logo, text: '#fff' },
    options,
  };
}
