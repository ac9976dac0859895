import { defaultMountPath } from '../../catalog/mount-path.js';
import { featureCommandName, featuresOn } from '../../catalog/features.js';
import { usageError } from '../errors.js';
import { authConfigIn } from '../project/snapshot.js';
import { removeProviderFromConfig } from '../edit/provider-list.js';
import { envKeyChanges, planConfigEdit } from './plan.js';
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
  const { project, entry, api } = input;
  const { root } = project;
  const { path: configPath, text: configText } = authConfigIn(project);
  // Refusals (the last provider, a config the editor cannot read) come before anything is written: exit 2.
  const edit = removeProviderFromConfig(api, configText, entry.importPath, configPath);
  const { files, mergeFiles, answers: projectAnswers, removed: removedDependencies, envKept: keptEnv, notes } = planConfigEdit(input, edit, `removes ${entry.importName} from the providers`, {
    mount: defaultMountPath,
    purgeEnv: input.purgeEnv,
  });
  // A feature that works after one of its providers (two-factor after a password) keeps the last of them.
  for (const feature of featuresOn(projectAnswers)) {
    const needed = feature.needs.providers;
    if (needed && !projectAnswers.providers.some((id) => needed.ids.includes(id))) {
      throw usageError(
        `${feature.label} ${needed.why}, and ${entry.id} is the last provider in ${configPath} that ${needed.does}: the app would not start.`,
        `Remove ${feature.noun} first: npx framework-auth ${featureCommandName(feature, false)}`,
      );
    }
  }

  const envRemoved = [...new Set([...envKeyChanges(files.find((file) => file.path === '.env.example')).removed, ...envKeyChanges(files.find((file) => file.path === '.env')).removed])];
  return {
    command: 'remove-provider',
    root,
    files,
    mergeFiles,
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
