import { defaultMountPath } from '../../catalog/mount-path.js';
import { twoFactorEntry } from '../../catalog/two-factor.js';
import { usageError } from '../errors.js';
import { removeEnvKeys } from '../edit/env-file.js';
import { removeDependencies } from '../edit/package-json.js';
import { removeProviderFromConfig } from '../edit/provider-list.js';
import { planMergedFile } from '../planned-file.js';
import type { PlannedFile } from '../planned-file.js';
import { planManifest } from '../project/manifest.js';
import { fileIn } from '../project/snapshot.js';
import { envKeyChanges, planProviderListEdit, planUnusedRuntimeFiles } from './plan.js';
import type { Plan, ProviderEditInput } from './plan.js';

/** Inputs of {@link planRemoveProvider}. */
export interface RemoveProviderPlanInput extends ProviderEditInput {
  /** `--purge-env`: also remove the provider's keys (and values) from `.env`. */
  purgeEnv: boolean;
}

/**
 * `framework-auth remove-provider`'s plan, the undo of add-provider: the config entry and its import (an AST edit),
 * the env keys of `.env.example` (and of `.env` with `purgeEnv`), the runtime files no provider left reaches (when
 * unchanged and no longer imported), and the dependencies the CLI added for it alone. The last provider is refused.
 */
export function planRemoveProvider(input: RemoveProviderPlanInput): Plan {
  const { project, entry, authDir, configText, manifest, api } = input;
  const { root } = project;
  const configPath = `${authDir}/config.ts`;
  // Refusals (the last provider, a config the editor cannot read) come before anything is written: exit 2.
  const edit = removeProviderFromConfig(api, configText, entry.importPath, configPath);
  const notes: string[] = [];
  const files: PlannedFile[] = [];

  const { configFile, answers: projectAnswers, before, after } = planProviderListEdit(input, edit, `removes ${entry.importName} from the providers`, defaultMountPath);
  if (projectAnswers.twoFactor && !projectAnswers.providers.some((id) => twoFactorEntry.providers.includes(id))) {
    throw usageError(
      `Two-factor asks for a code after a password, and ${entry.id} is the last provider in ${configPath} that signs in with one: the app would not start.`,
      'Remove two-factor first: npx framework-auth remove-two-factor',
    );
  }
  files.push(configFile);

  // The runtime files the provider list no longer reaches (the provider's file, and the flow it brought).
  files.push(...planUnusedRuntimeFiles(input, { before, after }, { path: configPath, content: edit.content }, notes));

  // The env keys no provider left reads (a key two providers share stays).
  const envKeys = before.envKeys.filter((key) => !after.envKeys.includes(key));
  const exampleText = fileIn(project, '.env.example');
  if (exampleText !== undefined && envKeys.length > 0) files.push(planMergedFile('.env.example', exampleText, removeEnvKeys(exampleText, envKeys), `removes ${envKeys.join(', ')}`));
  const envText = fileIn(project, '.env');
  if (envText !== undefined && input.purgeEnv && envKeys.length > 0) files.push(planMergedFile('.env', envText, removeEnvKeys(envText, envKeys), `removes ${envKeys.join(', ')}`));
  const keptEnv = envText === undefined || input.purgeEnv ? [] : envKeys.filter((key) => removeEnvKeys(envText, [key]) !== envText);
  if (keptEnv.length > 0) notes.push(`Kept ${keptEnv.join(', ')} in .env (your values); --purge-env removes them.`);

  // Only what the CLI added (recorded in the manifest, range unchanged) and nothing else still needs.
  const stillNeeded = new Set(Object.keys(after.dependencies));
  const packageText = fileIn(project, 'package.json');
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
    files.push(...planManifest({ read: (path) => fileIn(project, path), previous: manifest, version: manifest.cliVersion, answers: projectAnswers, files, removedDependencies }));
  }


  const envRemoved = [...new Set([...envKeyChanges(files.find((file) => file.path === '.env.example')).removed, ...envKeyChanges(files.find((file) => file.path === '.env')).removed])];
  return {
    command: 'remove-provider',
    root,
    files,
    mergeFiles: new Map(),
    dependencies: { added: {}, removed: removedDependencies },
    env: { added: [], removed: envRemoved, fill: [], kept: keptEnv },
    callbackUrls: [],
    notes,
    install: undefined,
    messages: {
      written: (paths) => `Changed ${paths.join(', ')}`,
      nothingToWrite: `${entry.name} is not in ${configPath}; nothing to remove.`,
      after: [
        ...(removedDependencies.length > 0 ? [`Run your package manager's install (e.g. npm install) to drop ${removedDependencies.join(', ')} from the lockfile and node_modules.`] : []),
        ...(entry.oauth && edit.changed ? [`The app registered with ${entry.name} is no longer used; delete it there when you are sure.`] : []),
      ],
      nextSteps: '',
      outro: { changed: `${entry.name} removed.`, unchanged: 'Nothing to remove.' },
    },
    details: { provider: entry.id },
  };
}
