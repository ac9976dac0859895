import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type ts from 'typescript';
import { Refusal, failureDetail } from './errors.js';
import { resolveInstalledPackage } from './installed-package.js';

/** The TypeScript compiler API, used only to parse and check files, never to type-check a project. */
export type TypeScriptApi = typeof ts;

/** The compiler fetched on demand (`npm install` into the cache): the major this CLI is tested with. */
export const onDemandTypeScript = 'typescript@^6.0.3';

/** The compiler installed for `fromDir` (its own or an ancestor's node_modules), when it has the JavaScript API. */
function tryRequire(fromDir: string): TypeScriptApi | undefined {
  const entry = resolveInstalledPackage('typescript', fromDir);
  if (entry === undefined) return undefined;
  try {
    const api = createRequire(import.meta.url)(entry) as TypeScriptApi;
    // typescript@7 (the native port) ships no JavaScript compiler API.
    return typeof api.createSourceFile === 'function' ? api : undefined;
  } catch {
    return undefined;
  }
}

/** Where a compiler fetched on demand is kept: `FRAMEWORK_AUTH_CACHE_DIR`, else `$XDG_CACHE_HOME` or `~/.cache`. */
export function typeScriptCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.FRAMEWORK_AUTH_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'create-framework-auth');
  return join(base, 'typescript');
}

/**
 * Loads `typescript` from the user's project first (a project whose TypeScript the CLI edits has it), then from
 * the CLI's own development install, then from the on-demand cache ({@link ensureTypeScript}). `npx
 * create-framework-auth` does not install a compiler: a new project needs none, and an existing one has its own.
 */
export function loadTypeScript(projectRoot: string, env: NodeJS.ProcessEnv = process.env): TypeScriptApi | undefined {
  const cache = typeScriptCacheDir(env);
  return tryRequire(projectRoot) ?? tryRequire(fileURLToPath(new URL('.', import.meta.url))) ?? tryRequire(cache);
}

/**
 * The compiler for a project that has code to read but no `typescript` installed (not installed yet, or a
 * JavaScript project): fetched once with npm into {@link typeScriptCacheDir}, then loaded from there. `announce`
 * tells the user before the download.
 */
export async function ensureTypeScript(projectRoot: string, announce: (message: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<TypeScriptApi> {
  const found = loadTypeScript(projectRoot, env);
  if (found) return found;
  const dir = typeScriptCacheDir(env);
  announce(`Fetching the TypeScript compiler (${onDemandTypeScript}, once, into ${dir}) to read the project's code.`);
  // Loaded on use: the commands that import this file only need execa when the compiler must be fetched.
  const { execa } = await import('execa');
  const npmArgs = ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', onDemandTypeScript];
  const result = await execa('npm', npmArgs, { env, reject: false, all: true, stdin: 'ignore' });
  const api = result.exitCode === 0 ? loadTypeScript(projectRoot, env) : undefined;
  if (!api) {
    throw new Refusal('unsupported-edit', `The TypeScript compiler ("typescript") is needed to read the project's code and could not be fetched: ${failureDetail(result, 5)}`, {
      hint: 'Install the project\'s dependencies (npm install), or add typescript to its devDependencies, then run again.',
    });
  }
  return api;
}
