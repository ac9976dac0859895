import { defaultMountPath } from '../../catalog/mount-path.js';
import type { PackageManager } from '../../catalog/package-managers.js';
import { addProviderToConfig, readAuthConfig } from '../edit/provider-list.js';
import { usageError } from '../errors.js';
import { authConfigIn, fileIn } from '../project/snapshot.js';
import { appOrigin, callbackUrl } from './env-groups.js';
import { callbackUrls } from './next-steps.js';
import { envKeyChanges, planConfigEdit } from './plan.js';
import type { Plan, ProviderEditInput } from './plan.js';

/** Inputs of {@link planAddProvider}. */
export interface AddProviderPlanInput extends ProviderEditInput {
  /** Install the provider's dependencies with this package manager after the write (undefined: `--no-install`). */
  install: { packageManager: PackageManager; detectedFrom: string } | undefined;
}

/**
 * `framework-auth add-provider`'s plan: the entry in config.ts (an AST edit) and its import, the runtime files the
 * provider brings, its env placeholders and dependencies, and the callback URL to register. A second run plans
 * nothing. A provider that needs a database is refused (before anything is written) when the config has no adapter.
 */
export function planAddProvider(input: AddProviderPlanInput): Plan {
  const { project, entry, api } = input;
  const { root } = project;
  const { path: configPath, text: configText } = authConfigIn(project);
  const info = readAuthConfig(api, configText, configPath);
  if (entry.requiresAdapter === true && !info.hasAdapter) {
    throw usageError(
      `The ${entry.id} provider needs a database adapter, and ${configPath} sets none: ${entry.storedThroughAdapter} are stored through the adapter.`,
      `Re-run "npx create-framework-auth" with --adapter memory, sqlite or postgres first, or set \`adapter:\` in ${configPath}.`,
    );
  }
  const mount = info.basePath ?? defaultMountPath;
  const origin = appOrigin(fileIn(project, '.env'));
  const edit = addProviderToConfig(api, configText, entry, configPath);
  // What the project holds with the provider, reconciled against what it has: the runtime files it lacks (the
  // provider's file, and its flow and features when it brings them), its env placeholders (before the database's
  // group, where a project created with it has them) and the dependencies the provider list did not need before.
  const { files, mergeFiles, added } = planConfigEdit(input, edit, `adds ${entry.importName} to the providers`, { mount });

  const nextSteps: string[] = [];
  if (entry.oauth) nextSteps.push(`Register this callback URL with ${entry.name}:`, `  ${callbackUrl(origin, mount, entry.id)}`);
  if (entry.env.length > 0) nextSteps.push('', 'Fill in .env:', ...entry.env.map((name) => `  ${name}=`));
  if (entry.nextStep) nextSteps.push('', entry.nextStep(configPath));
  const addedNames = Object.keys(added);
  return {
    command: 'add-provider',
    root,
    files,
    mergeFiles,
    dependencies: { added, removed: [] },
    env: { added: envKeyChanges(files.find((file) => file.path === '.env')).added, removed: [], fill: [...entry.env], kept: [] },
    callbackUrls: callbackUrls(origin, mount, [entry.id]),
    notes: [],
    install: input.install && addedNames.length > 0 ? { ...input.install, dependencies: addedNames } : undefined,
    messages: {
      written: (paths) => `Updated ${paths.join(', ')}`,
      nothingToWrite: `${entry.name} is already in ${configPath}; nothing changed.`,
      after: [],
      nextSteps: nextSteps.join('\n'),
      outro: { changed: `${entry.name} added.`, unchanged: 'Already configured.' },
    },
    details: { provider: entry.id },
  };
}
