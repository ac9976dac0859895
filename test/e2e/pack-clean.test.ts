// Publishing from a clean checkout (issue 15, item 5): `npm pack` in a copy of the repository that has never been
// built runs `prepack`, which builds, so the tarball ships dist/ and its bins run. (Installing a packed tarball and
// signing in through it is test/e2e/install.test.ts and the compatibility matrix.)
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readdir, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliVersion } from '../../src/generator/version.js';
import { makeTempDir, removeTempDirs } from './helpers/project.js';
import { repoRoot } from './helpers/shared-deps.js';

afterAll(removeTempDirs);

describe('npm pack from a clean checkout', () => {
  it('builds through prepack, ships dist/ and bins that run', async () => {
    const root = await makeTempDir();
    const checkout = join(root, 'checkout');
    // The files git tracks (with their working-tree content): no dist/, no node_modules.
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean);
    for (const file of tracked) {
      await mkdir(join(checkout, dirname(file)), { recursive: true });
      await cp(join(repoRoot, file), join(checkout, file));
    }
    await symlink(join(repoRoot, 'node_modules'), join(checkout, 'node_modules'), 'dir');
    expect(await readdir(checkout)).not.toContain('dist');

    const packDir = join(root, 'pack');
    await mkdir(packDir);
    await execa('npm', ['pack', '--pack-destination', packDir, '--silent'], { cwd: checkout });
    const tarball = join(packDir, `create-framework-auth-${cliVersion}.tgz`);
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    expect(listing).toContain('package/dist/cli/main.js');
    expect(listing).toContain('package/bin/create-framework-auth.js');
    expect(listing).toContain('package/templates/runtime/handler.ts');

    const unpacked = join(root, 'unpacked');
    await mkdir(unpacked);
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
    await symlink(join(repoRoot, 'node_modules'), join(unpacked, 'package/node_modules'), 'dir');
    const version = await execa(process.execPath, [join(unpacked, 'package/bin/create-framework-auth.js'), '--version']);
    expect(version.stdout.trim()).toBe(cliVersion);
  }, 300_000);
});
