// Issue 35 (S6): the feature commands are built from one catalog (src/catalog/features.ts). create's flag, the
// `add-<id>` and `remove-<id>` commands, their help, the checks and the plans come from a feature's entry, so the
// next feature is an entry and its runtime folder; nothing outside the catalog names a feature in code.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { featureAnswers, featureCatalog, featureCommandName, featuresOn, optInLines } from '../../src/catalog/features.js';
import type { FeatureEntry } from '../../src/catalog/features.js';
import { getProvider } from '../../src/catalog/providers.js';
import { checkFeaturesFit } from '../../src/generator/answers.js';
import { cliPackageRoot, runtimeTemplateDir } from '../../src/generator/paths.js';
import { parseJsonOutput } from './helpers/json-schema.js';
import { makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const catalog: readonly FeatureEntry[] = featureCatalog;

describe('the feature catalog', () => {
  it.each(catalog.map((entry) => [entry.id, entry] as const))('has a runtime folder for %s whose index exports the factory the config imports', (id, entry) => {
    expect(entry.importPath).toBe(`./core/features/${id}/index.js`);
    const index = join(runtimeTemplateDir, 'features', id, 'index.ts');
    expect(existsSync(index)).toBe(true);
    expect(readFileSync(index, 'utf8')).toMatch(new RegExp(`export (function|const) ${entry.importName}\\b`));
    expect(entry.snippet.startsWith(`${entry.importName}(`)).toBe(true);
  });

  it('names the flag, the answers key and the commands after the id', () => {
    for (const entry of catalog) {
      expect(entry.flag.name).toBe(`--${entry.id}`);
      expect(entry.answersKey).toBe(entry.id.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()));
      expect([featureCommandName(entry, true), featureCommandName(entry, false)]).toEqual([`add-${entry.id}`, `remove-${entry.id}`]);
    }
  });

  it('turns answers into the features that are on, and back, in catalog order', () => {
    expect(featuresOn({ twoFactor: true }).map((entry) => entry.id)).toEqual(['two-factor']);
    expect(featuresOn({ twoFactor: false })).toEqual([]);
    expect(featureAnswers(featuresOn({ twoFactor: true }))).toEqual({ twoFactor: true });
    expect(featureAnswers([])).toEqual({});
    expect(featuresOn({ apiKeys: true, twoFactor: true }).map((entry) => entry.id)).toEqual(['two-factor', 'api-keys']);
    expect(featureAnswers(featuresOn({ apiKeys: true }))).toEqual({ apiKeys: true });
    // The account comes after API keys, as create writes them in the config.
    expect(featuresOn({ account: true, apiKeys: true, twoFactor: true }).map((entry) => entry.id)).toEqual(['two-factor', 'api-keys', 'account']);
    expect(featureAnswers(featuresOn({ account: true }))).toEqual({ account: true });
  });

  it('gives an opted-in provider its option lines, which its snippet starts with', () => {
    const credentials = getProvider('credentials');
    const lines = optInLines('credentials', catalog);
    expect(lines).toEqual(['twoFactor: true, // users who turned two-factor on enter a code after authorize()']);
    expect(credentials.snippetWith!(lines)).toBe(credentials.snippet.replace('Credentials({', `Credentials({\n  ${lines[0]}`));
    expect(optInLines('password', catalog)).toEqual([]);
  });

  it('refuses answers that do not fit a feature, with the messages of its entry', () => {
    expect(() => checkFeaturesFit({ providers: ['oidc'], adapter: 'sqlite', twoFactor: true })).toThrow('--two-factor asks for a code after a password, and none of the providers (oidc) signs in with one.');
    expect(() => checkFeaturesFit({ providers: ['password'], adapter: 'none', twoFactor: true })).toThrow('--two-factor needs a database adapter, but --adapter is "none": TOTP secrets, recovery codes and pending sign-ins are stored through the adapter.');
    expect(() => checkFeaturesFit({ providers: ['password'], adapter: 'sqlite', twoFactor: true })).not.toThrow();
    // API keys need an adapter and no provider in particular.
    expect(() => checkFeaturesFit({ providers: ['oidc'], adapter: 'none', apiKeys: true })).toThrow('--api-keys needs a database adapter, but --adapter is "none": API keys (their digests) are stored through the adapter.');
    expect(() => checkFeaturesFit({ providers: ['github'], adapter: 'memory', apiKeys: true })).not.toThrow();
    // The account too: its security events and pending address changes are stored.
    expect(() => checkFeaturesFit({ providers: ['password'], adapter: 'none', account: true })).toThrow('--account needs a database adapter, but --adapter is "none": security events and address changes are stored through the adapter.');
    expect(() => checkFeaturesFit({ providers: ['oidc'], adapter: 'postgres', account: true })).not.toThrow();
  });

  it('gives a feature\'s page its path below the mount path, for the starter server\'s link', () => {
    expect(catalog.filter((entry) => entry.page).map((entry) => [entry.id, entry.page!.path('/api/auth'), entry.page!.linkText])).toEqual([
      ['api-keys', '/api/auth/api-keys', 'API keys'],
      ['account', '/api/auth/account', 'Your account'],
    ]);
  });
});

