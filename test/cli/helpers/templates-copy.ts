// A changed copy of templates/, standing for another version of the CLI in the tests of `framework-auth update`
// (the generator reads it through FRAMEWORK_AUTH_TEMPLATES_DIR).
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cliPackageRoot, templatesDirEnv } from '../../../src/generator/paths.js';
import { makeTempDir } from './run-cli.js';

/** Copies this repo's templates/ to a temp dir; returns its path and the env that makes the CLI use it. */
export async function copyTemplates(): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const dir = join(await makeTempDir('cfa-templates-'), 'templates');
  await cp(join(cliPackageRoot, 'templates'), dir, { recursive: true });
  return { dir, env: { [templatesDirEnv]: dir } };
}

/** Replaces one exact text in a file of the copy (fails when it is not there, so a test never edits nothing). */
export async function editTemplate(dir: string, path: string, from: string, to: string): Promise<void> {
  const full = join(dir, path);
  const text = await readFile(full, 'utf8');
  if (!text.includes(from)) throw new Error(`${path} does not contain ${JSON.stringify(from)}`);
  await writeFile(full, text.replace(from, to));
}
