import type { Command } from 'commander';
import { describeProviderIds, findProvider } from '../catalog/providers.js';
import { usageError } from '../generator/errors.js';
import { applyPlan } from './apply-plan.js';
import type { CliIo } from './io.js';
import { openProjectCommand, projectCommand } from './project-command.js';
import type { ProjectCommandFlags } from './project-command.js';

/** Flags of `framework-auth remove-provider`. */
export interface RemoveProviderFlags extends ProjectCommandFlags {
  purgeEnv?: boolean;
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
  const { opened, project, release, ui, apply } = await openProjectCommand(flags, io, {
    intro: () => `framework-auth remove-provider ${entry.id}${entry.id === idOrAlias.trim().toLowerCase() ? '' : ` (alias "${idOrAlias}")`}`,
  });
  const { planRemoveProvider } = await import('../generator/plan/remove-provider.js');
  const plan = planRemoveProvider({ ...opened, project, entry, release, purgeEnv: flags.purgeEnv === true });
  await applyPlan(plan, ui, io, apply);
}

/** The `remove-provider` command of `framework-auth`. */
export function createRemoveProviderCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  return projectCommand('remove-provider', 'remove a sign-in provider that add-provider (or create) added', (command) =>
    command.argument('<id>', `provider id or alias: ${describeProviderIds()}`).option('--purge-env', 'also remove the provider\'s keys (and values) from .env'),
  )
    .addHelpText('after', examples)
    .action((id: string, flags: RemoveProviderFlags) => run(() => runRemoveProvider(id, flags, io)));
}
