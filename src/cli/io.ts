import type { Readable, Writable } from 'node:stream';

/** Everything a command touches outside its arguments, injectable for tests. */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  /** The directory relative paths (`[dir]`, `--cwd`) start from. */
  cwd: string;
  /** Whether questions may be asked: both stdin and stdout are terminals (or a test drives the prompts). */
  interactive: boolean;
  /** Aborted by Ctrl-C: writes roll back, installs stop, the exit code is 130. */
  signal: AbortSignal;
  /** The Node.js version the project runs on, as `process.versions.node` gives it (tests pass an older one). */
  nodeVersion?: string;
}

/** Whether a stream is a terminal that understands cursor movement. */
export function isTerminal(stream: Writable): boolean {
  return (stream as Writable & { isTTY?: boolean }).isTTY === true;
}
