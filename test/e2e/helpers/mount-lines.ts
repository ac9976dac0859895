// The "Mount the auth module in <file>:" block the CLI's next steps print for an existing app, and pasting it where
// it says, as a user does: tests of existing JavaScript and TypeScript apps mount the module with exactly those lines.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The printed block: the file, the require/import line, and the app's lines (mount, session locals, a guard). */
export interface PrintedMount {
  file: string;
  importLine: string;
  appLines: string[];
}

/** Reads the block from the CLI's output (the box drawing of the next steps stripped). */
export function printedMount(stdout: string): PrintedMount {
  const lines = stdout.split('\n').map((line) => line.replace(/^│ {2}/, '').replace(/\s+$/, ''));
  const start = lines.findIndex((line) => line.startsWith('Mount the auth module in '));
  const file = /^Mount the auth module in (\S+):$/.exec(lines[start] ?? '')?.[1] ?? '';
  const block: string[] = [];
  for (let index = start + 1; lines[index]?.startsWith('  '); index += 1) block.push((lines[index] ?? '').slice(2));
  const [importLine = '', ...appLines] = block;
  return { file, importLine, appLines };
}

/** Pastes the printed lines as a user does: the require/import after the last one, the rest after `express()`. */
export async function pasteMount(projectDir: string, mount: PrintedMount): Promise<void> {
  const path = join(projectDir, mount.file);
  const lines = (await readFile(path, 'utf8')).split('\n');
  const lastImport = lines.reduce((last, line, index) => (/^(import\s|const .* = require\()/.test(line) ? index : last), -1);
  lines.splice(lastImport + 1, 0, mount.importLine);
  const made = lines.findIndex((line) => /=\s*express\(\);\s*$/.test(line));
  lines.splice(made + 1, 0, ...mount.appLines);
  await writeFile(path, lines.join('\n'));
}
