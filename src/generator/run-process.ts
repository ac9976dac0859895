import { spawn } from 'node:child_process';

/** What a finished child process said. */
export interface ProcessResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they came. */
  all: string;
  timedOut: boolean;
  /** Why it could not start (ENOENT: not installed), when it did not. */
  spawnError: Error | undefined;
}

/** Options of {@link runProcess}. */
export interface RunOptions {
  cwd?: string;
  /** Added to this process's environment (or used alone with `extendEnv: false`). */
  env?: Record<string, string | undefined>;
  extendEnv?: boolean;
  /** Milliseconds before the child is killed (SIGTERM) and `timedOut` is set. */
  timeout?: number;
  /** Aborting kills the child. */
  signal?: AbortSignal;
}

/**
 * Runs a command to its end and collects its output; never throws (the caller reads `exitCode`, `timedOut`,
 * `spawnError`). Package managers are `.cmd` shims on Windows, which only a shell runs. node:child_process is all the
 * CLI needs here, so `npx create-framework-auth` installs no process library (issue 16).
 */
export function runProcess(command: string, args: readonly string[], options: RunOptions = {}): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const env = options.extendEnv === false ? { ...options.env } : { ...process.env, ...options.env };
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    let stdout = '';
    let stderr = '';
    let all = '';
    let timedOut = false;
    let spawnError: Error | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      all += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      all += chunk;
    });
    const timer = options.timeout === undefined ? undefined : setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, options.timeout);
    child.on('error', (error) => {
      spawnError = error;
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ exitCode: code, stdout, stderr, all, timedOut, spawnError });
    });
  });
}
