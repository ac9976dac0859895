import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { templateDirsFrom } from './paths.js';
import type { TemplateDirs } from './paths.js';
import { cliVersion } from './version.js';

/**
 * The templates a release generates from, read once before anything is planned: the planners are given their
 * texts, never a folder to read.
 */
export interface Templates {
  /** The auth runtime (`templates/runtime/`): each file's text by its posix path below the folder. */
  runtime: ReadonlyMap<string, string>;
  /** The handlebars templates and static files of `templates/project/`, by posix path below the folder. */
  project: ReadonlyMap<string, string>;
}

/** What this CLI generates from: its version (in every header, and pinned in the project) and its templates. */
export interface Release {
  version: string;
  templates: Templates;
}

function readFolder(directory: string): Map<string, string> {
  const files = new Map<string, string>();
  const visit = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.isFile()) files.set(relative(directory, full).split(sep).join('/'), readFileSync(full, 'utf8'));
    }
  };
  visit(directory);
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Reads every file of the template folders (this package's, or the copy a test of `update` points at). */
export function readTemplates(dirs: TemplateDirs): Templates {
  return { runtime: readFolder(dirs.runtime), project: readFolder(dirs.project) };
}

/** This CLI's release, with the templates `templateDirsFrom(env)` points at, read now. */
export function releaseFrom(env: NodeJS.ProcessEnv): Release {
  return { version: cliVersion, templates: readTemplates(templateDirsFrom(env)) };
}
