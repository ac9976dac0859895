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
