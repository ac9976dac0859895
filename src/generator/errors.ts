/** What went wrong, for tests and for `--json` later. */
export const cliErrorTypes = [
  'usage',
  'cancelled',
  'not-a-project',
  'unsupported-edit',
  'write-failed',
  'install-failed',
  'migrate-failed',
  'merge-conflicts',
  'checks-failed',
  'dev-idp-failed',
  'file-access',
] as const;

/** A CLI error type. */
export type CliErrorType = (typeof cliErrorTypes)[number];

/** Exit codes: 2 for bad input before any write, 1 for failures after, 130 for Ctrl-C. */
export const exitCodes = { failure: 1, usage: 2, cancelled: 130 } as const;

/** An error the CLI reports as a message (never a stack) with an exit code and an optional suggestion. */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly type: CliErrorType;
  readonly exitCode: number;
  readonly hint: string | undefined;
  /** Under `--json`, the command printed its document (with what went wrong) already: no error document follows. */
  readonly reported: boolean;

  constructor(type: CliErrorType, message: string, options: { exitCode?: number; hint?: string; cause?: unknown; reported?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.type = type;
    this.exitCode = options.exitCode ?? defaultExitCode(type);
    this.hint = options.hint;
    this.reported = options.reported ?? false;
  }
}

function defaultExitCode(type: CliErrorType): number {
  if (type === 'usage' || type === 'not-a-project') return exitCodes.usage;
  if (type === 'cancelled') return exitCodes.cancelled;
  return exitCodes.failure;
}

/** A bad flag, argument or answer: exit 2, nothing written. */
export function usageError(message: string, hint?: string): CliError {
  return new CliError('usage', message, hint === undefined ? {} : { hint });
}

/** The user pressed Ctrl-C or cancelled a prompt: exit 130. */
export function cancelledError(message = 'Cancelled; nothing was changed.'): CliError {
  return new CliError('cancelled', message);
}
