// `create-framework-auth` as users get it: the tarball `npm pack` makes (prepareSharedDeps packs and installs it),
// run in a project with the install it does itself (npm, CI set, as in .ci/run).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { packedTarball, prepareSharedDeps } from './shared-deps.js';
import type { CliRun } from './project.js';

/**
 * Runs the packed CLI's `create-framework-auth` in `projectDir` with `args`, installing. This version is not on the
 * registry, so the project's devDependency names the tarball first, as after `npm install -D <tarball>`.
 */
export async function runPackedCreate(projectDir: string, args: readonly string[]): Promise<CliRun> {
  const shared = await prepareSharedDeps();
  const pkgPath = join(projectDir, 'package.json');
  const pkg = JSON.parse(await readFile(pkgPath, 'utf8')) as { devDependencies?: Record<string, string> };
  const devDependencies = { ...pkg.devDependencies, 'create-framework-auth': `file:${packedTarball()}` };
  await writeFile(pkgPath, `${JSON.stringify({ ...pkg, devDependencies }, null, 2)}\n`);
  const result = await execa(process.execPath, [join(shared, 'create-framework-auth/bin/create-framework-auth.js'), ...args], {
    cwd: projectDir,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', CI: 'true', ...(process.env['npm_config_cache'] ? { npm_config_cache: process.env['npm_config_cache'] } : {}) },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 600_000,
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}
