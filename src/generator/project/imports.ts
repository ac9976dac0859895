import { posix } from 'node:path';
import { isSourceFileName, withoutSourceExtension } from './files.js';

const specifierPatterns = [/\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\s*['"](\.{1,2}\/[^'"]+)['"]/g];

/**
 * Whether any source file under `src/` (`sourceFiles`, as readProject read them) but `target` itself imports
 * `target` (a project path such as `src/auth/core/providers/oidc.ts`) by a relative specifier. `planned` holds
 * contents about to be written, which win over the files read; a planned `undefined` is a file about to be deleted.
 */
export function isImportedInProject(sourceFiles: ReadonlyMap<string, string>, target: string, planned: ReadonlyMap<string, string | undefined>): boolean {
  const wanted = withoutSourceExtension(target);
  const paths = new Set([...sourceFiles.keys(), ...[...planned.keys()].filter((path) => path.startsWith('src/') && isSourceFileName(path))]);
  for (const path of paths) {
    if (path === target) continue;
    const content = planned.has(path) ? planned.get(path) : sourceFiles.get(path);
    if (content === undefined) continue;
    for (const pattern of specifierPatterns) {
      for (const match of content.matchAll(pattern)) {
        const specifier = match[1] ?? '';
        if (withoutSourceExtension(posix.join(posix.dirname(path), specifier)) === wanted) return true;
      }
    }
  }
  return false;
}
