import { resolve } from 'node:path';
import { Command } from 'commander';
import { describeProviderIds, findProvider } from '../catalog/providers.js';
import { usageError } from '../generator/errors.js';
import { releaseFrom } from '../generator/paths.js';
import { applyPlan } from './apply-plan.js';
import type { CliIo } from './io.js';
import { messageIo } from './json-output.js';
import { openScaffoldedProject } from './project.js';

/** Flags of `framework-auth remove-provider`. */
export interface RemoveProviderFlags {
  cwd?: string;
  purgeEnv?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

const examples = `
Examples:
  $ npx framework-auth remove-provider microblog        "twitter" and "x" work too
  $ npx framework-auth remove-provider github --purge-env   also delete AUTH_GITHUB_ID/SECRET from .env
  $ npx framework-auth remove-provider oidc --dry-run
  $ npx framework-auth remove-provider email --json

Removes the provider from src/auth/config.ts (its entry and its import), its keys from .env.example, its runtime
file when nothing imports it any more, and the dependencies add-provider added for it alone. The values in .env are
kept unless --purge-env. Running it again changes nothing. The last provider cannot be removed.
`;

/**
 * Undoes `add-provider`: the config entry and its import (an AST edit), the env keys of `.env.example` (and of
 * `.env` with `purgeEnv`), the provider's runtime file when no longer imported and unchanged, and the dependencies
 * the CLI added for it alone. Idempotent; aliases resolve.
 */
export async function runRemoveProvider(idOrAlias: string, flags: RemoveProviderFlags, io: CliIo): Promise<void> {
  const entry = findProvider(idOrAlias);
  if (!entry) throw usageError(`Unknown provider "${idOrAlias}". Valid providers: ${describeProviderIds()}`);
  const root = resolve(io.cwd, flags.cwd ?? '.');
  const { manifest, authDir, configText, api } = await openScaffoldedProject(root, io);
  const json = flags.json === true;
  const [{ planRemoveProvider }, { readProject }] = await Promise.all([import('../generator/plan/remove-provider.js'), import('../generator/project/snapshot.js')]);
  const plan = planRemoveProvider({ project: readProject(root, { authDir }), entry, authDir, configText, manifest, api, release: releaseFrom(io.env), purgeEnv: flags.purgeEnv === true });
  const { createUi } = await import('./ui.js');
  const ui = createUi(messageIo(io, json));
  ui.intro(`framework-auth remove-provider ${entry.id}${entry.id === idOrAlias.trim().toLowerCase() ? '' : ` (alias "${idOrAlias}")`}`);
  await applyPlan(plan, ui, io, { dryRun: flags.dryRun === true, json });
}

/** The `remove-provider` command of `framework-auth`. */
export function createRemoveProviderCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  return new Command('remove-provider')
    .description('remove a sign-in provider that add-provider (or create) added')
    .argument('<id>', `provider id or alias: ${describeProviderIds()}`)
    .option('--cwd <dir>', 'project directory (default: the current directory)')
    .option('--purge-env', 'also remove the provider\'s keys (and values) from .env')
    .option('--dry-run', 'print the plan and write nothing')
    .option('--json', 'print one JSON document on stdout (messages go to stderr)')
    .addHelpText('after', examples)
    .action((id: string, flags: RemoveProviderFlags) => run(() => runRemoveProvider(id, flags, io)));
}
