import { locateAuthModule } from '../generator/auth-module.js';
import { defaultMountPath } from '../catalog/mount-path.js';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { findAdapter } from '../catalog/adapters.js';
import { describeProviderIds, findProvider, getProvider } from '../catalog/providers.js';
import { answersFromConfig, isBaseFile, planManifest, readManifest, sha256 } from '../generator/manifest.js';
import { removeEnvKeys } from '../generator/merge/env-file.js';
import { templateDirsFrom } from '../generator/paths.js';
import { planDeletedFile, planMergedFile, readProjectFile } from '../generator/planned-file.js';
import type { PlannedFile } from '../generator/planned-file.js';
import { readProjectAdapter } from '../generator/project-adapter.js';
import { isImportedInProject } from '../generator/project-imports.js';
import { removeProviderFromConfig } from '../generator/provider-list.js';
import { readRuntimeFiles, withRuntimeHeader } from '../generator/runtime-files.js';
import { writePlannedFiles } from '../generator/write-plan.js';
import { cancelledError, usageError } from '../generator/errors.js';
import type { CliIo } from './io.js';
import { envKeyChanges, filesReport, messageIo, writeJson } from './json-output.js';
import { describeFiles } from './plan-report.js';
import { readScaffoldedConfig, requireTypeScript } from './project.js';
import { cliVersion } from '../generator/version.js';

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
  const manifest = readManifest(root);
  const authDir = locateAuthModule(root, manifest);
  const configPath = `${authDir}/config.ts`;
  const configText = readScaffoldedConfig(root, authDir);
  const api = requireTypeScript(root);
  const templates = templateDirsFrom(io.env);
  const json = flags.json === true;
  // Refusals (the last provider, a config the editor cannot read) come before anything is written: exit 2.
  const edit = removeProviderFromConfig(api, configText, entry.importPath);

  const [{ createUi }, { removeDependencies }, { renderAuthConfig }] = await Promise.all([
    import('./ui.js'),
    import('../generator/merge/package-json.js'),
    import('../generator/plan-project.js'),
  ]);
  const ui = createUi(messageIo(io, json));
  ui.intro(`framework-auth remove-provider ${entry.id}${entry.id === idOrAlias.trim().toLowerCase() ? '' : ` (alias "${idOrAlias}")`}`);
  const notes: string[] = [];
  const files: PlannedFile[] = [];

  const fallbackAnswers = manifest?.answers ?? { providers: [], mount: defaultMountPath, adapter: readProjectAdapter(root)?.entry?.id ?? 'none' };
  const projectAnswers = answersFromConfig(api, edit.content, fallbackAnswers);
  files.push({
    ...planMergedFile(configPath, configText, edit.content, edit.changed ? `removes ${entry.importName} from the providers` : undefined),
    base: renderAuthConfig(projectAnswers, cliVersion, templates),
  });

  // The runtime files the provider list no longer reaches (the provider's file, and the flow it brought): each is
  // deleted when unchanged and no file that stays imports it, and kept with a note otherwise.
  const runtimeNow = readRuntimeFiles(answersFromConfig(api, configText, fallbackAnswers).providers, projectAnswers.adapter, templates);
  const runtimeAfter = new Set(readRuntimeFiles(projectAnswers.providers, projectAnswers.adapter, templates).map((file) => file.path));
  const unused = runtimeNow.filter((file) => !runtimeAfter.has(file.path)).flatMap((file) => {
    const path = `${authDir}/core/${file.path}`;
    const text = readProjectFile(root, path);
    if (text === undefined) return [];
    const known = manifest?.files[path];
    const untouched = known ? known.sha256 === sha256(text) : withRuntimeHeader(file.path, file.content, cliVersion) === text;
    if (!untouched) notes.push(`Kept ${path}: it has changes of yours. Delete it by hand if you no longer need it.`);
    return untouched ? [{ path, text }] : [];
  });
  const planned = new Map<string, string | undefined>([[configPath, edit.content], ...unused.map(({ path }): [string, undefined] => [path, undefined])]);
  for (const { path, text } of unused) {
    if (isImportedInProject(root, path, planned)) notes.push(`Kept ${path}: another file still imports it.`);
    else files.push(planDeletedFile(path, text, 'no longer used'));
  }

  const exampleText = readProjectFile(root, '.env.example');
  if (exampleText !== undefined) files.push(planMergedFile('.env.example', exampleText, removeEnvKeys(exampleText, entry.env), `removes ${entry.env.join(', ')}`));
  const envText = readProjectFile(root, '.env');
  if (envText !== undefined && flags.purgeEnv) files.push(planMergedFile('.env', envText, removeEnvKeys(envText, entry.env), `removes ${entry.env.join(', ')}`));
  const keptEnv = envText === undefined || flags.purgeEnv ? [] : entry.env.filter((key) => removeEnvKeys(envText, [key]) !== envText);
  if (keptEnv.length > 0) notes.push(`Kept ${keptEnv.join(', ')} in .env (your values); --purge-env removes them.`);

  // Only what the CLI added (recorded in the manifest, range unchanged) and nothing else still needs.
  const stillNeeded = new Set([
    ...projectAnswers.providers.flatMap((id) => Object.keys(getProvider(id).dependencies)),
    ...Object.keys(findAdapter(projectAnswers.adapter)?.dependencies ?? {}),
  ]);
  const packageText = readProjectFile(root, 'package.json');
  let removedDependencies: string[] = [];
  if (packageText !== undefined && Object.keys(entry.dependencies).length > 0) {
    const current = JSON.parse(packageText) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
    const removable = Object.keys(entry.dependencies).filter((name) => {
      const range = current.dependencies?.[name] ?? current.devDependencies?.[name];
      return !stillNeeded.has(name) && range !== undefined && manifest?.dependencies[name] === range;
    });
    const kept = Object.keys(entry.dependencies).filter((name) => !removable.includes(name) && !stillNeeded.has(name) && (current.dependencies?.[name] ?? current.devDependencies?.[name]) !== undefined);
    if (kept.length > 0) notes.push(`Kept ${kept.join(', ')} in package.json: create-framework-auth did not add ${kept.length === 1 ? 'it' : 'them'} (or the range changed).`);
    const removal = removeDependencies(packageText, removable);
    removedDependencies = removal.removed;
    files.push(planMergedFile('package.json', packageText, removal.content, removedDependencies.length > 0 ? `removes ${removedDependencies.join(', ')}` : undefined));
  }
  if (manifest) {
    files.push(...planManifest({ root, previous: manifest, version: manifest.cliVersion, answers: projectAnswers, files, removedDependencies }));
  }

  const changes = files.filter((file) => file.action !== 'unchanged');
  const envRemoved = [...new Set([...envKeyChanges(files.find((file) => file.path === '.env.example')).removed, ...envKeyChanges(files.find((file) => file.path === '.env')).removed])];
  const report = (): Record<string, unknown> => ({
    root,
    dryRun: flags.dryRun === true,
    provider: entry.id,
    files: filesReport(files),
    dependencies: { removed: removedDependencies },
    env: { removed: envRemoved, kept: keptEnv },
    notes,
  });
  for (const note of notes) ui.info(note);
  if (flags.dryRun) {
    ui.lines(`Plan for ${root}`, describeFiles(files));
    ui.outro('Dry run: nothing was written.');
    if (json) writeJson(io, 'remove-provider', true, report());
    return;
  }
  if (io.signal.aborted) throw cancelledError();
  if (changes.length === 0) {
    ui.info(`${entry.name} is not in ${configPath}; nothing to remove.`);
  } else {
    await ui.step(
      'Writing files',
      () => writePlannedFiles(root, files, { signal: io.signal }),
      (paths) => `Changed ${paths.filter((path) => !isBaseFile(path)).join(', ')}`,
    );
  }
  if (removedDependencies.length > 0) ui.info(`Run your package manager's install (e.g. npm install) to drop ${removedDependencies.join(', ')} from the lockfile and node_modules.`);
  if (entry.oauth && edit.changed) ui.info(`The app registered with ${entry.name} is no longer used; delete it there when you are sure.`);
  ui.outro(changes.length === 0 ? 'Nothing to remove.' : `${entry.name} removed.`);
  if (json) writeJson(io, 'remove-provider', true, report());
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
