import type { PackageManager } from '../../catalog/package-managers.js';
import type { ProviderEntry } from '../../catalog/providers.js';
import type { Answers } from '../answers.js';
import { readEnvLines } from '../edit/env-file.js';
import { mergePackageJson } from '../edit/package-json.js';
import type { Release } from '../paths.js';
import { planDeletedFile, planMergedFile } from '../planned-file.js';
import type { PlannedFile } from '../planned-file.js';
import { adapterOfConfig } from '../project/adapter.js';
import { isImportedInProject } from '../project/imports.js';
import { answersFromConfig, sha256 } from '../project/manifest.js';
import type { Manifest } from '../project/manifest.js';
import { fileIn } from '../project/snapshot.js';
import type { ProjectSnapshot } from '../project/snapshot.js';
import type { TypeScriptApi } from '../typescript-api.js';
import { desired } from './desired.js';
import type { DesiredProject } from './desired.js';
import { renderAuthConfig } from './project.js';

/**
 * What a writing command will do, decided before the first write: one shape for `create`, `update`, `add-provider`
 * and `remove-provider`. A planner under the generator reads the project and returns a Plan; the CLI's one apply
 * step prints it, writes it atomically (or not, for `--dry-run`), installs, and reports it (`--json`).
 */
export interface Plan {
  /** The command, as `--json` names it. */
  command: 'create' | 'update' | 'add-provider' | 'remove-provider' | 'add-two-factor' | 'remove-two-factor';
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

/** What `add-provider` and `remove-provider` plan from: one catalog provider and the scaffolded project it edits. */
export interface ProviderEditInput {
  /** The project as `readProject` read it. */
  project: ProjectSnapshot;
  entry: ProviderEntry;
  /** The auth module's folder (locateAuthModule) and its config's text. */
  authDir: string;
  configText: string;
  manifest: Manifest | undefined;
  api: TypeScriptApi;
  /** The version and templates it generates from. */
  release: Release;
}

/** What an edit of config.ts (its providers or features) plans: the config file, the answers it holds, and the project before and after. */
export interface ProviderListEdit {
  configFile: PlannedFile;
  answers: Answers;
  before: DesiredProject;
  after: DesiredProject;
}

/**
 * Plans config.ts after `add-provider` or `remove-provider` edited its provider list (`edited`), with the render of
 * its answers as the base `update` merges against, and what the project holds before and after the edit.
 */
export function planProviderListEdit(input: Pick<ProviderEditInput, 'authDir' | 'configText' | 'manifest' | 'api' | 'release'>, edited: { content: string; changed: boolean }, change: string, mount: string): ProviderListEdit {
  const { authDir, configText, manifest, api, release } = input;
  const configPath = `${authDir}/config.ts`;
  const fallback = manifest?.answers ?? { providers: [], mount, adapter: adapterOfConfig(api, configText)?.entry?.id ?? 'none' };
  const answers = answersFromConfig(api, edited.content, fallback);
  return {
    configFile: {
      ...planMergedFile(configPath, configText, edited.content, edited.changed ? change : undefined),
      base: renderAuthConfig(answers, release),
    },
    answers,
    before: desired(answersFromConfig(api, configText, fallback), release),
    after: desired(answers, release),
  };
}

/**
 * What a project gains when `change` adds to what it holds: the runtime files it lacks (files it has are left as
 * they are) and, in package.json, the dependencies `before` did not need. Returns the planned files and what
 * package.json gains (`packageJson`, undefined when nothing), and `added`, name → range.
 */
export function planAddedParts(
  input: Pick<ProviderEditInput, 'project' | 'authDir'>,
  change: Pick<ProviderListEdit, 'before' | 'after'>,
): { runtimeFiles: PlannedFile[]; packageJson: PlannedFile | undefined; added: Record<string, string> } {
  const { project, authDir } = input;
  const runtimeFiles: PlannedFile[] = [];
  for (const [runtimePath, content] of change.after.runtime) {
    const path = `${authDir}/core/${runtimePath}`;
    if (fileIn(project, path) === undefined) runtimeFiles.push({ ...planMergedFile(path, undefined, content), base: content });
  }
  const newDependencies = Object.fromEntries(Object.entries(change.after.dependencies).filter(([name]) => !(name in change.before.dependencies)));
  if (Object.keys(newDependencies).length === 0) return { runtimeFiles, packageJson: undefined, added: {} };
  const packageText = fileIn(project, 'package.json');
  const { added, content } = mergePackageJson(packageText, { name: 'app', scripts: {}, dependencies: newDependencies, devDependencies: {} });
  const packageJson = planMergedFile('package.json', packageText, content, Object.keys(added).length > 0 ? `adds ${Object.keys(added).join(', ')}` : undefined);
  return { runtimeFiles, packageJson, added };
}

/**
 * The runtime files that `before` reached and `after` no longer does: each is deleted when unchanged (by the
 * manifest's hash, else against this version's copy) and no file that stays imports it, and kept with a note
 * otherwise. `config` is the config's path and its planned text, which the import check reads instead of the file.
 */
export function planUnusedRuntimeFiles(
  input: Pick<ProviderEditInput, 'project' | 'authDir' | 'manifest'>,
  change: Pick<ProviderListEdit, 'before' | 'after'>,
  config: { path: string; content: string },
  notes: string[],
): PlannedFile[] {
  const { project, authDir, manifest } = input;
  const unused = [...change.before.runtime].filter(([runtimePath]) => !change.after.runtime.has(runtimePath)).flatMap(([runtimePath, content]) => {
    const path = `${authDir}/core/${runtimePath}`;
    const text = fileIn(project, path);
    if (text === undefined) return [];
    const known = manifest?.files[path];
    const untouched = known ? known.sha256 === sha256(text) : content === text;
    if (!untouched) notes.push(`Kept ${path}: it has changes of yours. Delete it by hand if you no longer need it.`);
    return untouched ? [{ path, text }] : [];
  });
  const planned = new Map<string, string | undefined>([[config.path, config.content], ...unused.map(({ path }): [string, undefined] => [path, undefined])]);
  const files: PlannedFile[] = [];
  for (const { path, text } of unused) {
    if (isImportedInProject(project.sourceFiles, path, planned)) notes.push(`Kept ${path}: another file still imports it.`);
    else files.push(planDeletedFile(path, text, 'no longer used'));
  }
  return files;
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
