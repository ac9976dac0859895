import { adapterCatalog, findAdapterByModule } from '../../catalog/adapters.js';
import { Refusal } from '../errors.js';
import { readProjectFile } from '../planned-file.js';
import { authModuleFiles, locateAuthModule } from './auth-module.js';
import { inspectAuthConfig } from '../edit/provider-list.js';
import { loadTypeScript } from '../typescript-api.js';
import type { TypeScriptApi } from '../typescript-api.js';

/** The adapter a scaffolded project's `src/auth/config.ts` uses. */
export interface ProjectAdapter {
  /** The catalog adapter: `none` when the config sets no adapter, undefined for an adapter of the user's own. */
  entry: (typeof adapterCatalog)[number] | undefined;
  /** Normalised module of the factory (`core/adapters/sqlite`), when the config imports it. */
  module: string | undefined;
}

/**
 * Which adapter `src/auth/config.ts` uses, read from its syntax tree: the module that the `adapter:` factory is
 * imported from. Undefined when there is no config, or it cannot be read (no compiler, no `authConfig` object).
 */
export function readProjectAdapter(root: string): ProjectAdapter | undefined {
  const text = readProjectFile(root, authModuleFiles(root, locateAuthModule(root)).config);
  return text === undefined ? undefined : adapterOfConfig(loadTypeScript(root), text);
}

/** Which adapter a config's text uses (see {@link readProjectAdapter}); undefined without a compiler or `authConfig`. */
export function adapterOfConfig(api: TypeScriptApi | undefined, text: string): ProjectAdapter | undefined {
  if (!api) return undefined;
  const info = inspectAuthConfig(api, text);
  if (info instanceof Refusal) return undefined;
  if (!info.hasAdapter) return { entry: adapterCatalog.find((entry) => entry.id === 'none'), module: undefined };
  return { entry: info.adapterModule === undefined ? undefined : findAdapterByModule(info.adapterModule), module: info.adapterModule };
}
