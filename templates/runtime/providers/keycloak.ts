/**
 * Keycloak, over OpenID Connect: endpoints and keys come from discovery at the realm's issuer.
 *
 * Setup:
 * - In the realm, create an OpenID Connect client with "Client authentication" on and the valid redirect URI
 *   `<origin><mount>/callback/keycloak`, e.g. `http://localhost:3000/auth/callback/keycloak`.
 * - Put in `.env`: `AUTH_KEYCLOAK_ID` (the client id), `AUTH_KEYCLOAK_SECRET` (Credentials tab) and
 *   `AUTH_KEYCLOAK_ISSUER=https://<host>/realms/<realm>` (older versions: `https://<host>/auth/realms/<realm>`).
 * @see https://www.keycloak.org/docs/latest/securing_apps/#_oidc
 */
import type { OIDCConfig, OIDCUserConfig } from '../contracts.js';

/** The claims of Keycloak's ID token (standard claims; more through the client's mappers). */
export interface KeycloakProfile {
  sub: string;
  iss: string;
  aud: string | string[];
  azp?: string;
  exp: number;
  iat: number;
  auth_time?: number;
  sid?: string;
  session_state?: string;
  acr?: string;
  name?: string;
  preferred_username?: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  [claim: string]: unknown;
}

export default function Keycloak(options: OIDCUserConfig<KeycloakProfile> = {}): OIDCConfig<KeycloakProfile> {
  return {
    id: 'keycloak',
    name: 'Keycloak',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email' } },
    checks: ['pkce'],
    profile(profile) {
      return {
        id: profile.sub,
        name: profile.name ?? profile.preferred_username ?? null,
        email: profile.email ?? null,
        image: profile.picture ?? null,
      };
    },
    // OpenID Connect's claim: only an address the provider verified is proven here.
    isEmailVerified: (profile) => profile.email_verified === true,
    style: { brandColor: '#428bca', text: '#fff' },
    options,
  };
}
