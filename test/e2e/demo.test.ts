// `npm run demo` (the README's main command) end to end: scaffold, install, local OpenID provider, app, and a
// sign-in over HTTP (its --self-test mode, which stops instead of waiting for Ctrl-C).
import { join } from 'node:path';
import { execa } from 'execa';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDirs } from './helpers/project.js';
import { prepareSharedDeps, repoRoot, withSharedLock } from './helpers/shared-deps.js';

afterAll(removeTempDirs);

/** Runs `npm run demo -- --self-test <flags>` in a fresh folder: its output without colours, and its exit code. */
async function runDemo(flags: readonly string[]): Promise<{ output: string; exitCode: number | undefined }> {
  await prepareSharedDeps();
  const demoDir = join(await makeTempDir(), 'demo-app');
  // The demo builds and packs the repo itself: keep other test processes from doing the same at that moment.
  const result = await withSharedLock(() =>
    execa(process.execPath, [join(repoRoot, 'node_modules/tsx/dist/cli.mjs'), 'scripts/demo.ts', '--self-test', ...flags], {
      cwd: repoRoot,
      env: { DEMO_DIR: demoDir, PORT: '0' },
      reject: false,
      all: true,
      timeout: 240_000,
    }),
  );
  return { output: stripVTControlCharacters(String(result.all)), exitCode: result.exitCode };
}

describe('npm run demo', () => {
  it('scaffolds, installs and starts the demo app beside a local OpenID provider, where sign-in works', async () => {
    const { output, exitCode } = await runDemo([]);
    expect(output).toContain('Installed dependencies with npm');
    expect(output).toContain('Self-test: signed in, /me answered {"user":{"id":"alice-sub","name":"Alice Example"');
    expect(exitCode).toBe(0);
  }, 600_000);

  it('with --password, signs up with email and password too, through the link the app printed on its console', async () => {
    const { output, exitCode } = await runDemo(['--password']);
    expect(output).toContain('email-printed-to-console');
    expect(output).toContain('Self-test: signed up with a password, /me answered {"user":{');
    expect(output).toContain('"email":"demo@example.test"');
    expect(exitCode).toBe(0);
  }, 600_000);
});
