import { findAdapter, findAdapterByModule } from '../../catalog/adapters.js';
import type { PackageManager } from '../../catalog/package-managers.js';
import { getProvider } from '../../catalog/providers.js';
import type { ProviderEntry } from '../../catalog/providers.js';
import { Refusal, usageError } from '../errors.js';
import type { Answers } from '../answers.js';
import { appOrigin } from './env-groups.js';
import { mergeTsconfig } from '../edit/tsconfig.js';
import { answersFromConfig } from '../project/manifest.js';
import type { Release } from '../release.js';
import { planMergedFile, planOwnedFile } from '../planned-file.js';
import type { PlannedFile } from '../planned-file.js';
import { addProvidersToConfig, inspectAuthConfig, normaliseModule, setAdapterInConfig } from '../edit/provider-list.js';
import type { AuthConfigInfo } from '../edit/provider-list.js';
import { authImportPath, includeAuthModule, shapeAt, tsconfigForShape } from '../project/shape.js';
import { fileIn } from '../project/snapshot.js';
import type { ProjectSnapshot } from '../project/snapshot.js';
import type { ProjectLayout, ProjectShape, ServerEntryShape } from '../project/shape.js';
import { readProjectTemplate } from '../edit/render-template.js';
import { desired, desiredConfig, renderAuthConfigIn, settingOf } from './desired.js';
import type { ProjectSetting } from './desired.js';
import { inCodeFormat, isJavaScript } from '../code-format.js';
import { reconcile } from './reconcile.js';
import { authPath, moduleSystemNotes, shapeNotes, shapeScripts } from './shape-plan.js';

/** What `create-framework-auth` will do, decided before the first write. */
export interface ProjectPlan {
  root: string;
  /** Whether the target directory exists already (when not, the writer creates it). */
  rootExists: boolean;
  answers: Answers;
  files: PlannedFile[];
  /** Dependencies added to package.json (both kinds), name → range. */
  addedDependencies: Record<string, string>;
  /** The server file: the one generated, or the user's own entry that the auth module must be mounted in. */
  serverEntry: ServerEntryShape | undefined;
  /** What was read of the project: Express major, module system, layout (issue 11). */
  shape: ProjectShape;
  /** The mount pattern for `app.use` (Express 5 `/*splat`, Express 4 `/*`). */
  mountPattern: string;
  /** The origin used for callback URLs in messages. */
  origin: string;
  /** Conflicting path → the file beside it with the merge's conflict markers (`merge`). */
  mergeFiles: Map<string, string>;
  /** Things worth telling the user (kept scripts, changed tsconfig options, ...). */
  notes: string[];
  /** The answers the project stands for once written: its config's providers, mount and adapter (see answersFromConfig). */
  projectAnswers: Answers;
  /** Whether src/auth/config.ts is kept as the user has it (a conflict): the other files then describe other answers. */
  configKept: boolean;
}

/** Inputs of {@link planProject}. */
export interface ProjectPlanOptions {
  /** The project as `readProject` read it: the planner reads nothing else. */
  project: ProjectSnapshot;
  answers: Answers;
  force: boolean;
  /** The version and templates it generates from (tests of `update` pass a changed copy of the templates). */
  release: Release;
  /** The project's package manager: pnpm and bun get their own list of dependencies allowed to build. */
  packageManager: PackageManager;
  /** `--convert-esm`: a CommonJS project is switched to ESM (package.json, tsconfig) instead of refused. */
  convertEsm?: boolean;
  /** A new `AUTH_SECRET`, written when `.env` has none (the caller draws it: the planner stays a function of its inputs). */
  secret: string;
  /** How generated files the project has are treated: `render` (create, the default) or `merge` (update). */
  policy?: 'render' | 'merge';
  /** Whether the manifest and the kept bases are planned too (create and update; tests of the files alone leave it out). */
  recordManifest?: boolean;
}

