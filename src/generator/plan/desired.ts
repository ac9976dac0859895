import { findAdapter } from '../../catalog/adapters.js';
import type { AdapterId } from '../../catalog/adapters.js';
import { getProvider } from '../../catalog/providers.js';
import type { ProviderId } from '../../catalog/providers.js';
import { twoFactorEntry } from '../../catalog/two-factor.js';
import type { Release } from '../paths.js';
import { testedRanges } from './dependencies.js';
import { readRuntimeFiles, withRuntimeHeader } from './runtime-files.js';

/** The choices that decide what a project holds: its providers, its adapter, and whether it has two-factor. */
export interface DesiredChoices {
  providers: readonly ProviderId[];
  adapter: AdapterId;
  /** TOTP two-factor (`TwoFactor()` in the config's features). */
  twoFactor?: boolean | undefined;
}

/**
 * What a project holds for its providers and adapter at one CLI version. Every command reconciles the project
 * against it: `create` writes it, `add-provider` adds what the project lacks of it, `remove-provider` deletes what
 * left it, `update` replaces it and deletes what this version no longer holds. So "create with X" and "create, then
 * add-provider X" reach the same project.
 */
export interface DesiredProject {
  /** The runtime files below the auth module's `core/` (posix paths), with the version header, sorted by path. */
  runtime: ReadonlyMap<string, string>;
  /** The dependencies the providers and the adapter bring (their tested ranges), beyond every project's own. */
  dependencies: Readonly<Record<string, string>>;
  /** The env keys the providers and the adapter read, in the catalog's order. */
  envKeys: readonly string[];
}

/** What a project holds for these choices at a release of this CLI (see {@link DesiredProject}). */
export function desired(choices: DesiredChoices, release: Release): DesiredProject {
  const { version, templates } = release;
  const providers = choices.providers.map((id) => getProvider(id));
  const adapter = findAdapter(choices.adapter);
  const runtime = new Map(readRuntimeFiles(choices.providers, choices.adapter, templates, choices.twoFactor === true).map((file) => [file.path, withRuntimeHeader(file.path, file.content, version)] as const));
  const brought = [...providers, ...(adapter ? [adapter] : []), ...(choices.twoFactor ? [twoFactorEntry] : [])];
  const dependencies = Object.assign({}, ...brought.map((entry) => testedRanges(entry.dependencies))) as Record<string, string>;
  const envKeys = [...new Set([...providers.flatMap((entry) => entry.env), ...Object.keys(adapter?.env ?? {})])];
  return { runtime, dependencies, envKeys };
}
