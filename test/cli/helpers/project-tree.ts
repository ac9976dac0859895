/** Every file of a project by path, with its text; the random `AUTH_SECRET` in `.env` masked, so two projects compare. */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

export async function projectTree(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const visit = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await visit(full);
      else files[relative(root, full)] = await readFile(full, 'utf8');
    }
  };
  await visit(root);
  files['.env'] = (files['.env'] ?? '').replace(/^AUTH_SECRET=.*$/m, 'AUTH_SECRET=<random>');
  return files;
}
