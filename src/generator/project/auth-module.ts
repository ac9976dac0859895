import type { Manifest } from './manifest.js';
import { readManifest } from './manifest.js';
import { authModuleDir } from '../paths.js';
import { findAuthModuleDir } from './shape.js';

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
