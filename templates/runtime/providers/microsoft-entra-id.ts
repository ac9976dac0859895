/**
 * Microsoft Entra ID (formerly Azure AD), over OpenID Connect: endpoints and keys come from discovery at the
 * tenant's issuer.
 *
 * Setup:
 * - Register an application at https://entra.microsoft.com (App registrations), platform "Web", with the redirect
 *   URI `<origin><mount>/callback/microsoft-entra-id`, e.g.
 *   `http://localhost:3000/auth/callback/microsoft-entra-id`; create a client secret.
 * - Put in `.env`: `AUTH_MICROSOFT_ENTRA_ID_ID` (Application (client) ID), `AUTH_MICROSOFT_ENTRA_ID_SECRET` (the
 *   secret's value) and `AUTH_MICROSOFT_ENTRA_ID_ISSUER=https://login.microsoftonline.com/<Directory (tenant) ID>/v2.0`.
 *
 * The issuer must name a tenant. The multi-tenant endpoints (`common`, `organizations`, `consumers`) publish the
 * placeholder issuer `https://login.microsoftonline.com/{tenantid}/v2.0`, and their ID tokens carry each user's own
 * tenant as `iss`, so neither discovery nor the ID token's issuer check can succeed against them. Personal
 * Microsoft accounts live in the tenant `9188040d-6c67-4c5b-b112-36a304b66dad`.
 *
 * The user id is the ID token's `sub`, as in Auth.js (stable per application); `profile.oid` is the id that other
 * applications of the tenant (and Microsoft Graph) see. The profile photo is not fetched: Graph returns bytes, not a
 * URL, and a data URI would bloat the session cookie.
 *
 * The address is proven only when the ID token says so through `email_verified` or `xms_edov`: add those optional
 * claims (Token configuration) for users who should be able to sign in by email too.
 * @see https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols-oidc
 * @see https://learn.microsoft.com/en-us/entra/identity-platform/id-token-claims-reference
 */
import type { OIDCConfig, OIDCUserConfig } from '../contracts.js';

/** The claims of Entra ID's v2.0 ID token (the optional ones when configured for the app). */
export interface MicrosoftEntraIDProfile {
  aud: string;
  iss: string;
  iat: number;
  nbf: number;
  exp: number;
  /** The user's id, per application. */
  sub: string;
  /** The user's id in the tenant, the same for every application. */
  oid: string;
  /** The tenant the user signed in with. */
  tid: string;
  name?: string;
  preferred_username?: string;
  /** An address from the directory; not verified unless `email_verified` or `xms_edov` says so. */
  email?: string;
  /** Optional claim: whether the address is verified. */
  email_verified?: boolean;
  /** Optional claim "email domain owner verified": the tenant verified that it owns the address's domain. */
  xms_edov?: boolean;
  given_name?: string;
  family_name?: string;
  nonce?: string;
  roles?: string[];
  groups?: string[];
  ver: '2.0';
  [claim: string]: unknown;
}

const multiTenantIssuer = /^https:\/\/login\.microsoftonline\.com\/(common|organizations|consumers)(\/|$)/i;

const logo = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 21 21"><path fill="#f25022" d="M1 1h9v9H1z"/><path fill="#7fba00" d="M11 1h9v9h-9z"/><path fill="#00a4ef" d="M1 11h9v9H1z"/><path fill="#ffb900" d="M11 11h9v9h-9z"/></svg>',
)}`;

export default function MicrosoftEntraID(options: OIDCUserConfig<MicrosoftEntraIDProfile> = {}): OIDCConfig<MicrosoftEntraIDProfile> {
  if (options.issuer !== undefined && multiTenantIssuer.test(options.issuer)) {
    throw new TypeError(
      `Microsoft Entra ID provider: issuer "${options.issuer}" is a multi-tenant endpoint, whose tokens cannot be validated; use https://login.microsoftonline.com/<tenant id>/v2.0 (personal accounts: tenant 9188040d-6c67-4c5b-b112-36a304b66dad)`,
    );
  }
  return {
    id: 'microsoft-entra-id',
    name: 'Microsoft Entra ID',
    type: 'oidc',
    authorization: { params: { scope: 'openid profile email User.Read' } },
    checks: ['pkce'],
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: null };
    },
    // Entra's `email` is whatever the directory holds, unverified by default (the "nOAuth" attack): only the optional
    // claims `email_verified` or `xms_edov` (the email domain's owner is verified) prove it.
    isEmailVerified: (profile) => profile.email_verified === true || profile.xms_edov === true,
    style: { brandColor: '#0072c6', logo, text: '#fff' },
    options,
  };
}
