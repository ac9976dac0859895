// Issue 23: a package installed while the CLI runs (dev-idp's oidc-provider, the compiler fetched into the cache) is
// found by the same process. Node's resolver remembers a package.json it did not find while resolving a package with
// `exports` (as oidc-provider and typescript have), so the CLI looks on the disk before it asks Node.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { findInstalledPackage, resolveInstalledPackage } from '../../src/generator/installed-package.js';

const execFileAsync = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function project(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cfa-installed-'));
  dirs.push(dir);
  await writeFile(join(dir, 'package.json'), '{ "name": "app", "version": "1.0.0" }\n');
  // An installed project: the trap needs node_modules to be there, without the package.
  await mkdir(join(dir, 'node_modules'));
  return dir;
}

/** Writes a package as a package manager would, into `nodeModules/name`; with `exports`, as oidc-provider has. */
async function install(nodeModules: string, name: string): Promise<string> {
  const dir = join(nodeModules, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', exports: './main.js' }));
  await writeFile(join(dir, 'main.js'), 'module.exports = 42;\n');
  return dir;
}

describe('resolveInstalledPackage', () => {
  it('finds a package installed after a lookup missed it, in the same process', async () => {
    const root = await project();
    expect(resolveInstalledPackage('cfa-late-package', root)).toBeUndefined();
    expect(resolveInstalledPackage('cfa-late-package', join(root, 'node_modules/create-framework-auth'))).toBeUndefined();
    await install(join(root, 'node_modules'), 'cfa-late-package');
    expect(resolveInstalledPackage('cfa-late-package', root)).toBe(join(root, 'node_modules/cfa-late-package/main.js'));
  });

  it('is needed: in a plain Node process, the resolver keeps its miss after the install (the trap of issue 23)', async () => {
    // A child process: vitest's own module hooks do not show Node's cache.
    const root = await project();
    const script = [
      "import { createRequire } from 'node:module';",
      "import { mkdirSync, writeFileSync } from 'node:fs';",
      "const resolve = () => { try { return createRequire(process.cwd() + '/package.json').resolve('cfa-trap-package'); } catch { return 'miss'; } };",
      'const before = resolve();',
      "mkdirSync('node_modules/cfa-trap-package', { recursive: true });",
      "writeFileSync('node_modules/cfa-trap-package/package.json', JSON.stringify({ name: 'cfa-trap-package', version: '1.0.0', exports: './main.js' }));",
      "writeFileSync('node_modules/cfa-trap-package/main.js', '');",
      'console.log(JSON.stringify([before, resolve()]));',
    ].join('\n');
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '--eval', script], { cwd: root });
    expect(JSON.parse(stdout)).toEqual(['miss', 'miss']);
    expect(resolveInstalledPackage('cfa-trap-package', root)).toBe(join(root, 'node_modules/cfa-trap-package/main.js'));
  });

  it('finds a package in an ancestor\'s node_modules, as Node does, and through a pnpm symlink', async () => {
    const root = await project();
    const store = await install(join(root, 'node_modules/.pnpm/cfa-linked@1.0.0/node_modules'), 'cfa-linked');
    await symlink(store, join(root, 'node_modules/cfa-linked'), 'dir');
    expect(findInstalledPackage('cfa-linked', join(root, 'src/auth'))).toBe(join(root, 'node_modules/cfa-linked'));
    expect(resolveInstalledPackage('cfa-linked', join(root, 'src/auth'))).toMatch(/cfa-linked\/main\.js$/);
  });

  it('does not look inside a node_modules folder for node_modules/node_modules', async () => {
    const root = await project();
    await install(join(root, 'node_modules/node_modules'), 'cfa-nested');
    expect(findInstalledPackage('cfa-nested', join(root, 'node_modules/x'))).toBeUndefined();
  });
});
