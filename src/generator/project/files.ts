import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { join, posix } from 'node:path';
import type ts from 'typescript';
import type { TypeScriptApi } from '../typescript-api.js';

/**
 * The one owner of "a source file of the user's project": which extensions count, how a path is parsed, and the one
 * walk over the project's folders that module-system, project-imports and doctor share.
 */

/** Every extension Node or tsc reads as JavaScript or TypeScript source. */
export const sourceExtensions = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'] as const;

/** Not the user's sources: dependencies, build output, tooling caches. */
const skippedFolders = new Set(['node_modules', 'dist', 'build', 'out', 'coverage', 'bower_components', 'jspm_packages', 'tmp', 'temp']);

/** A project of thousands of files is read in part: every caller's answer needs far fewer. */
const defaultMaxFiles = 2000;

/** A file larger than this is not read as source (generated bundles, fixtures). */
export const maxSourceFileSize = 1_000_000;

/** Whether a file name is a source file: one of {@link sourceExtensions}, declaration files left out. */
export function isSourceFileName(name: string): boolean {
  return !name.endsWith('.d.ts') && sourceExtensions.some((extension) => name.endsWith(extension));
}

/** `src/app.ts` → `src/app`: a path without its source extension, to compare with an import specifier. */
export function withoutSourceExtension(path: string): string {
  const extension = sourceExtensions.find((candidate) => path.endsWith(candidate));
  return extension === undefined ? path : path.slice(0, -extension.length);
}

/** How the TypeScript parser reads a file of this name. */
export function scriptKindOf(api: TypeScriptApi, path: string): ts.ScriptKind {
  if (path.endsWith('.tsx')) return api.ScriptKind.TSX;
  if (path.endsWith('.jsx')) return api.ScriptKind.JSX;
  if (/\.[cm]?ts$/.test(path)) return api.ScriptKind.TS;
  return api.ScriptKind.JS;
}

/** Whether a file without an extension is a Node script (`#!/usr/bin/env node`, as express-generator's bin/www). */
function isNodeScript(path: string): boolean {
  try {
    if (statSync(path).size > maxSourceFileSize) return false;
    return /^#!.*\bnode\b/.test(readFileSync(path, 'utf8').slice(0, 200));
  } catch {
    return false;
  }
}

/** Options of {@link listSourceFiles}. */
export interface SourceWalkOptions {
  /** The folder to walk, root-relative (default: the whole project). */
  under?: string;
  /** Root-relative folders left out (the auth module, the project's outDir, workspace packages below it). */
  skip?: readonly string[];
  /** Also list extensionless Node scripts, which run in the package's module format too. */
  nodeScripts?: boolean;
  /** At most this many files (default 2000). */
  maxFiles?: number;
}

/**
 * The source files of a project (root-relative, "/" separators, sorted), leaving out dependencies, build output,
 * hidden folders, folders with their own package.json (another package) and `skip`. Only regular files: a socket,
 * FIFO or device named like a source file cannot be read (or would block).
 */
export function listSourceFiles(root: string, options: SourceWalkOptions = {}): string[] {
  const files: string[] = [];
  const maxFiles = options.maxFiles ?? defaultMaxFiles;
  const skipped = new Set((options.skip ?? []).map((path) => path.replace(/\/+$/, '')).filter((path) => path !== '' && path !== '.'));
  const start = options.under === undefined ? '' : posix.normalize(options.under).replace(/^\.\/?|\/+$/g, '');
  walk(root, start === '.' ? '' : start, (path, entry) => {
    if (files.length >= maxFiles) return false;
    if (entry.isDirectory()) {
      return !(entry.name.startsWith('.') || skippedFolders.has(entry.name) || skipped.has(path) || existsSync(join(root, path, 'package.json')));
    }
    if (entry.isFile() && isSourceFileName(entry.name)) files.push(path);
    else if (options.nodeScripts === true && entry.isFile() && !entry.name.includes('.') && isNodeScript(join(root, path))) files.push(path);
    return false;
  });
  return files;
}

/**
 * The one walk over a project's folders: each entry below `start` (root-relative, sorted by name) is shown to
 * `visit`, which says whether to go into it (folders only). An unreadable folder is skipped.
 */
function walk(root: string, start: string, visit: (path: string, entry: Dirent) => boolean): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(root, start), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = start === '' ? entry.name : posix.join(start, entry.name);
    if (visit(path, entry) && entry.isDirectory()) walk(root, path, visit);
  }
}

/** A project file's text, or undefined when it is missing, not a regular file, or too large to be source. */
export function readSourceText(root: string, path: string): string | undefined {
  const full = join(root, path);
  try {
    const stats = statSync(full);
    return stats.isFile() && stats.size <= maxSourceFileSize ? readFileSync(full, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the project has code the planners read with the TypeScript parser: a tsconfig.json or a source file. */
export function projectHasCode(root: string): boolean {
  return existsSync(join(root, 'tsconfig.json')) || listSourceFiles(root, { maxFiles: 1, nodeScripts: true }).length > 0;
}

/**
 * Every regular file below `folder` (root-relative, "/" separators, sorted), hidden ones included: the generated
 * folders the CLI owns (the auth module, `.framework-auth/`), which hold `.merge` files and kept bases of any name.
 */
export function listFolderFiles(root: string, folder: string): string[] {
  const files: string[] = [];
  walk(root, folder, (path, entry) => {
    if (entry.isFile()) files.push(path);
    return entry.isDirectory();
  });
  return files;
}
