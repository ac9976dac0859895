// Issue 35 (S6): the feature commands are built from one catalog (src/catalog/features.ts). create's flag, the
// `add-<id>` and `remove-<id>` commands, their help, the checks and the plans come from a feature's entry, so the
// next feature is an entry and its runtime folder; nothing outside the catalog names a feature in code.
// Issue 47: an entry is complete: the env keys its runtime reads, the features it needs (feature-needs.test.ts), its
// partial of src/auth/index.ts, and the lists derived from the catalog (the JSON schemas, the create-then-add cases,
// test:fast) hold every feature.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { featureAnswers, featureCatalog, featureCommandName, featureDependencies, featuresOn, getFeature, optInLines } from '../../src/catalog/features.js';
import type { FeatureEntry } from '../../src/catalog/features.js';
import { getProvider, providerCatalog } from '../../src/catalog/providers.js';
import { checkFeaturesFit } from '../../src/generator/answers.js';
import { findEnvLine, readEnvLines } from '../../src/generator/edit/env-file.js';
import { cliPackageRoot, projectTemplateDir, runtimeTemplateDir } from '../../src/generator/paths.js';
import { desired, featurePartial } from '../../src/generator/plan/desired.js';
import { releaseFrom } from '../../src/generator/release.js';
import { fastTestFiles, slowCliTest } from '../../scripts/test-fast.js';
import { generatedComment, regeneratedSchema } from '../../scripts/schemas.js';
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
    // Organizations come last: API keys may be made for one, and the account page lists them.
    expect(featuresOn({ organizations: true, account: true, apiKeys: true }).map((entry) => entry.id)).toEqual(['api-keys', 'account', 'organizations']);
    // Administration after them: its user page shows the user's keys, account and memberships.
    expect(featuresOn({ admin: true, organizations: true, twoFactor: true }).map((entry) => entry.id)).toEqual(['two-factor', 'organizations', 'admin']);
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
      ['organizations', '/api/auth/organizations', 'Organizations'],
      // Only admins may open it: no link.
      ['admin', '/api/auth/admin', undefined],
    ]);
  });

  it('gives a feature the dependencies of the features it brings, and brings none that does not exist', () => {
    for (const entry of catalog) for (const id of entry.brings ?? []) expect(catalog.map((other) => other.id), `${entry.id} brings ${id}`).toContain(id);
    expect(featureDependencies(getFeature('admin'))).toEqual({ uqr: '^0.1.3', nodemailer: '^10.6.0' });
    expect(featureDependencies(getFeature('two-factor'))).toEqual({ uqr: '^0.1.3' });
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

/** The files of a runtime feature folder, with their text. */
function runtimeFolder(id: string): { path: string; text: string }[] {
  const dir = join(runtimeTemplateDir, 'features', id);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts'))
    .map((path) => ({ path, text: readFileSync(join(dir, path), 'utf8') }));
}

describe('a feature\'s env keys (issue 47)', () => {
  const release = releaseFrom({});

  // The shared mail module (features/email/: SMTP through AUTH_EMAIL_SERVER) reads its keys for the feature that sends.
  const envReads = (text: string): string[] => [...text.matchAll(/\benv\[['"`]([A-Z][A-Z0-9_]*)['"`]\]/g)].map((match) => match[1]!);
  const emailModulesRead = (text: string): string[] => [...text.matchAll(/from '\.\.\/email\/([a-z-]+)\.js'/g)].map((match) => readFileSync(join(runtimeTemplateDir, 'features', 'email', `${match[1]!}.ts`), 'utf8'));

  it.each(catalog.map((entry) => [entry.id, entry] as const))('are the keys the runtime folder of %s reads, itself or through the mail module', (id, entry) => {
    const read = new Set(runtimeFolder(id).flatMap(({ text }) => [...envReads(text), ...emailModulesRead(text).flatMap(envReads)]));
    read.delete('NODE_ENV');
    expect(entry.env.map((key) => key.name).sort()).toEqual([...read].sort());
    for (const key of entry.env) {
      expect(key.comment.length, key.name).toBeGreaterThan(0);
      expect(key.example.length, key.name).toBeGreaterThan(0);
    }
  });

  it('go into .env and .env.example under the feature\'s name, after the providers\' and before the database\'s', () => {
    const project = desired({ providers: ['github'], adapter: 'sqlite', account: true }, release);
    const groups = project.envGroups('');
    const keys = groups.flatMap((group) => group.entries.map((entry) => entry.key));
    expect(keys).toEqual(['AUTH_SECRET', 'AUTH_URL', 'AUTH_GITHUB_ID', 'AUTH_GITHUB_SECRET', 'AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM', 'DATABASE_URL']);
    const group = groups.find((candidate) => candidate.entries.some((entry) => entry.key === 'AUTH_EMAIL_SERVER'))!;
    expect(group.comment[0]).toBe('Account page.');
    expect(group.comment).toContain('AUTH_EMAIL_SERVER (optional): the SMTP server of its messages (printed on the console outside production while empty).');
    expect(group.comment).toContain('  e.g. smtp://user:password@smtp.example.com:587');
    expect(group.entries.every((entry) => entry.value === '')).toBe(true);
    expect(project.envKeys).toEqual(['AUTH_GITHUB_ID', 'AUTH_GITHUB_SECRET', 'AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM', 'DATABASE_URL']);
    // Without the feature, none of its keys.
    expect(desired({ providers: ['github'], adapter: 'sqlite' }, release).envKeys).toEqual(['AUTH_GITHUB_ID', 'AUTH_GITHUB_SECRET', 'DATABASE_URL']);
  });

  it('are written once when a provider reads them too, under the provider\'s name', async () => {
    const parent = await makeTempDir();
    const made = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'github,password', '--adapter', 'sqlite', '--account'], { cwd: parent });
    expect(made.exitCode, made.stderr).toBe(0);
    const example = await readFile(join(parent, 'app', '.env.example'), 'utf8');
    expect(readEnvLines(example).filter((line) => line.key === 'AUTH_EMAIL_SERVER')).toHaveLength(1);
    expect(example).toContain('# Email and password.\nAUTH_EMAIL_SERVER=\nAUTH_EMAIL_FROM=\n');
    expect(example).not.toContain('# Account page.');
  });

  it('create --account writes them (issue 47: it wrote no AUTH_EMAIL_SERVER); add-account adds them, remove-account takes them out of .env.example and, with --purge-env, of .env', async () => {
    const parent = await makeTempDir();
    const made = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'github', '--adapter', 'sqlite', '--account'], { cwd: parent });
    expect(made.exitCode, made.stderr).toBe(0);
    for (const file of ['.env', '.env.example']) {
      const text = await readFile(join(parent, 'app', file), 'utf8');
      expect(findEnvLine(text, 'AUTH_EMAIL_SERVER')?.value, file).toBe('');
      expect(findEnvLine(text, 'AUTH_EMAIL_FROM')?.value, file).toBe('');
    }

    const root = join(parent, 'other');
    expect((await runInProcess('create-framework-auth', ['other', '--yes', '--no-install', '--providers', 'github', '--adapter', 'sqlite'], { cwd: parent })).exitCode).toBe(0);
    const added = await runInProcess('framework-auth', ['add-account', '--no-install', '--json'], { cwd: root });
    expect(added.exitCode, added.stderr).toBe(0);
    // Optional keys: added, but not among those the user must fill in.
    expect(parseJsonOutput(added.stdout)).toMatchObject({ command: 'add-account', account: true, env: { added: ['AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM'], removed: [], fill: [], kept: [] } });
    expect(await readFile(join(root, '.env.example'), 'utf8')).toBe(await readFile(join(parent, 'app', '.env.example'), 'utf8'));

    const removed = await runInProcess('framework-auth', ['remove-account', '--json'], { cwd: root });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(parseJsonOutput(removed.stdout)).toMatchObject({ command: 'remove-account', env: { removed: ['AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM'], kept: ['AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM'] } });
    expect(findEnvLine(await readFile(join(root, '.env.example'), 'utf8'), 'AUTH_EMAIL_SERVER')).toBeUndefined();
    expect(findEnvLine(await readFile(join(root, '.env'), 'utf8'), 'AUTH_EMAIL_SERVER')).toBeDefined();

    expect((await runInProcess('framework-auth', ['add-account', '--no-install'], { cwd: root })).exitCode).toBe(0);
    const purged = await runInProcess('framework-auth', ['remove-account', '--purge-env', '--json'], { cwd: root });
    expect(purged.exitCode, purged.stderr).toBe(0);
    expect(parseJsonOutput(purged.stdout)).toMatchObject({ env: { removed: ['AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM'], kept: [] } });
    expect(findEnvLine(await readFile(join(root, '.env'), 'utf8'), 'AUTH_EMAIL_SERVER')).toBeUndefined();
  });

  it('share with the providers only the SMTP keys, which name the same server and sender for both', () => {
    const providerKeys = new Set(providerCatalog.flatMap((entry) => [...entry.env]));
    const shared = [...new Set(catalog.flatMap((entry) => entry.env.map((key) => key.name)).filter((name) => providerKeys.has(name)))];
    // The account and the organizations send through the SMTP server the email and password providers read.
    expect(shared).toEqual(['AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM']);
  });
});

describe('the features a feature needs (issue 47)', () => {
  // What a feature's runtime folder imports of another catalog feature's folder, it needs beside it or brings itself
  // (administration brings two-factor); what it imports of the database feature, it needs an adapter for. (The
  // runtime's own features, such as security events and rate limits, come with the feature's imports and its
  // `features: [...]`.)
  it.each(catalog.map((entry) => [entry.id, entry] as const))('are the catalog features whose folders the runtime of %s imports, but those it brings', (id, entry) => {
    const imported = new Set(runtimeFolder(id).flatMap(({ text }) => [...text.matchAll(/from '\.\.\/([a-z-]+)\//g)].map((match) => match[1]!)));
    const others = catalog.filter((other) => other.id !== id && imported.has(other.id)).map((other) => other.id);
    expect([...(entry.needs.features ?? []).map((need) => need.id), ...(entry.brings ?? [])].sort()).toEqual(others.sort());
    expect(entry.needs.adapter !== undefined).toBe(imported.has('database'));
  });
});

describe('src/auth/index.ts from one partial per feature (issue 47)', () => {
  const partialsDir = join(projectTemplateDir, 'auth', 'features');

  it('has a partial for each catalog feature and a catalog feature for each partial', () => {
    expect(readdirSync(partialsDir).sort()).toEqual(catalog.map((entry) => `${entry.id}.ts.hbs`).sort());
    for (const entry of catalog) expect(featurePartial(entry)).toBe(`auth/features/${entry.id}.ts`);
  });

  it('renders in each partial only the sections index.ts.hbs and server.ts.hbs call', () => {
    const index = readFileSync(join(projectTemplateDir, 'auth', 'index.ts.hbs'), 'utf8');
    const server = readFileSync(join(projectTemplateDir, 'server.ts.hbs'), 'utf8');
    const sections = (template: string): (string | undefined)[] => [...template.matchAll(/section='([a-zA-Z]+)'/g)].map((match) => match[1]);
    expect(sections(index)).toEqual(['imports', 'exports', 'requireAuth', 'helpers']);
    // The starter server: the routes a feature adds (it imports their names through FeatureEntry.starterServer).
    expect(sections(server)).toEqual(['server']);
    const called = [...sections(index), ...sections(server)];
    for (const template of [index, server]) expect(template).not.toMatch(/features\.[a-zA-Z]+/);
    for (const entry of catalog) {
      const partial = readFileSync(join(partialsDir, `${entry.id}.ts.hbs`), 'utf8');
      for (const [, name] of partial.matchAll(/\{\{#section '([a-zA-Z]+)'\}\}/g)) expect(called, `${entry.id}: ${name}`).toContain(name);
    }
  });

  it('writes what a feature\'s partial holds only when the feature is on', () => {
    const release = releaseFrom({});
    const index = (choices: Parameters<typeof desired>[0]): string => desired(choices, release).module.get('index.ts')!;
    expect(index({ providers: ['oidc'], adapter: 'memory' })).not.toContain('createApiKey');
    const withKeys = index({ providers: ['oidc'], adapter: 'memory', apiKeys: true, mount: '/api/auth' });
    expect(withKeys).toContain("import { createApiKey as createApiKeyFor } from './core/features/api-keys/index.js';");
    expect(withKeys).toContain("export type { CreatedApiKey, NewApiKey } from './core/features/api-keys/index.js';");
    expect(withKeys).toContain(" * A request with an API key (`Authorization: Bearer <key>`) passes as the key's user");
    expect(withKeys).toContain("as '/api/auth/api-keys'\n * does for a signed-in user");
    expect(withKeys).toContain('export function createApiKey(');
  });
});

describe('the lists derived from the catalog (issue 47)', () => {
  it.each(['cli-output', 'manifest'] as const)('docs/schemas/%s.schema.json holds each feature as npm run docs generates it from the catalog', (name) => {
    const text = readFileSync(join(cliPackageRoot, 'docs', 'schemas', `${name}.schema.json`), 'utf8');
    expect(text).toBe(regeneratedSchema(name, text));
    const schema = JSON.parse(text) as { definitions?: Record<string, { $comment?: string; properties?: { command?: { enum?: string[] } } }> };
    expect(text).toContain(generatedComment);
    for (const entry of catalog) {
      if (name === 'cli-output') expect(schema.definitions?.[entry.answersKey]?.properties?.command?.enum).toEqual([`add-${entry.id}`, `remove-${entry.id}`]);
      expect(text).toContain(`(${entry.flag.name}); absent when off`);
    }
    // Each generated block stands for a catalog feature.
    const generated = Object.entries(schema.definitions ?? {}).filter(([, block]) => block.$comment === generatedComment).map(([key]) => key);
    expect(generated).toEqual(name === 'cli-output' ? catalog.map((entry) => entry.answersKey) : []);
  });

  it('a schema left without a feature, or with one the catalog lacks, is generated again whole', () => {
    const text = readFileSync(join(cliPackageRoot, 'docs', 'schemas', 'cli-output.schema.json'), 'utf8');
    const schema = JSON.parse(text) as { definitions: Record<string, unknown>; oneOf: unknown[] };
    delete schema.definitions['account'];
    schema.definitions['gone'] = { $comment: generatedComment, type: 'object' };
    schema.oneOf.push({ $ref: '#/definitions/gone' });
    expect(regeneratedSchema('cli-output', JSON.stringify(schema))).toBe(text);
  });

  it('npm run test:fast runs the fast tests picked by rule, each catalog feature\'s runtime tests among them', () => {
    const pkg = JSON.parse(readFileSync(join(cliPackageRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['test:fast']).toBe('tsx scripts/test-fast.ts');
    const fast = fastTestFiles();
    // A feature's runtime tests are test/runtime/<id>.test.ts, or files named <id>-<part>.test.ts when split by part
    // (organizations-routes, organizations-access, …): at least one of them, in the fast run.
    for (const entry of catalog) {
      const own = fast.filter((path) => path === `test/runtime/${entry.id}.test.ts` || (path.startsWith(`test/runtime/${entry.id}-`) && path.endsWith('.test.ts')));
      expect(own, entry.id).not.toEqual([]);
    }
    // Every runtime test file is in; no file that runs the CLI or starts a process is.
    const runtimeTests = readdirSync(join(cliPackageRoot, 'test', 'runtime')).filter((name) => name.endsWith('.test.ts')).map((name) => `test/runtime/${name}`);
    expect(fast).toEqual(expect.arrayContaining(runtimeTests));
    for (const path of fast.filter((candidate) => candidate.startsWith('test/cli/'))) expect(readFileSync(join(cliPackageRoot, path), 'utf8'), path).not.toMatch(slowCliTest);
    expect(fast.every((path) => path.startsWith('test/runtime/') || path.startsWith('test/cli/'))).toBe(true);
    expect(fast).toContain('test/cli/catalog.test.ts');
    expect(fast).not.toContain('test/cli/create-then-add.test.ts');
  });
});
