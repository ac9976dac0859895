// What is particular to a provider lives in its catalog entry (src/catalog/providers.ts), never in an `.id === '…'`
// branch elsewhere: adding a provider is adding an entry and its runtime file. Each field that replaced such a branch
// is checked here through the message it produces.
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { providerCatalog, providerIds } from '../../src/catalog/providers.js';
import type { ProviderEntry } from '../../src/catalog/providers.js';
import { setEnvValue } from '../../src/generator/edit/env-file.js';
import { cliPackageRoot } from '../../src/generator/paths.js';
import { makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const catalog: readonly ProviderEntry[] = providerCatalog;
const srcDir = join(cliPackageRoot, 'src');
const catalogDir = join(srcDir, 'catalog');

/** The `.ts` files under `dir`, recursively, except those under `skip`. */
function sourceFiles(dir: string, skip: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((item) => {
    const path = join(dir, item.name);
    if (path === skip) return [];
    if (item.isDirectory()) return sourceFiles(path, skip);
    return item.name.endsWith('.ts') ? [path] : [];
  });
}

const escaped = providerIds.map((id) => id.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|');
/** `x.id === 'oidc'`, `x?.id !== "email"`, and the same the other way round, for every provider catalog id. */
const idComparison = new RegExp(
  `\\.id\\s*[!=]==?\\s*(['"\`])(?:${escaped})\\1|(['"\`])(?:${escaped})\\2\\s*[!=]==?\\s*[\\w$.?]*\\.id\\b`,
  'g',
);

function idComparisons(text: string): string[] {
  return text.split('\n').filter((line) => new RegExp(idComparison.source).test(line));
}

describe('no provider id branches outside the catalog', () => {
  it('the check finds a provider id comparison, and leaves adapter ids alone', () => {
    expect(idComparisons("if (entry.id === 'oidc') hint();")).toHaveLength(1);
    expect(idComparisons('const email = providers.some((provider) => provider?.id !== "email");')).toHaveLength(1);
    expect(idComparisons("if ('credentials' === entry.id) step();")).toHaveLength(1);
    expect(idComparisons("adapter?.id === 'none' ? a : adapter?.id === 'memory' ? b : c")).toEqual([]);
    expect(idComparisons("entry.id === 'oidc-like'")).toEqual([]);
  });

  it('src/ (but src/catalog/) compares no `.id` with a provider catalog id', () => {
    const found = sourceFiles(srcDir, catalogDir).flatMap((path) =>
      idComparisons(readFileSync(path, 'utf8')).map((line) => `${relative(cliPackageRoot, path)}: ${line.trim()}`),
    );
    // A provider-specific behaviour belongs in a field of ProviderEntry (src/catalog/providers.ts).
    expect(found).toEqual([]);
  });
});

describe('catalog fields', () => {
  it('names what each provider requiring an adapter stores through it, and nothing for the others', () => {
    for (const entry of catalog) {
      if (entry.requiresAdapter === true) expect(entry.storedThroughAdapter, entry.id).toMatch(/\S/);
      else expect(entry.storedThroughAdapter, entry.id).toBeUndefined();
    }
  });

  it('gives the OIDC provider its local stand-in, dev-idp', () => {
    expect(catalog.filter((entry) => entry.localDevelopment).map((entry) => entry.id)).toEqual(['oidc']);
    expect(catalog.find((entry) => entry.id === 'oidc')?.localDevelopment?.command).toBe('framework-auth dev-idp');
  });
});

const frameworkAuth = (argv: readonly string[], cwd: string) => runInProcess('framework-auth', argv, { cwd });

async function scaffold(argv: readonly string[]): Promise<{ root: string; stdout: string }> {
  const parent = await makeTempDir();
  const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', ...argv], { cwd: parent });
  expect(result.exitCode, result.stderr).toBe(0);
  return { root: join(parent, 'app'), stdout: result.stdout };
}

describe('storedThroughAdapter: add-provider without an adapter names what would be stored', () => {
  it.each([
    ['passkey', 'passkeys'],
    ['email', 'email sign-in links'],
  ])('refuses %s, naming %s', async (id, stored) => {
    const { root } = await scaffold(['--providers', 'github']);
    const result = await frameworkAuth(['add-provider', id], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`The ${id} provider needs a database adapter, and src/auth/config.ts sets none: ${stored} are stored through the adapter.`);
  });
});

describe('nextStep: add-provider ends with the provider\'s own step', () => {
  it('tells where to write the user lookup for credentials, and nothing of the kind for github', async () => {
    const { root } = await scaffold(['--providers', 'oidc']);
    const credentials = await frameworkAuth(['add-provider', 'credentials'], root);
    expect(credentials.exitCode).toBe(0);
    expect(credentials.stdout).toContain('Write the user lookup in the authorize() of src/auth/config.ts.');
    const github = await frameworkAuth(['add-provider', 'github'], root);
    expect(github.exitCode).toBe(0);
    expect(github.stdout).not.toContain('authorize()');
  });
});

describe('localDevelopment: the dev-idp hint', () => {
  it('is in the next steps of a project with oidc, run through its package manager', async () => {
    const npm = await scaffold([]);
    expect(npm.stdout).toContain('No OpenID provider to register with yet? A local one for development (sign in as "alice"):');
    expect(npm.stdout).toContain('  npx framework-auth dev-idp --write-env');
    expect((await scaffold(['--package-manager', 'pnpm'])).stdout).toContain('  pnpm exec framework-auth dev-idp --write-env');
    expect((await scaffold(['--providers', 'github,keycloak'])).stdout).not.toContain('dev-idp');
  });

  it("is in doctor's fixes for oidc's empty env vars and unreachable issuer, not for keycloak's", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const closedIssuer = `http://127.0.0.1:${port}`;

    const { root } = await scaffold(['--providers', 'oidc,keycloak']);
    await symlink(join(cliPackageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    let env = await readFile(join(root, '.env'), 'utf8');
    for (const [key, value] of Object.entries({ AUTH_SECRET: 'x'.repeat(40), AUTH_OIDC_ISSUER: closedIssuer, AUTH_KEYCLOAK_ISSUER: closedIssuer })) {
      env = setEnvValue(env, key, value);
    }
    await writeFile(join(root, '.env'), env);
    const result = await frameworkAuth(['doctor'], root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(
      'fix: Fill in AUTH_OIDC_ID, AUTH_OIDC_SECRET in .env (from the app you registered with OpenID Connect). For a local OpenID provider to develop with: npx framework-auth dev-idp --write-env.',
    );
    expect(result.stdout).toContain('fix: Check AUTH_OIDC_ISSUER and that the provider is running (npx framework-auth dev-idp starts a local one).');
    expect(result.stdout).toContain('fix: Fill in AUTH_KEYCLOAK_ID, AUTH_KEYCLOAK_SECRET in .env (from the app you registered with Keycloak).\n');
    expect(result.stdout).toContain('fix: Check AUTH_KEYCLOAK_ISSUER and that the provider is running.\n');
  });
});

describe('sendsLinks: doctor wants AUTH_URL for a provider that emails sign-in links', () => {
  it('reports a missing AUTH_URL as an error with email, unless AUTH_TRUST_HOST lists the hosts', async () => {
    const { root } = await scaffold(['--providers', 'oidc,email', '--adapter', 'memory']);
    await symlink(join(cliPackageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    const envPath = join(root, '.env');
    await writeFile(envPath, (await readFile(envPath, 'utf8')).replace(/^AUTH_URL=.*$/m, ''));
    const error = '✖ AUTH_URL is not set and the email provider sends links by email: the app refuses to start rather than build a link on a Host header.';
    expect((await frameworkAuth(['doctor', '--offline'], root)).stdout).toContain(error);
    await writeFile(envPath, setEnvValue(await readFile(envPath, 'utf8'), 'AUTH_TRUST_HOST', 'app.example.com'));
    expect((await frameworkAuth(['doctor', '--offline'], root)).stdout).not.toContain('links by email');
  });
});
