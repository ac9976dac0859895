/**
 * A generic OpenID Connect provider, found by its issuer (discovery). Set `AUTH_OIDC_ISSUER`, `AUTH_OIDC_ID` and
 * `AUTH_OIDC_SECRET`, or pass them as options.
 * @example
 * OIDC({ issuer: 'https://login.example.com', name: 'Example SSO' })
 * @see https://openid.net/specs/openid-connect-discovery-1_0.html
 */
import type { Profile } from '../types.js';
import type { OIDCConfig, OIDCUserConfig } from '../contracts.js';

export default function OIDC<P extends Profile = Profile>(options: OIDCUserConfig<P> = {}): OIDCConfig<P> {
  return {
    id: 'oidc',
    name: 'OpenID Connect',
    type: 'oidc',
    checks: ['pkce'],
    authorization: { params: { scope: 'openid profile email' } },
    // OpenID Connect's claim; providers that do not send it prove no address.
    isEmailVerified: (profile) => profile.email_verified === true,
    style: { brandColor: '#3451b2', text: '#fff' },
    options,
  };
}
