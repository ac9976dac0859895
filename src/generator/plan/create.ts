import type { PackageManager } from '../../catalog/package-managers.js';
import { getProvider } from '../../catalog/providers.js';
import type { Answers } from '../answers.js';
import { isBaseFile } from '../project/manifest.js';
import { callbackUrls, nextSteps } from './next-steps.js';
import { envKeyChanges } from './plan.js';
import type { Plan } from './plan.js';
import { planProject } from './project.js';
import type { Release } from '../release.js';
import type { ProjectSnapshot } from '../project/snapshot.js';

/** Inputs of {@link planCreate}: the answers and flags of `create-framework-auth`. */
export interface CreatePlanInput {
  /** The project as `readProject` read it (the manifest of an earlier run included). */
  project: ProjectSnapshot;
  /** The directory the command runs in, for the `cd` of the next steps. */
  cwd: string;
  answers: Answers;
  force: boolean;
  /** The version and templates it generates from. */
  release: Release;
  packageManager: PackageManager;
  /** How the package manager was chosen (flag, lockfile, ...), for the install step's label. */
  packageManagerSource: string;
  /** Whether to install dependencies after the write (`--no-install` says no). */
  install: boolean;
  convertEsm: boolean;
  /** A new `AUTH_SECRET` for a `.env` without one (drawn by the caller: `generateSecret`). */
  secret: string;
}

/** `create-framework-auth`'s plan: the auth module, the starter server, package.json, tsconfig, .env and the manifest. */
export function planCreate(input: CreatePlanInput): Plan {
  const project = planProject({
    project: input.project,
    answers: input.answers,
    force: input.force,
    release: input.release,
    packageManager: input.packageManager,
    convertEsm: input.convertEsm,
    secret: input.secret,
    recordManifest: true,
  });
  const { files } = project;
  const answers = project.projectAnswers;
  const needsInstall = input.install && (Object.keys(project.addedDependencies).length > 0 || !input.project.hasNodeModules);
  return {
    command: 'create',
    root: input.project.root,
    files,
    mergeFiles: new Map(),
    dependencies: { added: project.addedDependencies, removed: [] },
    env: {
      added: envKeyChanges(files.find((file) => file.path === '.env')).added,
      removed: [],
      fill: answers.providers.flatMap((id) => getProvider(id).env),
      kept: [],
    },
    callbackUrls: callbackUrls(project.origin, answers.mount, answers.providers),
    notes: project.notes,
    install: needsInstall ? { packageManager: input.packageManager, detectedFrom: input.packageManagerSource, dependencies: Object.keys(project.addedDependencies) } : undefined,
    messages: {
      written: (paths) => {
        const shown = paths.filter((path) => !isBaseFile(path));
        return shown.length === 0 ? 'Nothing to write: the project is up to date' : `Wrote ${shown.length} files`;
      },
      nothingToWrite: 'Nothing to write: the project is up to date',
      after: [],
      nextSteps: nextSteps(project, { cwd: input.cwd, pm: input.packageManager, installed: input.install }),
      outro: { changed: 'The auth module is ready.', unchanged: 'Already up to date.' },
    },
    details: { answers, packageManager: input.packageManager },
  };
}
