import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { installCommand, isPackageManager, lockfiles } from '../../catalog/package-managers.js';
import type { PackageManager } from '../../catalog/package-managers.js';
import { Refusal, cancelledError, failureDetail, usageError } from '../errors.js';
import { readProjectFile } from '../planned-file.js';
import { findWorkspace } from '../project/workspace.js';

/** Where the package manager choice came from, for the messages. */
export type PackageManagerSource = 'flag' | 'packageManager field' | 'lockfile' | 'user agent' | 'default';

/**
 * The package manager of a project: `--package-manager`, else package.json's `packageManager` field, else a
 * lockfile, else the one running this CLI (`npm_config_user_agent`, e.g. `pnpm dlx`), else npm. A workspace
 * package is looked at with its workspace root, where the lockfile and the field usually are.
 */
export function detectPackageManager(
  root: string,
  flag: PackageManager | undefined,
  env: NodeJS.ProcessEnv,
): { pm: PackageManager; source: PackageManagerSource } {
  if (flag) return { pm: flag, source: 'flag' };
  const workspace = findWorkspace(root);
  const folders = workspace ? [root, workspace.root] : [root];
  for (const folder of folders) {
    const packageText = readProjectFile(folder, 'package.json');
    if (packageText === undefined) continue;
    try {
      const field = (JSON.parse(packageText) as { packageManager?: unknown }).packageManager;
      const name = typeof field === 'string' ? field.split('@')[0] ?? '' : '';
      if (isPackageManager(name)) return { pm: name, source: 'packageManager field' };
    } catch {
      // An invalid package.json is reported by the planner with a better message.
    }
  }
  for (const folder of folders) {
    for (const [file, pm] of lockfiles) {
      if (existsSync(join(folder, file))) return { pm, source: 'lockfile' };
    }
  }
  if (workspace?.kind === 'pnpm-workspace.yaml') return { pm: 'pnpm', source: 'lockfile' };
  const agent = env.npm_config_user_agent?.split('/')[0] ?? '';
  if (isPackageManager(agent)) return { pm: agent, source: 'user agent' };
  return { pm: 'npm', source: 'default' };
}

/** Fails before anything is written when the package manager cannot run. */
export async function assertPackageManagerRuns(pm: PackageManager): Promise<void> {
  // Never throws: a package manager that is not installed (ENOENT) or hangs (timeout) has no exit code 0 either.
  const result = await execa(pm, ['--version'], { reject: false, stdin: 'ignore', timeout: 30_000 });
  if (result.exitCode !== 0) {
    throw usageError(`${pm} was not found on this machine`, `Pass --package-manager <npm|pnpm|yarn|bun>, or --no-install.`);
  }
}

/**
 * Runs `<pm> install` in the project, or at its workspace root (one install, one lockfile for the monorepo);
 * Ctrl-C (the signal) stops it. The files written stay as they are.
 */
export async function installDependencies(root: string, pm: PackageManager, signal?: AbortSignal): Promise<void> {
  const { command, args } = installCommand(pm);
  const cwd = findWorkspace(root)?.root ?? root;
  // pnpm and Yarn 2+ refuse to change the lockfile when they see CI; adding dependencies is what this install is for.
  const env = pm === 'yarn' ? { YARN_ENABLE_IMMUTABLE_INSTALLS: 'false' } : {};
  const runArgs = pm === 'pnpm' ? [...args, '--no-frozen-lockfile'] : args;
  // No `shell: true`: on Windows execa finds the package managers' `.cmd` shims and escapes every argument for cmd.exe.
  // It never throws here (reject: false): the exit code, the output (`all`) and why it could not start (`cause`:
  // ENOENT when the package manager is not installed) are read below.
  const result = await execa(command, runArgs, { cwd, env, reject: false, all: true, stdin: 'ignore', ...(signal ? { cancelSignal: signal } : {}) });
  if (signal?.aborted) throw cancelledError(`Install cancelled. The files are written; run "${command} ${args.join(' ')}" to finish.`);
  if (result.exitCode !== 0) {
    const error = result.cause instanceof Error ? result.cause : new Error(`${command} exited with ${result.exitCode}`);
    throw new Refusal('install-failed', `${command} install failed:\n${failureDetail(result, 15)}`, {
      hint: `The files are written. Fix the problem, then run "${command} ${args.join(' ')}" in ${cwd}.`,
      cause: error,
    });
  }
}
