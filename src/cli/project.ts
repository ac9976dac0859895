import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readProjectFile } from '../generator/planned-file.js';
import { loadTypeScript } from '../generator/typescript-api.js';
import type { TypeScriptApi } from '../generator/typescript-api.js';
import { usageError } from '../generator/errors.js';
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

/** The TypeScript compiler API (the project's, else the CLI's own), which the AST edits of config.ts need. */
export function requireTypeScript(root: string, configPath: string): TypeScriptApi {
  const api = loadTypeScript(root);
  if (!api) {
    throw new CliError('unsupported-edit', `The TypeScript compiler ("typescript") is needed to edit ${configPath} and was not found.`, {
      hint: 'Install the project\'s dependencies first (npm install).',
    });
  }
  return api;
}
