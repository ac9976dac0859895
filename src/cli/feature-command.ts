import type { Command } from 'commander';
import { featureCommandName } from '../catalog/features.js';
import type { FeatureEntry } from '../catalog/features.js';
import { packageManagers } from '../catalog/package-managers.js';
import { applyPlan } from './apply-plan.js';
import { parsePackageManager } from './create.js';
import type { CliIo } from './io.js';
import { openProjectCommand, projectCommand } from './project-command.js';
import type { ProjectCommandFlags } from './project-command.js';

/** Flags of `framework-auth add-<feature>` and `remove-<feature>`. */
export interface FeatureFlags extends ProjectCommandFlags {
  install?: boolean;
  packageManager?: string;
  purgeEnv?: boolean;
}

/** Turns a catalog feature on (`add-<id>`) or off (`remove-<id>`) in a scaffolded project. */
export async function runFeatureCommand(feature: FeatureEntry, on: boolean, flags: FeatureFlags, io: CliIo): Promise<void> {
  const pmFlag = flags.packageManager === undefined ? undefined : parsePackageManager(flags.packageManager);
  const { root, opened, project, release, ui, apply } = await openProjectCommand(flags, io, { intro: () => `framework-auth ${featureCommandName(feature, on)}` });
  const [{ planFeature }, { detectPackageManager }] = await Promise.all([import('../generator/plan/feature.js'), import('../generator/io/install.js')]);
  const { pm, source } = detectPackageManager(root, pmFlag, io.env);
  const plan = planFeature({ ...opened, project, release, install: on && flags.install !== false ? { packageManager: pm, detectedFrom: source } : undefined, feature, on, purgeEnv: !on && flags.purgeEnv === true });
  await applyPlan(plan, ui, io, apply);
}

/**
 * The `add-<id>` (on) or `remove-<id>` command of `framework-auth` for a catalog feature: its description and help
 * from the catalog; adding installs the feature's dependencies unless `--no-install`.
 */
export function createFeatureCommand(feature: FeatureEntry, on: boolean, io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  const { description, help } = on ? feature.commands.add : feature.commands.remove;
  const options = on
    ? (command: Command) => command.option('--no-install', 'do not install its dependency').option('--package-manager <pm>', `${packageManagers.join(', ')} (default: detected)`)
    : feature.env.length > 0
      ? (command: Command) => command.option('--purge-env', `also remove ${feature.env.map((key) => key.name).join(', ')} (and their values) from .env when nothing else reads them`)
      : undefined;
  return projectCommand(featureCommandName(feature, on), description, options)
    .addHelpText('after', help)
    .action((flags: FeatureFlags) => run(() => runFeatureCommand(feature, on, flags, io)));
}
