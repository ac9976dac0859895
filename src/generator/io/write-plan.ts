import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, readFile, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { Refusal, cancelledError } from '../errors.js';
import type { PlannedFile } from '../planned-file.js';

/** Options of {@link writePlannedFiles}. */
export interface WriteOptions {
  /** Aborting (Ctrl-C) between two steps rolls back everything written so far. */
  signal?: AbortSignal;
  /** Called before each rename; tests use it to fail or interrupt half-way. */
  beforeCommit?: (file: PlannedFile) => void | Promise<void>;
}

interface Committed {
  file: PlannedFile;
  full: string;
  mode: number | undefined;
  /** For a deleted file: where it was moved until the whole plan is written (renamed back on a rollback). */
  backup?: string;
}

function tempPathFor(full: string): string {
  return `${full}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

async function writeAtomically(full: string, content: string, mode: number | undefined): Promise<void> {
  const temp = tempPathFor(full);
  try {
    await writeFile(temp, content, mode === undefined ? {} : { mode });
    await rename(temp, full);
  } finally {
    await rm(temp, { force: true });
  }
}

/** The directories to create (outermost first) so that every file's parent exists. */
function missingDirectories(root: string, files: readonly PlannedFile[]): string[] {
  const missing = new Set<string>();
  const visit = (directory: string): void => {
    if (missing.has(directory) || existsSync(directory)) return;
    const parent = dirname(directory);
    if (parent !== directory) visit(parent);
    missing.add(directory);
  };
  for (const file of files) visit(dirname(join(root, file.path)));
  return [...missing];
}

/** Whether `error` says that nothing is at the path (a missing file, or a parent that is not a directory). */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * How `file` on disk differs from what its plan saw (`previous`: its content, or undefined for no file), or
 * undefined when it is still the same. Errors other than a missing file are thrown.
 */
async function changeOnDisk(root: string, file: PlannedFile): Promise<string | undefined> {
  const full = join(root, file.path);
  if (file.previous === undefined) {
    try {
      await lstat(full);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    return 'now exists';
  }
  let current: string;
  try {
    current = await readFile(full, 'utf8');
  } catch (error) {
    if (isMissing(error)) return 'deleted';
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') return 'no longer a file';
    throw error;
  }
  return current === file.previous ? undefined : 'edited';
}

/**
 * Refuses a plan the disk no longer matches (a file edited, created or deleted since it was planned, e.g. while
 * interactive create waited for the user's yes), so that no change made meanwhile is overwritten.
 */
async function assertPlanIsCurrent(root: string, files: readonly PlannedFile[]): Promise<void> {
  const changes = await Promise.all(files.map(async (file) => ({ path: file.path, change: await changeOnDisk(root, file) })));
  const stale = changes.filter((entry): entry is { path: string; change: string } => entry.change !== undefined);
  if (stale.length === 0) return;
  const list = stale.map(({ path, change }) => `${path} (${change})`).join(', ');
  throw new Refusal('stale-plan', `Nothing was written: ${stale.length === 1 ? 'a file' : `${stale.length} files`} changed on disk after the plan was made: ${list}.`, {
    hint: 'Run the command again to plan from the files as they are now.',
  });
}

/**
 * Writes the create/update/delete files of a plan as one unit: every file is first written to a temp file beside
 * its target, then all are renamed into place (a deleted file is moved aside until the end). On an error or an
 * abort at any point, files already renamed get their previous content back, created files and directories are
 * removed, and temp files are deleted, so the project is left as it was. Before anything is written, every one of
 * those files must still be as the plan saw it (its `previous` content, or no file for a create); otherwise the
 * plan is refused ('stale-plan') and nothing is written. Returns the paths written or deleted.
 */
export async function writePlannedFiles(root: string, files: readonly PlannedFile[], options: WriteOptions = {}): Promise<string[]> {
  const deletions = files.filter((file) => file.action === 'delete');
  const changes = files.filter((file) => file.action === 'create' || file.action === 'update');
  const createdDirectories: string[] = [];
  const temps = new Map<PlannedFile, string>();
  const committed: Committed[] = [];
  const modes = new Map<PlannedFile, number | undefined>();
  const checkAbort = (): void => {
    if (options.signal?.aborted) throw cancelledError('Cancelled; every change was rolled back.');
  };
  try {
    await assertPlanIsCurrent(root, files.filter((file) => file.action === 'create' || file.action === 'update' || file.action === 'delete'));
    for (const directory of missingDirectories(root, changes)) {
      checkAbort();
      await mkdir(directory);
      createdDirectories.push(directory);
    }
    for (const file of changes) {
      checkAbort();
      const full = join(root, file.path);
      const temp = tempPathFor(full);
      temps.set(file, temp);
      const mode = file.previous === undefined ? file.mode : (await stat(full)).mode & 0o777;
      modes.set(file, mode);
      await writeFile(temp, file.content, mode === undefined ? {} : { mode });
      if (mode !== undefined) await chmod(temp, mode);
    }
    for (const file of changes) {
      checkAbort();
      await options.beforeCommit?.(file);
      const full = join(root, file.path);
      await rename(temps.get(file) ?? '', full);
      temps.delete(file);
      committed.push({ file, full, mode: modes.get(file) });
    }
    for (const file of deletions) {
      checkAbort();
      await options.beforeCommit?.(file);
      const full = join(root, file.path);
      const backup = tempPathFor(full);
      await rename(full, backup);
      committed.push({ file, full, mode: undefined, backup });
    }
    for (const { backup } of committed) if (backup !== undefined) await rm(backup, { force: true });
    await removeEmptiedDirectories(root, deletions);
    return [...changes, ...deletions].map((file) => file.path);
  } catch (error) {
    await rollBack(committed, temps, createdDirectories);
    if (error instanceof Refusal) throw error;
    throw new Refusal('write-failed', `Could not write the project: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'Nothing was changed.',
      cause: error,
    });
  }
}

/**
 * The folders that deleting `files` left empty (`core/oauth1/` after remove-provider microblog), innermost first, up
 * to the project root, which stays. A folder that still holds anything, the user's files included, stays too.
 */
async function removeEmptiedDirectories(root: string, files: readonly PlannedFile[]): Promise<void> {
  const folders = new Set(files.map((file) => dirname(join(root, file.path))));
  for (const start of [...folders].sort((a, b) => b.length - a.length)) {
    const inside = (folder: string): boolean => {
      const path = relative(root, folder);
      return path !== '' && !path.startsWith('..') && !isAbsolute(path);
    };
    for (let folder = start; inside(folder); folder = dirname(folder)) {
      if ((await readdir(folder).catch(() => ['unreadable'])).length > 0) break;
      await rmdir(folder);
    }
  }
}

async function rollBack(committed: readonly Committed[], temps: ReadonlyMap<PlannedFile, string>, createdDirectories: readonly string[]): Promise<void> {
  for (const temp of temps.values()) await rm(temp, { force: true });
  for (const { file, full, mode, backup } of [...committed].reverse()) {
    if (backup !== undefined) await rename(backup, full);
    else if (file.previous === undefined) await rm(full, { force: true });
    else await writeAtomically(full, file.previous, mode);
  }
  for (const directory of [...createdDirectories].reverse()) {
    await rmdir(directory).catch(() => undefined);
  }
}
