// Issue 23: a new user's first run, from the packed CLI, with npm and with pnpm. dev-idp's first use adds
// oidc-provider to the project and must then load it in the same process: Node remembers a package.json it did not
// find, so a lookup before the install hid the package after it ("Could not add oidc-provider to the project").
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findInstalledPackage } from '../../src/generator/installed-package.js';
import type { FirstRun, FirstRunPackageManager } from '../support/first-run.js';
import { runFirstRun } from '../support/first-run.js';
import { makeTempDir, removeTempDirs } from './helpers/project.js';
import { packedTarball, prepareSharedDeps, repoRoot } from './helpers/shared-deps.js';

afterAll(removeTempDirs);

/** This repo's node_modules/.bin first on PATH: pnpm comes from its devDependencies. */
function childEnv(): NodeJS.ProcessEnv {
  return {
    PATH: `${join(repoRoot, 'node_modules/.bin')}:${process.env['PATH'] ?? ''}`,
    HOME: process.env['HOME'],
    ...(process.env['npm_config_cache'] ? { npm_config_cache: process.env['npm_config_cache'] } : {}),
  };
}

describe.each<FirstRunPackageManager>(['npm', 'pnpm'])('the first run with %s', (pm) => {
  let run: Partial<FirstRun> = {};
  let finished: FirstRun | undefined;
  let failure: unknown;

  beforeAll(async () => {
    await prepareSharedDeps();
    const workDir = await makeTempDir(`cfa-first-run-${pm}-`);
    try {
      finished = await runFirstRun({ tarball: packedTarball(), workDir, packageManager: pm, env: childEnv() }, (started) => (run = started));
    } catch (error) {
      failure = error;
    }
  }, 600_000);

  afterAll(async () => {
    await (finished ?? run).stop?.();
  });

  it('dev-idp found no oidc-provider before its first use (it announces the install)', () => {
    const projectDir = run.projectDir ?? '';
    expect(finished?.devIdpMessages ?? String(failure)).toContain('Adding oidc-provider to the project\'s devDependencies (first use)');
    expect(existsSync(join(projectDir, 'node_modules/create-framework-auth/bin/framework-auth.js'))).toBe(true);
    expect(findInstalledPackage('oidc-provider', join(run.cliBin?.('framework-auth') ?? '', '..'))).toBeUndefined();
  });

  it('dev-idp adds oidc-provider on first use and writes the issuer to .env', async () => {
    if (!finished) throw failure;
    const manifest = JSON.parse(await readFile(join(finished.projectDir, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(manifest.devDependencies['oidc-provider']).toMatch(/^\^9\./);
    expect(finished.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const env = await readFile(join(finished.projectDir, '.env'), 'utf8');
    expect(env).toContain(`AUTH_OIDC_ISSUER=${finished.issuer}`);
    expect(finished.devIdpMessages).not.toContain('Could not add oidc-provider');
  });

  it(`${pm} run dev signs alice in through the sign-in page`, () => {
    if (!finished) throw failure;
    expect(finished.me).toMatchObject({ user: { name: 'Alice Example', email: 'alice@example.test' } });
  });
});
