/**
 * CLI timings: cold starts of the built bins (a new node process each run, as `npx framework-auth …` is) and the
 * time to scaffold a project without installing. Each is the median of several runs.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { median } from './stats.js';

/** Wall-clock milliseconds of each of `runs` runs of `node <args>`; throws when a run fails. */
export function timeNode(args: string[], runs: number, cwd: string): number[] {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    const result = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    const elapsed = performance.now() - start;
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${result.status}:\n${result.stderr}`);
    times.push(elapsed);
  }
  return times;
}

/** One timed CLI case. */
export interface CliTiming {
  label: string;
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Median of (this run − the `node -e 0` run beside it): the CLI's own share, whatever the machine's load. */
  overFloorMs: number;
  runs: number;
}

function summarise(label: string, times: number[], floors: number[]): CliTiming {
  return {
    label,
    medianMs: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    overFloorMs: median(times.map((time, index) => time - floors[index]!)),
    runs: times.length,
  };
}

const floorArgs = ['-e', '0'];

/**
 * Cold starts of `framework-auth --help`, `--version`, `secret --raw` and of plain `node` (the floor), run in turns
 * so that each round of runs shares the machine's load of that moment.
 */
export function timeCliStarts(repoRoot: string, runs: number, cwd: string): { floor: CliTiming; commands: CliTiming[] } {
  const bin = join(repoRoot, 'bin/framework-auth.js');
  const commands = [['--version'], ['--help'], ['secret', '--raw']];
  // One unmeasured run of each warms the OS file cache, as a second `npx` would be.
  for (const args of commands) timeNode([bin, ...args], 1, cwd);
  const floors: number[] = [];
  const times = commands.map((): number[] => []);
  for (let run = 0; run < runs; run++) {
    floors.push(...timeNode(floorArgs, 1, cwd));
    commands.forEach((args, index) => times[index]!.push(...timeNode([bin, ...args], 1, cwd)));
  }
  return {
    floor: summarise('node -e 0 (floor)', floors, floors),
    commands: commands.map((args, index) => summarise(`framework-auth ${args.join(' ')}`, times[index]!, floors)),
  };
}

/** `create-framework-auth <dir> --providers oidc,credentials --yes --no-install` into fresh folders. */
export function timeScaffold(repoRoot: string, runs: number, parent: string): { timing: CliTiming; projects: string[] } {
  const bin = join(repoRoot, 'bin/create-framework-auth.js');
  const projects = Array.from({ length: runs }, (_, index) => join(parent, `scaffold-${index}`));
  const floors: number[] = [];
  const times: number[] = [];
  projects.forEach((project) => {
    floors.push(...timeNode(floorArgs, 1, parent));
    times.push(...timeNode([bin, project, '--providers', 'oidc,credentials', '--yes', '--no-install'], 1, parent));
  });
  return { timing: summarise('create-framework-auth … --no-install (scaffold)', times, floors), projects };
}
