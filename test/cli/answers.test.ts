import { describe, expect, it } from 'vitest';
import { checkMountPath } from '../../src/catalog/mount-path.js';
import { exitCodeOf } from '../../src/cli/errors.js';
import { Refusal } from '../../src/generator/errors.js';
import { parseAdapter, parseMountPath, parseProviderList } from '../../src/generator/answers.js';

function usageMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(Refusal);
    expect((error as Refusal).type).toBe('usage');
    expect(exitCodeOf(error as Refusal)).toBe(2);
    return (error as Refusal).message;
  }
  throw new Error('expected a usage error');
}

describe('--mount', () => {
  it.each(['/auth', '/api/auth', '/v1/auth-routes', '/providers/auth'])('accepts %s', (value) => {
    expect(checkMountPath(value)).toBeUndefined();
  });

  it('refuses a path without a leading slash', () => {
    expect(checkMountPath('auth')).toBe('--mount must start with "/" (got "auth")');
  });

  it('refuses a trailing slash', () => {
    expect(checkMountPath('/auth/')).toBe('--mount must not end with "/" (got "/auth/")');
  });

  it('refuses a wildcard', () => {
    expect(checkMountPath('/auth/*')).toContain('must not contain a wildcard');
  });

  it('refuses a route parameter', () => {
    expect(checkMountPath('/auth/:tenant')).toContain('must not contain a wildcard or route parameter');
  });

  it('refuses the root path', () => {
    expect(checkMountPath('/')).toContain('must not be "/"');
  });

  it('refuses an empty path, "//", dot segments and spaces', () => {
    expect(checkMountPath('')).toContain('must not be empty');
    expect(checkMountPath('/a//b')).toContain('"//"');
    expect(checkMountPath('/a/../b')).toContain('".."');
    expect(checkMountPath('/my auth')).toContain('may only use');
  });

  it('is a usage error through parseMountPath', () => {
    expect(usageMessage(() => parseMountPath('auth'))).toBe('--mount must start with "/" (got "auth")');
  });
});

describe('--providers', () => {
  it('resolves aliases and drops duplicates, keeping the order', () => {
    expect(parseProviderList('microblog, oidc,twitter,x')).toEqual(['microblog', 'oidc']);
  });

  it('refuses an unknown provider and lists the valid ones', () => {
    expect(usageMessage(() => parseProviderList('oidc,facebook'))).toBe(
      'Unknown provider "facebook" in --providers. Valid providers: oidc, github, google, microblog (twitter, x), discord, gitlab, microsoft-entra-id, auth0, keycloak, credentials, email, passkey (webauthn), password',
    );
  });

  it('refuses an empty list', () => {
    expect(usageMessage(() => parseProviderList(' , '))).toContain('must name at least one provider');
  });
});

describe('--adapter', () => {
  it('accepts none', () => {
    expect(parseAdapter('none')).toBe('none');
  });

  it('refuses an unknown adapter and lists the valid ones', () => {
    expect(usageMessage(() => parseAdapter('mongo'))).toBe('Unknown adapter "mongo" in --adapter. Valid adapters: none, memory, sqlite, postgres');
  });
});