/** The adapter's factory as the config edit needs it, or undefined for `none`. */
function adapterInsertion(answers: Answers): { importName: string; importPath: string; snippet: string } | undefined {
  const adapter = findAdapter(answers.adapter);
  if (!adapter?.importName || !adapter.importPath || !adapter.snippet) return undefined;
  return { importName: adapter.importName, importPath: adapter.importPath, snippet: adapter.snippet };
}

/**
 * Switching a project to another database is refused before anything is written: a kept config beside the new
 * adapter's files and dependencies would leave the project half on one database and half on another, and where
 * users and sessions live is the user's decision, never a side effect of a re-run.
 */
function assertSameAdapter(info: AuthConfigInfo, answers: Answers, configPath: string): void {
  const wanted = findAdapter(answers.adapter);
  if (!wanted?.importPath || !info.hasAdapter || info.adapterModule === normaliseModule(wanted.importPath)) return;
  const current = info.adapterModule === undefined ? undefined : findAdapterByModule(info.adapterModule);
  throw usageError(
    `${configPath} already uses ${current ? `the ${current.id} adapter` : 'an adapter of its own'}; --adapter ${answers.adapter} would replace it.`,
    `To move to ${wanted.name}, change \`adapter:\` in ${configPath} to ${wanted.snippet} (import { ${wanted.importName} } from '${wanted.importPath}') and run again to add its files and dependencies, or pass --force to regenerate config.ts (--force also overwrites your changes to the other generated files).`,
  );
}

function planConfigFile(project: ProjectSnapshot, path: string, rendered: string, answers: Answers, providers: readonly ProviderEntry[], force: boolean): PlannedFile {
  const previous = fileIn(project, path);
  if (previous === undefined || previous === rendered || force) return planOwnedFile(path, previous, rendered, force);
  const conflict = (reason: string): PlannedFile => ({ path, action: 'conflict', content: rendered, previous, reason });
  const api = project.typescript();
  if (!api) return conflict('differs from what this version generates; kept as it is, --force regenerates it');
  const info = inspectAuthConfig(api, previous, path);
  if (info instanceof Refusal) return conflict(`${info.message}; kept as it is`);
  assertSameAdapter(info, answers, path);
  if (info.basePath !== answers.mount) {
    return conflict(`its basePath is ${JSON.stringify(info.basePath)}, not ${JSON.stringify(answers.mount)}; kept as it is, --force regenerates it`);
  }
  // A re-run with more providers adds them to the user's list, as add-provider would.
  const merged = addProvidersToConfig(api, previous, providers, path);
  if (merged instanceof Refusal) return conflict(`${merged.message}; kept as it is`);
  const changes = merged.added.length > 0 ? [`adds ${merged.added.join(', ')} to the providers`] : [];
  let content = merged.content;
  const adapter = adapterInsertion(answers);
  if (adapter) {
    // A config the adapter cannot be set in refuses the run (setAdapterInConfig's refusal is bad input, exit 2).
    const edit = setAdapterInConfig(api, content, adapter, path);
    if (edit.changed) changes.push(`sets adapter: ${adapter.snippet}`);
    content = edit.content;
  }
  return planMergedFile(path, previous, content, changes.length > 0 ? changes.join('; ') : undefined);
}

/**
 * The layout to plan with: as read, except that --convert-esm on a JavaScript CommonJS project without an auth module
 * keeps its earlier meaning (the project becomes ESM, the module is TypeScript compiled to `dist/`).
 */
function convertedLayout(project: ProjectSnapshot, convertEsm: boolean): ProjectLayout {
  const layout = project.shape;
  if (!convertEsm || layout.code !== 'javascript-commonjs' || project.files.has(`${layout.authDir}/config.js`)) return layout;
  const converted = { ...layout, code: 'typescript' as const };
  const mount = layout.serverEntry.mount;
  return mount ? { ...converted, serverEntry: { ...layout.serverEntry, mount: { ...mount, importPath: authImportPath(converted, mount.file) } } } : converted;
}

/**
 * Decides every file `create-framework-auth` writes for these answers, reading the project but writing nothing: the
 * config (rendered, or merged into the user's), tsconfig.json, and the rest reconciled against what the answers hold
 * (`desired`). Generated files the user changed become conflicts (kept) unless `force` (`update` merges them
 * instead); merged files keep all of the user's content. A second run with the same answers plans only "unchanged".
 */
