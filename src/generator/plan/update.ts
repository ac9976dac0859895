import { cliPackageName } from '../version.js';
import type { ChangelogRelease } from './changelog.js';
import { basePathOf, planManifest, sha256 } from '../project/manifest.js';
import type { Manifest } from '../project/manifest.js';
import { setJsoncPrimitive, detectFormatting } from '../edit/json-format.js';
import type { PackageManager } from '../../catalog/package-managers.js';
import type { Release } from '../paths.js';
import type { Plan } from './plan.js';
import { planProject, renderAuthConfig } from './project.js';
import { planDeletedFile, planMergedFile } from '../planned-file.js';
import { fileIn } from '../project/snapshot.js';
import type { ProjectSnapshot } from '../project/snapshot.js';
import type { PlannedFile } from '../planned-file.js';
import { markDifferences, mergeThreeWay } from '../edit/three-way-merge.js';

/** The suffix of the file written beside a file whose merge has conflicts. */
export const mergeSuffix = '.merge';

/** Inputs of {@link planUpdate}. */
export interface UpdatePlanInput {
  /** The project as `readProject` read it (the auth module's folder and `.framework-auth/` included). */
  project: ProjectSnapshot;
  manifest: Manifest;
  /** The auth module's folder (locateAuthModule). */
  authDir: string;
  /** The version and templates it updates to. */
  release: Release;
  packageManager: PackageManager;
  /** The changelog sections between the manifest's version and this one (`changesBetween`), for `--json`. */
  changelog?: readonly ChangelogRelease[];
}

/**
 * `framework-auth update`'s plan: the generated files (runtime copy, auth module, starter server) brought to this
 * version. Untouched files are replaced, edited ones 3-way merged with their base kept under `.framework-auth/base/`,
 * conflicts left beside the user's file as `<file>.merge` (the plan's failure), files this version no longer
 * generates deleted when untouched.
 */
export function planUpdate(input: UpdatePlanInput): Plan {
  const { project, manifest, authDir, packageManager: pm } = input;
  const { root } = project;
  const read = (path: string): string | undefined => fileIn(project, path);
  const { release } = input;
  const cliVersion = release.version;
  // The answers the kept bases were rendered for: this version renders the same answers, so that the merges see
  // only the template's changes on one side and the user's on the other.
  const answers = manifest.answers;
  const plan = planProject({ project, answers, force: false, release, packageManager: pm });
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
    const theirs = path === configPath ? renderAuthConfig(answers, release) : planned.base;
    const current = read(path);
    const entry = manifest.files[path];
    const baseText = entry ? read(basePathOf(path)) : undefined;
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
        files.push(planMergedFile(mergePath, read(mergePath), merge.content));
        mergeFiles.set(path, mergePath);
      }
    }
  }

  // Files of the old version that this one no longer generates: removed when untouched, kept when edited.
  for (const [path, entry] of Object.entries(manifest.files)) {
    if (generatedPaths.has(path)) continue;
    const current = read(path);
    if (current === undefined) continue;
    const baseText = read(basePathOf(path));
    const untouched = baseText !== undefined && sha256(baseText) === entry.base && current === baseText;
    if (untouched) {
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
  files.push(...planManifest({ read, previous: manifest, version: cliVersion, answers, files, addedDependencies: recorded, keep }));


  const conflicts = files.filter((file) => file.action === 'conflict');
  const merged = files.filter((file) => file.reason === 'merged with your changes').map((file) => file.path);
  const added = Object.keys(plan.addedDependencies);
  return {
    command: 'update',
    root,
    files,
    mergeFiles,
    dependencies: { added: plan.addedDependencies, removed: [] },
    env: { added: [], removed: [], fill: [], kept: [] },
    callbackUrls: [],
    notes,
    install: undefined,
    messages: {
      written: (paths) => (paths.length === 0 ? 'Nothing to write: the project is up to date' : `Wrote ${paths.length} files`),
      nothingToWrite: 'Nothing to write: the project is up to date',
      after: [
        ...(merged.length > 0 ? [`Merged with your changes: ${merged.join(', ')}`] : []),
        ...(added.length > 0 ? [`New dependencies: ${added.join(', ')}; run your package manager's install.`] : []),
      ],
      nextSteps: '',
      outro: { changed: `Updated to create-framework-auth ${cliVersion}.`, unchanged: 'Already up to date.' },
    },
    details: { from: manifest.cliVersion, to: cliVersion, changelog: input.changelog ?? [] },
    ...(conflicts.length === 0
      ? {}
      : {
          failure: {
            message: `${conflicts.length} ${conflicts.length === 1 ? 'file has' : 'files have'} conflicting changes, left as they were: ${conflicts.map((file) => file.path).join(', ')}`,
            hint: `Resolve each from its ${mergeSuffix} file (git's diff3 markers), delete the ${mergeSuffix} file, then run "npx framework-auth update" again.`,
          },
        }),
  };
}

