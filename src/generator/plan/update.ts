import type { ChangelogRelease } from './changelog.js';
import { Refusal } from '../errors.js';
import { manifestPath } from '../project/manifest.js';
import type { PackageManager } from '../../catalog/package-managers.js';
import type { Release } from '../release.js';
import type { Plan } from './plan.js';
import { planProject } from './project.js';
import { mergeSuffix } from './reconcile.js';
import type { ProjectSnapshot } from '../project/snapshot.js';

/** Inputs of {@link planUpdate}. */
export interface UpdatePlanInput {
  /** The project as `readProject` read it (its manifest, the auth module's folder and `.framework-auth/` included). */
  project: ProjectSnapshot;
  /** The version and templates it updates to. */
  release: Release;
  packageManager: PackageManager;
  /** A new `AUTH_SECRET`, written only when the project has no `.env` (drawn by the caller). */
  secret: string;
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
  const { project, release } = input;
  const { root, manifest } = project;
  if (!manifest) throw new Refusal('not-a-project', `${root} has no ${manifestPath}: update needs it to tell your changes from the CLI's.`);
  const cliVersion = release.version;
  // The answers the kept bases were rendered for: this version renders the same answers, so that the merges see
  // only the template's changes on one side and the user's on the other.
  const plan = planProject({ project, answers: manifest.answers, force: false, release, packageManager: input.packageManager, secret: input.secret, policy: 'merge', recordManifest: true });
  const { files, mergeFiles, notes } = plan;

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

