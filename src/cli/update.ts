import { resolve } from 'node:path';
import { Command } from 'commander';
import { locateAuthModule } from '../generator/project/auth-module.js';
import { changeKinds, changesBetween, readPackageChangelog } from '../generator/plan/changelog.js';
import type { ChangelogRelease } from '../generator/plan/changelog.js';
import { manifestPath, readManifest } from '../generator/project/manifest.js';
import { releaseFrom } from '../generator/paths.js';
import { generateSecret } from '../generator/edit/secret.js';
import { CliError } from './errors.js';
import { applyPlan } from './apply-plan.js';
import type { CliIo } from './io.js';
import { messageIo } from './json-output.js';
import { readScaffoldedConfig, requireTypeScript } from './project.js';
import { cliVersion } from '../generator/version.js';

/** Flags of `framework-auth update`. */
export interface UpdateFlags {
  cwd?: string;
  dryRun?: boolean;
  json?: boolean;
}

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
  const root = resolve(io.cwd, flags.cwd ?? '.');
  const json = flags.json === true;
  const manifest = readManifest(root);
  const authDir = locateAuthModule(root, manifest);
  readScaffoldedConfig(root, authDir);
  if (!manifest) {
    throw new CliError('not-a-project', `${root} has no ${manifestPath}: update needs it to tell your changes from the CLI's.`, {
      hint: `It is written by create-framework-auth from this version on. Commit your work, then re-run "npx create-framework-auth" with the project's answers (--providers, --mount, --adapter) to write it.`,
    });
  }
  await requireTypeScript(root, io);
  const [{ createUi }, { planUpdate }, { detectPackageManager }, { readProject }] = await Promise.all([
    import('./ui.js'),
    import('../generator/plan/update.js'),
    import('../generator/io/install.js'),
    import('../generator/project/snapshot.js'),
  ]);
  const ui = createUi(messageIo(io, json));
  ui.intro(`framework-auth update ${manifest.cliVersion} → ${cliVersion}`);
  const changelog = changesBetween(readPackageChangelog(), manifest.cliVersion, cliVersion);
  if (changelog.length > 0) ui.lines(`Changes from ${manifest.cliVersion} to ${cliVersion} (CHANGELOG.md)`, describeChanges(changelog));
  const { pm } = detectPackageManager(root, undefined, io.env);
  const plan = planUpdate({ project: readProject(root, { authDir }), manifest, authDir, release: releaseFrom(io.env), packageManager: pm, secret: generateSecret(), changelog });
  await applyPlan(plan, ui, io, { dryRun: flags.dryRun === true, json });
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
  return new Command('update')
    .description('bring the generated files to this CLI version, merging your changes (3-way)')
    .option('--cwd <dir>', 'project directory (default: the current directory)')
    .option('--dry-run', 'print the plan and write nothing')
    .option('--json', 'print one JSON document on stdout (messages go to stderr)')
    .addHelpText('after', examples)
    .action((flags: UpdateFlags) => run(() => runUpdate(flags, io)));
}
