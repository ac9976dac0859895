import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

const sourceExtensions = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const specifierPatterns = [/\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\s*['"](\.{1,2}\/[^'"]+)['"]/g];

function withoutExtension(path: string): string {
  return path.replace(sourceExtensions, '');
}

function listSources(root: string, directory: string): string[] {
  let entries;
  try {
    entries = readdirSync(join(root, directory), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') return [];
    const path = posix.join(directory, entry.name);
    if (entry.isDirectory()) return listSources(root, path);
    return entry.isFile() && sourceExtensions.test(entry.name) ? [path] : [];
  });
}

/**
 * Whether any source file under `src/` but `target` itself imports `target` (a project path such as
 * `src/auth/core/providers/oidc.ts`) by a relative specifier. `planned` holds contents about to be written, which
 * win over the files on disk; a planned `undefined` is a file about to be deleted.
 */
export function isImportedInProject(root: string, target: string, planned: ReadonlyMap<string, string | undefined>): boolean {
  const wanted = withoutExtension(target);
  const paths = new Set([...listSources(root, 'src'), ...[...planned.keys()].filter((path) => path.startsWith('src/') && sourceExtensions.test(path))]);
  for (const path of paths) {
    if (path === target) continue;
    const content = planned.has(path) ? planned.get(path) : readFileSync(join(root, path), 'utf8');
    if (content === undefined) continue;
    for (const pattern of specifierPatterns) {
      for (const match of content.matchAll(pattern)) {
        const specifier = match[1] ?? '';
        if (withoutExtension(posix.join(posix.dirname(path), specifier)) === wanted) return true;
      }
    }
  }
  return false;
}
