import { resolve } from 'node:path';
import { Command } from 'commander';
import { packageManagers } from '../catalog/package-managers.js';
import { describeProviderIds, findProvider } from '../catalog/providers.js';
import { usageError } from '../generator/errors.js';
import { releaseFrom } from '../generator/paths.js';
import { applyPlan } from './apply-plan.js';
import { parsePackageManager } from './create.js';
import type { CliIo } from './io.js';
import { messageIo } from './json-output.js';
import { openScaffoldedProject } from './project.js';

/** Flags of `framework-auth add-provider`. */
export interface AddProviderFlags {
  cwd?: string;
  install: boolean;
  packageManager?: string;
  dryRun?: boolean;
  json?: boolean;
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
  const root = resolve(io.cwd, flags.cwd ?? '.');
  const { manifest, authDir, configText, api } = await openScaffoldedProject(root, io);
  const json = flags.json === true;

  // Loaded on use: clack, execa, handlebars and jsonc-parser cost more start-up time than the rest of the CLI, and
  // `--version`, `--help` and `secret --raw` need none of them (issue 8).
  const [{ createUi }, { planAddProvider }, { detectPackageManager }, { readProject }] = await Promise.all([
    import('./ui.js'),
    import('../generator/plan/add-provider.js'),
    import('../generator/io/install.js'),
    import('../generator/project/snapshot.js'),
  ]);
  const ui = createUi(messageIo(io, json));
  ui.intro(`framework-auth add-provider ${entry.id}${entry.id === idOrAlias.trim().toLowerCase() ? '' : ` (alias "${idOrAlias}")`}`);
  const { pm, source } = detectPackageManager(root, pmFlag, io.env);
  const plan = planAddProvider({
    project: readProject(root, { authDir }),
    entry,
    authDir,
    configText,
    manifest,
    api,
    release: releaseFrom(io.env),
    install: flags.install ? { packageManager: pm, detectedFrom: source } : undefined,
  });
  await applyPlan(plan, ui, io, { dryRun: flags.dryRun === true, json });
}

/** The `add-provider` command of `framework-auth`. */
export function createAddProviderCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  return new Command('add-provider')
    .description('add a sign-in provider to a project scaffolded by create-framework-auth')
    .argument('<id>', `provider id or alias: ${describeProviderIds()}`)
    .option('--cwd <dir>', 'project directory (default: the current directory)')
    .option('--no-install', 'do not install the provider\'s dependencies')
    .option('--package-manager <pm>', `${packageManagers.join(', ')} (default: detected)`)
    .option('--dry-run', 'print the plan and write nothing')
    .option('--json', 'print one JSON document on stdout (messages go to stderr)')
    .addHelpText('after', examples)
    .action((id: string, flags: AddProviderFlags) => run(() => runAddProvider(id, flags, io)));
}
