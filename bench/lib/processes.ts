/**
 * Child processes of the bench: the servers (compiled once with tsc, then run by plain `node`) and the commands it
 * times. Each server reports its port over IPC and exits with the bench.
 */
import { type ChildProcess, execFile, execFileSync, fork } from 'node:child_process';
import { cpus } from 'node:os';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FromChild, ToChild } from '../servers/child.js';
import { type CallgrindProcess, callgrindProcess } from './instructions.js';

const run = promisify(execFile);

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

/** Compiles bench/servers (with the runtime and test support they import) into `outDir`, runnable by node. */
export async function compileServers(outDir: string): Promise<string> {
  await run(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', join(repoRoot, 'bench/tsconfig.build.json'), '--outDir', outDir]);
  // The output sits outside the repo: give it ESM semantics and the repo's packages.
  await writeFile(join(outDir, 'package.json'), '{ "type": "module" }\n');
  await symlink(join(repoRoot, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  return join(outDir, 'bench/servers');
}

/** A server started by {@link startServer}. */
export interface BenchServer {
  name: string;
  url: string;
  port: number;
  pid: number;
  info: Record<string, unknown>;
  /** RSS and heap of the server process (after a full GC when `gc`), and the CPU time it has used. */
  usage(gc?: boolean): Promise<{ rss: number; heapUsed: number; heapTotal: number; external: number; cpuMicros: number }>;
  /** Calls one of the server's IPC functions. */
  call<T>(name: string, ...args: unknown[]): Promise<T>;
  /**
   * Stops the process and starts the same script again, with the same options, on the same port (so that the
   * origin it was configured with and the redirect URIs registered for it stay right): under Valgrind's callgrind
   * when `counted` (see instructions.ts), else plain. The new process writes its rows afresh, so `info` is replaced.
   */
  restart(counted: boolean): Promise<void>;
  /** The instructions the process executes while `work` runs (only when restarted counted); `label` names a kept dump. */
  countInstructions(work: () => Promise<void>, label: string): Promise<number>;
  stop(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Writes a V8 CPU profile into this folder when the server exits. */
  profileDir?: string | undefined;
  timeoutMs?: number;
  /**
   * The core it runs on when pinned: `server` (the app's core, the default) or `load` (beside the load generator:
   * for oidc-provider, a remote service in production, so that its work is not interleaved with the app's).
   */
  core?: 'server' | 'load';
  /** The port to listen on (0, the default: any free one). */
  port?: number;
}

/**
 * The cores the bench pins to, as an independent measurement does (the app alone on one core, the load generator on
 * the other): with two or more cores and `taskset`, servers run on the last core and this process (autocannon, the
 * sign-in loops) on core 0. Unpinned, the servers, oidc-provider and the load generator share both cores, and an
 * app's CPU per request counts the cache and scheduler cost of that crowding. BENCH_PIN=0 turns it off.
 */
export const pinning: { serverCore: number; loadCore: number } | undefined = (() => {
  if (process.env['BENCH_PIN'] === '0' || cpus().length < 2) return undefined;
  try {
    execFileSync('taskset', ['-pc', '0', String(process.pid)], { stdio: 'ignore' });
    return { serverCore: cpus().length - 1, loadCore: 0 };
  } catch {
    return undefined;
  }
})();

/** Starts `script` with plain node (plus `--expose-gc` for memory readings) and waits for it to listen. */
export async function startServer(name: string, script: string, options: StartOptions = {}): Promise<BenchServer> {
  let running = await startProcess(name, script, options, undefined);
  let counter: CallgrindProcess | undefined;
  const port = running.port;
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    get pid() {
      return running.child.pid ?? 0;
    },
    get info() {
      return running.info;
    },
    usage: (gc) => running.usage(gc),
    call: (callName, ...args) => running.call(callName, ...args),
    async restart(counted) {
      await stopChild(running.child);
      await counter?.remove();
      counter = counted ? await callgrindProcess() : undefined;
      // Node starts some ten times slower under valgrind.
      running = await startProcess(name, script, { ...options, port, ...(counted && { timeoutMs: 300_000 }) }, counter);
      counter?.attach(running.child.pid ?? 0);
    },
    async countInstructions(work, label) {
      if (!counter) throw new Error(`${name} is not running under callgrind: restart(true) first`);
      return counter.count(work, label);
    },
    async stop() {
      await stopChild(running.child);
      await counter?.remove();
    },
  };
}

/** One process of a bench server. */
interface RunningProcess {
  child: ChildProcess;
  port: number;
  info: Record<string, unknown>;
  usage: BenchServer['usage'];
  call: BenchServer['call'];
}

async function startProcess(name: string, script: string, options: StartOptions, callgrind: CallgrindProcess | undefined): Promise<RunningProcess> {
  // Counted: V8 compiles optimised code on the main thread, when a function is due, instead of on a helper thread
  // whose share of the CPU depends on what else runs. Tier-up then ends after the same number of requests on a busy
  // machine as on an idle one, and a warm-up of a fixed number of requests covers it (see countPerOperation).
  const execArgv = callgrind ? ['--expose-gc', '--no-concurrent-recompilation'] : ['--expose-gc'];
  if (options.profileDir && !callgrind) {
    await mkdir(options.profileDir, { recursive: true });
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${options.profileDir}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`);
  }
  // Under callgrind, valgrind runs node (fork's IPC channel, an inherited descriptor, passes through it).
  const child = fork(script, [], {
    ...(callgrind ? { execPath: callgrind.valgrind, execArgv: [...callgrind.arguments, process.execPath, ...execArgv] } : { execArgv }),
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, NODE_ENV: 'production', ...options.env, BENCH_PORT: String(options.port ?? 0) },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  // Counted processes are not pinned: counts do not depend on the core, and several run at once.
  if (pinning && child.pid !== undefined && !callgrind) {
    const core = options.core === 'load' ? pinning.loadCore : pinning.serverCore;
    execFileSync('taskset', ['-pc', String(core), String(child.pid)], { stdio: 'ignore' });
  }
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const listening = await new Promise<Extract<FromChild, { type: 'listening' }>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${options.timeoutMs ?? 30_000} ms:\n${output}`)), options.timeoutMs ?? 30_000);
    child.on('message', (message: FromChild) => {
      if (message.type !== 'listening') return;
      clearTimeout(timer);
      resolve(message);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening:\n${output}`));
    });
  });

  let nextId = 0;
  const request = <T extends FromChild>(message: ToChild, accept: (reply: FromChild) => reply is T): Promise<T> =>
    new Promise((resolve, reject) => {
      const onMessage = (reply: FromChild): void => {
        if (!accept(reply)) return;
        child.off('message', onMessage);
        resolve(reply);
      };
      child.on('message', onMessage);
      child.send(message, (error) => error && reject(error));
    });

  return {
    child,
    port: listening.port,
    info: listening.info ?? {},
    async usage(gc = false) {
      const reply = await request({ type: 'usage', gc }, (m): m is Extract<FromChild, { type: 'usage' }> => m.type === 'usage');
      return { rss: reply.rss, heapUsed: reply.heapUsed, heapTotal: reply.heapTotal, external: reply.external, cpuMicros: reply.cpuMicros };
    },
    async call<T>(callName: string, ...args: unknown[]): Promise<T> {
      const id = nextId++;
      const reply = await request({ type: 'call', id, name: callName, args }, (m): m is Extract<FromChild, { type: 'result' }> => m.type === 'result' && m.id === id);
      if (reply.error !== undefined) throw new Error(`${name}.${callName}: ${reply.error}`);
      return reply.value as T;
    },
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    // A clean exit lets --cpu-prof write its profile.
    if (child.connected) child.send({ type: 'exit' } satisfies ToChild);
    else child.kill('SIGTERM');
  });
}
