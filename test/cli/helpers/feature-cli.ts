/**
 * What the CLI tests of a feature that `create --<id>`, `add-<id>` and `remove-<id>` write and take out (admin,
 * organizations) do alike: make a project, run add/remove with --json or --dry-run and check that what must not change
 * did not, read the results. Each helper asserts the exit code and the untouched project itself and hands back what the
 * test goes on to check.
 */
import { readdirSync } from 'node:fs';
import { cp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { expect } from 'vitest';
import { cliPackageRoot, runtimeTemplateDir } from '../../../src/generator/paths.js';
import { parseJsonOutput, parseManifestJson } from './json-schema.js';
import { projectTree } from './project-tree.js';
import { createApp, frameworkAuthIn, makeTempDir, runInProcess, type CliResult } from './run-cli.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** A runtime feature folder's files, as templates/runtime holds them, at their path in a project. */
export function featurePaths(id: string): string[] {
  return readdirSync(join(runtimeTemplateDir, 'features', id))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `src/auth/core/features/${id}/${file}`);
}

/** A file of the project, as text. */
function readProjectFile(root: string, path: string): Promise<string> {
  return readFile(join(root, path), 'utf8');
}

/** The answers framework-auth.json records. */
export async function manifestAnswers(root: string): Promise<unknown> {
  return parseManifestJson(await readProjectFile(root, 'framework-auth.json')).answers;
}

