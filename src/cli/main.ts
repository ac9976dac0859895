import { relative } from 'node:path';
import { Command, CommanderError } from 'commander';
import { featureCatalog, featureCommandName } from '../catalog/features.js';
import { Refusal } from '../generator/errors.js';
import { CliError, exitCodeOf, exitCodes } from './errors.js';
import type { CliIo } from './io.js';
import { cliVersion } from '../generator/version.js';

/** The two bins of this package. */
export const binNames = ['create-framework-auth', 'framework-auth'] as const;

/** One of {@link binNames}. */
export type BinName = (typeof binNames)[number];

const frameworkAuthExamples = `
Examples:
  $ npx framework-auth add-provider microblog
  $ npx framework-auth secret
  $ npx framework-auth secret --raw
  $ npx framework-auth migrate
  $ npx framework-auth remove-provider microblog
  $ npx framework-auth add-two-factor
  $ npx framework-auth update --dry-run
  $ npx framework-auth doctor
  $ npx framework-auth dev-idp --write-env
  $ npx framework-auth add-provider --help
`;

function configure(command: Command, io: CliIo): Command {
  return command
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError('(add --help for usage and examples)');
}

type CommandFactory = (io: CliIo, run: (action: () => Promise<void>) => Promise<void>) => Command;

/**
 * The subcommands of `framework-auth`, in help order. Each module is imported only when the arguments may need it:
 * it pulls in its part of the generator, which `--version` and the other commands do without (issue 8: cold start).
 */
const frameworkAuthCommands: Record<string, () => Promise<CommandFactory>> = {
  'add-provider': async () => (await import('./add-provider.js')).createAddProviderCommand,
  'remove-provider': async () => (await import('./remove-provider.js')).createRemoveProviderCommand,
  // add-<feature> and remove-<feature> for each catalog feature (add-two-factor, remove-two-factor).
  ...Object.fromEntries(
    featureCatalog.flatMap((feature) =>
      [true, false].map((on): [string, () => Promise<CommandFactory>] => [
        featureCommandName(feature, on),
        async () => {
          const { createFeatureCommand } = await import('./feature-command.js');
          return (io, run) => createFeatureCommand(feature, on, io, run);
        },
      ]),
    ),
  ),
  secret: async () => (await import('./secret.js')).createSecretCommand,
  migrate: async () => (await import('./migrate.js')).createMigrateCommand,
  update: async () => (await import('./update.js')).createUpdateCommand,
  doctor: async () => (await import('./doctor.js')).createDoctorCommand,
  'dev-idp': async () => (await import('./dev-idp.js')).createDevIdpCommand,
};

/** The subcommands `argv` may run: none for `--version`, the one it names, or all (help, errors, suggestions). */
function commandsFor(argv: readonly string[]): string[] {
  const [first] = argv;
  if (first === '-v' || first === '--version') return [];
  if (first !== undefined && Object.hasOwn(frameworkAuthCommands, first)) return [first];
  return Object.keys(frameworkAuthCommands);
}

