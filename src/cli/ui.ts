import { confirm, intro, isCancel, log, outro } from '@clack/prompts';
import { cancelledError } from '../generator/errors.js';
import type { CliIo } from './io.js';
import { isTerminal } from './io.js';

/** How commands talk to the user: clack's look on stdout, one spinner per step. */
export interface Ui {
  intro(title: string): void;
  info(message: string): void;
  success(message: string): void;
  warn(message: string): void;
  /** Lines printed as they are (no box, no wrapping): code the user copies. */
  lines(title: string, body: string): void;
  outro(message: string): void;
  /** Runs one step under a spinner (a plain line when stdout is not a terminal); `done` words the result. */
  step<T>(label: string, run: () => Promise<T>, done?: (value: T) => string): Promise<T>;
}

const frames = ['◒', '◐', '◓', '◑'];

/** A {@link Ui} writing to `io.stdout`. */
export function createUi(io: CliIo): Ui {
  const output = io.stdout;
  const options = { output };
  const terminal = isTerminal(output);
  return {
    intro: (title) => intro(title, options),
    info: (message) => log.info(message, options),
    success: (message) => log.success(message, options),
    warn: (message) => log.warn(message, options),
    lines: (title, body) => {
      output.write(`│\n◆  ${title}\n${body.split('\n').map((line) => (line === '' ? '│' : `│  ${line}`)).join('\n')}\n`);
    },
    outro: (message) => outro(message, options),
    async step(label, run, done) {
      // Our own spinner: clack's puts stdin in raw mode and turns Ctrl-C into exit 0, which would skip the
      // rollback and the 130 exit code.
      let frame = 0;
      const timer = terminal
        ? setInterval(() => {
            output.write(`\r\x1b[2K${frames[frame % frames.length] ?? ''}  ${label}...`);
            frame += 1;
          }, 80)
        : undefined;
      const clear = (): void => {
        if (timer) clearInterval(timer);
        if (terminal) output.write('\r\x1b[2K');
      };
      try {
        const value = await run();
        clear();
        output.write(`◇  ${done ? done(value) : label}\n`);
        return value;
      } catch (error) {
        clear();
        output.write(`■  ${label}: failed\n`);
        throw error;
      }
    },
  };
}

/** Asks a yes/no question on the terminal (stderr under `--json`); Ctrl-C or Escape cancels (exit 130). */
export async function confirmWrite(question: string, io: CliIo, json: boolean): Promise<boolean> {
  const answer = await confirm({ message: question, initialValue: true, input: io.stdin, output: json ? io.stderr : io.stdout });
  if (isCancel(answer)) throw cancelledError();
  return answer;
}
