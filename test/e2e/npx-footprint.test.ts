// What `npx create-framework-auth` installs (issue 16): no compiler, no OpenID provider, but execa (SPEC §2: it runs
// every child process), all within 12 MB. The packed tarball is installed into an empty folder as npx would; a new
// project is scaffolded without TypeScript; dev-idp asks for oidc-provider in the project (refusing under
// --no-install); add-provider in a project that has no TypeScript installed fetches the compiler once into the
// cache and edits the config.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countPackages, sizeOf } from '../../bench/lib/footprint.js';
import { makeTempDir, removeTempDirs } from './helpers/project.js';
import { packedTarball, prepareSharedDeps } from './helpers/shared-deps.js';
import { installLikeNpx } from '../support/first-run.js';
import type { CliBinName } from '../support/first-run.js';

afterAll(removeTempDirs);

let installDir: string;
let bin: (name: CliBinName) => string;

beforeAll(async () => {
  await prepareSharedDeps();
  installDir = await makeTempDir();
  bin = await installLikeNpx(packedTarball(), installDir);
}, 300_000);

describe('the installed CLI', () => {
  it('brings neither typescript nor oidc-provider (nor koa)', () => {
    for (const name of ['typescript', 'oidc-provider', 'koa']) {
      expect(existsSync(join(installDir, 'node_modules', name)), name).toBe(false);
    }
    expect(existsSync(join(installDir, 'node_modules/commander'))).toBe(true);
  });

  it('brings execa, which runs the package manager and every other child process', () => {
    expect(existsSync(join(installDir, 'node_modules/execa/package.json'))).toBe(true);
  });

  it('takes at most 12 MB of node_modules', async () => {
    const nodeModules = join(installDir, 'node_modules');
    const bytes = await sizeOf(nodeModules);
    const packages = await countPackages(nodeModules);
    expect(bytes, `${packages} packages, ${(bytes / 1e6).toFixed(1)} MB`).toBeLessThanOrEqual(12_000_000);
  });

  it('scaffolds a new project without a compiler, and dev-idp --no-install names the command that adds oidc-provider', async () => {
    const parent = await makeTempDir();
    const created = await execa(process.execPath, [bin('create-framework-auth'), 'app', '--yes', '--no-install'], { cwd: parent, reject: false });
    expect(created.exitCode, created.stderr).toBe(0);
    expect(await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8')).toContain('OIDC()');

    // dev-idp reads the config's mount path with the compiler, fetched once into the cache (the project has none).
    const cache = await makeTempDir();
    const idp = await execa(process.execPath, [bin('framework-auth'), 'dev-idp', '--no-install', '--port', '0'], {
      cwd: join(parent, 'app'),
      env: { FRAMEWORK_AUTH_CACHE_DIR: cache },
      reject: false,
    });
    expect(idp.exitCode).toBe(2);
    expect(idp.stderr).toContain('dev-idp needs oidc-provider');
    expect(idp.stderr).toContain('npm install --save-dev --no-audit --no-fund oidc-provider@^9');
  }, 120_000);

  it('fetches the compiler once into the cache to edit a project that has none installed', async () => {
    const parent = await makeTempDir();
    const cache = await makeTempDir();
    await execa(process.execPath, [bin('create-framework-auth'), 'app', '--yes', '--no-install'], { cwd: parent });
    const env = { FRAMEWORK_AUTH_CACHE_DIR: cache };
    const added = await execa(process.execPath, [bin('framework-auth'), 'add-provider', 'github', '--no-install'], { cwd: join(parent, 'app'), env, reject: false });
    expect(added.exitCode, added.stderr).toBe(0);
    expect(added.stderr).toContain('Fetching the TypeScript compiler');
    expect(existsSync(join(cache, 'typescript/node_modules/typescript/package.json'))).toBe(true);
    expect(await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8')).toContain('GitHub()');

    const again = await execa(process.execPath, [bin('framework-auth'), 'remove-provider', 'github'], { cwd: join(parent, 'app'), env, reject: false });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('Fetching the TypeScript compiler');
  }, 300_000);
});
