import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { execa } from 'execa';
import { setEnvValue } from '../../../src/generator/edit/env-file.js';
import { generatedAppEnv } from '../../support/listen.js';
import { builtBins } from './shared-deps.js';

/** What a CLI run printed and how it ended. */
export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const tempDirs: string[] = [];

/** A fresh directory under the OS temp dir, removed by {@link removeTempDirs}. */
export async function makeTempDir(prefix = 'cfa-e2e-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Removes every directory made by {@link makeTempDir} in this test file (call it from afterAll). */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Runs a built bin as a child process (no TTY, no stdin), ANSI codes stripped. */
export async function runBuiltCli(bin: keyof typeof builtBins, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<CliRun> {
  const result = await execa(process.execPath, [builtBins[bin], ...args], {
    cwd: options.cwd,
    env: options.env ?? {},
    reject: false,
    stdin: 'ignore',
    timeout: 120_000,
  });
  return {
    exitCode: result.exitCode ?? -1,
    stdout: stripVTControlCharacters(String(result.stdout)),
    stderr: stripVTControlCharacters(String(result.stderr)),
  };
}

/** Runs the project's own `tsc -p .`; returns its output and exit code. */
export async function compileProject(dir: string): Promise<{ exitCode: number; output: string }> {
  const result = await execa(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', dir], { reject: false, all: true });
  return { exitCode: result.exitCode ?? -1, output: String(result.all ?? '') };
}

/** Sets keys of the project's .env as a user would (each by exact key, every other line kept). */
export async function fillEnv(dir: string, values: Record<string, string>): Promise<void> {
  const path = join(dir, '.env');
  let text = await readFile(path, 'utf8');
  for (const [key, value] of Object.entries(values)) text = setEnvValue(text, key, value);
  await writeFile(path, text);
}

/** A running generated server. */
export interface RunningApp {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts a compiled project (`node <entry>`, cwd = the project so that its .env is read) on 127.0.0.1 and a free
 * port (AUTH_URL set to it), and resolves once it prints "Listening on <url>".
 */
export async function startApp(dir: string, entry = 'dist/server.js', env: NodeJS.ProcessEnv = {}): Promise<RunningApp> {
  const child: ChildProcess = spawn(process.execPath, [entry], {
    cwd: dir,
    env: await generatedAppEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the app did not start within 20 s:\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /Listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ url: match[1], output: () => output, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited with ${code} before listening:\n${output}`));
    });
  });
}

/** Path → sha256 of every file below `dir` (node_modules and dist left out), to prove that nothing changed. */
export async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const visit = async (current: string): Promise<void> => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const full = join(current, entry.name);
      if (entry.isDirectory()) await visit(full);
      else result[relative(dir, full)] = createHash('sha256').update(await readFile(full)).digest('hex');
    }
  };
  await visit(dir);
  return result;
}
