/**
 * The Auth.js env var prefix of a provider: id upper-cased, `-` → `_` (`microsoft-entra-id` → `AUTH_MICROSOFT_ENTRA_ID`).
 */
export function envPrefix(providerId: string): string {
  return `AUTH_${providerId.toUpperCase().replace(/-/g, '_')}`;
}

/**
 * The env vars of an OAuth/OIDC provider: `AUTH_<ID>_ID`, `AUTH_<ID>_SECRET`, plus `AUTH_<ID>_ISSUER` for providers
 * found by issuer (SPEC §4).
 */
export function oauthEnvVars(providerId: string, options: { issuer: boolean }): string[] {
  const prefix = envPrefix(providerId);
  const names = [`${prefix}_ID`, `${prefix}_SECRET`];
  if (options.issuer) names.push(`${prefix}_ISSUER`);
  return names;
}

/** The SMTP server that the email provider, the password provider and the account send through (an SMTP URL). */
export const emailServerEnvKey = 'AUTH_EMAIL_SERVER';

/** The sender of their messages (`Example <no-reply@example.com>`). */
export const emailFromEnvKey = 'AUTH_EMAIL_FROM';
