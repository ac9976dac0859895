import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * The folder of package `name` as Node would find it from `fromDir` (its own or an ancestor's `node_modules`), or
 * undefined. It looks on the disk only, never through Node's resolver: Node remembers a `package.json` it did not
 * find for the rest of the process, so one resolver miss before an install would hide the package after it (issue
 * 23: dev-idp's first use). Package managers that link (pnpm) leave a symlink there, which `existsSync` follows.
 */
export function findInstalledPackage(name: string, fromDir: string): string | undefined {
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    if (basename(dir) !== 'node_modules') {
      const candidate = join(dir, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return candidate;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The entry file of package `name` resolved from `fromDir` (CommonJS conditions, as `require.resolve`), or undefined
 * when it is not installed there. Node's resolver is asked only once the package is on the disk, so a lookup made
 * before an install cannot spoil one made after it. Yarn's Plug'n'Play keeps no `node_modules`: there its own
 * resolver answers.
 */
export function resolveInstalledPackage(name: string, fromDir: string): string | undefined {
  if (!process.versions.pnp && findInstalledPackage(name, fromDir) === undefined) return undefined;
  try {
    return createRequire(join(resolve(fromDir), 'package.json')).resolve(name);
  } catch {
    return undefined;
  }
}