describe('the feature commands', () => {
  it.each(catalog.map((entry) => [entry.id, entry] as const))('framework-auth has the add and remove commands of %s, with the description and help of its entry', async (_id, entry) => {
    const cwd = await makeTempDir();
    const list = await runInProcess('framework-auth', ['--help'], { cwd });
    for (const on of [true, false]) {
      const name = featureCommandName(entry, on);
      expect(list.stdout).toContain(name);
      const help = await runInProcess('framework-auth', [name, '--help'], { cwd });
      expect(help.exitCode).toBe(0);
      const { description, help: after } = on ? entry.commands.add : entry.commands.remove;
      expect(help.stdout.replace(/\s+/g, ' ')).toContain(description);
      expect(help.stdout).toContain(after.trim());
    }
    const create = await runInProcess('create-framework-auth', ['--help'], { cwd });
    expect(create.stdout).toContain(entry.flag.name);
  });

  it('reports the feature by its answers key in the --json document', async () => {
    const parent = await makeTempDir();
    const made = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'password', '--adapter', 'memory'], { cwd: parent });
    expect(made.exitCode, made.stderr).toBe(0);
    const result = await runInProcess('framework-auth', ['add-two-factor', '--dry-run', '--json'], { cwd: join(parent, 'app') });
    expect(parseJsonOutput(result.stdout)).toMatchObject({ command: 'add-two-factor', twoFactor: true });
  });
});

describe('no feature named outside the catalog', () => {
  // Code only: comments and help examples may name a feature.
  const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const sourceFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((item) => {
      const path = join(dir, item.name);
      if (item.isDirectory()) return path === join(cliPackageRoot, 'src', 'catalog') ? [] : sourceFiles(path);
      return item.name.endsWith('.ts') ? [path] : [];
    });
  // Issue 38: the account feature's answers key and factory are everyday words (dev-idp's `account` variables,
  // oidc-provider's `Account` interface), so a key counts as used as a property (`answers.account`, `account: true`)
  // and a factory as called (`Account(`); an id counts quoted.
  const names = catalog.flatMap((entry) => [`\\.${entry.answersKey}\\b`, `\\b${entry.answersKey}\\??\\s*:`, `\\b${entry.importName}\\s*\\(`, `'${entry.id}'`, `"${entry.id}"`]);
  const pattern = new RegExp(names.join('|'));

  it('the check finds a feature named in code', () => {
    expect(pattern.test("if (answers.twoFactor) add('TwoFactor()');")).toBe(true);
    expect(pattern.test("getFeature('two-factor')")).toBe(true);
    expect(pattern.test('const answers = { twoFactor: true };')).toBe(true);
    expect(pattern.test('features: [Account()]')).toBe(true);
    expect(pattern.test('// answers.twoFactor in a comment is fine')).toBe(true);
    expect(pattern.test(withoutComments('// answers.twoFactor in a comment is fine'))).toBe(false);
    // A word that is a feature's name only by chance is not a use of the feature.
    expect(pattern.test('const account = accounts.get(login);')).toBe(false);
    expect(pattern.test('export interface Account {')).toBe(false);
  });

  it('src/ (but src/catalog/) names no feature by its id, answers key or factory in code', () => {
    const found = sourceFiles(join(cliPackageRoot, 'src')).flatMap((path) =>
      withoutComments(readFileSync(path, 'utf8'))
        .split('\n')
        .filter((line) => pattern.test(line))
        .map((line) => `${relative(cliPackageRoot, path)}: ${line.trim()}`),
    );
    // A feature-specific behaviour belongs in a field of FeatureEntry (src/catalog/features.ts).
    expect(found).toEqual([]);
  });
});
