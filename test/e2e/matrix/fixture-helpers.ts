// Helpers of the project-shape tests: copy a fixture, compare trees, and apply the mount lines the CLI printed,
// as a user pastes them.
import { cp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../helpers/project.js';
import { linkProjectDeps, repoRoot } from '../helpers/shared-deps.js';

/** test/fixtures/<name>, copied into a fresh temp dir; returns the copy's path. */
export async function copyFixture(name: string): Promise<string> {
  const source = fileURLToPath(new URL(`../../fixtures/${name}/`, import.meta.url));
  const target = join(await makeTempDir('cfa-shape-'), name);
  await cp(source, target, { recursive: true });
  return target;
}

/** The user's file as it is in the fixture. */
export function readFixtureFile(name: string, path: string): Promise<string> {
  return readFile(fileURLToPath(new URL(`../../fixtures/${name}/${path}`, import.meta.url)), 'utf8');
}

/** What changed between two {@link snapshotTree} results. */
export interface TreeChanges {
  added: string[];
  changed: string[];
  removed: string[];
}

/** Files added, changed and removed between two snapshots, each list sorted. */
export function treeChanges(before: Record<string, string>, after: Record<string, string>): TreeChanges {
  return {
    added: Object.keys(after).filter((path) => !(path in before)).sort(),
    changed: Object.keys(after).filter((path) => path in before && before[path] !== after[path]).sort(),
    removed: Object.keys(before).filter((path) => !(path in after)).sort(),
  };
}

/**
 * Whether a created file is one the CLI writes: the auth module, env files, and its bookkeeping (the manifest and
 * the bases of `framework-auth update`), plus the files a layout needs (a tsconfig for a JavaScript app).
 */
export function isGeneratedPath(path: string, authDir: string, extra: readonly string[] = []): boolean {
  return (
    path.startsWith(`${authDir}/`) ||
    ['.env', '.env.example', 'framework-auth.json', ...extra].includes(path) ||
    path.startsWith('.framework-auth/')
  );
}

/** The block of "Mount the auth module in <file>:" from the CLI's output: the import and the calls on the app. */
export interface PrintedMount {
  file: string;
  importLine: string;
  appLines: string[];
}

/** Reads the printed mount instructions (clack's "│  " gutter removed). */
export function printedMount(stdout: string): PrintedMount {
  const lines = stdout.split('\n').map((line) => line.replace(/^│ {2}/, '').replace(/\s+$/, ''));
  const start = lines.findIndex((line) => line.startsWith('Mount the auth module in '));
  const file = /^Mount the auth module in (\S+):$/.exec(lines[start] ?? '')?.[1];
  if (start === -1 || file === undefined) throw new Error(`no mount instructions in:\n${stdout}`);
  const block: string[] = [];
  for (let index = start + 1; lines[index]?.startsWith('  '); index += 1) block.push((lines[index] ?? '').slice(2));
  const [importLine, ...appLines] = block;
  if (!importLine || !/^(import\s|const .* = require\()/.test(importLine)) throw new Error(`the mount instructions do not start with an import or a require:\n${block.join('\n')}`);
  return { file, importLine, appLines };
}

/**
 * Pastes the printed lines into the app's source as the instructions say: the import (or require) after the last
 * one, the calls right after the line that makes the app (`const app = express();`).
 */
export function applyMount(source: string, mount: PrintedMount): string {
  const lines = source.split('\n');
  const lastImport = lines.reduce((last, line, index) => (/^(import\s|const .* = require\()/.test(line) ? index : last), -1);
  lines.splice(lastImport + 1, 0, mount.importLine);
  const made = lines.findIndex((line) => /=\s*express\(\);\s*$/.test(line));
  if (made === -1) throw new Error(`no "= express();" line in:\n${source}`);
  lines.splice(made + 1, 0, ...mount.appLines);
  return lines.join('\n');
}

/** Applies {@link applyMount} to the file the CLI named, inside `projectDir`. */
export async function mountInProject(projectDir: string, stdout: string): Promise<PrintedMount> {
  const mount = printedMount(stdout);
  const path = join(projectDir, mount.file);
  await writeFile(path, applyMount(await readFile(path, 'utf8'), mount));
  return mount;
}

/** Replaces exact text in a project file, failing when it is not there (a user's edit, done by the test). */
export async function editFile(projectDir: string, path: string, edits: readonly [string, string][]): Promise<void> {
  const full = join(projectDir, path);
  let text = await readFile(full, 'utf8');
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`${path} does not contain ${JSON.stringify(from)}`);
    text = text.replace(from, to);
  }
  await writeFile(full, text);
}

/**
 * The shared dependencies (linkProjectDeps), with Express 4 in place of Express 5: this repo's `express4` alias,
 * which the runtime's own Express 4 tests use.
 */
export async function linkDepsWithExpress4(projectDir: string): Promise<void> {
  await linkProjectDeps(projectDir, []);
  const link = join(projectDir, 'node_modules/express');
  await rm(link, { force: true });
  await symlink(join(repoRoot, 'node_modules/express4'), link, 'dir');
}
