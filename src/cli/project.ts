import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readProjectFile } from '../generator/planned-file.js';
import { ensureTypeScript } from '../generator/typescript-api.js';
import type { CliIo } from './io.js';
import type { TypeScriptApi } from '../generator/typescript-api.js';
import { usageError } from '../generator/errors.js';
import { locateAuthModule } from '../generator/project/auth-module.js';
import { type Manifest, readManifest } from '../generator/project/manifest.js';
import { CliError } from './errors.js';

/**
 * The text of `<authDir>/config.ts` of a scaffolded project (one with the runtime copy too). Anything else is bad
 * input (exit 2): the commands that edit a project never guess where the auth module is.
 */
export function readScaffoldedConfig(root: string, authDir: string): string {
  if (!existsSync(root) || !statSync(root).isDirectory()) throw usageError(`--cwd ${root} is not a directory`);
  const path = `${authDir}/config.ts`;
  const configText = readProjectFile(root, path);
  if (configText === undefined || !existsSync(join(root, authDir, 'core/index.ts'))) {
    throw new CliError('not-a-project', `No auth module in ${root} (${configText === undefined ? path : `${authDir}/core/index.ts`} is missing).`, {
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

/** A scaffolded project as the commands that edit it open it: its manifest, auth module, config text and the compiler. */
export interface ScaffoldedProject {
  manifest: Manifest | undefined;
  authDir: string;
  configText: string;
  api: TypeScriptApi;
}

/** Opens the scaffolded project at `root` (bad input, such as no auth module, is a usage error). */
export async function openScaffoldedProject(root: string, io: CliIo): Promise<ScaffoldedProject> {
  const manifest = readManifest(root);
  const authDir = locateAuthModule(root, manifest);
  const configText = readScaffoldedConfig(root, authDir);
  return { manifest, authDir, configText, api: await requireTypeScript(root, io) };
}
