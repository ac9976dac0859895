import type { FeatureCommandName } from '../../catalog/features.js';
import type { PackageManager } from '../../catalog/package-managers.js';
import type { ProviderEntry } from '../../catalog/providers.js';
import type { Answers } from '../answers.js';
import { readEnvLines } from '../edit/env-file.js';
import type { Release } from '../release.js';
import { planMergedFile } from '../planned-file.js';
import type { PlannedFile } from '../planned-file.js';
import { adapterOfConfig } from '../project/adapter.js';
import { answersFromConfig } from '../project/manifest.js';
import { shapeAt } from '../project/shape.js';
import { authConfigIn, fileIn } from '../project/snapshot.js';
import type { ProjectSnapshot } from '../project/snapshot.js';
import type { TypeScriptApi } from '../typescript-api.js';
import { desired, desiredConfig, settingOf } from './desired.js';
import type { DesiredProject } from './desired.js';
import { appOrigin } from './env-groups.js';
import { reconcile } from './reconcile.js';
import type { Reconciled } from './reconcile.js';
import { shapeScripts } from './shape-plan.js';

/**
 * What a writing command will do, decided before the first write: one shape for `create`, `update`, `add-provider`
 * and `remove-provider`. A planner under the generator reads the project and returns a Plan; the CLI's one apply
 * step prints it, writes it atomically (or not, for `--dry-run`), installs, and reports it (`--json`).
 */
export interface Plan {
  /** The command, as `--json` names it. */
  command: 'create' | 'update' | 'add-provider' | 'remove-provider' | FeatureCommandName;
  /** The project directory. */
  root: string;
  /** Every file the command creates, updates, deletes, keeps or leaves in conflict. */
  files: PlannedFile[];
  /** Conflicting path → the file beside it holding the merge with conflict markers (`update`). */
  mergeFiles: ReadonlyMap<string, string>;
  dependencies: {
    /** Added to package.json, name → range. */
    added: Record<string, string>;
    /** Removed from package.json. */
    removed: string[];
  };
  env: {
    /** Keys added to `.env`. */
    added: string[];
    /** Keys removed from `.env.example` or `.env`. */
    removed: string[];
    /** Keys the user fills in. */
    fill: string[];
    /** Keys left in `.env` with the user's values. */
    kept: string[];
  };
  /** The callback URL to register with each OAuth provider the command adds. */
  callbackUrls: { provider: string; url: string }[];
  /** Things worth telling the user before the write (kept files, changed options, ...). */
  notes: string[];
  /** Dependencies to install after the write, with this package manager (undefined: no install step). */
  install: { packageManager: PackageManager; detectedFrom: string; dependencies: string[] } | undefined;
  /** The texts of the apply step. */
  messages: {
    /** The step's result when files were written: `Wrote 12 files`, `Updated src/auth/config.ts, .env`. */
    written: (paths: readonly string[]) => string;
    /** Said instead of writing when nothing changes. */
    nothingToWrite: string;
    /** Said after the write. */
    after: string[];
    /** The "Next steps" block (empty: none). */
    nextSteps: string;
    outro: { changed: string; unchanged: string };
  };
  /** Fields of this command's `--json` document besides the shared ones (`answers`, `provider`, `from`, ...). */
  details: Record<string, unknown>;
  /**
   * A plan that is written but does not succeed: `update` with conflicts writes the clean merges and the `.merge`
   * files, then fails (exit 1) with this message and hint.
   */
  failure?: { message: string; hint: string };
}

/**
 * What a command that edits a scaffolded project's config plans from: the project as read once (its auth module's
 * folder, config and manifest included), the compiler its code is read with, and the release.
 */
export interface ProjectEditInput {
  /** The project as `readProject` read it: the planner reads nothing else. */
  project: ProjectSnapshot;
  api: TypeScriptApi;
  /** The version and templates it generates from. */
  release: Release;
}

/** What `add-provider` and `remove-provider` plan from: one catalog provider and the scaffolded project it edits. */
export interface ProviderEditInput extends ProjectEditInput {
  entry: ProviderEntry;
}

/** What an edit of config.ts (its providers or features) plans: the answers it holds, the project before and after, and the files. */
export interface ConfigEdit extends Reconciled {
  answers: Answers;
  before: DesiredProject;
  after: DesiredProject;
}

/**
 * Plans a command that edits config.ts (`add-provider`, `remove-provider`, a feature's add and remove): the config as
 * `edited` (its base the render of the answers it holds), then what the project holds before and after the edit
 * reconciled (`keep`): the runtime files, dependencies and env keys it gains or loses, and the manifest.
 */
export function planConfigEdit(input: ProjectEditInput, edited: { content: string; changed: boolean }, change: string, options: { mount: string; purgeEnv?: boolean }): ConfigEdit {
  const { project, api, release } = input;
  const { authDir, manifest } = project;
  const { path: configPath, text: configText } = authConfigIn(project);
  const fallback = manifest?.answers ?? { providers: [], mount: options.mount, adapter: adapterOfConfig(api, configText)?.entry?.id ?? 'none' };
  const answers = answersFromConfig(api, edited.content, fallback);
  const shape = shapeAt(project.shape, answers.mount);
  const setting = settingOf(shape, appOrigin(fileIn(project, '.env')), shapeScripts(shape), () => api);
  const before = desired(answersFromConfig(api, configText, fallback), release, setting);
  const after = desired(answers, release, setting);
  const config: PlannedFile = { ...planMergedFile(configPath, configText, edited.content, edited.changed ? change : undefined), base: desiredConfig(after) };
  const reconciled = reconcile({
    project,
    manifest,
    before,
    after,
    policy: 'keep',
    authDir,
    config,
    version: release.version,
    // Never written: an edit keeps the project's AUTH_SECRET.
    secret: '',
    purgeEnv: options.purgeEnv === true,
    // The manifest is kept up to date where there is one; a project scaffolded before manifests gets one from
    // `npx create-framework-auth` (a re-run with its answers).
    recordManifest: manifest !== undefined,
  });
  return { answers, before, after, ...reconciled };
}

/** The keys a planned `.env`-style file adds and removes. */
export function envKeyChanges(file: PlannedFile | undefined): { added: string[]; removed: string[] } {
  if (!file || file.action === 'unchanged' || file.action === 'conflict') return { added: [], removed: [] };
  const before = new Set(readEnvLines(file.previous ?? '').map((line) => line.key));
  const after = new Set(readEnvLines(file.content).map((line) => line.key));
  return { added: [...after].filter((key) => !before.has(key)), removed: [...before].filter((key) => !after.has(key)) };
}

/** Whether applying the plan changes any file. */
export function planChangesFiles(plan: Plan): boolean {
  return plan.files.some((file) => file.action === 'create' || file.action === 'update' || file.action === 'delete');
}