/** The commander program of a bin with every subcommand `argv` may run; also read by the docs (scripts/docs-sections.ts). */
export async function buildProgram(bin: BinName, argv: readonly string[], io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Promise<Command> {
  if (bin === 'create-framework-auth') {
    const { createCreateCommand } = await import('./create.js');
    return configure(createCreateCommand(io, run), io).version(cliVersion, '-v, --version', 'print the version');
  }
  const program = configure(new Command('framework-auth'), io)
    .description('Work on a project scaffolded by create-framework-auth.')
    .version(cliVersion, '-v, --version', 'print the version')
    .addHelpText('after', frameworkAuthExamples);
  const factories = await Promise.all(commandsFor(argv).map((name) => frameworkAuthCommands[name]!()));
  for (const createCommand of factories) {
    program.addCommand(configure(createCommand(io, run), io));
  }
  return program;
}

/** Under `--json`, a failure is a document too: `{ command, ok: false, version, error: { type, message, hint } }`. */
function reportJson(bin: BinName, argv: readonly string[], io: CliIo, error: { type: string; message: string; hint?: string | undefined }): void {
  if (!argv.includes('--json')) return;
  const command = bin === 'create-framework-auth' ? 'create' : (argv.find((arg) => !arg.startsWith('-')) ?? bin);
  const body = { type: error.type, message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
  io.stdout.write(`${JSON.stringify({ command, ok: false, version: cliVersion, error: body }, null, 2)}\n`);
}

/**
 * A file the CLI could not read or write (permissions, a socket or device where a file was expected, a full disk):
 * one line naming the file and the reason, instead of a stack trace.
 */
function fileSystemError(error: unknown, cwd: string): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, path, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof path !== 'string' || !/^E[A-Z]+$/.test(code)) return undefined;
  const shown = relative(cwd, path) || path;
  const verb = syscall === 'open' || syscall === 'read' || syscall === 'scandir' || syscall === 'stat' ? 'read' : 'write';
  return `Could not ${verb} ${shown.startsWith('..') ? path : shown}: ${code}${syscall ? ` (${syscall})` : ''}`;
}

function report(error: unknown, io: CliIo, bin: BinName, argv: readonly string[]): number {
  if (error instanceof CommanderError) {
    // Commander printed the message already; help and version are not errors.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
      return error.exitCode === 0 ? 0 : exitCodes.usage;
    }
    reportJson(bin, argv, io, { type: 'usage', message: error.message.replace(/^error: /, '') });
    return exitCodes.usage;
  }
  if (error instanceof Refusal) {
    io.stderr.write(`✖ ${error.message}\n${error.hint ? `  ${error.hint}\n` : ''}`);
    if (!(error instanceof CliError && error.reported)) reportJson(bin, argv, io, error);
    return exitCodeOf(error);
  }
  const fileError = fileSystemError(error, io.cwd);
  if (fileError) {
    io.stderr.write(`✖ ${fileError}\n  Check the file's permissions and type (a regular file the CLI can read and write), then run again.\n`);
    reportJson(bin, argv, io, { type: 'file-access', message: fileError });
    return exitCodes.failure;
  }
  io.stderr.write(`✖ Unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  reportJson(bin, argv, io, { type: 'unexpected', message: error instanceof Error ? error.message : String(error) });
  return exitCodes.failure;
}

/**
 * Runs one bin with `argv` (the arguments after the bin name) and returns the exit code; never exits the process.
 * Usage errors are 2, failures after a write 1, Ctrl-C 130.
 */
export async function run(bin: BinName, argv: readonly string[], io: CliIo): Promise<number> {
  const program = await buildProgram(bin, argv, io, (action) => action());
  if (bin === 'framework-auth' && argv.length === 0) {
    program.outputHelp({ error: true });
    return exitCodes.usage;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    return report(error, io, bin, argv);
  }
  // A command that finished its work exits 0 even when Ctrl-C came in after it (the files are written; 130 would say
  // they were not). Only a command that runs until Ctrl-C ends with 130 when that is what stopped it.
  const command = bin === 'framework-auth' ? argv.find((arg) => !arg.startsWith('-')) : undefined;
  return io.signal.aborted && command !== undefined && runsUntilInterrupted.has(command) ? exitCodes.cancelled : 0;
}

/** Commands that serve in the foreground until Ctrl-C. */
const runsUntilInterrupted = new Set(['dev-idp']);

/** Entry of the bin launchers: runs with the real process, maps Ctrl-C to 130, and exits. */
export async function main(bin: BinName): Promise<never> {
  const controller = new AbortController();
  const onInterrupt = (): void => {
    // A second Ctrl-C does not wait for the rollback.
    if (controller.signal.aborted) process.exit(exitCodes.cancelled);
    controller.abort();
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  const code = await run(bin, process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
    signal: controller.signal,
  });
  process.exit(code);
}
