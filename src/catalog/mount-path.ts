/** The mount path used when the user accepts the defaults. */
export const defaultMountPath = '/auth';

const segmentPattern = /^[A-Za-z0-9._~-]+$/;

/**
 * Why `value` is not a valid mount path, or undefined when it is. `label` names the input (`--mount`, `Mount path`).
 * Valid: starts with "/", at least one segment, no trailing "/", no wildcard or parameter.
 */
export function checkMountPath(value: string, label = '--mount'): string | undefined {
  const shown = JSON.stringify(value);
  if (value === '') return `${label} must not be empty (e.g. "${defaultMountPath}")`;
  if (!value.startsWith('/')) return `${label} must start with "/" (got ${shown})`;
  if (/[*:?(){}]/.test(value)) {
    return `${label} must not contain a wildcard or route parameter; the CLI adds "/*splat" itself (got ${shown})`;
  }
  if (value === '/') return `${label} must not be "/": the auth routes need their own path such as "${defaultMountPath}"`;
  if (value.endsWith('/')) return `${label} must not end with "/" (got ${shown})`;
  const segments = value.slice(1).split('/');
  if (segments.some((segment) => segment === '')) return `${label} must not contain "//" (got ${shown})`;
  if (segments.some((segment) => segment === '.' || segment === '..')) {
    return `${label} must not contain "." or ".." segments (got ${shown})`;
  }
  if (!segments.every((segment) => segmentPattern.test(segment))) {
    return `${label} may only use letters, digits, ".", "_", "~" and "-" between slashes (got ${shown})`;
  }
  return undefined;
}

/** The Express major versions the CLI writes mounts for. */
export type MountExpressMajor = 4 | 5;

/** `app.use` pattern of the auth routes: `/auth/*splat` on Express 5 (path-to-regexp 8 names its wildcard), `/auth/*` on 4. */
export function mountPattern(mount: string, expressMajor: MountExpressMajor): string {
  return expressMajor === 4 ? `${mount}/*` : `${mount}/*splat`;
}

/** `/auth/*splat`, `/auth{/*splat}`, `/auth/*`, `/auth/` → `/auth`: the mount path an `app.use` pattern serves. */
export function mountOfPattern(pattern: string): string {
  return pattern.replace(/\{\/\*\w*\}$/, '').replace(/\/\*\w*$/, '').replace(/\/+$/, '') || '/';
}

/** The path a provider's callback comes back to (seed §5 rule 3: it moves with the mount path). */
export function callbackPath(mount: string, providerId: string): string {
  return `${mount}/callback/${providerId}`;
}

/** The built-in sign-in page. */
export function signInPath(mount: string): string {
  return `${mount}/signin`;
}

/** The built-in sign-out page. */
export function signOutPath(mount: string): string {
  return `${mount}/signout`;
}

/** The built-in page of a user's database sessions. */
export function sessionsPath(mount: string): string {
  return `${mount}/sessions`;
}

/** The API-keys page, where a signed-in user creates and revokes their keys (with the api-keys feature). */
export function apiKeysPath(mount: string): string {
  return `${mount}/api-keys`;
}

/** The account page, where a signed-in user changes their address, unlinks accounts, exports or deletes their data (with the account feature). */
export function accountPath(mount: string): string {
  return `${mount}/account`;
}

/** The organizations page, where a signed-in user creates organizations, switches between them and answers invitations (with the organizations feature). */
export function organizationsPath(mount: string): string {
  return `${mount}/organizations`;
}

/** The administration pages, where an admin finds users and acts on them (with the admin feature). */
export function adminPath(mount: string): string {
  return `${mount}/admin`;
}

/** The built-in re-authentication page, where a signed-in user confirms who they are before a sensitive change. */
export function reauthPath(mount: string): string {
  return `${mount}/reauth`;
}
