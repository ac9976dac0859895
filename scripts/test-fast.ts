// `npm run test:fast`: the unit tests of the runtime and the generator, picked by rule rather than listed, so that a new
// test file (a new feature's) is in when it is fast: every file of test/runtime/ (the runtime's unit and in-process
// HTTP tests), and each file of test/cli/ that runs neither the CLI nor another process. The end-to-end, browser,
// hardening, compatibility and adapter suites are never in it. Arguments after `--` go to vitest
// (`npm run test:fast -- -t totp`). test/cli/feature-catalog.test.ts checks that each catalog feature's tests are in.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isRunDirectly } from './run-directly.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** What makes a CLI test slow: it runs the CLI (in process or as a child), another process, or a real app or server. */
export const slowCliTest = /\brunInProcess\(|\brunCli\(|from 'execa'|from 'node:child_process'|\/e2e\/helpers\/|\/support\//;

function testFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) => `${folder}/${path.split('\\').join('/')}`)
    .sort();
}

/** The test files of `npm run test:fast`, relative to the repository, sorted. */
export function fastTestFiles(): string[] {
  const cli = testFiles('test/cli').filter((path) => !path.slice('test/cli/'.length).includes('/') && !slowCliTest.test(readFileSync(join(root, path), 'utf8')));
  return [...testFiles('test/runtime'), ...cli].sort();
}

if (isRunDirectly(import.meta.url)) {
  const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
  const result = spawnSync(process.execPath, [vitest, 'run', ...fastTestFiles(), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
