import { baseDir, isBaseFile } from '../generator/project/manifest.js';
import type { PlannedFile } from '../generator/planned-file.js';

/**
 * `create  src/auth/config.ts  (adds microblog to the providers)`, one line per file, for `--dry-run`. The kept
 * bases of generated files (`.framework-auth/base/`) are one line.
 */
export function describeFiles(files: readonly PlannedFile[]): string {
  const shown = files.filter((file) => !isBaseFile(file.path));
  const bases = files.filter((file) => isBaseFile(file.path) && file.action !== 'unchanged');
  const lines = shown.map((file) => ({ action: file.action as string, text: `${file.path}${file.reason ? `  (${file.reason})` : ''}` }));
  if (bases.length > 0) {
    const action = bases.every((file) => file.action === 'create') ? 'create' : bases.every((file) => file.action === 'delete') ? 'delete' : 'update';
    lines.push({ action, text: `${baseDir}/  (${bases.length} ${bases.length === 1 ? 'base' : 'bases'} of generated files, for framework-auth update)` });
  }
  const width = Math.max(...lines.map((line) => line.action.length));
  return lines.map((line) => `${line.action.padEnd(width)}  ${line.text}`).join('\n');
}

/** The number of files a plan touches or checks, the kept bases left out. */
export function countFiles(files: readonly PlannedFile[]): number {
  return files.filter((file) => !isBaseFile(file.path)).length;
}

/** `12 created, 2 updated, 3 unchanged, 1 conflict` (the kept bases of generated files are not counted). */
export function summariseFiles(allFiles: readonly PlannedFile[]): string {
  const files = allFiles.filter((file) => !isBaseFile(file.path));
  const count = (action: PlannedFile['action']): number => files.filter((file) => file.action === action).length;
  const parts = [
    [count('create'), 'created'],
    [count('update'), 'updated'],
    [count('delete'), 'deleted'],
    [count('unchanged'), 'unchanged'],
    [count('conflict'), count('conflict') === 1 ? 'conflict kept' : 'conflicts kept'],
  ] as const;
  return parts
    .filter(([number]) => number > 0)
    .map(([number, word]) => `${number} ${word}`)
    .join(', ');
}
