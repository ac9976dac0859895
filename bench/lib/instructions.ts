/**
 * Instructions per request, the bench's steadier measure: a server restarted under Valgrind's callgrind, warmed up,
 * then counted over a fixed number of requests: `callgrind_control` zeroes the counters, the requests run, and a dump
 * gives the instructions the process executed meanwhile, in every thread (V8's compiler and GC helpers, libuv's
 * pool). They are user-space instructions only: the kernel's share of a request (the socket calls) is not in them.
 * On an idle machine two processes of the same server agree within 1%. A busy machine raises a count (V8's compiler
 * threads get less of the CPU, so tier-up ends later): by 15% in one run with V8's defaults. Counted servers
 * therefore compile on the main thread (`--no-concurrent-recompilation`, processes.ts), so that tier-up ends after
 * the same number of requests whatever else runs; V8's single-threaded and predictable modes did not help
 * (docs/benchmarks.md). Count on a quiet machine all the same.
 *
 * The warm-up runs under valgrind uninstrumented (some four times faster); the first count switches instrumentation
 * on. With V8's helper-thread compiler that made the first counted windows run high (1.4× the settled count after
 * 15,000 warm-up requests, presumably compiles queued during the fast warm-up); compiling on the main thread,
 * the windows after an uninstrumented warm-up of 15,000 requests matched those after an instrumented one but for the
 * first (our PostgreSQL session server: 865, 752, 776 k against 784, 797, 742 k; the floor 760, 717, 704 against
 * 748, 682, 787), which the bench leaves out (run.ts, countPerOperation). Natively, that server's tier-up is mostly
 * over after 15,000 requests (466 functions optimised in the first 5,000, 8 in the third, 0–6 in each later one);
 * after it, windows of 2,000 requests move ±5–7% with where V8's major GCs land (34–104 k instructions of GC per
 * request in one window or the next).
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A server process run by valgrind, and how to count its instructions. */
export interface CallgrindProcess {
  /** The program fork() runs instead of node, and its arguments before node's. */
  valgrind: string;
  arguments: string[];
  /** The process's pid, once started. */
  attach(pid: number): void;
  /**
   * The instructions the process executes while `work` runs. With BENCH_CALLGRIND_KEEP set to a folder, the dump
   * is kept there as `<label>.callgrind` (read it with `callgrind_annotate`: where the instructions went, by function).
   */
  count(work: () => Promise<void>, label: string): Promise<number>;
  /** Deletes the dumps (after the process exited). */
  remove(): Promise<void>;
}

/** Whether valgrind and callgrind_control are installed (Debian: `apt-get install valgrind`). */
export async function callgrindAvailable(): Promise<boolean> {
  try {
    await run('valgrind', ['--version']);
    await run('callgrind_control', ['-h']);
    return true;
  } catch {
    return false;
  }
}

export async function callgrindProcess(): Promise<CallgrindProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'cfa-callgrind-'));
  const output = join(dir, 'callgrind.out');
  let pid = 0;
  const control = async (...args: string[]): Promise<void> => {
    await run('callgrind_control', [...args, String(pid)]);
  };
  return {
    valgrind: 'valgrind',
    // Uninstrumented until the first count; counts go to the dump only (no per-line data: smaller files); every
    // thread's counts are summed.
    arguments: ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${output}`, '--dump-line=no', '--quiet'],
    attach(started) {
      pid = started;
    },
    async count(work, label) {
      await control('--instr=on');
      await control('--zero');
      await work();
      const before = new Set(await readdir(dir));
      await control('--dump');
      const dumps = (await readdir(dir)).filter((name) => !before.has(name));
      if (dumps.length !== 1) throw new Error(`callgrind wrote ${dumps.length} dumps for one count in ${dir}`);
      const dump = await readFile(join(dir, dumps[0]!), 'utf8');
      const keep = process.env['BENCH_CALLGRIND_KEEP'];
      if (keep) {
        await mkdir(keep, { recursive: true });
        await copyFile(join(dir, dumps[0]!), join(keep, `${label.replace(/[^\w.-]+/g, '_')}.callgrind`));
      }
      const totals = /^(?:totals|summary): (\d+)/m.exec(dump);
      if (!totals) throw new Error(`no totals in the callgrind dump ${dumps[0]}`);
      return Number(totals[1]);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Runs `count` for each item, at most one per core at a time. Each counted process runs on one core (valgrind runs
 * a process's threads one at a time); more of them than cores raise every count, since V8's compiler threads then
 * get less of the CPU and tier-up ends later (five at once on 2 cores: bare Express 621–706 k, 578–590 k counted
 * three at once).
 */
export async function countEach<Item>(items: readonly Item[], count: (item: Item) => Promise<void>): Promise<void> {
  const waiting = [...items];
  const worker = async (): Promise<void> => {
    for (let item = waiting.shift(); item !== undefined; item = waiting.shift()) await count(item);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(cpus().length, waiting.length)) }, worker));
}
