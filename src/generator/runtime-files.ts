import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { adapterCatalog } from '../catalog/adapters.js';
import type { AdapterId } from '../catalog/adapters.js';
import type { ProviderId } from '../catalog/providers.js';
import { packageTemplateDirs } from './paths.js';
import type { TemplateDirs } from './paths.js';

/** One runtime file: its path below `templates/runtime/` (posix) and its text. */
export interface RuntimeFile {
  path: string;
  content: string;
}

function listFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = join(directory, entry.name);
    if (entry.isDirectory()) return listFiles(full);
    return entry.isFile() ? [full] : [];
  });
}

/**
 * Whether a runtime file belongs in a project with these choices (the shadcn model: the user gets the code they
 * use). Provider factories (files of providers/ with a default export) are copied only when chosen, and adapter
 * files only for the chosen adapter; everything else, shared helpers included, always.
 */
function isWanted(path: string, content: string, providers: readonly ProviderId[], adapter: AdapterId): boolean {
  const [folder, file, nested] = path.split('/');
  if (nested !== undefined || file === undefined) return true;
  const id = file.replace(/\.ts$/, '');
  if (folder === 'providers') return (providers as readonly string[]).includes(id) || !/^export default /m.test(content);
  if (folder === 'adapters') return id === adapter || !adapterCatalog.some((entry) => entry.id === id);
  return true;
}

/** The header line that names the CLI version that copied a runtime file. */
export function runtimeHeader(version: string): string {
  return `// Copied from create-framework-auth ${version}'s auth runtime. This file is yours: read it, edit it.`;
}

/** Adds the version header to a runtime file's text (TypeScript files only; other files are copied as they are). */
export function withRuntimeHeader(path: string, content: string, version: string): string {
  return path.endsWith('.ts') ? `${runtimeHeader(version)}\n${content}` : content;
}

/** The runtime files to copy for these choices, sorted by path. */
export function readRuntimeFiles(providers: readonly ProviderId[], adapter: AdapterId, templates: TemplateDirs = packageTemplateDirs): RuntimeFile[] {
  const directory = templates.runtime;
  return listFiles(directory)
    .map((full) => relative(directory, full).split(sep).join('/'))
    .filter((path) => !path.endsWith('.test.ts'))
    .sort()
    .map((path) => ({ path, content: readFileSync(join(directory, path), 'utf8') }))
    .filter((file) => isWanted(file.path, file.content, providers, adapter));
}

/** The runtime file of one provider (for `add-provider` in a project copied before the provider existed). */
export function readRuntimeProviderFile(id: ProviderId, templates: TemplateDirs = packageTemplateDirs): RuntimeFile | undefined {
  const path = `providers/${id}.ts`;
  try {
    return { path, content: readFileSync(join(templates.runtime, path), 'utf8') };
  } catch {
    return undefined;
  }
}
