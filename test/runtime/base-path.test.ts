// One rule for the mount path (issue 15): the runtime's `basePath` accepts exactly what the CLI's `--mount` accepts.
import { describe, expect, it } from 'vitest';
import { checkMountPath, defaultMountPath } from '../../src/catalog/mount-path.js';
import { DEFAULT_BASE_PATH, checkBasePath } from '../../templates/runtime/http/base-path.js';
import { resolveConfig } from '../../templates/runtime/index.js';

const SECRET = 'a-test-secret-that-is-at-least-32-characters-long';

/** Inputs both sides must judge alike: valid mount paths, then one of each refusal. */
const inputs = [
  '/auth',
  '/api/auth',
  '/a.b_c~d-e/f',
  '/v1/auth',
  '',
  'auth',
  '/',
  '/auth/',
  '/auth//',
  '//auth',
  '/api//auth',
  '/auth/..',
  '/./auth',
  '/auth/*',
  '/auth/*splat',
  '/auth/:id',
  '/auth?x=1',
  '/auth#top',
  '/auth{/:x}',
  '/au th',
  '/auth%2F',
  '/ауth',
];

/** Whether the startup check takes `basePath` (it throws naming the rule it breaks). */
function acceptsBasePath(basePath: string): boolean {
  try {
    checkBasePath(basePath);
    return true;
  } catch {
    return false;
  }
}

describe('basePath and --mount', () => {
  it.each(inputs)('judge %j alike', (input) => {
    expect(acceptsBasePath(input)).toBe(checkMountPath(input) === undefined);
  });

  it('share one default', () => {
    expect(DEFAULT_BASE_PATH).toBe(defaultMountPath);
  });

  it('refuses a basePath with a trailing "/" at startup, naming it', () => {
    expect(() => resolveConfig({ secret: SECRET, basePath: '/auth/', providers: [] }, {})).toThrow('basePath must not end with "/" (got "/auth/")');
  });

  it('refuses a basePath with a ".." segment at startup', () => {
    expect(() => resolveConfig({ secret: SECRET, basePath: '/auth/../admin', providers: [] }, {})).toThrow(/must not contain "\." or "\.\." segments/);
  });

  it('keeps a valid basePath as it is', () => {
    expect(resolveConfig({ secret: SECRET, basePath: '/api/auth', providers: [] }, {}).basePath).toBe('/api/auth');
  });
});
