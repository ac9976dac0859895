import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { execa } from 'execa';
import { run } from '../../../src/cli/main.js';
import type { BinName } from '../../../src/cli/main.js';

/** How a CLI run ended and what it printed (ANSI codes removed). */
export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const tempDirs: string[] = [];

/** A fresh directory under the OS temp dir, removed by {@link removeTempDirs}. */
export async function makeTempDir(prefix = 'cfa-cli-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Removes every directory made by {@link makeTempDir} in this test file (call it from afterAll). */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Options of {@link runInProcess}. */
export interface InProcessOptions {
  cwd: string;
  /** Keystrokes for the prompts; makes the run interactive. */
  input?: PassThrough;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** The Node.js version the commands see (default: this process's). */
  nodeVersion?: string;
}

/** Runs a bin in this process through `run()` with injected streams (the way main() would, minus process.exit). */
export async function runInProcess(bin: BinName, argv: readonly string[], options: InProcessOptions): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exitCode = await run(bin, argv, {
    stdin: options.input ?? new PassThrough(),
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: options.cwd,
    interactive: options.input !== undefined,
    signal: options.signal ?? new AbortController().signal,
    ...(options.nodeVersion === undefined ? {} : { nodeVersion: options.nodeVersion }),
  });
  return { exitCode, stdout: stripVTControlCharacters(out), stderr: stripVTControlCharacters(err) };
}

/** `framework-auth <argv>` in a project, in this process. */
export function frameworkAuthIn(argv: readonly string[], cwd: string): Promise<CliResult> {
  return runInProcess('framework-auth', argv, { cwd });
}

/** `create-framework-auth app --yes --no-install <flags>` in a new temp folder; the app's path. Throws with its stderr when it fails. */
export async function createApp(flags: readonly string[]): Promise<string> {
  const parent = await makeTempDir();
  const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', ...flags], { cwd: parent });
  if (result.exitCode !== 0) throw new Error(`create-framework-auth ${flags.join(' ')} exited ${result.exitCode}:\n${result.stderr}`);
  return join(parent, 'app');
}

const entry = fileURLToPath(new URL('./cli-entry.ts', import.meta.url));
const tsxLoader = pathToFileURL(fileURLToPath(import.meta.resolve('tsx'))).href;

/** Runs a bin from source as a child process: no TTY, stdin closed, real exit code. */
export async function runChild(bin: BinName, argv: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number }): Promise<CliResult> {
  const result = await execa(process.execPath, ['--import', tsxLoader, entry, bin, ...argv], {
    cwd: options.cwd,
    env: options.env ?? {},
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: options.timeout ?? 30_000,
  });
  return {
    exitCode: result.exitCode ?? -1,
    stdout: stripVTControlCharacters(String(result.stdout)),
    stderr: stripVTControlCharacters(String(result.stderr)),
  };
}
