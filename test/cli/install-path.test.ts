// The install step runs the package manager with execa, never through a shell (SPEC §2): a project folder whose
// path has a space and a `&` in it installs like any other, and a package manager that is not installed is a
// refusal with a message, not a crash. The project has no dependencies, so npm needs no network.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Refusal } from '../../src/generator/errors.js';
import { assertPackageManagerRuns, installDependencies } from '../../src/generator/io/install.js';
import { makeTempDir, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A project folder with a space and a `&` in its path, and a package.json without dependencies. */
async function projectWithAwkwardPath(): Promise<string> {
  const root = await makeTempDir('cfa a&b-');
  await writeFile(join(root, 'package.json'), `${JSON.stringify({ name: 'awkward-path', version: '1.0.0', private: true }, null, 2)}\n`);
  return root;
}

/** Why a promise rejected (undefined when it resolved). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('installDependencies', () => {
  it('installs with npm in a project whose path has a space and a "&"', async () => {
    const root = await projectWithAwkwardPath();
    expect(root).toMatch(/ a&b-/);
    await expect(installDependencies(root, 'npm')).resolves.toBeUndefined();
    // npm wrote the lockfile of this very project, so it ran in this folder.
    const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as { name?: string };
    expect(lock.name).toBe('awkward-path');
  }, 120_000);

  it('refuses with install-failed naming ENOENT when the package manager is not installed, instead of crashing', async () => {
    const root = await projectWithAwkwardPath();
    vi.stubEnv('PATH', await makeTempDir('cfa-empty-path-'));
    const error = await rejection(installDependencies(root, 'npm'));
    expect(error).toBeInstanceOf(Refusal);
    expect((error as Refusal).type).toBe('install-failed');
    expect((error as Refusal).message).toContain('ENOENT');
    expect((error as Refusal).hint).toContain('npm install --no-audit --no-fund');
    expect(existsSync(join(root, 'package-lock.json'))).toBe(false);
  });
});

describe('assertPackageManagerRuns', () => {
  it('resolves when the package manager runs', async () => {
    await expect(assertPackageManagerRuns('npm')).resolves.toBeUndefined();
  }, 60_000);

  it('refuses with a usage error naming the package manager when it is not installed', async () => {
    vi.stubEnv('PATH', await makeTempDir('cfa-empty-path-'));
    const error = await rejection(assertPackageManagerRuns('npm'));
    expect(error).toBeInstanceOf(Refusal);
    expect((error as Refusal).type).toBe('usage');
    expect((error as Refusal).message).toBe('npm was not found on this machine');
  });
});
