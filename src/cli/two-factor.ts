import type { Command } from 'commander';
import { packageManagers } from '../catalog/package-managers.js';
import { applyPlan } from './apply-plan.js';
import { parsePackageManager } from './create.js';
import type { CliIo } from './io.js';
import { openProjectCommand, projectCommand } from './project-command.js';
import type { ProjectCommandFlags } from './project-command.js';

/** Flags of `framework-auth add-two-factor` and `remove-two-factor`. */
export interface TwoFactorFlags extends ProjectCommandFlags {
  install?: boolean;
  packageManager?: string;
}

const addExamples = `
Examples:
  $ npx framework-auth add-two-factor
  $ npx framework-auth add-two-factor --dry-run
  $ npx framework-auth add-two-factor --json

Adds TwoFactor() to the features of src/auth/config.ts (and its import), the feature's runtime files and its
dependency (uqr, the QR code of the setup page). Needs an adapter and the password (or credentials) provider.
Signed-in users then turn it on at <mount>/two-factor. Running it again changes nothing.
`;

const removeExamples = `
Examples:
  $ npx framework-auth remove-two-factor
  $ npx framework-auth remove-two-factor --json

Removes TwoFactor() and its import from src/auth/config.ts, its runtime files when nothing imports them any more and
you did not change them, and the dependency add-two-factor added. Running it again changes nothing.
`;

/** Turns two-factor on (`add-two-factor`) or off (`remove-two-factor`) in a scaffolded project. */
export async function runTwoFactor(on: boolean, flags: TwoFactorFlags, io: CliIo): Promise<void> {
  const pmFlag = flags.packageManager === undefined ? undefined : parsePackageManager(flags.packageManager);
  const { root, opened, project, release, ui, apply } = await openProjectCommand(flags, io, { intro: () => `framework-auth ${on ? 'add' : 'remove'}-two-factor` });
  const [{ planTwoFactor }, { detectPackageManager }] = await Promise.all([import('../generator/plan/two-factor.js'), import('../generator/io/install.js')]);
  const { pm, source } = detectPackageManager(root, pmFlag, io.env);
  const plan = planTwoFactor({ ...opened, project, release, install: on && flags.install !== false ? { packageManager: pm, detectedFrom: source } : undefined, on });
  await applyPlan(plan, ui, io, apply);
}

/** The `add-two-factor` command of `framework-auth`. */
export function createAddTwoFactorCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  return projectCommand('add-two-factor', 'add TOTP two-factor sign-in (after the password) to a project scaffolded by create-framework-auth', (command) =>
    command.option('--no-install', 'do not install its dependency').option('--package-manager <pm>', `${packageManagers.join(', ')} (default: detected)`),
  )
    .addHelpText('after', addExamples)
    .action((flags: TwoFactorFlags) => run(() => runTwoFactor(true, flags, io)));
}

/** The `remove-two-factor` command of `framework-auth`. */
export function createRemoveTwoFactorCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  return projectCommand('remove-two-factor', 'remove the two-factor sign-in that add-two-factor (or create --two-factor) added')
    .addHelpText('after', removeExamples)
    .action((flags: TwoFactorFlags) => run(() => runTwoFactor(false, flags, io)));
}
