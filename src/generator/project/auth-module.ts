import type { Manifest } from './manifest.js';
import { readManifest } from './manifest.js';
import { authModuleDir } from '../paths.js';
import { findAuthModuleDir } from './shape.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The folder of a project's auth module, found one way for every command: the one the manifest records (its
 * `config.ts` beside `core/index.ts`), else the first usual folder that holds both (`src/auth`, `lib/auth`, …),
 * else the default `src/auth` (where a command then reports that there is no auth module).
 */
export function locateAuthModule(root: string, manifest: Manifest | undefined = readManifest(root)): string {
  return recordedAuthModule(manifest) ?? findAuthModuleDir(root) ?? authModuleDir;
}

/** The folder of the auth module the manifest records (its `config.ts` beside `core/index.ts`), if it records one. */
export function recordedAuthModule(manifest: Manifest | undefined): string | undefined {
  const paths = Object.keys(manifest?.files ?? {});
  const config = paths.find((path) => /(^|\/)config\.[jt]s$/.test(path) && !path.includes('/core/') && paths.includes(path.replace(/config\.([jt]s)$/, 'core/index.$1')));
  return config?.slice(0, -'/config.ts'.length);
}

/**
 * The auth module's config and runtime entry in `authDir`: `config.ts` and `core/index.ts`, or `config.js` and
 * `core/index.js` in a JavaScript project (issue 36); the TypeScript names when neither is there (for messages).
 */
export function authModuleFiles(root: string, authDir: string): { config: string; coreIndex: string; javaScript: boolean } {
  const javaScript = !existsSync(join(root, authDir, 'config.ts')) && existsSync(join(root, authDir, 'config.js'));
  const extension = javaScript ? 'js' : 'ts';
  return { config: `${authDir}/config.${extension}`, coreIndex: `${authDir}/core/index.${extension}`, javaScript };
}
