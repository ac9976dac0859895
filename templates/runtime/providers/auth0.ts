/**
 * Auth0, over OpenID Connect: endpoints and keys come from discovery at your tenant's domain.
 *
 * Setup:
 * - Create a "Regular Web Application" at https://manage.auth0.com and add `<origin><mount>/callback/auth0` (e.g.
 *   `http://localhost:3000/auth/callback/auth0`) to its Allowed Callback URLs.
 * - Put in `.env`: `AUTH_AUTH0_ID`, `AUTH_AUTH0_SECRET` and `AUTH_AUTH0_ISSUER=https://<tenant>.<region>.auth0.com/`
 *   (or your custom domain). Keep the trailing slash: Auth0's discovery document names the issuer with it, and the
 *   two must match exactly.
 * @see https://auth0.com/docs/authenticate/protocols/openid-connect-protocol
 */
import type { OIDCConfig, OIDCUserConfig } from '../contracts.js';

/** The claims of Auth0's ID token (standard OpenID Connect claims, plus any your Actions add). */
export interface Auth0Profile {
  sub: string;
  name?: string;
  nickname?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  email?: string;
  email_verified?: boolean;
  updated_at?: string;
  [claim: string]: unknown;
}

export default function Auth0(options: OIDCUserConfig<Auth0Profile> = {}): OIDCConfig<Auth0Profile> {
  return {
    id: 'auth0',
    name: 'Auth0',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? profile.nickname ?? null, email: profile.email ?? null, image: profile.picture ?? null };
    },
    // OpenID Connect's claim: only an address the provider verified is proven here.
    isEmailVerified: (profile) => profile.email_verified === true,
    style: { brandColor: '#eb5424', text: '#fff' },
    options,
  };
}