export function planProject(options: ProjectPlanOptions): ProjectPlan {
  const { project, answers, force, release, packageManager } = options;
  const { root } = project;
  const { templates } = release;
  const providers = answers.providers.map((id) => getProvider(id));
  // Express major, module system, layout and entry. A TypeScript project compiled to CommonJS keeps its module
  // settings, and a JavaScript project gets JavaScript in its own module system (issue 36), except under
  // --convert-esm, which keeps doing what it did (issue 11): the project becomes ESM with the module in TypeScript.
  const shape = shapeAt(convertedLayout(project, options.convertEsm === true), answers.mount);
  const notes: string[] = [...moduleSystemNotes(shape, root, options.convertEsm === true), ...shapeNotes(shape)];
  const origin = appOrigin(fileIn(project, '.env'));
  // Under --convert-esm the project becomes ESM, whatever its tsconfig compiled to.
  const setting: ProjectSetting = { ...settingOf(shape, origin, shapeScripts(shape), () => project.typescript()), ...(options.convertEsm === true ? { moduleSystem: 'esm' } : {}) };
  const after = desired(answers, release, setting);

  const renderedConfig = desiredConfig(after);
  const configFile = planConfigFile(project, authPath(shape, inCodeFormat('config.ts', shape.code)), renderedConfig, answers, providers, force);
  // What the config holds once written: the answers themselves when it is this render (a new project, --force, an
  // unchanged re-run: nothing to read back); read from the user's file when a re-run merged into it or kept it. Its
  // render is the base of config.ts, so that `update` merges only the user's own edits.
  const configText = configFile.action === 'conflict' ? configFile.previous : configFile.content;
  const projectAnswers = configText === renderedConfig ? answers : answersFromConfig(project.typescript(), configText, answers);
  configFile.base = projectAnswers === answers ? renderedConfig : renderAuthConfigIn(projectAnswers, release, setting);

  const tsconfigText = fileIn(project, 'tsconfig.json');
  let tsconfigFile: PlannedFile | undefined;
  if (isJavaScript(shape.code)) {
    // A JavaScript project gets no tsconfig: its auth module runs as it is, with declarations beside it.
    tsconfigFile = undefined;
  } else if (tsconfigText === undefined) {
    tsconfigFile = planMergedFile('tsconfig.json', undefined, tsconfigForShape(readProjectTemplate('tsconfig.json', templates), shape));
  } else {
    let merge;
    try {
      merge = mergeTsconfig(tsconfigText, shape.tsconfig?.inherited, { keepModule: setting.moduleSystem === 'commonjs' });
    } catch {
      throw usageError(`tsconfig.json in ${root} is not valid JSONC`, 'Fix it (or move it away) and run again.');
    }
    const include = includeAuthModule(merge.content, shape);
    const changes = include ? [...merge.changes, include.change] : merge.changes;
    tsconfigFile = planMergedFile('tsconfig.json', tsconfigText, include?.content ?? merge.content, changes.join(', '));
  }

  const reconciled = reconcile({
    project,
    manifest: project.manifest,
    before: undefined,
    after,
    policy: options.policy ?? 'render',
    authDir: shape.authDir,
    config: configFile,
    version: release.version,
    secret: options.secret,
    force,
    packageManager,
    setupFiles: tsconfigFile ? [tsconfigFile] : [],
    configAnswers: projectAnswers,
    recordManifest: options.recordManifest === true,
  });
  notes.push(...reconciled.notes);

  return {
    root,
    rootExists: project.exists,
    answers,
    files: reconciled.files,
    mergeFiles: reconciled.mergeFiles,
    addedDependencies: reconciled.added,
    serverEntry: shape.serverEntry,
    shape,
    mountPattern: shape.mountPattern,
    origin,
    notes,
    projectAnswers,
    configKept: configFile.action === 'conflict',
  };
}
