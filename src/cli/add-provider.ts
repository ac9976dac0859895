import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { packageManagers } from '../catalog/package-managers.js';
import { describeProviderIds, findProvider, getProvider } from '../catalog/providers.js';
import { appOrigin, callbackUrl, providerEnvGroup } from '../generator/env-groups.js';
import { appendEnvGroups } from '../generator/merge/env-file.js';
import { runtimeTargetDir } from '../generator/paths.js';
import { planMergedFile, readProjectFile } from '../generator/planned-file.js';
import type { PlannedFile } from '../generator/planned-file.js';
import { addProviderToConfig, readAuthConfig } from '../generator/provider-list.js';
import { readRuntimeProviderFile, withRuntimeHeader } from '../generator/runtime-files.js';
import { loadTypeScript } from '../generator/typescript-api.js';
import { writePlannedFiles } from '../generator/write-plan.js';
import { parsePackageManager } from './create.js';
import { CliError, cancelledError, usageError } from './errors.js';
import type { CliIo } from './io.js';
import { describeFiles } from './plan-report.js';
import { cliVersion } from './version.js';

/** Flags of `framework-auth add-provider`. */
export interface AddProviderFlags {
  cwd?: string;
  install: boolean;
  packageManager?: string;
  dryRun?: boolean;
}

const examples = `
Examples:
  $ npx framework-auth add-provider microblog          X (formerly Twitter); "twitter" and "x" work too
  $ npx framework-auth add-provider credentials --cwd apps/web
  $ npx framework-auth add-provider oidc --dry-run
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
  const configPath = 'src/auth/config.ts';
  const configText = existsSync(root) ? readProjectFile(root, configPath) : undefined;
  if (configText === undefined || !existsSync(join(root, runtimeTargetDir, 'index.ts'))) {
    throw new CliError('not-a-project', `No auth module in ${root} (${configText === undefined ? configPath : `${runtimeTargetDir}/index.ts`} is missing).`, {
      hint: 'Run "npx create-framework-auth" in the project first, or pass --cwd <project dir>.',
    });
  }
  const api = loadTypeScript(root);
  if (!api) {
    throw new CliError('unsupported-edit', 'The TypeScript compiler ("typescript") is needed to edit src/auth/config.ts and was not found.', {
      hint: 'Install the project\'s dependencies first (npm install).',
    });
  }

  // Loaded on use: clack, execa, handlebars and jsonc-parser cost more start-up time than the rest of the CLI, and
  // `--version`, `--help` and `secret --raw` need none of them (issue 8).
  const [{ createUi }, { mergePackageJson }, { assertPackageManagerRuns, detectPackageManager, installDependencies }] = await Promise.all([
    import('./ui.js'),
    import('../generator/merge/package-json.js'),
    import('../generator/install.js'),
  ]);
  const ui = createUi(io);
  ui.intro(`framework-auth add-provider ${entry.id}${entry.id === idOrAlias.trim().toLowerCase() ? '' : ` (alias "${idOrAlias}")`}`);
  const info = readAuthConfig(api, configText);
  if (getProvider(entry.id).requiresAdapter === true && !info.hasAdapter) {
    throw usageError(
      `The ${entry.id} provider needs a database adapter, and ${configPath} sets none: ${entry.id === 'email' ? 'email sign-in links' : 'passkeys'} are stored through the adapter.`,
      'Re-run "npx create-framework-auth" with --adapter memory, sqlite or postgres first, or set `adapter:` in src/auth/config.ts.',
    );
  }
  const mount = info.basePath ?? '/auth';
  const envText = readProjectFile(root, '.env');
  const origin = appOrigin(envText);
  const files: PlannedFile[] = [];

  const edit = addProviderToConfig(api, configText, entry);
  files.push(planMergedFile(configPath, configText, edit.content, edit.changed ? `adds ${entry.importName} to the providers` : undefined));
  const providerPath = `${runtimeTargetDir}/providers/${entry.id}.ts`;
  if (!existsSync(join(root, providerPath))) {
    const runtimeFile = readRuntimeProviderFile(entry.id);
    if (runtimeFile) files.push(planMergedFile(providerPath, undefined, withRuntimeHeader(runtimeFile.path, runtimeFile.content, cliVersion)));
  }
  const group = providerEnvGroup(entry, origin, mount);
  if (group) {
    files.push(planMergedFile('.env', envText, appendEnvGroups(envText, [group]), undefined, 0o600));
    const exampleText = readProjectFile(root, '.env.example');
    files.push(planMergedFile('.env.example', exampleText, appendEnvGroups(exampleText, [group])));
  }
  let addedDependencies: string[] = [];
  if (Object.keys(entry.dependencies).length > 0) {
    const packageText = readProjectFile(root, 'package.json');
    const merge = mergePackageJson(packageText, { name: 'app', scripts: {}, dependencies: entry.dependencies, devDependencies: {} });
    addedDependencies = Object.keys(merge.added);
    files.push(planMergedFile('package.json', packageText, merge.content, addedDependencies.length > 0 ? `adds ${addedDependencies.join(', ')}` : undefined));
  }

  const changes = files.filter((file) => file.action !== 'unchanged');
  if (flags.dryRun) {
    ui.lines(`Plan for ${root}`, describeFiles(files));
    ui.outro('Dry run: nothing was written.');
    return;
  }
  const { pm } = detectPackageManager(root, pmFlag, io.env);
  const needsInstall = flags.install && addedDependencies.length > 0;
  if (needsInstall) await assertPackageManagerRuns(pm);
  if (io.signal.aborted) throw cancelledError();
  if (changes.length === 0) {
    ui.info(`${entry.name} is already in ${configPath}; nothing changed.`);
  } else {
    await ui.step('Writing files', () => writePlannedFiles(root, files, { signal: io.signal }), (paths) => `Updated ${paths.join(', ')}`);
  }
  if (needsInstall) await ui.step(`Installing ${addedDependencies.join(', ')} with ${pm}`, () => installDependencies(root, pm, io.signal));

  const steps: string[] = [];
  if (entry.oauth) steps.push(`Register this callback URL with ${entry.name}:`, `  ${callbackUrl(origin, mount, entry.id)}`);
  if (entry.env.length > 0) steps.push('', 'Fill in .env:', ...entry.env.map((name) => `  ${name}=`));
  if (entry.id === 'credentials') steps.push('', `Write the user lookup in the authorize() of ${configPath}.`);
  if (steps.length > 0) ui.lines('Next steps', steps.join('\n'));
  ui.outro(changes.length === 0 ? 'Already configured.' : `${entry.name} added.`);
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
    .addHelpText('after', examples)
    .action((id: string, flags: AddProviderFlags) => run(() => runAddProvider(id, flags, io)));
}
