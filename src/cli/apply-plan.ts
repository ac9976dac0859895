import { isBaseFile } from '../generator/project/manifest.js';
import type { Plan } from '../generator/plan/plan.js';
import { planChangesFiles } from '../generator/plan/plan.js';
import { writePlannedFiles } from '../generator/io/write-plan.js';
import { cancelledError } from '../generator/errors.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { filesReport, writeJson } from './json-output.js';
import { describeFiles } from './plan-report.js';
import type { Ui } from './ui.js';

/** How a plan is applied: the flags every writing command shares. */
export interface ApplyOptions {
  dryRun: boolean;
  json: boolean;
  /** Interactive `create` without `--yes`: the plan is shown and the user confirms before anything is written. */
  confirm?: (question: string) => Promise<boolean>;
}

/** The `--json` document of a plan: the shared fields, then the command's own. */
function planDocument(plan: Plan, dryRun: boolean, installed: boolean): Record<string, unknown> {
  return {
    root: plan.root,
    dryRun,
    ...plan.details,
    files: filesReport(plan.files, plan.mergeFiles),
    dependencies: plan.dependencies,
    env: plan.env,
    callbackUrls: plan.callbackUrls,
    notes: plan.notes,
    ...(plan.install === undefined ? {} : { packageManager: plan.install.packageManager }),
    installed,
  };
}

/**
 * The one apply step of every writing command: notes and conflicts, then `--dry-run` (print, write nothing), or
 * confirm (interactive create), check the package manager, write every file as one unit (rolled back on an error or
 * Ctrl-C), install, print what comes next; `--json` reports the plan. A plan with a `failure` fails after its write.
 */
export async function applyPlan(plan: Plan, ui: Ui, io: CliIo, options: ApplyOptions): Promise<void> {
  for (const note of plan.notes) ui.info(note);
  for (const file of plan.files.filter((candidate) => candidate.action === 'conflict')) {
    ui.warn(`${file.path}: ${file.reason ?? 'kept as it is'}`);
  }

  if (options.dryRun) {
    showPlan(plan, ui);
    ui.outro('Dry run: nothing was written.');
    if (options.json) writeJson(io, plan.command, true, planDocument(plan, true, false));
    return;
  }

  const changes = planChangesFiles(plan);
  if (options.confirm && changes) {
    showPlan(plan, ui);
    if (!(await options.confirm('Write these files?'))) throw cancelledError();
  }
  const { install } = plan;
  let written: number;
  if (install) {
    const { assertPackageManagerRuns, installDependencies } = await import('../generator/io/install.js');
    await ui.step(`Checking ${install.packageManager} (${install.detectedFrom})`, () => assertPackageManagerRuns(install.packageManager), () => `Using ${install.packageManager} (${install.detectedFrom})`);
    if (io.signal.aborted) throw cancelledError();
    written = await write(plan, ui, io, changes);
    const label = install.dependencies.length > 0 && plan.command !== 'create' ? install.dependencies.join(', ') : 'dependencies';
    await ui.step(`Installing ${label} with ${install.packageManager}`, () => installDependencies(plan.root, install.packageManager, io.signal), () => `Installed ${label} with ${install.packageManager}`);
  } else {
    if (io.signal.aborted) throw cancelledError();
    written = await write(plan, ui, io, changes);
  }

  for (const message of plan.messages.after) ui.info(message);
  if (plan.messages.nextSteps !== '') ui.lines('Next steps', plan.messages.nextSteps);
  if (plan.failure) {
    // Its conflicts were warned about above, before the write.
    if (options.json) writeJson(io, plan.command, false, planDocument(plan, false, install !== undefined));
    throw new CliError('merge-conflicts', plan.failure.message, { exitCode: 1, reported: options.json, hint: plan.failure.hint });
  }
  ui.outro(written > 0 ? plan.messages.outro.changed : plan.messages.outro.unchanged);
  if (options.json) writeJson(io, plan.command, true, planDocument(plan, false, install !== undefined));
}

/** The plan's files, one line each, and the dependencies it adds (and what installs them). */
function showPlan(plan: Plan, ui: Ui): void {
  ui.lines(`Plan for ${plan.root}`, describeFiles(plan.files));
  const dependencies = Object.entries(plan.dependencies.added).map(([name, range]) => `${name}@${range}`);
  if (dependencies.length > 0) ui.info(`Dependencies to add: ${dependencies.join(', ')}${plan.install ? ` (installed with ${plan.install.packageManager})` : ''}`);
}

/** Writes the plan's files as one unit; returns how many of the user's files (the kept bases left out) changed. */
async function write(plan: Plan, ui: Ui, io: CliIo, changes: boolean): Promise<number> {
  if (!changes) {
    ui.info(plan.messages.nothingToWrite);
    return 0;
  }
  const paths = await ui.step(
    'Writing files',
    () => writePlannedFiles(plan.root, plan.files, { signal: io.signal }),
    (written) => plan.messages.written(written.filter((path) => !isBaseFile(path))),
  );
  return paths.filter((path) => !isBaseFile(path)).length;
}
