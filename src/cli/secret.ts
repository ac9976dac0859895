import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { findEnvLine, setEnvValue } from '../generator/edit/env-file.js';
import { planMergedFile, readProjectFile } from '../generator/planned-file.js';
import { generateSecret } from '../generator/edit/secret.js';
import { writePlannedFiles } from '../generator/io/write-plan.js';
import { usageError } from '../generator/errors.js';
import type { CliIo } from './io.js';
import { filesReport, messageIo, writeJson } from './json-output.js';

/** Flags of `framework-auth secret`. */
export interface SecretFlags {
  raw?: boolean;
  cwd?: string;
  force?: boolean;
  json?: boolean;
}

const examples = `
Examples:
  $ npx framework-auth secret                 write AUTH_SECRET to .env (kept when it is already set)
  $ npx framework-auth secret --force         replace AUTH_SECRET (signs everyone out)
  $ npx framework-auth secret --raw           print a secret only, e.g. for a hosting provider's settings
`;

/**
 * Generates an `AUTH_SECRET` (43 base64url characters from the OS CSPRNG) and writes it to `.env`, changing no
 * other line; an existing secret is kept unless `force`. `raw` prints the secret alone and writes nothing.
 */
export async function runSecret(flags: SecretFlags, io: CliIo): Promise<void> {
  const secret = generateSecret();
  if (flags.raw && flags.json) throw usageError('--raw and --json cannot be used together: --raw prints the secret alone');
  if (flags.raw) {
    io.stdout.write(`${secret}\n`);
    return;
  }
  const root = resolve(io.cwd, flags.cwd ?? '.');
  if (!existsSync(root) || !statSync(root).isDirectory()) throw usageError(`--cwd ${root} is not a directory`);
  // clack is loaded on use: `secret --raw` prints without it (issue 8).
  const { createUi } = await import('./ui.js');
  const ui = createUi(messageIo(io, flags.json));
  const text = readProjectFile(root, '.env');
  const existing = text === undefined ? undefined : findEnvLine(text, 'AUTH_SECRET');
  if (existing && existing.value !== '' && !flags.force) {
    ui.info('AUTH_SECRET is already set in .env; kept it. Run "framework-auth secret --force" to replace it (this signs everyone out).');
    if (flags.json) writeJson(io, 'secret', true, { root, files: filesReport([planMergedFile('.env', text, text ?? '')]), kept: true });
    return;
  }
  const file = planMergedFile('.env', text, setEnvValue(text, 'AUTH_SECRET', secret), undefined, 0o600);
  await writePlannedFiles(root, [file], { signal: io.signal });
  ui.success(`${existing ? 'Replaced' : 'Wrote'} AUTH_SECRET in ${resolve(root, '.env')} (${secret.length} random characters).`);
  // The secret itself is never part of the document.
  if (flags.json) writeJson(io, 'secret', true, { root, files: filesReport([file]), kept: false });
}

/** The `secret` command of `framework-auth`. */
export function createSecretCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  return new Command('secret')
    .description('generate AUTH_SECRET (32+ random characters) into .env')
    .option('--raw', 'print only the secret to stdout; write nothing')
    .option('--cwd <dir>', 'project directory (default: the current directory)')
    .option('--force', 'replace an AUTH_SECRET that is already set')
    .option('--json', 'print one JSON document on stdout (never the secret; messages go to stderr)')
    .addHelpText('after', examples)
    .action((flags: SecretFlags) => run(() => runSecret(flags, io)));
}
