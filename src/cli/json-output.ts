import { isBaseFile } from '../generator/project/manifest.js';
import type { PlannedFile } from '../generator/planned-file.js';
import type { CliIo } from './io.js';
import { cliVersion } from '../generator/version.js';

/**
 * `--json`: every command that writes prints one JSON document on stdout (the shapes below, described by
 * docs/schemas/cli-output.schema.json) and its progress on stderr. A failure prints `{ ok: false, error }` instead.
 */

/** Files of a plan by what happens to them (the kept bases under `.framework-auth/base/` are left out). */
export interface FilesReport {
  created: string[];
  updated: string[];
  deleted: string[];
  unchanged: string[];
  /** Files kept as they are because of the user's changes; `mergeFile` holds the merge with conflict markers (update). */
  conflicts: { path: string; reason?: string; mergeFile?: string }[];
}

/** A callback URL to register with an OAuth provider. */
export interface CallbackUrlReport {
  provider: string;
  url: string;
}

/** The fields every document has. */
export interface JsonDocument {
  command: string;
  ok: boolean;
  version: string;
  [field: string]: unknown;
}

/** Groups a plan's files for the report. `mergeFiles` maps a conflicting path to the file beside it with markers. */
export function filesReport(files: readonly PlannedFile[], mergeFiles: ReadonlyMap<string, string> = new Map()): FilesReport {
  const report: FilesReport = { created: [], updated: [], deleted: [], unchanged: [], conflicts: [] };
  for (const file of files) {
    if (isBaseFile(file.path) || [...mergeFiles.values()].includes(file.path)) continue;
    if (file.action === 'create') report.created.push(file.path);
    else if (file.action === 'update') report.updated.push(file.path);
    else if (file.action === 'delete') report.deleted.push(file.path);
    else if (file.action === 'unchanged') report.unchanged.push(file.path);
    else {
      const mergeFile = mergeFiles.get(file.path);
      report.conflicts.push({ path: file.path, ...(file.reason === undefined ? {} : { reason: file.reason }), ...(mergeFile === undefined ? {} : { mergeFile }) });
    }
  }
  return report;
}

/** Writes the document, with `command`, `ok` and `version` first, on stdout. */
export function writeJson(io: CliIo, command: string, ok: boolean, fields: Record<string, unknown>): void {
  const document: JsonDocument = { command, ok, version: cliVersion, ...fields };
  io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

/** The streams a command's messages go to: stderr under `--json`, so that stdout holds the document alone. */
export function messageIo(io: CliIo, json: boolean | undefined): CliIo {
  return json ? { ...io, stdout: io.stderr } : io;
}
