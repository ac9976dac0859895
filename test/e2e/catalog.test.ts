// Every catalog provider can be added to a generated project with `framework-auth add-provider <id>`; the result
// compiles and the running app lists them all. The project has no adapter, so the providers that need one (email,
// passkey) are refused there instead (test/cli/email-passkey.test.ts covers them with an adapter).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerCatalog as fullCatalog } from '../../src/catalog/providers.js';
import type { ProviderEntry } from '../../src/catalog/providers.js';
import { compileProject, makeTempDir, removeTempDirs, runBuiltCli, startApp, type RunningApp } from './helpers/project.js';
import { linkSharedDeps, prepareSharedDeps } from './helpers/shared-deps.js';

afterAll(removeTempDirs);

const providerCatalog = fullCatalog.filter((entry) => (entry as ProviderEntry).requiresAdapter !== true);
const needingAdapter = fullCatalog.filter((entry) => (entry as ProviderEntry).requiresAdapter === true);

describe('add-provider for every catalog id', () => {
  let projectDir: string;
  let app: RunningApp | undefined;

  beforeAll(async () => {
    await prepareSharedDeps();
    const root = await makeTempDir();
    const scaffold = await runBuiltCli('create', ['app', '--providers', 'oidc', '--yes', '--no-install'], { cwd: root });
    if (scaffold.exitCode !== 0) throw new Error(scaffold.stderr);
    projectDir = join(root, 'app');
    await linkSharedDeps(projectDir);
  }, 600_000);

  afterAll(async () => {
    await app?.stop();
  });

  it('adds each provider, its env placeholders, and prints a callback URL for the OAuth ones', async () => {
    for (const entry of providerCatalog.filter((provider) => provider.id !== 'oidc')) {
      const result = await runBuiltCli('frameworkAuth', ['add-provider', entry.id, '--cwd', projectDir], { cwd: projectDir });
      expect(result.exitCode, `${entry.id}: ${result.stderr}`).toBe(0);
      if (entry.oauth) expect(result.stdout).toContain(`/auth/callback/${entry.id}`);
    }
    const config = await readFile(join(projectDir, 'src/auth/config.ts'), 'utf8');
    for (const entry of providerCatalog) expect(config).toContain(`import ${entry.importName} from '${entry.importPath}';`);
    const env = await readFile(join(projectDir, '.env.example'), 'utf8');
    for (const entry of providerCatalog) for (const name of entry.env) expect(env).toMatch(new RegExp(`^${name}=$`, 'm'));
  }, 120_000);

  it('refuses the providers that need an adapter (exit 2)', async () => {
    for (const entry of needingAdapter) {
      const result = await runBuiltCli('frameworkAuth', ['add-provider', entry.id, '--cwd', projectDir], { cwd: projectDir });
      expect(result.exitCode, entry.id).toBe(2);
      expect(result.stderr).toContain(`The ${entry.id} provider needs a database adapter`);
    }
  });

  it('compiles with tsc with zero errors', async () => {
    const result = await compileProject(projectDir);
    expect(result.output).toBe('');
    expect(result.exitCode).toBe(0);
  }, 60_000);

  it('lists every catalog provider at /auth/providers', async () => {
    app = await startApp(projectDir, 'dist/server.js', {});
    const providers = (await (await fetch(`${app.url}/auth/providers`)).json()) as Record<string, { callbackUrl: string }>;
    expect(Object.keys(providers).sort()).toEqual(providerCatalog.map((entry) => entry.id).sort());
    expect(providers.github?.callbackUrl).toBe(`${app.url}/auth/callback/github`);
  });
});
