/**
 * The mount path of the auth routes (`basePath`): its default and its rules, which are the CLI's rules for `--mount`
 * (create-framework-auth's src/catalog/mount-path.ts; a test feeds both the same inputs).
 */

/** Where the auth routes are when `basePath` is not set and the request cannot tell (the guard's sign-in link). */
export const DEFAULT_BASE_PATH = '/auth';

const segmentPattern = /^[A-Za-z0-9._~-]+$/;

/** Why `basePath` is not a mount path (the rule it breaks), or undefined when it is. */
function basePathProblem(basePath: string): string | undefined {
  if (!basePath.startsWith('/')) return 'must start with "/"';
  if (basePath === '/') return `must not be "/": the auth routes need their own path such as "${DEFAULT_BASE_PATH}"`;
  if (basePath.endsWith('/')) return 'must not end with "/"';
  const segments = basePath.slice(1).split('/');
  if (segments.includes('')) return 'must not contain "//"';
  if (segments.some((segment) => segment === '.' || segment === '..')) return 'must not contain "." or ".." segments';
  if (!segments.every((segment) => segmentPattern.test(segment))) {
    return 'may only use letters, digits, ".", "_", "~" and "-" between slashes (no wildcard or route parameter)';
  }
  return undefined;
}

/** The configured `basePath`, checked once at startup; throws a TypeError naming the rule it breaks. */
export function checkBasePath(basePath: string | undefined): string | undefined {
  if (basePath === undefined) return undefined;
  const problem = basePathProblem(basePath);
  if (problem) throw new TypeError(`basePath ${problem} (got ${JSON.stringify(basePath)})`);
  return basePath;
}
