import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { usageError } from './errors.js';

/** What the writer will do with one file. */
export const fileActions = ['create', 'update', 'unchanged', 'conflict', 'delete'] as const;

/** One of {@link fileActions}. */
export type FileAction = (typeof fileActions)[number];

/** One file of a plan: the decision and the content, made before anything is written. */
export interface PlannedFile {
  /** Path relative to the project root, with "/" separators. */
  path: string;
  action: FileAction;
  /** The content written for create/update; for a conflict, what would have been written; '' for delete. */
  content: string;
  /** The file's current content, or undefined when it does not exist (used to roll back). */
  previous: string | undefined;
  /** File mode for a created file (e.g. 0o600 for .env). */
  mode?: number;
  /** Why: the merge's changes, or why a conflict was kept. */
  reason?: string;
  /**
   * For a file the CLI generates (runtime copy, auth module, starter server): what this version renders for the
   * answers, before any merge with the user's edits. Kept beside the manifest as the base of later 3-way merges.
   */
  base?: string;
}

/** The text of `root/path`, or undefined when there is no such file. A directory in its place is bad input. */
export function readProjectFile(root: string, path: string): string | undefined {
  const full = join(root, path);
  let isFile: boolean;
  try {
    isFile = statSync(full).isFile();
  } catch {
    return undefined;
  }
  if (!isFile) throw usageError(`${path} exists but is not a file`);
  return readFileSync(full, 'utf8');
}

/**
 * A file the CLI generates in full (runtime copy, auth module): created, unchanged, or — when the user changed it —
 * a conflict kept as it is, unless `force`.
 */
export function planOwnedFile(path: string, previous: string | undefined, content: string, force: boolean): PlannedFile {
  if (previous === undefined) return { path, action: 'create', content, previous, base: content };
  if (previous === content) return { path, action: 'unchanged', content, previous, base: content };
  if (force) return { path, action: 'update', content, previous, reason: 'your changes are overwritten (--force)', base: content };
  return {
    path,
    action: 'conflict',
    content,
    previous,
    reason: 'differs from what this version generates (changed by you?); kept as it is, --force overwrites it (framework-auth update merges it instead)',
    base: content,
  };
}

/** Removes a file the CLI wrote (a provider's runtime file no longer used, a base no longer needed). */
export function planDeletedFile(path: string, previous: string, reason?: string): PlannedFile {
  return { path, action: 'delete', content: '', previous, ...(reason === undefined ? {} : { reason }) };
}

/** A file the CLI merges into (package.json, tsconfig, .env, ...): the merge already kept everything of the user's. */
export function planMergedFile(path: string, previous: string | undefined, content: string, reason?: string, mode?: number): PlannedFile {
  const action: FileAction = previous === undefined ? 'create' : previous === content ? 'unchanged' : 'update';
  return {
    path,
    action,
    content,
    previous,
    ...(mode !== undefined && previous === undefined ? { mode } : {}),
    ...(reason !== undefined && action !== 'unchanged' ? { reason } : {}),
  };
}
