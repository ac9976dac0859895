// The CLI installs the generated project's dependencies itself with the detected package manager (npm here).
// The project is seeded with a package.json whose create-framework-auth devDependency points at the packed
// tarball (SPEC §4), which the CLI keeps as the user's own specifier.
import { existsSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProject, makeTempDir, runBuiltCli, snapshotTree, removeTempDirs } from './helpers/project.js';
import type { CliRun } from './helpers/project.js';
import { packedTarball, prepareSharedDeps } from './helpers/shared-deps.js';

afterAll(removeTempDirs);

describe('create-framework-auth with the install step', () => {
  let projectDir: string;
  let scaffold: CliRun;

  beforeAll(async () => {
    await prepareSharedDeps();
    projectDir = join(await makeTempDir(), 'installed-app');
    await mkdir(projectDir);
    await writeFile(
      join(projectDir, 'package.json'),
      `${JSON.stringify({ name: 'installed-app', private: true, devDependencies: { 'create-framework-auth': `file:${packedTarball()}` } }, null, 2)}\n`,
    );
    scaffold = await runBuiltCli('create', ['--yes'], { cwd: projectDir, env: { npm_config_prefer_offline: 'true', npm_config_user_agent: '' } });
  }, 600_000);

  it('installs with npm and says so', () => {
    expect(scaffold.stderr).toBe('');
    expect(scaffold.exitCode).toBe(0);
    expect(scaffold.stdout).toContain('Installed dependencies with npm');
    expect(scaffold.stdout).not.toContain('npm install\n');
  });

  it('installs every dependency of the generated code, and keeps the user\'s specifier for the CLI', async () => {
    for (const name of ['express', 'jose', 'oauth4webapi', 'typescript', 'tsx', '@types/express', '@types/node']) {
      expect(existsSync(join(projectDir, 'node_modules', name, 'package.json')), name).toBe(true);
    }
    const pkg = JSON.parse(await readFile(join(projectDir, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(pkg.devDependencies['create-framework-auth']).toBe(`file:${packedTarball()}`);
    expect(existsSync(join(projectDir, 'package-lock.json'))).toBe(true);
  });

  it('compiles with tsc with zero errors', async () => {
    const result = await compileProject(projectDir);
    expect(result.output).toBe('');
    expect(result.exitCode).toBe(0);
  }, 60_000);

  it('does not install again, nor change a file, when run again', async () => {
    const before = await snapshotTree(projectDir);
    const again = await runBuiltCli('create', ['--yes'], { cwd: projectDir });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).not.toContain('Installing');
    expect(await snapshotTree(projectDir)).toEqual(before);
  });
});
