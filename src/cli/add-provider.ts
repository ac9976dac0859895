import { locateAuthModule } from '../generator/auth-module.js';
import { defaultMountPath } from '../catalog/mount-path.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { packageManagers } from '../catalog/package-managers.js';
import { describeProviderIds, findProvider, getProvider } from '../catalog/providers.js';
import { appOrigin, callbackUrl, providerEnvGroup } from '../generator/env-groups.js';
import { appendEnvGroups } from '../generator/merge/env-file.js';
import { planMergedFile, readProjectFile } from '../generator/planned-file.js';
import type { PlannedFile } from '../generator/planned-file.js';
import { addProviderToConfig, readAuthConfig } from '../generator/provider-list.js';
import { readRuntimeFiles, withRuntimeHeader } from '../generator/runtime-files.js';
import { writePlannedFiles } from '../generator/write-plan.js';
import { testedRanges } from '../generator/dependencies.js';
import { answersFromConfig, isBaseFile, planManifest, readManifest } from '../generator/manifest.js';
import { templateDirsFrom } from '../generator/paths.js';
import { readProjectAdapter } from '../generator/project-adapter.js';
import { parsePackageManager } from './create.js';
import { cancelledError, usageError } from '../generator/errors.js';
import type { CliIo } from './io.js';
import { envKeyChanges, filesReport, messageIo, writeJson } from './json-output.js';
import { callbackUrls, describeFiles } from './plan-report.js';
import { readScaffoldedConfig, requireTypeScript } from './project.js';
import { cliVersion } from '../generator/version.js';

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
  const manifest = readManifest(root);
  const authDir = locateAuthModule(root, manifest);
  const configPath = `${authDir}/config.ts`;
  const configText = readScaffoldedConfig(root, authDir);
  const api = requireTypeScript(root);
  const templates = templateDirsFrom(io.env);
  const json = flags.json === true;

  // Loaded on use: clack, execa, handlebars and jsonc-parser cost more start-up time than the rest of the CLI, and
  // `--version`, `--help` and `secret --raw` need none of them (issue 8).
  const [{ createUi }, { mergePackageJson }, { assertPackageManagerRuns, detectPackageManager, installDependencies }, { renderAuthConfig }] = await Promise.all([
    import('./ui.js'),
    import('../generator/merge/package-json.js'),
    import('../generator/install.js'),
    import('../generator/plan-project.js'),
  ]);
  const ui = createUi(messageIo(io, json));
  ui.intro(`framework-auth add-provider ${entry.id}${entry.id === idOrAlias.trim().toLowerCase() ? '' : ` (alias "${idOrAlias}")`}`);
  const info = readAuthConfig(api, configText);
  if (getProvider(entry.id).requiresAdapter === true && !info.hasAdapter) {
    throw usageError(
      `The ${entry.id} provider needs a database adapter, and ${configPath} sets none: ${entry.id === 'email' ? 'email sign-in links' : 'passkeys'} are stored through the adapter.`,
      'Re-run "npx create-framework-auth" with --adapter memory, sqlite or postgres first, or set `adapter:` in src/auth/config.ts.',
    );
  }
  const mount = info.basePath ?? defaultMountPath;
  const envText = readProjectFile(root, '.env');
  const origin = appOrigin(envText);
  const files: PlannedFile[] = [];

  const edit = addProviderToConfig(api, configText, entry);
  const fallbackAnswers = manifest?.answers ?? { providers: [], mount, adapter: readProjectAdapter(root)?.entry?.id ?? 'none' };
  const projectAnswers = answersFromConfig(api, edit.content, fallbackAnswers);
  files.push({
    ...planMergedFile(configPath, configText, edit.content, edit.changed ? `adds ${entry.importName} to the providers` : undefined),
    base: renderAuthConfig(projectAnswers, cliVersion, templates),
  });
  // The runtime files the new provider list reaches and the project lacks: the provider's file, and its flow
  // (email sign-in, passkeys, OAuth 1.0a) when it brings one. Files the project has are left as they are.
  for (const runtimeFile of readRuntimeFiles(projectAnswers.providers, projectAnswers.adapter, templates)) {
    const path = `${authDir}/core/${runtimeFile.path}`;
    if (existsSync(join(root, path))) continue;
    const content = withRuntimeHeader(runtimeFile.path, runtimeFile.content, cliVersion);
    files.push({ ...planMergedFile(path, undefined, content), base: content });
  }
  const group = providerEnvGroup(entry, origin, mount);
  if (group) {
    files.push(planMergedFile('.env', envText, appendEnvGroups(envText, [group]), undefined, 0o600));
    const exampleText = readProjectFile(root, '.env.example');
    files.push(planMergedFile('.env.example', exampleText, appendEnvGroups(exampleText, [group])));
  }
  let added: Record<string, string> = {};
  if (Object.keys(entry.dependencies).length > 0) {
    const packageText = readProjectFile(root, 'package.json');
    const merge = mergePackageJson(packageText, { name: 'app', scripts: {}, dependencies: testedRanges(entry.dependencies), devDependencies: {} });
    added = merge.added;
    files.push(planMergedFile('package.json', packageText, merge.content, Object.keys(added).length > 0 ? `adds ${Object.keys(added).join(', ')}` : undefined));
  }
  const addedDependencies = Object.keys(added);
  // The manifest is kept up to date where there is one; a project scaffolded before manifests gets one from
  // `npx create-framework-auth` (a re-run with its answers).
  if (manifest) files.push(...planManifest({ root, previous: manifest, version: manifest.cliVersion, answers: projectAnswers, files, addedDependencies: added }));

  const changes = files.filter((file) => file.action !== 'unchanged');
  const report = (): Record<string, unknown> => ({
    root,
    dryRun: flags.dryRun === true,
    provider: entry.id,
    files: filesReport(files),
    dependencies: { added },
    env: { added: envKeyChanges(files.find((file) => file.path === '.env')).added, fill: [...entry.env] },
    callbackUrls: callbackUrls(origin, mount, [entry.id]),
  });
  if (flags.dryRun) {
    ui.lines(`Plan for ${root}`, describeFiles(files));
    ui.outro('Dry run: nothing was written.');
    if (json) writeJson(io, 'add-provider', true, report());
    return;
  }
  const { pm } = detectPackageManager(root, pmFlag, io.env);
  const needsInstall = flags.install && addedDependencies.length > 0;
  if (needsInstall) await assertPackageManagerRuns(pm);
  if (io.signal.aborted) throw cancelledError();
  if (changes.length === 0) {
    ui.info(`${entry.name} is already in ${configPath}; nothing changed.`);
  } else {
    await ui.step('Writing files', () => writePlannedFiles(root, files, { signal: io.signal }), (paths) => `Updated ${paths.filter((path) => !isBaseFile(path)).join(', ')}`);
  }
  if (needsInstall) await ui.step(`Installing ${addedDependencies.join(', ')} with ${pm}`, () => installDependencies(root, pm, io.signal));

  const steps: string[] = [];
  if (entry.oauth) steps.push(`Register this callback URL with ${entry.name}:`, `  ${callbackUrl(origin, mount, entry.id)}`);
  if (entry.env.length > 0) steps.push('', 'Fill in .env:', ...entry.env.map((name) => `  ${name}=`));
  if (entry.id === 'credentials') steps.push('', `Write the user lookup in the authorize() of ${configPath}.`);
  if (steps.length > 0) ui.lines('Next steps', steps.join('\n'));
  ui.outro(changes.length === 0 ? 'Already configured.' : `${entry.name} added.`);
  if (json) writeJson(io, 'add-provider', true, report());
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
