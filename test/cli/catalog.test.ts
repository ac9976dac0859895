import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adapterCatalog } from '../../src/catalog/adapters.js';
import { envPrefix } from '../../src/catalog/env-names.js';
import { describeProviderIds, findProvider, providerCatalog, providerIds } from '../../src/catalog/providers.js';
import { runtimeTemplateDir } from '../../src/generator/paths.js';
import { isAdapterAvailable } from '../../src/generator/answers.js';

describe('provider catalog', () => {
  it.each(providerCatalog.map((entry) => [entry.id, entry] as const))('has a runtime factory for %s', (id, entry) => {
    expect(existsSync(join(runtimeTemplateDir, 'providers', `${id}.ts`))).toBe(true);
    expect(entry.importPath).toBe(`./core/providers/${id}.js`);
    expect(entry.snippet.startsWith(`${entry.importName}(`)).toBe(true);
  });

  it('names env vars as Auth.js does, with an issuer only for issuer-found providers', () => {
    expect(findProvider('oidc')?.env).toEqual(['AUTH_OIDC_ID', 'AUTH_OIDC_SECRET', 'AUTH_OIDC_ISSUER']);
    expect(findProvider('microblog')?.env).toEqual(['AUTH_MICROBLOG_ID', 'AUTH_MICROBLOG_SECRET']);
    expect(envPrefix('microsoft-entra-id')).toBe('AUTH_MICROSOFT_ENTRA_ID');
  });

  it('resolves the aliases twitter and x to microblog, case-insensitively', () => {
    expect(findProvider('twitter')?.id).toBe('microblog');
    expect(findProvider('X')?.id).toBe('microblog');
    expect(findProvider('GitHub')?.id).toBe('github');
    expect(findProvider('facebook')).toBeUndefined();
  });

  it('lists ids with their aliases for errors and help', () => {
    expect(describeProviderIds()).toBe('oidc, github, google, microblog (twitter, x), discord, gitlab, microsoft-entra-id, auth0, keycloak, credentials, email, passkey (webauthn), password');
    expect(providerIds).toEqual(['oidc', 'github', 'google', 'microblog', 'discord', 'gitlab', 'microsoft-entra-id', 'auth0', 'keycloak', 'credentials', 'email', 'passkey', 'password']);
  });

  it('marks OAuth providers, whose callback URL must be registered', () => {
    expect(providerCatalog.filter((entry) => entry.oauth).map((entry) => entry.id)).toEqual(['oidc', 'github', 'google', 'microblog', 'discord', 'gitlab', 'microsoft-entra-id', 'auth0', 'keycloak']);
  });
});

describe('adapter catalog', () => {
  it('offers none, memory, sqlite and postgres', () => {
    expect(adapterCatalog.map((entry) => entry.id)).toEqual(['none', 'memory', 'sqlite', 'postgres']);
  });

  it('treats an adapter as available exactly when its runtime file exists', () => {
    expect(isAdapterAvailable('none')).toBe(true);
    for (const entry of adapterCatalog.filter((candidate) => candidate.runtimeFile !== null)) {
      expect(isAdapterAvailable(entry.id)).toBe(existsSync(join(runtimeTemplateDir, entry.runtimeFile ?? '')));
    }
  });
});

describe('one default mount path', () => {
  it("is the same in the CLI's catalog and the runtime (the guard's sign-in link without basePath)", async () => {
    const { defaultMountPath } = await import('../../src/catalog/mount-path.js');
    const { DEFAULT_BASE_PATH } = await import('../../templates/runtime/http/base-path.js');
    expect(DEFAULT_BASE_PATH).toBe(defaultMountPath);
  });
});
