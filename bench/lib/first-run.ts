/**
 * Seconds from `npx create-framework-auth` to a signed-in `/me` (issue 23), the steps a new user takes: npx installs
 * the packed CLI, it scaffolds an app, npm installs it, `framework-auth dev-idp --write-env` adds oidc-provider on
 * first use, `npm run dev` starts the app, and alice signs in through its sign-in page. Once with an empty npm cache
 * (every package from the registry), then again with the cache that run filled.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { runFirstRun } from '../../test/support/first-run.js';
import { packRepository } from './footprint.js';

/** One timed first run. */
export interface FirstRunTiming {
  cache: 'cold' | 'warm';
  totalMs: number;
  steps: { name: string; ms: number }[];
}

/** A cold and a warm first run of the packed CLI (`tarball`, from `packRepository`) below `parent`. */
export async function timeFirstRuns(tarball: string, parent: string, log: (message: string) => void = () => {}): Promise<FirstRunTiming[]> {
  const cache = await mkdtemp(join(parent, 'npm-cache-'));
  const env = { PATH: process.env['PATH'], HOME: process.env['HOME'], npm_config_cache: cache, npm_config_update_notifier: 'false' };
  const timings: FirstRunTiming[] = [];
  for (const kind of ['cold', 'warm'] as const) {
    log(`first run, ${kind} npm cache`);
    const workDir = await mkdtemp(join(parent, `first-run-${kind}-`));
    let stop: (() => Promise<void>) | undefined;
    try {
      const started = performance.now();
      const run = await runFirstRun({ tarball, workDir, packageManager: 'npm', env }, (partial) => (stop = partial.stop));
      timings.push({ cache: kind, totalMs: performance.now() - started, steps: run.steps });
    } finally {
      await stop?.();
    }
  }
  return timings;
}

const isMain = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const { rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const repoRoot = new URL('../..', import.meta.url).pathname;
  const parent = await mkdtemp(join(tmpdir(), 'cfa-first-run-'));
  try {
    const tarball = await packRepository(repoRoot, parent);
    for (const timing of await timeFirstRuns(tarball, parent, (message) => process.stderr.write(`[bench] ${message}\n`))) {
      const steps = timing.steps.map((step) => `${step.name} ${(step.ms / 1000).toFixed(1)} s`).join('; ');
      process.stdout.write(`${timing.cache} npm cache: ${(timing.totalMs / 1000).toFixed(1)} s (${steps})\n`);
    }
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}
