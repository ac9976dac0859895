// One npm install of the generated projects' dependencies, shared by every e2e test (and kept across runs in the
// OS temp dir): projects get a node_modules symlink to it. The CLI itself is packed with `npm pack` and installed
// from the tarball, as SPEC §4 allows, so `framework-auth` inside a project is this repo's build.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { runtimeDependencies, toolDevDependencies } from '../../../src/generator/dependencies.js';
import { cliVersion } from '../../../src/cli/version.js';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const sharedDir = join(tmpdir(), 'create-framework-auth-e2e');
const lockDir = join(sharedDir, 'lock');
const depsDir = join(sharedDir, 'deps');

/** The built bins (fresh once {@link prepareSharedDeps} resolved). */
export const builtBins = {
  create: join(repoRoot, 'bin/create-framework-auth.js'),
  frameworkAuth: join(repoRoot, 'bin/framework-auth.js'),
};

/** Runs `run` while no other test process builds, packs or installs (a lock directory in the OS temp dir). */
export async function withSharedLock<T>(run: () => Promise<T>): Promise<T> {
  await mkdir(sharedDir, { recursive: true });
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch {
      // A lock older than 10 minutes belongs to a run that died.
      if (existsSync(lockDir) && Date.now() - statSync(lockDir).mtimeMs > 10 * 60_000) await rmdir(lockDir).catch(() => {});
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockDir}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await run();
  } finally {
    await rmdir(lockDir).catch(() => {});
  }
}

function hashTree(paths: string[]): string {
  const hash = createHash('sha256');
  const visit = (path: string): void => {
    const stats = statSync(path);
    if (stats.isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
    } else {
      hash.update(path).update(readFileSync(path));
    }
  };
  for (const path of paths) visit(path);
  return hash.digest('hex');
}

let prepared: Promise<string> | undefined;

/**
 * Builds the CLI, packs it, and installs the generated projects' dependencies (plus the tarball) once into a shared
 * directory; later calls, other test files and later runs reuse it while the sources are unchanged. Returns the
 * shared node_modules path.
 */
export function prepareSharedDeps(): Promise<string> {
  prepared ??= withSharedLock(async () => {
    const sourceHash = hashTree(['src', 'templates', 'bin', 'package.json', 'tsconfig.build.json'].map((path) => join(repoRoot, path)));
    const marker = join(depsDir, '.prepared');
    if (existsSync(marker) && (await readFile(marker, 'utf8')) === sourceHash && existsSync(join(repoRoot, 'dist/cli/main.js'))) {
      return join(depsDir, 'node_modules');
    }
    await execa('npm', ['run', 'build'], { cwd: repoRoot });
    const packDir = join(sharedDir, 'pack');
    await rm(packDir, { recursive: true, force: true });
    await mkdir(packDir, { recursive: true });
    await execa('npm', ['pack', '--pack-destination', packDir, '--silent'], { cwd: repoRoot });
    const tarball = join(packDir, `create-framework-auth-${cliVersion}.tgz`);
    await mkdir(depsDir, { recursive: true });
    const devDependencies = { ...toolDevDependencies(cliVersion), 'create-framework-auth': `file:${tarball}` };
    await writeFile(
      join(depsDir, 'package.json'),
      `${JSON.stringify({ name: 'cfa-e2e-deps', private: true, type: 'module', dependencies: runtimeDependencies(), devDependencies }, null, 2)}\n`,
    );
    // The tarball's integrity changes with every build; a stale lock entry would make npm refuse it.
    await rm(join(depsDir, 'package-lock.json'), { force: true });
    await rm(join(depsDir, 'node_modules/create-framework-auth'), { recursive: true, force: true });
    await execa('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: depsDir });
    await writeFile(marker, sourceHash);
    return join(depsDir, 'node_modules');
  });
  return prepared;
}

/** The packed tarball of this repo (after {@link prepareSharedDeps}). */
export function packedTarball(): string {
  return join(sharedDir, 'pack', `create-framework-auth-${cliVersion}.tgz`);
}

/** Gives a project the shared node_modules (a symlink), as if its dependencies were installed. */
export async function linkSharedDeps(projectDir: string): Promise<void> {
  await symlink(await prepareSharedDeps(), join(projectDir, 'node_modules'), 'dir');
}
