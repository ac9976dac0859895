/**
 * What `npx create-framework-auth` downloads: the packed CLI installed into an empty folder, beside `@auth/express`
 * (with Express) and bare Express installed the same way. Counted as installed packages (folders with a
 * package.json directly under a node_modules) and bytes on disk.
 */
import { execFile } from 'node:child_process';
import { lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Packages and bytes of one install. */
export interface Footprint {
  label: string;
  packages: number;
  bytes: number;
}

/** Bytes on disk under `path`: the sum of its files' sizes (symlinks counted as links, not followed). */
export async function sizeOf(path: string): Promise<number> {
  const stats = await lstat(path);
  if (!stats.isDirectory()) return stats.size;
  let total = 0;
  for (const entry of await readdir(path)) total += await sizeOf(join(path, entry));
  return total;
}

/** Every package folder below a node_modules (scoped ones counted per package), nested node_modules included. */
export async function countPackages(nodeModules: string): Promise<number> {
  let count = 0;
  let entries: string[];
  try {
    entries = await readdir(nodeModules);
  } catch {
    return 0;
  }
  for (const name of entries) {
    if (name.startsWith('.')) continue;
    const path = join(nodeModules, name);
    if (name.startsWith('@')) {
      for (const scoped of await readdir(path)) {
        count += 1 + (await countPackages(join(path, scoped, 'node_modules')));
      }
    } else {
      count += 1 + (await countPackages(join(path, 'node_modules')));
    }
  }
  return count;
}

/** Installs `specs` into a new empty folder under `parent` with npm and measures it. */
export async function measureInstall(label: string, specs: readonly string[], parent: string): Promise<Footprint> {
  const folder = join(parent, `footprint-${label.replace(/[^a-z0-9]+/gi, '-')}`);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'package.json'), '{ "name": "footprint", "version": "1.0.0", "private": true }\n');
  await execFileAsync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--prefer-offline', ...specs], { cwd: folder });
  const nodeModules = join(folder, 'node_modules');
  return { label, packages: await countPackages(nodeModules), bytes: await sizeOf(nodeModules) };
}

/** `npm pack` of this repository (prepack builds) into `parent/pack`: the tarball's path. */
export async function packRepository(repoRoot: string, parent: string): Promise<string> {
  const packDir = join(parent, 'pack');
  await mkdir(packDir, { recursive: true });
  const { stdout } = await execFileAsync('npm', ['pack', '--pack-destination', packDir, '--silent'], { cwd: repoRoot });
  return join(packDir, stdout.trim().split('\n').pop() ?? '');
}

/** The footprints of the packed CLI (`tarball`), `@auth/express` and bare Express, installed below `parent`. */
export async function measureFootprints(tarball: string, parent: string): Promise<Footprint[]> {
  return [
    await measureInstall('npx create-framework-auth', [tarball], parent),
    await measureInstall('@auth/express 0.12.3 + express 5', ['@auth/express@0.12.3', 'express@5'], parent),
    await measureInstall('express 5 (bare)', ['express@5'], parent),
  ];
}

const isMain = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const repoRoot = new URL('../..', import.meta.url).pathname;
  const parent = await mkdtemp(join(tmpdir(), 'cfa-footprint-'));
  for (const row of await measureFootprints(await packRepository(repoRoot, parent), parent)) {
    console.log(`${row.label.padEnd(36)} ${String(row.packages).padStart(4)} packages ${(row.bytes / 1e6).toFixed(1).padStart(6)} MB`);
  }
}
