/**
 * Why the generator will not go on: a typed refusal with a message and a suggestion, never an exit code. The CLI
 * maps each type to its exit code (src/cli/errors.ts); `--json` reports the type.
 */
export const refusalTypes = [
  'usage',
  'cancelled',
  'not-a-project',
  'unsupported-edit',
  'write-failed',
  'stale-plan',
  'install-failed',
  'migrate-failed',
  'merge-conflicts',
  'checks-failed',
  'dev-idp-failed',
  'file-access',
] as const;

/** A refusal type. */
export type RefusalType = (typeof refusalTypes)[number];

/** A refusal: what was wrong, what is valid or what to do next. Shown as a message (never a stack). */
export class Refusal extends Error {
  override readonly name: string = 'Refusal';
  readonly type: RefusalType;
  readonly hint: string | undefined;

  constructor(type: RefusalType, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.type = type;
    this.hint = options.hint;
  }
}

/** A bad flag, argument, answer or project file: nothing is written. */
export function usageError(message: string, hint?: string): Refusal {
  return new Refusal('usage', message, hint === undefined ? {} : { hint });
}

/** The user pressed Ctrl-C, cancelled a prompt or declined the plan. */
export function cancelledError(message = 'Cancelled; nothing was changed.'): Refusal {
  return new Refusal('cancelled', message);
}

/**
 * What a child process that failed said, for the message: why it could not start (`cause`: ENOENT when the program is
 * not installed), else the last `lines` lines of its output (`all`).
 */
export function failureDetail(result: { cause?: unknown; all?: string }, lines: number): string {
  if (result.cause instanceof Error) return result.cause.message;
  return (result.all ?? '').trim().split('\n').slice(-lines).join('\n');
}
