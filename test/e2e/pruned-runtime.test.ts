// A project whose providers bring every flow the runtime has (email sign-in, passkeys, microblog's OAuth 1.0a) with
// the SQLite adapter compiles: the runtime copied for those choices holds every file they need (issue 15).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProject, makeTempDir, removeTempDirs, runBuiltCli } from './helpers/project.js';
import { linkSharedDeps, prepareSharedDeps } from './helpers/shared-deps.js';

afterAll(removeTempDirs);

describe('a scaffold with email, passkey and microblog on SQLite', () => {
  let projectDir: string;

  beforeAll(async () => {
    await prepareSharedDeps();
    const root = await makeTempDir();
    const scaffold = await runBuiltCli('create', ['app', '--providers', 'email,passkey,microblog', '--adapter', 'sqlite', '--yes', '--no-install'], { cwd: root });
    if (scaffold.exitCode !== 0) throw new Error(scaffold.stderr);
    projectDir = join(root, 'app');
    await linkSharedDeps(projectDir);
  }, 600_000);

  it('compiles with tsc with zero errors', async () => {
    const result = await compileProject(projectDir);
    expect(result.output).toBe('');
    expect(result.exitCode).toBe(0);
  }, 120_000);
});
