import { Refusal } from '../generator/errors.js';
import type { RefusalType } from '../generator/errors.js';

/** Exit codes: 2 for bad input before any write, 1 for failures after, 130 for Ctrl-C. */
export const exitCodes = { failure: 1, usage: 2, cancelled: 130 } as const;

/** The exit code of each refusal type: bad input (nothing written) is 2, Ctrl-C 130, anything else 1. */
export function exitCodeFor(type: RefusalType): number {
  if (type === 'usage' || type === 'not-a-project') return exitCodes.usage;
  if (type === 'cancelled') return exitCodes.cancelled;
  return exitCodes.failure;
}

/** A refusal raised by a command itself, which may say its exit code and that `--json` reported it already. */
export class CliError extends Refusal {
  override readonly name = 'CliError';
  readonly exitCode: number;
  /** Under `--json`, the command printed its document (with what went wrong) already: no error document follows. */
  readonly reported: boolean;

  constructor(type: RefusalType, message: string, options: { exitCode?: number; hint?: string; cause?: unknown; reported?: boolean } = {}) {
    super(type, message, { ...(options.hint === undefined ? {} : { hint: options.hint }), ...(options.cause === undefined ? {} : { cause: options.cause }) });
    this.exitCode = options.exitCode ?? exitCodeFor(type);
    this.reported = options.reported ?? false;
  }
}

/** The exit code a refusal ends the process with. */
export function exitCodeOf(refusal: Refusal): number {
  return refusal instanceof CliError ? refusal.exitCode : exitCodeFor(refusal.type);
}
