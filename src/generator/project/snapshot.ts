import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { Refusal, usageError } from '../errors.js';
import { readProjectFile } from '../planned-file.js';
import { loadTypeScript } from '../typescript-api.js';
import type { TypeScriptApi } from '../typescript-api.js';
import { isSourceFileName, listFolderFiles, listSourceFiles, readSourceText } from './files.js';
import { locateAuthModule, recordedAuthModule } from './auth-module.js';
import { baseDir, manifestPath, parseManifest } from './manifest.js';
import type { Manifest } from './manifest.js';
import { readProjectShape } from './shape.js';
import { inCodeFormat } from '../code-format.js';
import type { PackageJsonInfo, ProjectLayout } from './shape.js';

/**
 * What the planners know of a project, read once by {@link readProject}: the planners are functions of a snapshot
 * and the user's intent, and only `readProject` (before) and the writer (after, checking nothing changed meanwhile)
 * touch the disk. A test builds one in memory with {@link snapshotOf}.
 */
export interface ProjectSnapshot {
  root: string;
  /** Whether the folder exists (a new project's does not yet). */
  exists: boolean;
  /** package.json as parsed (undefined when there is none). */
  packageJson: PackageJsonInfo | undefined;
  /** Express, the module system, the tsconfig, the folders and the server entry (project/shape.ts). */
  shape: ProjectLayout;
  /** Whether `node_modules` exists: without it, a run installs even when it adds no dependency. */
  hasNodeModules: boolean;
  /** The texts of the files read, by root-relative path. */
  files: ReadonlyMap<string, string>;
  /** What was read: a named file or a file below a folder here that `files` lacks is absent from the project. */
  covered: { files: readonly string[]; folders: readonly string[] };
  /** The source files below `src/` (for "does anything still import this file"), by path. */
  sourceFiles: ReadonlyMap<string, string>;
  /** The manifest (`framework-auth.json`) as parsed, read with the rest: undefined for a project without one. */
  manifest: Manifest | undefined;
  /**
   * The folder of the project's auth module (`src/auth`): the one the manifest records, else the first usual folder
   * that holds one, else the default (locateAuthModule). Its `config.ts` is read with the rest.
   */
  authDir: string;
  /** The TypeScript compiler the project's code is read with (loaded when first asked for; undefined without one). */
  typescript(): TypeScriptApi | undefined;
}

/** The files every planner may read, beside the auth module's folder, the manifest's and the server entry. */
const projectFiles = ['package.json', '.env', '.env.example', '.gitignore', 'tsconfig.json', manifestPath] as const;

/**
 * Reads what the planners need of the project at `root`, once: its shape, package.json, .env, .env.example,
 * .gitignore, tsconfig.json, the manifest (parsed: one that cannot be read is bad input), the server entry, every
 * file of the auth module (`authDir`, else where the manifest records it or the shape finds it) and of
 * `.framework-auth/`, and the source files below `src/`. A path that is a file is bad input (exit 2).
 */
export function readProject(root: string, options: { authDir?: string | undefined } = {}): ProjectSnapshot {
  const exists = existsSync(root);
  if (exists && !statSync(root).isDirectory()) throw usageError(`${root} exists and is not a directory`);
  const packageText = readProjectFile(root, 'package.json');
  const packageJson = packageText === undefined ? undefined : (parse(packageText) as PackageJsonInfo | undefined);
  let api: TypeScriptApi | undefined | null = null;
  const typescript = (): TypeScriptApi | undefined => (api === null ? (api = loadTypeScript(root)) : api);
  const manifestText = readProjectFile(root, manifestPath);
  const manifest = manifestText === undefined ? undefined : parseManifest(manifestText);
  const authDir = options.authDir ?? locateAuthModule(root, manifest);
  const read = readProjectShape(root, { packageJson, typescript });
  // What an earlier run wrote the module in is what it stays in.
  const shape = manifest?.code === undefined ? read : { ...read, code: manifest.code };
  const named = [...projectFiles, shape.serverEntry.path, `${shape.serverEntry.path}.merge`];
  const folders = [...new Set([shape.authDir, authDir, baseDir.split('/')[0]!])];
  const files = new Map<string, string>();
  for (const path of [...named, ...folders.flatMap((folder) => listFolderFiles(root, folder))]) {
    const text = readProjectFile(root, path);
    if (text !== undefined) files.set(path, text);
  }
  const sourceFiles = new Map(listSourceFiles(root, { under: 'src' }).flatMap((path) => {
    const text = readSourceText(root, path);
    return text === undefined ? [] : [[path, text] as const];
  }));
  return { root, exists, packageJson, shape, hasNodeModules: existsSync(join(root, 'node_modules')), files, covered: { files: named, folders }, sourceFiles, manifest, authDir, typescript };
}

/**
 * A snapshot made in memory: `files` by path (every path not there is absent), the manifest parsed from them, the
 * auth module where the manifest records it, else where `shape` puts it. For tests of the planners, which then need
 * no folder on disk.
 */
export function snapshotOf(input: { root: string; files?: Record<string, string>; shape: ProjectLayout; typescript?: () => TypeScriptApi | undefined; hasNodeModules?: boolean }): ProjectSnapshot {
  const files = new Map(Object.entries(input.files ?? {}));
  const packageText = files.get('package.json');
  const manifestText = files.get(manifestPath);
  const manifest = manifestText === undefined ? undefined : parseManifest(manifestText);
  return {
    root: input.root,
    exists: files.size > 0,
    packageJson: packageText === undefined ? undefined : (parse(packageText) as PackageJsonInfo | undefined),
    shape: input.shape,
    hasNodeModules: input.hasNodeModules ?? false,
    files,
    covered: { files: [], folders: [''] },
    sourceFiles: new Map([...files].filter(([path]) => path.startsWith('src/') && isSourceFileName(path))),
    manifest,
    authDir: recordedAuthModule(manifest) ?? input.shape.authDir,
    typescript: input.typescript ?? (() => undefined),
  };
}

/** The path of the auth module's config: `config.ts`, or `config.js` in a JavaScript project. */
export function authConfigPath(snapshot: ProjectSnapshot): string {
  return `${snapshot.authDir}/${inCodeFormat('config.ts', snapshot.shape.code)}`;
}

/** The text of a project file in the snapshot, or undefined when the project has none. */
export function fileIn(snapshot: ProjectSnapshot, path: string): string | undefined {
  const text = snapshot.files.get(path);
  if (text !== undefined) return text;
  const { covered } = snapshot;
  if (covered.files.includes(path) || covered.folders.some((folder) => folder === '' || path.startsWith(`${folder}/`))) return undefined;
  throw new Error(`readProject did not read ${path}: add it to what readProject reads (src/generator/project/snapshot.ts)`);
}

/**
 * The auth module's config as the snapshot read it: its path (`src/auth/config.ts`) and text. A project without one
 * is not a scaffolded project (the commands that edit one check that before they plan).
 */
export function authConfigIn(snapshot: ProjectSnapshot): { path: string; text: string } {
  const path = authConfigPath(snapshot);
  const text = fileIn(snapshot, path);
  if (text === undefined) {
    throw new Refusal('not-a-project', `No auth module in ${snapshot.root} (${path} is missing).`, { hint: 'Run "npx create-framework-auth" in the project first, or pass --cwd <project dir>.' });
  }
  return { path, text };
}
