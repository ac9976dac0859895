import type { Command } from 'commander';
import { changeKinds, changesBetween, readPackageChangelog } from '../generator/plan/changelog.js';
import type { ChangelogRelease } from '../generator/plan/changelog.js';
import { manifestPath } from '../generator/project/manifest.js';
import type { Manifest } from '../generator/project/manifest.js';
import type { ProjectSnapshot } from '../generator/project/snapshot.js';
import { generateSecret } from '../generator/edit/secret.js';
import { CliError } from './errors.js';
import { applyPlan } from './apply-plan.js';
import type { CliIo } from './io.js';
import { openProjectCommand, projectCommand } from './project-command.js';
import type { ProjectCommandFlags } from './project-command.js';
import { checkScaffolded, requireTypeScript } from './project.js';
import type { ScaffoldedProject } from './project.js';
import { cliVersion } from '../generator/version.js';

/** Flags of `framework-auth update`. */
export type UpdateFlags = ProjectCommandFlags;

const examples = `
Examples:
  $ npm install --save-dev create-framework-auth@latest && npx framework-auth update
  $ npx framework-auth update --dry-run         show what would be replaced, merged or left in conflict
  $ npx framework-auth update --json

First it prints what changed in src/auth/ between the version framework-auth.json records and this one (the
sections of this package's CHANGELOG.md, security fixes first); --json carries them as "changelog".
Generated files you did not change are replaced by this version's. Files you changed are merged (3-way: what
create-framework-auth wrote, your file, this version's): when both changed the same lines, your file is left as it
is, the merge with conflict markers is written beside it as <file>.merge, and the exit code is 1. Resolve it, then
run update again. package.json, tsconfig.json and .env get what this version needs, keeping everything of yours.
`;

/**
 * Brings the generated files (runtime copy, auth module, starter server) of a project with a manifest to this CLI
 * version: untouched files are replaced, edited ones 3-way merged with their base kept under `.framework-auth/base/`,
 * conflicts left beside the user's file as `<file>.merge` (exit 1). Before the plan it prints the changelog sections
 * between the manifest's version and this one (`changesBetween`: never `[Unreleased]`, nothing when they are equal).
 */
export async function runUpdate(flags: UpdateFlags, io: CliIo): Promise<void> {
  const { root, opened, project, release, ui, apply } = await openProjectCommand(flags, io, {
    open: openRecordedProject,
    intro: ({ manifest }) => `framework-auth update ${manifest.cliVersion} → ${cliVersion}`,
  });
  const { manifest } = opened;
  const [{ planUpdate }, { detectPackageManager }] = await Promise.all([import('../generator/plan/update.js'), import('../generator/io/install.js')]);
  const changelog = changesBetween(readPackageChangelog(), manifest.cliVersion, cliVersion);
  if (changelog.length > 0) ui.lines(`Changes from ${manifest.cliVersion} to ${cliVersion} (CHANGELOG.md)`, describeChanges(changelog));
  const { pm } = detectPackageManager(root, undefined, io.env);
  const plan = planUpdate({ project, release, packageManager: pm, secret: generateSecret(), changelog });
  await applyPlan(plan, ui, io, apply);
}

/** A scaffolded project with a manifest: update tells the user's changes from the CLI's by it. */
async function openRecordedProject(project: ProjectSnapshot, io: CliIo): Promise<ScaffoldedProject & { manifest: Manifest }> {
  const { root, manifest } = project;
  checkScaffolded(project);
  if (!manifest) {
    throw new CliError('not-a-project', `${root} has no ${manifestPath}: update needs it to tell your changes from the CLI's.`, {
      hint: `It is written by create-framework-auth from this version on. Commit your work, then re-run "npx create-framework-auth" with the project's answers (--providers, --mount, --adapter) to write it.`,
    });
  }
  return { manifest, api: await requireTypeScript(root, io) };
}

/** `0.2.0 (2026-12-01)`, then each subsection's entries, security first: the body of the changelog block. */
function describeChanges(releases: readonly ChangelogRelease[]): string {
  return releases
    .map((release) => {
      const sections = changeKinds.flatMap((kind) => {
        const entries = release.sections[kind] ?? [];
        return entries.length === 0 ? [] : [`${kind}:`, ...entries.map((entry) => `- ${entry}`)];
      });
      return [`${release.version}${release.date === undefined ? '' : ` (${release.date})`}`, ...sections].join('\n');
    })
    .join('\n\n');
}

/** The `update` command of `framework-auth`. */
export function createUpdateCommand(io: CliIo, run: (action: () => Promise<void>) => Promise<void>): Command {
  return projectCommand('update', 'bring the generated files to this CLI version, merging your changes (3-way)')
    .addHelpText('after', examples)
    .action((flags: UpdateFlags) => run(() => runUpdate(flags, io)));
}
