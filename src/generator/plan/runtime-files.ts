import { posix } from 'node:path';
import { findAdapter } from '../../catalog/adapters.js';
import type { AdapterId } from '../../catalog/adapters.js';
import { getProvider } from '../../catalog/providers.js';
import type { ProviderId } from '../../catalog/providers.js';
import { broughtFeatures } from '../../catalog/features.js';
import type { FeatureEntry } from '../../catalog/features.js';
import type { Templates } from '../release.js';

/** One runtime file: its path below `templates/runtime/` (posix) and its text. */
export interface RuntimeFile {
  path: string;
  content: string;
}

/** Relative specifiers a runtime file imports: `import … from`, `export … from`, `import '…'` and `import('…')`. */
export function relativeImports(content: string): string[] {
  return [...content.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((match) => match[1]!);
}

/** What src/auth/index.ts imports when an adapter is chosen: the helpers that list and end users' sessions. */
export const databaseSessionsEntryPoint = 'features/database/session-management.ts';

/**
 * The runtime files the generated auth module starts from (paths below `templates/runtime/`): `index.ts`, which
 * src/auth/index.ts and config.ts import, the files config.ts imports for these providers, this adapter and
 * the catalog features that are on (which bring their folders, and those of the features they bring: administration
 * two-factor's), and with an adapter the session helpers that src/auth/index.ts imports.
 */
export function runtimeEntryPoints(providers: readonly ProviderId[], adapter: AdapterId, features: readonly FeatureEntry[] = []): string[] {
  const featureModules = features.flatMap((feature) => [feature, ...broughtFeatures(feature)]).map((feature) => feature.importPath);
  const fromConfig = [...providers.map((id) => getProvider(id).importPath), findAdapter(adapter)?.importPath ?? null, ...featureModules];
  const fromIndex = adapter === 'none' ? [] : [databaseSessionsEntryPoint];
  return ['index.ts', ...fromIndex, ...fromConfig.flatMap((path) => (path ? [path.replace(/^\.\/core\//, '').replace(/\.js$/, '.ts')] : []))];
}

/**
 * The files reachable from `entries` by relative imports (static, dynamic and type-only: each one is needed to
 * compile), sorted. `read` gives a file's text, or undefined when there is no such file.
 */
export function reachableRuntimeFiles(entries: readonly string[], read: (path: string) => string | undefined): string[] {
  const reached = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (reached.has(path)) continue;
    const content = read(path);
    if (content === undefined) continue;
    reached.add(path);
    for (const specifier of relativeImports(content)) {
      pending.push(posix.join(posix.dirname(path), specifier).replace(/\.js$/, '.ts'));
    }
  }
  return [...reached].sort();
}

/** The header line that names the CLI version that copied a runtime file. */
export function runtimeHeader(version: string): string {
  return `// Copied from create-framework-auth ${version}'s auth runtime. This file is yours: read it, edit it.`;
}

/** Adds the version header to a runtime file's text (TypeScript files only; other files are copied as they are). */
export function withRuntimeHeader(path: string, content: string, version: string): string {
  return path.endsWith('.ts') ? `${runtimeHeader(version)}\n${content}` : content;
}

/**
 * The runtime files to copy for these choices, sorted by path: the shadcn model, the user gets the code they use.
 * Only what the generated auth module reaches by its imports (`runtimeEntryPoints`) is copied, so OAuth 1.0a comes
 * only with microblog, WebAuthn with passkeys, email sign-in with email, and each adapter's file with that adapter.
 * `create`, `add-provider`, `remove-provider` and `update` all plan the runtime copy with this function.
 */
export function readRuntimeFiles(providers: readonly ProviderId[], adapter: AdapterId, templates: Templates, features: readonly FeatureEntry[] = []): RuntimeFile[] {
  const read = (path: string): string | undefined => templates.runtime.get(path);
  return reachableRuntimeFiles(runtimeEntryPoints(providers, adapter, features), read).map((path) => ({ path, content: read(path)! }));
}
