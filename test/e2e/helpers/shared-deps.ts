// One npm install of the generated projects' dependencies, shared by every e2e test (and kept across runs in the
// OS temp dir, one folder per state of the sources, so that two checkouts testing at once never reinstall each
// other's): projects get a node_modules symlink to it. The CLI itself is packed with `npm pack` and installed
// from the tarball, as SPEC §4 allows, so `framework-auth` inside a project is this repo's build.
// The adapters' drivers and types come from the catalog too, except a driver with an install script (better-sqlite3:
// a native build of minutes): projects that need it link this repo's already-built copy (linkProjectDeps).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, rmdir, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { adapterCatalog } from '../../../src/catalog/adapters.js';
import { featureCatalog } from '../../../src/catalog/features.js';
import { providerCatalog } from '../../../src/catalog/providers.js';
import { runtimeDependencies, testedRanges, toolDevDependencies } from '../../../src/generator/plan/dependencies.js';
import { cliVersion } from '../../../src/generator/version.js';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const sharedDir = join(tmpdir(), 'create-framework-auth-e2e');
const lockDir = join(sharedDir, 'lock');
// Installs of other source states unused for this long are removed (each test process touches the one it uses).
const staleAfterMs = 60 * 60_000;

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

/** Packages whose install script builds native code: never installed in the shared directory. */
export const nativeDependencies: readonly string[] = [...new Set(adapterCatalog.flatMap((entry) => entry.installScripts))];

function withoutNative(dependencies: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(dependencies).filter(([name]) => !nativeDependencies.includes(name)));
}

/** Every adapter's driver and types, as the CLI writes them into a project (minus the native builds). */
function adapterDependencies(): { dependencies: Record<string, string>; devDependencies: Record<string, string> } {
  const dependencies: Record<string, string> = {};
  const devDependencies: Record<string, string> = {};
  for (const entry of adapterCatalog) {
    Object.assign(dependencies, withoutNative(testedRanges(entry.dependencies)));
    Object.assign(devDependencies, withoutNative(testedRanges(entry.devDependencies)));
  }
  return { dependencies, devDependencies };
}

/** Every catalog provider's dependencies (nodemailer for email, @simplewebauthn/server for passkeys). */
/** What every catalog provider and feature bring. */
function providerDependencies(): Record<string, string> {
  return Object.assign({}, ...[...providerCatalog, ...featureCatalog].map((entry) => testedRanges(entry.dependencies))) as Record<string, string>;
}

let sourceHashMemo: string | undefined;

/** Hash of everything that goes into the packed CLI and the generated projects' dependency list. */
function sourceHash(): string {
  // This file too: what it installs (providerDependencies) is part of the state.
  sourceHashMemo ??= hashTree(['src', 'templates', 'bin', 'package.json', 'tsconfig.build.json', 'test/e2e/helpers/shared-deps.ts'].map((path) => join(repoRoot, path)));
  return sourceHashMemo;
}

/** The folder of this source state: `deps/` (the install) and `pack/` (the tarball). */
function stateDir(): string {
  return join(sharedDir, sourceHash().slice(0, 16));
}

async function removeStaleStates(current: string): Promise<void> {
  for (const name of await readdir(sharedDir)) {
    const path = join(sharedDir, name);
    if (path === current || path === lockDir) continue;
    const marker = join(path, 'deps', '.prepared');
    const used = await stat(existsSync(marker) ? marker : path).catch(() => undefined);
    if (used && Date.now() - used.mtimeMs > staleAfterMs) await rm(path, { recursive: true, force: true });
  }
}

// Which source state this checkout's dist/ was built from: a reused install must not run an older or newer build.
const builtStateFile = join(repoRoot, 'node_modules/.cache/create-framework-auth-e2e-built');

let prepared: Promise<string> | undefined;

/**
 * Builds the CLI, packs it, and installs the generated projects' dependencies (plus the tarball) once into a shared
 * directory; later calls, other test files and later runs reuse it while the sources are unchanged. Returns the
 * shared node_modules path.
 */
