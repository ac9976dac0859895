import type { Command } from 'commander';
import { packageManagers } from '../catalog/package-managers.js';
import { describeProviderIds, findProvider } from '../catalog/providers.js';
import { usageError } from '../generator/errors.js';
import { applyPlan } from './apply-plan.js';
import { parsePackageManager } from './create.js';
import type { CliIo } from './io.js';
import { openProjectCommand, projectCommand } from './project-command.js';
import type { ProjectCommandFlags } from './project-command.js';

/** Flags of `framework-auth add-provider`. */
export interface AddProviderFlags extends ProjectCommandFlags {
  install: boolean;
  packageManager?: string;
}

const examples = `
Examples:
  $ npx framework-auth add-provider microblog          X (formerly Twitter); "twitter" and "x" work too
  $ npx framework-auth add-provider credentials --cwd apps/web
  $ npx framework-auth add-provider oidc --dry-run
  $ npx framework-auth add-provider github --json     one JSON document on stdout (files, env keys, callback URL)
`;

/**
 * Adds one catalog provider to a scaffolded project: the entry in `src/auth/config.ts` (an AST edit), its import,
 * env placeholders, dependencies, and the callback URL to register. Running it again changes nothing.
 */
export async function runAddProvider(idOrAlias: string, flags: AddProviderFlags, io: CliIo): Promise<void> {
  const entry = findProvider(idOrAlias);
  if (!entry) throw usageError(`Unknown provider "${idOrAlias}". Valid providers: ${describeProviderIds()}`);
  const pmFlag = flags.packageManager === undefined ? undefined : parsePackageManager(flags.packageManager);
  const { root, opened, project, release, ui, apply } = await openProjectCommand(flags, io, {
    intro: () => `framework-auth add-provider ${entry.id}${entry.id === idOrAlias.trim().toLowerCase() ? '' : ` (alias "${idOrAlias}")`}`,
  });
  const [{ planAddProvider }, { detectPackageManager }] = await Promise.all([import('../generator/plan/add-provider.js'), import('../generator/io/install.js')]);
  const { pm, source } = detectPackageManager(root, pmFlag, io.env);
  const plan = planAddProvider({ ...opened, project, entry, release, install: flags.install ? { packageManager: pm, detectedFrom: source } : undefined });
  await applyPlan(plan, ui, io, apply);
}

/** The `add-provider` command of `framework-auth`. */
export function createAddProviderCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  return projectCommand('add-provider', 'add a sign-in provider to a project scaffolded by create-framework-auth', (command) =>
    command
      .argument('<id>', `provider id or alias: ${describeProviderIds()}`)
      .option('--no-install', 'do not install the provider\'s dependencies')
      .option('--package-manager <pm>', `${packageManagers.join(', ')} (default: detected)`),
  )
    .addHelpText('after', examples)
    .action((id: string, flags: AddProviderFlags) => run(() => runAddProvider(id, flags, io)));
}