/** The links of the starter server's home page for a signed-in user. */
export const homeLinks = (server: string): string => /const links = user\n\s+\? `([^`]*)`/.exec(server)?.[1] ?? '';

/** This repo's installs stand in for npm install. */
export async function withInstalls(root: string): Promise<string> {
  await symlink(join(cliPackageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  return root;
}

/** The project's own tsc, --noEmit. */
export async function tsc(root: string): Promise<{ exitCode: number | undefined; all: string }> {
  const result = await execa(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root, '--noEmit'], { reject: false, all: true });
  return { exitCode: result.exitCode, all: String(result.all) };
}

/** tsc finds nothing in the project. */
export async function expectCompiles(root: string): Promise<void> {
  const compiled = await tsc(root);
  expect(compiled.all).toBe('');
  expect(compiled.exitCode).toBe(0);
}

/** `create-framework-auth app --yes --no-install <flags>` refused (exit 2) before writing anything, saying each of `messages`. */
export async function expectCreateRefused(flags: readonly string[], messages: readonly string[]): Promise<void> {
  const parent = await makeTempDir();
  const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', ...flags], { cwd: parent });
  expect(result.exitCode).toBe(2);
  for (const message of messages) expect(result.stderr).toContain(message);
  expect(await readdir(parent)).toEqual([]);
}

/** The project's src/auth/config.ts imports `<call>` from the feature's folder `id` and lists only `<call>()` in its features; its text. */
export async function configWithFeature(root: string, id: string, call: string): Promise<string> {
  const config = await readProjectFile(root, 'src/auth/config.ts');
  expect(config).toContain(`import { ${call} } from './core/features/${id}/index.js';`);
  expect(config).toContain(`  features: [${call}()],\n`);
  return config;
}

/** The --json document of `create-framework-auth app --yes --no-install <flags> --json`, which succeeded. */
export async function createJson<T>(flags: readonly string[]): Promise<T> {
  const parent = await makeTempDir();
  const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', ...flags, '--json'], { cwd: parent });
  expect(result.exitCode, result.stderr).toBe(0);
  return parseJsonOutput(result.stdout) as T;
}

/**
 * `create-framework-auth app --yes --no-install <flags> --dry-run`, with --json and without: both succeed, the
 * document says `dryRun`, the text says nothing was written, and nothing was. The document and the text.
 */
export async function createDryRun(flags: readonly string[]): Promise<{ document: { answers: Record<string, unknown>; files: { created: string[] } }; text: string }> {
  const parent = await makeTempDir();
  const args = ['app', '--yes', '--no-install', ...flags, '--dry-run'];
  const result = await runInProcess('create-framework-auth', [...args, '--json'], { cwd: parent });
  expect(result.exitCode, result.stderr).toBe(0);
  const document = parseJsonOutput(result.stdout) as { dryRun: boolean; answers: Record<string, unknown>; files: { created: string[] } };
  expect(document.dryRun).toBe(true);
  expect(await readdir(parent)).toEqual([]);

  const text = await runInProcess('create-framework-auth', args, { cwd: parent });
  expect(text.exitCode, text.stderr).toBe(0);
  expect(text.stdout).toContain('Dry run: nothing was written.');
  expect(await readdir(parent)).toEqual([]);
  return { document, text: text.stdout };
}

/**
 * A project created with `--<id>` is the one created without it and then given `add-<id> --no-install`; `remove-<id>
 * <removeFlags> --json` gives back the one without, its document saying `<id>: false`. What add printed, and remove's
 * result and document.
 */
export async function addThenRemove(id: string, createFlags: readonly string[], removeFlags: readonly string[] = []): Promise<{ added: CliResult; removed: CliResult; document: unknown }> {
  const together = await createApp([...createFlags, `--${id}`]);
  const root = await createApp(createFlags);
  const without = await projectTree(root);
  const added = await frameworkAuthIn([`add-${id}`, '--no-install'], root);
  expect(added.exitCode, added.stderr).toBe(0);
  expect(await projectTree(root)).toEqual(await projectTree(together));

  const removed = await frameworkAuthIn([`remove-${id}`, ...removeFlags, '--json'], root);
  expect(removed.exitCode, removed.stderr).toBe(0);
  const document = parseJsonOutput(removed.stdout);
  expect(document).toMatchObject({ command: `remove-${id}`, [id]: false });
  expect(await projectTree(root)).toEqual(without);
  return { added, removed, document };
}

/** In a project created with `--<id>`, add-<id> again and remove-<id> twice change nothing, and say so. */
export async function expectAddAndRemoveAgainChangeNothing(id: string, createFlags: readonly string[]): Promise<void> {
  const root = await createApp([...createFlags, `--${id}`]);
  const before = await projectTree(root);
  const again = await frameworkAuthIn([`add-${id}`, '--no-install', '--json'], root);
  expect(again.exitCode, again.stderr).toBe(0);
  expect(parseJsonOutput(again.stdout)).toMatchObject({ command: `add-${id}`, [id]: true, files: { created: [], updated: [], deleted: [] } });
  expect(again.stderr).toContain(`The ${id} feature is already in src/auth/config.ts; nothing changed.`);
  expect(await projectTree(root)).toEqual(before);

  expect((await frameworkAuthIn([`remove-${id}`], root)).exitCode).toBe(0);
  const removed = await projectTree(root);
  const twice = await frameworkAuthIn([`remove-${id}`], root);
  expect(twice.exitCode, twice.stderr).toBe(0);
  expect(twice.stdout).toContain(`The ${id} feature is not in src/auth/config.ts; nothing to remove.`);
  expect(await projectTree(root)).toEqual(removed);
}

/** `framework-auth <argv>` in the project succeeds and changes nothing in it; what it printed. */
export async function changesNothing(argv: readonly string[], root: string): Promise<CliResult> {
  const before = await projectTree(root);
  const result = await frameworkAuthIn(argv, root);
  expect(result.exitCode, result.stderr).toBe(0);
  expect(await projectTree(root)).toEqual(before);
  return result;
}

/** `add-<id> --dry-run --json` in the project: its plan, which says `dryRun` and `<id>: true`; nothing written. */
export async function addDryRun(id: string, root: string): Promise<{ files: { created: string[]; updated: string[] } }> {
  const result = await changesNothing([`add-${id}`, '--dry-run', '--json'], root);
  const document = parseJsonOutput(result.stdout) as { files: { created: string[]; updated: string[] } };
  expect(document).toMatchObject({ command: `add-${id}`, dryRun: true, [id]: true });
  return document;
}

/** `remove-<id> --dry-run` in the project: its plan, as text, which says nothing was written; nothing was. */
export async function removeDryRun(id: string, root: string): Promise<string> {
  const text = await changesNothing([`remove-${id}`, '--dry-run'], root);
  expect(text.stdout).toContain('Dry run: nothing was written.');
  return text.stdout;
}

/** `add-<id>` refused in the project (exit 2), saying each of `messages`, changing nothing. */
export async function expectAddRefused(id: string, root: string, messages: readonly string[]): Promise<void> {
  const before = await projectTree(root);
  const result = await frameworkAuthIn([`add-${id}`], root);
  expect(result.exitCode).toBe(2);
  for (const message of messages) expect(result.stderr).toContain(message);
  expect(await projectTree(root)).toEqual(before);
}

/**
 * In a project created with `createFlags`, add-<id> writes `<call>()`, the user gives it options (`<call>(options)`
 * with `options` the text between the parentheses), and remove-<id> gives back the config as it was.
 */
export async function expectRemovesWithOptions(id: string, call: string, options: string, createFlags: readonly string[]): Promise<void> {
  const root = await createApp(createFlags);
  const configPath = join(root, 'src/auth/config.ts');
  const before = await readFile(configPath, 'utf8');
  expect((await frameworkAuthIn([`add-${id}`, '--no-install'], root)).exitCode).toBe(0);
  await writeFile(configPath, (await readFile(configPath, 'utf8')).replace(`${call}()`, `${call}(${options})`));
  const removed = await frameworkAuthIn([`remove-${id}`], root);
  expect(removed.exitCode, removed.stderr).toBe(0);
  expect(await readFile(configPath, 'utf8')).toBe(before);
}

/**
 * A copy of test/fixtures/<name> (a JavaScript project) in which `create-framework-auth . --yes --no-install <flags>`
 * succeeded, writing auth/index.js with `importLine` (the feature's import, in the project's module system). The
 * project's folder and auth/index.js.
 */
export async function createInFixture(name: string, flags: readonly string[], importLine: string): Promise<{ root: string; index: string }> {
  const root = join(await makeTempDir('cfa-js-'), name);
  await cp(join(repoRoot, 'test/fixtures', name), root, { recursive: true });
  const made = await runInProcess('create-framework-auth', ['.', '--yes', '--no-install', ...flags], { cwd: root });
  expect(made.exitCode, made.stderr).toBe(0);
  const index = await readProjectFile(root, 'auth/index.js');
  expect(index).toContain(importLine);
  return { root, index };
}

/**
 * Runs `script` (an ES module that imports the project's auth/index.js, named by AUTH_INDEX, and prints one JSON line
 * last) with node in the project, this repo's installs standing in for npm install. Its exit code, stderr and what its last line says.
 */
export async function runWithAuthIndex<T>(root: string, script: string, env: Record<string, string> = {}): Promise<{ exitCode: number | undefined; stderr: string; answer(): T }> {
  await withInstalls(root);
  const result = await execa(process.execPath, ['--input-type=module', '--eval', script], {
    cwd: root,
    env: { AUTH_INDEX: join(root, 'auth/index.js'), AUTH_SECRET: 'a'.repeat(43), AUTH_URL: 'http://localhost:3000', ...env },
    reject: false,
  });
  return { exitCode: result.exitCode, stderr: String(result.stderr), answer: () => JSON.parse(String(result.stdout).trim().split('\n').at(-1)!) as T };
}

/**
 * A project created with `createFlags` whose config the user gave `<call>()` by hand (its import from the feature's
 * folder `id` and a `features` line): `doctor --offline` fails (exit 1); its stdout.
 */
export async function doctorOnFeatureByHand(id: string, call: string, createFlags: readonly string[]): Promise<string> {
  const root = await createApp(createFlags);
  const configPath = join(root, 'src/auth/config.ts');
  const config = await readFile(configPath, 'utf8');
  await writeFile(configPath, config.replace("import './env.js';", `import './env.js';\nimport { ${call} } from './core/features/${id}/index.js';`).replace(/\n};\s*$/, `\n  features: [${call}()],\n};\n`));
  const result = await frameworkAuthIn(['doctor', '--offline'], root);
  expect(result.exitCode).toBe(1);
  return result.stdout;
}

/** Doctor's finding `id` in its --json document (`argv` its arguments), its id left out; undefined when it has none. */
export async function doctorFinding(root: string, id: string, argv: readonly string[]): Promise<{ status: string; message: string; fix?: string } | undefined> {
  const result = await frameworkAuthIn(argv, root);
  const found = (parseJsonOutput(result.stdout) as { findings: { id: string; status: string; message: string; fix?: string }[] }).findings.find((each) => each.id === id);
  if (!found) return undefined;
  const { id: _id, ...rest } = found;
  return rest;
}