export function prepareSharedDeps(): Promise<string> {
  prepared ??= withSharedLock(async () => {
    const depsDir = join(stateDir(), 'deps');
    const marker = join(depsDir, '.prepared');
    const builtState = await readFile(builtStateFile, 'utf8').catch(() => '');
    if (existsSync(marker) && (await readFile(marker, 'utf8')) === sourceHash() && builtState === sourceHash() && existsSync(join(repoRoot, 'dist/cli/main.js'))) {
      const now = new Date();
      await utimes(marker, now, now);
      return join(depsDir, 'node_modules');
    }
    await removeStaleStates(stateDir());
    await execa('npm', ['run', 'build'], { cwd: repoRoot });
    await mkdir(dirname(builtStateFile), { recursive: true });
    await writeFile(builtStateFile, sourceHash());
    const packDir = join(stateDir(), 'pack');
    await rm(packDir, { recursive: true, force: true });
    await mkdir(packDir, { recursive: true });
    await execa('npm', ['pack', '--pack-destination', packDir, '--silent'], { cwd: repoRoot });
    const tarball = join(packDir, `create-framework-auth-${cliVersion}.tgz`);
    await mkdir(depsDir, { recursive: true });
    const adapters = adapterDependencies();
    const dependencies = { ...runtimeDependencies(), ...providerDependencies(), ...adapters.dependencies };
    // oidc-provider as dev-idp adds it to a project on first use (the CLI's package does not bring it).
    const rootPackage = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    const devDependencies = {
      ...toolDevDependencies(cliVersion),
      ...adapters.devDependencies,
      'oidc-provider': rootPackage.devDependencies['oidc-provider'] ?? '^9.13.3',
      'create-framework-auth': `file:${tarball}`,
    };
    await writeFile(
      join(depsDir, 'package.json'),
      `${JSON.stringify({ name: 'cfa-e2e-deps', private: true, type: 'module', dependencies, devDependencies }, null, 2)}\n`,
    );
    // The tarball's integrity changes with every build; a stale lock entry would make npm refuse it.
    await rm(join(depsDir, 'package-lock.json'), { force: true });
    await rm(join(depsDir, 'node_modules/create-framework-auth'), { recursive: true, force: true });
    await execa('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: depsDir });
    await writeFile(marker, sourceHash());
    return join(depsDir, 'node_modules');
  });
  return prepared;
}

/** The packed tarball of this repo (after {@link prepareSharedDeps}). */
export function packedTarball(): string {
  return join(stateDir(), 'pack', `create-framework-auth-${cliVersion}.tgz`);
}

/** Gives a project the shared node_modules (a symlink), as if its dependencies were installed. */
export async function linkSharedDeps(projectDir: string): Promise<void> {
  await symlink(await prepareSharedDeps(), join(projectDir, 'node_modules'), 'dir');
}

/**
 * Gives a project a node_modules folder of its own: a symlink to each package of the shared install, plus this
 * repo's built copy of each native dependency the project needs (`npm ci` here built better-sqlite3 already; a
 * rebuild would take minutes). Node and tsc resolve a linked package from its real path, so better-sqlite3 finds
 * its own dependencies (`bindings`, `file-uri-to-path`) in this repo's node_modules.
 */
export async function linkProjectDeps(projectDir: string, native: readonly string[]): Promise<void> {
  const shared = await prepareSharedDeps();
  const target = join(projectDir, 'node_modules');
  await mkdir(target);
  for (const name of await readdir(shared)) {
    if (name.startsWith('.') && name !== '.bin') continue;
    await symlink(join(shared, name), join(target, name), 'dir');
  }
  for (const name of native) {
    const built = join(repoRoot, 'node_modules', name);
    if (!existsSync(built)) throw new Error(`${name} is not installed in ${repoRoot}/node_modules (run npm ci there)`);
    await symlink(built, join(target, name), 'dir');
  }
}
