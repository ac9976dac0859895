import { locateAuthModule } from '../generator/auth-module.js';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { basePathOf, isBaseFile, manifestPath, planManifest, readManifest, sha256 } from '../generator/manifest.js';
import { templateDirsFrom } from '../generator/paths.js';
import { planDeletedFile, planMergedFile, readProjectFile } from '../generator/planned-file.js';
import type { PlannedFile } from '../generator/planned-file.js';
import { writePlannedFiles } from '../generator/write-plan.js';
import { CliError, cancelledError } from '../generator/errors.js';
import type { CliIo } from './io.js';
import { filesReport, messageIo, writeJson } from './json-output.js';
import { describeFiles } from './plan-report.js';
import { readScaffoldedConfig } from './project.js';
import { cliPackageName, cliVersion } from '../generator/version.js';

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

Generated files you did not change are replaced by this version's. Files you changed are merged (3-way: what
create-framework-auth wrote, your file, this version's): when both changed the same lines, your file is left as it
is, the merge with conflict markers is written beside it as <file>.merge, and the exit code is 1. Resolve it, then
run update again. package.json, tsconfig.json and .env get what this version needs, keeping everything of yours.
`;

/** The suffix of the file written beside a file whose merge has conflicts. */
export const mergeSuffix = '.merge';

/**
 * Brings the generated files (runtime copy, auth module, starter server) of a project with a manifest to this CLI
 * version: untouched files are replaced, edited ones 3-way merged with their base kept under `.framework-auth/base/`,
 * conflicts left beside the user's file as `<file>.merge` (exit 1).
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
  const templates = templateDirsFrom(io.env);
  const [{ createUi }, { planProject, renderAuthConfig }, { detectPackageManager }, { markDifferences, mergeThreeWay }, { setJsoncPrimitive, detectFormatting }] = await Promise.all([
    import('./ui.js'),
    import('../generator/plan-project.js'),
    import('../generator/install.js'),
    import('../generator/three-way-merge.js'),
    import('../generator/merge/json-format.js'),
  ]);
  const ui = createUi(messageIo(io, json));
  ui.intro(`framework-auth update ${manifest.cliVersion} → ${cliVersion}`);
  const { pm } = detectPackageManager(root, undefined, io.env);
  // The answers the kept bases were rendered for: this version renders the same answers, so that the merges see
  // only the template's changes on one side and the user's on the other.
  const answers = manifest.answers;
  const plan = planProject({ root, answers, force: false, version: cliVersion, packageManager: pm, templates });
  const configPath = `${authDir}/config.ts`;

  const files: PlannedFile[] = [];
  const mergeFiles = new Map<string, string>();
  const keep: string[] = [];
  const notes: string[] = [...plan.notes];
  const generatedPaths = new Set<string>();
  const labels = { ours: 'yours', base: `create-framework-auth ${manifest.cliVersion} (base)`, theirs: `create-framework-auth ${cliVersion}` };

  for (const planned of plan.files) {
    if (planned.base === undefined) {
      files.push(planned);
      continue;
    }
    const path = planned.path;
    generatedPaths.add(path);
    const theirs = path === configPath ? renderAuthConfig(answers, cliVersion, templates) : planned.base;
    const current = readProjectFile(root, path);
    const entry = manifest.files[path];
    const baseText = entry ? readProjectFile(root, basePathOf(path)) : undefined;
    const base = baseText !== undefined && entry !== undefined && sha256(baseText) === entry.base ? baseText : undefined;
    if (current === undefined) {
      if (entry) {
        notes.push(`${path} was deleted; not restored (restore it from ${basePathOf(path)} or with "npx create-framework-auth --force").`);
        keep.push(path);
      } else {
        files.push({ path, action: 'create', content: theirs, previous: undefined, base: theirs, reason: `new in ${cliVersion}` });
      }
    } else if (current === theirs) {
      files.push({ path, action: 'unchanged', content: current, previous: current, base: theirs });
    } else if (base !== undefined && current === base) {
      files.push({ path, action: 'update', content: theirs, previous: current, base: theirs, reason: 'not changed by you: replaced' });
    } else if (base !== undefined && base === theirs) {
      // The template did not change: the user's edits stay as they are, and so do the manifest entry and base.
      files.push({ path, action: 'unchanged', content: current, previous: current, base: theirs });
    } else {
      const merge =
        base === undefined
          ? { clean: false, content: markDifferences(current, theirs, labels) }
          : mergeThreeWay(current, base, theirs, labels);
      if (merge.clean) {
        files.push({ path, action: 'update', content: merge.content, previous: current, base: theirs, reason: 'merged with your changes' });
      } else {
        const mergePath = `${path}${mergeSuffix}`;
        const reason =
          base === undefined
            ? `no base to merge with (${entry ? `${basePathOf(path)} is missing or changed` : 'not in the manifest'}); both versions are in ${mergePath}`
            : `your changes and ${cliVersion}'s touch the same lines; the merge with conflict markers is in ${mergePath}`;
        files.push({ path, action: 'conflict', content: theirs, previous: current, reason });
        files.push(planMergedFile(mergePath, readProjectFile(root, mergePath), merge.content));
        mergeFiles.set(path, mergePath);
      }
    }
  }

  // Files of the old version that this one no longer generates: removed when untouched, kept when edited.
  for (const [path, entry] of Object.entries(manifest.files)) {
    if (generatedPaths.has(path)) continue;
    const current = readProjectFile(root, path);
    if (current === undefined) continue;
    const baseText = readProjectFile(root, basePathOf(path));
    const untouched = baseText !== undefined && sha256(baseText) === entry.base && current === baseText;
    if (untouched && !isStillChosen(path, answers.providers)) {
      files.push(planDeletedFile(path, current, `no longer part of ${cliVersion}`));
    } else {
      keep.push(path);
    }
  }

  // The project pins the CLI that wrote it (SPEC §4): after an update that is this version.
  const packageFile = files.find((file) => file.path === 'package.json');
  const recorded: Record<string, string> = { ...plan.addedDependencies };
  if (packageFile && packageFile.action !== 'conflict') {
    const pinned = (JSON.parse(packageFile.content) as { devDependencies?: Record<string, unknown> }).devDependencies?.[cliPackageName];
    if (typeof pinned === 'string' && /^\d+\.\d+\.\d+/.test(pinned) && pinned !== cliVersion) {
      const content = setJsoncPrimitive(packageFile.content, ['devDependencies', cliPackageName], cliVersion, detectFormatting(packageFile.content));
      Object.assign(packageFile, planMergedFile('package.json', packageFile.previous, content, `${cliPackageName} ${pinned} → ${cliVersion}`));
      recorded[cliPackageName] = cliVersion;
    }
  }
  files.push(...planManifest({ root, previous: manifest, version: cliVersion, answers, files, addedDependencies: recorded, keep }));

  const conflicts = files.filter((file) => file.action === 'conflict');
  const report = (): Record<string, unknown> => ({
    root,
    dryRun: flags.dryRun === true,
    from: manifest.cliVersion,
    to: cliVersion,
    files: filesReport(files, mergeFiles),
    dependencies: { added: plan.addedDependencies },
    notes,
  });
  for (const note of notes) ui.info(note);
  if (flags.dryRun) {
    ui.lines(`Plan for ${root}`, describeFiles(files));
    ui.outro('Dry run: nothing was written.');
    if (json) writeJson(io, 'update', true, report());
    return;
  }
  if (io.signal.aborted) throw cancelledError();
  const written = await ui.step(
    'Writing files',
    () => writePlannedFiles(root, files, { signal: io.signal }),
    (paths) => {
      const shown = paths.filter((path) => !isBaseFile(path));
      return shown.length === 0 ? 'Nothing to write: the project is up to date' : `Wrote ${shown.length} files`;
    },
  );
  const merged = files.filter((file) => file.reason === 'merged with your changes').map((file) => file.path);
  if (merged.length > 0) ui.info(`Merged with your changes: ${merged.join(', ')}`);
  if (Object.keys(plan.addedDependencies).length > 0) ui.info(`New dependencies: ${Object.keys(plan.addedDependencies).join(', ')}; run your package manager's install.`);
  if (json) writeJson(io, 'update', conflicts.length === 0, report());
  if (conflicts.length > 0) {
    for (const file of conflicts) ui.warn(`${file.path}: ${file.reason ?? 'conflict'}`);
    throw new CliError(
      'merge-conflicts',
      `${conflicts.length} ${conflicts.length === 1 ? 'file has' : 'files have'} conflicting changes, left as they were: ${conflicts.map((file) => file.path).join(', ')}`,
      {
        exitCode: 1,
        reported: json,
        hint: `Resolve each from its ${mergeSuffix} file (git's diff3 markers), delete the ${mergeSuffix} file, then run "npx framework-auth update" again.`,
      },
    );
  }
  ui.outro(written.filter((path) => !isBaseFile(path)).length === 0 ? 'Already up to date.' : `Updated to create-framework-auth ${cliVersion}.`);
}

/** A provider file of a provider the project still uses is never obsolete, whatever a template copy lacks. */
function isStillChosen(path: string, providers: readonly string[]): boolean {
  const match = /\/core\/providers\/([^/]+)\.ts$/.exec(path);
  return match?.[1] !== undefined && providers.includes(match[1]);
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
