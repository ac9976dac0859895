import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readProjectFile } from '../generator/planned-file.js';
import { ensureTypeScript } from '../generator/typescript-api.js';
import type { CliIo } from './io.js';
import type { TypeScriptApi } from '../generator/typescript-api.js';
import { usageError } from '../generator/errors.js';
import type { ProjectSnapshot } from '../generator/project/snapshot.js';
import { authConfigPath } from '../generator/project/snapshot.js';
import { authModuleFiles } from '../generator/project/auth-module.js';
import { inCodeFormat } from '../generator/code-format.js';
import { CliError } from './errors.js';

/**
 * The text of `<authDir>/config.ts` (`config.js` in a JavaScript project) of a scaffolded project (one with the runtime copy too). Anything else is bad
 * input (exit 2): the commands that edit a project never guess where the auth module is.
 */
export function readScaffoldedConfig(root: string, authDir: string): string {
  if (!existsSync(root) || !statSync(root).isDirectory()) throw usageError(`--cwd ${root} is not a directory`);
  const { config: path, coreIndex } = authModuleFiles(root, authDir);
  const configText = readProjectFile(root, path);
  if (configText === undefined || !existsSync(join(root, coreIndex))) {
    throw new CliError('not-a-project', `No auth module in ${root} (${configText === undefined ? path : coreIndex} is missing).`, {
      hint: 'Run "npx create-framework-auth" in the project first, or pass --cwd <project dir>.',
    });
  }
  return configText;
}

/**
 * The TypeScript compiler API for reading and editing the project's code: the project's, else the CLI's own, else
 * fetched once into the user's cache (announced on stderr). The cache is found from this process's environment, as
 * the generator's planners find it when they load the compiler.
 */
export async function requireTypeScript(root: string, io: CliIo): Promise<TypeScriptApi> {
  return ensureTypeScript(root, (message) => io.stderr.write(`${message}\n`));
}

/** What a command that edits a scaffolded project opens beside the snapshot: the compiler its code is read with. */
export interface ScaffoldedProject {
  api: TypeScriptApi;
}

/**
 * Opens the scaffolded project the snapshot read: one with its auth module's config and runtime copy, else bad
 * input (not-a-project, exit 2), and the compiler to read its code with.
 */
export async function openScaffoldedProject(project: ProjectSnapshot, io: CliIo): Promise<ScaffoldedProject> {
  checkScaffolded(project);
  return { api: await requireTypeScript(project.root, io) };
}

/** Refuses a snapshot without an auth module (its config.ts and core/index.ts), as {@link readScaffoldedConfig} does. */
export function checkScaffolded(project: ProjectSnapshot): void {
  const { root, authDir } = project;
  const configPath = authConfigPath(project);
  // Both sit in the auth module's folder, which the snapshot read whole.
  const missing = [configPath, `${authDir}/${inCodeFormat('core/index.ts', project.shape.code)}`].find((path) => !project.files.has(path));
  if (missing !== undefined) {
    throw new CliError('not-a-project', `No auth module in ${root} (${missing} is missing).`, {
      hint: 'Run "npx create-framework-auth" in the project first, or pass --cwd <project dir>.',
    });
  }
}
