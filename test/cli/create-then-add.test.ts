// Issue 24: "create with X" and "create, then add-provider X" give byte-identical projects, for every catalog
// provider, without an adapter and with one (the providers that need a database only with one). Only what is
// random (the secret) and what is named after the folder (package.json's name) may differ.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { providerCatalog } from '../../src/catalog/providers.js';
import type { ProviderEntry } from '../../src/catalog/providers.js';
import { projectTree } from './helpers/project-tree.js';
import { makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const tree = projectTree;

async function create(parent: string, name: string, providers: string[], adapter: string): Promise<string> {
  const result = await runInProcess('create-framework-auth', [name, '--providers', providers.join(','), '--adapter', adapter, '--yes', '--no-install'], { cwd: parent });
  expect(result.exitCode, result.stderr).toBe(0);
  return join(parent, name);
}

const cases = (providerCatalog as readonly ProviderEntry[])
  .filter((entry) => entry.id !== 'oidc')
  .flatMap((entry) => [...(entry.requiresAdapter ? [] : [{ id: entry.id, adapter: 'none' }]), { id: entry.id, adapter: 'sqlite' }]);

describe('create with a provider, or create and then add-provider', () => {
  it.each(cases)('gives the same project for $id (adapter $adapter)', async ({ id, adapter }) => {
    // Both folders are named "app" (package.json's name comes from the folder).
    const together = await create(await makeTempDir(), 'app', ['oidc', id], adapter);
    const added = await create(await makeTempDir(), 'app', ['oidc'], adapter);
    const result = await runInProcess('framework-auth', ['add-provider', id, '--no-install'], { cwd: added });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await tree(added)).toEqual(await tree(together));
  });
});
