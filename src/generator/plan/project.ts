import { reauthPath, sessionsPath, signInPath, signOutPath } from '../../catalog/mount-path.js';
import { basename } from 'node:path';
import { findAdapter, findAdapterByModule } from '../../catalog/adapters.js';
import type { PackageManager } from '../../catalog/package-managers.js';
import { getProvider } from '../../catalog/providers.js';
import type { ProviderEntry } from '../../catalog/providers.js';
import { twoFactorEntry } from '../../catalog/two-factor.js';
import { Refusal, usageError } from '../errors.js';
import type { Answers } from '../answers.js';
import { runtimeDependencies, testedRanges, toolDevDependencies } from './dependencies.js';
import { adapterEnvGroup, appOrigin, originEnvGroup, providerEnvGroup, secretEnvGroup } from './env-groups.js';
import { appendEnvGroups, readEnvLines } from '../edit/env-file.js';
import type { EnvGroup } from '../edit/env-file.js';
import { ensureGitignoreEntries } from '../edit/gitignore.js';
import { mergePackageJson } from '../edit/package-json.js';
import { mergeTsconfig } from '../edit/tsconfig.js';
import { answersFromConfig } from '../project/manifest.js';
import type { Release } from '../paths.js';
import { planMergedFile, planOwnedFile } from '../planned-file.js';
import type { PlannedFile } from '../planned-file.js';
import { addProvidersToConfig, inspectAuthConfig, normaliseModule, setAdapterInConfig } from '../edit/provider-list.js';
import type { AuthConfigInfo } from '../edit/provider-list.js';
import { includeAuthModule, shapeAt, tsconfigForShape } from '../project/shape.js';
import { fileIn } from '../project/snapshot.js';
import type { ProjectSnapshot } from '../project/snapshot.js';
import type { ProjectShape, ServerEntryShape } from '../project/shape.js';
import { readProjectTemplate, renderTemplate } from '../edit/render-template.js';
import { desired } from './desired.js';
import { generateSecret } from '../edit/secret.js';
import { authPath, expressDependencies, expressDevDependencies, moduleSystemNotes, shapeNotes, shapeScripts } from './shape-plan.js';

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
}

/** `src/auth/config.ts` as this version renders it for `answers`. */
export function renderAuthConfig(answers: Answers, release: Release): string {
  const { version, templates } = release;
  const providers = answers.providers.map((id) => getProvider(id));
  const adapter = findAdapter(answers.adapter);
  return renderTemplate(
    'auth/config.ts.hbs',
    {
      header: generatedHeader(version),
      imports: providers.map((entry) => ({ name: entry.importName, path: entry.importPath })),
      adapterImport: adapter?.importName && adapter.importPath ? { name: adapter.importName, path: adapter.importPath } : null,
      featureImport: answers.twoFactor ? { name: twoFactorEntry.importName, path: twoFactorEntry.importPath } : null,
      basePath: answers.mount,
      providers: providers.map((entry: ProviderEntry) => (answers.twoFactor && entry.twoFactorSnippet) || entry.snippet),
      adapter: adapter?.snippet ?? null,
      features: answers.twoFactor ? twoFactorEntry.snippet : null,
    },
    templates,
  );
}

/** The first line of every file the CLI generates (runtime copies have their own). */
export function generatedHeader(version: string): string {
  return `// Written by create-framework-auth ${version}. This file is yours: read it, edit it.`;
}

function packageName(root: string): string {
  const name = basename(root)
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+/, '');
  return name === '' ? 'app' : name;
}

/** The names of the env keys the groups add to a .env text, for the plan's reason. */
function addedEnvKeys(text: string | undefined, groups: readonly EnvGroup[]): string[] {
  const existing = new Set(readEnvLines(text ?? '').map((line) => line.key));
  return groups.flatMap((group) => group.entries.map((entry) => entry.key)).filter((key) => !existing.has(key));
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

/** The starter server when the project has no entry of its own (project-shape.ts finds it, and where its app is made). */
function planServer(project: ProjectSnapshot, shape: ProjectShape, content: string, force: boolean): { file: PlannedFile | undefined; entry: ServerEntryShape } {
  const entry = shape.serverEntry;
  return { file: entry.generated ? planOwnedFile(entry.path, fileIn(project, entry.path), content, force) : undefined, entry };
}

/**
 * Decides every file `create-framework-auth` writes for these answers, reading the project but writing nothing.
 * Generated files the user changed become conflicts (kept) unless `force`; merged files keep all of the user's
 * content. A second run with the same answers plans only "unchanged".
 */
export function planProject(options: ProjectPlanOptions): ProjectPlan {
  const { project, answers, force, release, packageManager } = options;
  const { root } = project;
  const { version, templates } = release;
  const packageText = fileIn(project, 'package.json');
  const providers = answers.providers.map((id) => getProvider(id));
  const adapter = findAdapter(answers.adapter);
  const header = generatedHeader(version);
  // Express major, module system, layout and entry; a CommonJS project stops here unless --convert-esm (issue 11).
  const shape = shapeAt(project.shape, answers.mount);
  const notes: string[] = [...moduleSystemNotes(shape, root, options.convertEsm === true), ...shapeNotes(shape)];
  const mountPattern = shape.mountPattern;
  const envText = fileIn(project, '.env');
  const origin = appOrigin(envText);
  const files: PlannedFile[] = [];

  const wanted = desired(answers, release);
  const owned = (path: string, content: string): PlannedFile => planOwnedFile(path, fileIn(project, path), content, force);
  for (const [path, content] of wanted.runtime) files.push(owned(authPath(shape, `core/${path}`), content));
  files.push(owned(authPath(shape, 'env.ts'), renderTemplate('auth/env.ts.hbs', { header }, templates)));
  files.push(owned(authPath(shape, 'index.ts'), renderTemplate('auth/index.ts.hbs', { header, mountPattern, databaseSessions: answers.adapter !== 'none', sessionsPath: sessionsPath(answers.mount), reauthPath: reauthPath(answers.mount) }, templates)));
  const renderedConfig = renderAuthConfig(answers, release);
  const configFile = planConfigFile(project, authPath(shape, 'config.ts'), renderedConfig, answers, providers, force);
  // What the config holds once written: the answers themselves when it is this render (a new project, --force, an
  // unchanged re-run: nothing to read back); read from the user's file when a re-run merged into it or kept it. Its
  // render is the base of config.ts, so that `update` merges only the user's own edits.
  const configText = configFile.action === 'conflict' ? configFile.previous : configFile.content;
  const projectAnswers = configText === renderedConfig ? answers : answersFromConfig(project.typescript(), configText, answers);
  configFile.base = projectAnswers === answers ? renderedConfig : renderAuthConfig(projectAnswers, release);
  files.push(configFile);

  const server = planServer(
    project,
    shape,
    renderTemplate(
      'server.ts.hbs',
      {
        header,
        mountPattern,
        signInPath: signInPath(answers.mount),
        signOutPath: signOutPath(answers.mount),
        sessionsPath: answers.adapter === 'none' ? undefined : sessionsPath(answers.mount),
      },
      templates,
    ),
    force,
  );
  if (server.file) files.push(server.file);

  const dependencies: Record<string, string> = { ...runtimeDependencies(), ...expressDependencies(shape), ...wanted.dependencies };
  const devDependencies = { ...toolDevDependencies(version), ...expressDevDependencies(shape), ...testedRanges(adapter?.devDependencies ?? {}) };
  const scripts = shapeScripts(shape);
  let packageMerge;
  try {
    packageMerge = mergePackageJson(packageText, {
      name: packageName(root),
      scripts,
      dependencies,
      devDependencies,
      installScripts: { packages: adapter?.installScripts ?? [], packageManager },
    });
  } catch (error) {
    throw usageError(`package.json in ${root} is not valid JSON`, error instanceof Error ? error.message : undefined);
  }
  notes.push(...packageMerge.notes);
  const addedNames = Object.keys(packageMerge.added);
  const packageChanges = [
    ...(addedNames.length > 0 ? [`adds ${addedNames.join(', ')}`] : []),
    ...packageMerge.allowedScripts.map((name) => `allows ${name}'s install script`),
  ];
  files.push(planMergedFile('package.json', packageText, packageMerge.content, packageChanges.length > 0 ? packageChanges.join('; ') : undefined));

  const tsconfigText = fileIn(project, 'tsconfig.json');
  if (tsconfigText === undefined) {
    files.push(planMergedFile('tsconfig.json', undefined, tsconfigForShape(readProjectTemplate('tsconfig.json', templates), shape)));
  } else {
    let merge;
    try {
      merge = mergeTsconfig(tsconfigText, shape.tsconfig?.inherited);
    } catch {
      throw usageError(`tsconfig.json in ${root} is not valid JSONC`, 'Fix it (or move it away) and run again.');
    }
    const include = includeAuthModule(merge.content, shape);
    const changes = include ? [...merge.changes, include.change] : merge.changes;
    files.push(planMergedFile('tsconfig.json', tsconfigText, include?.content ?? merge.content, changes.join(', ')));
  }

  const envGroups = (secret: string): EnvGroup[] => [
    secretEnvGroup(secret),
    originEnvGroup(origin),
    ...providers.flatMap((entry) => providerEnvGroup(entry, origin, answers.mount) ?? []),
    ...(adapter ? [adapterEnvGroup(adapter)] : []).filter((group): group is EnvGroup => group !== undefined),
  ];
  const envReason = (text: string | undefined): string | undefined => {
    const keys = addedEnvKeys(text, envGroups(''));
    return keys.length > 0 ? `adds ${keys.join(', ')}` : undefined;
  };
  files.push(planMergedFile('.env', envText, appendEnvGroups(envText, envGroups(generateSecret())), envReason(envText), 0o600));
  const exampleText = fileIn(project, '.env.example');
  files.push(planMergedFile('.env.example', exampleText, appendEnvGroups(exampleText, envGroups('')), envReason(exampleText)));
  const gitignoreText = fileIn(project, '.gitignore');
  const ignored = ['.env', ...(adapter?.gitignore ?? [])];
  const gitignoreBase = gitignoreText ?? readProjectTemplate('_gitignore', templates);
  const newlyIgnored = ignored.filter((entry) => ensureGitignoreEntries(gitignoreBase, [entry]) !== gitignoreBase);
  files.push(
    planMergedFile(
      '.gitignore',
      gitignoreText,
      ensureGitignoreEntries(gitignoreBase, ignored),
      gitignoreText !== undefined && newlyIgnored.length > 0 ? `ignores ${newlyIgnored.join(', ')}` : undefined,
    ),
  );

  return {
    root,
    rootExists: project.exists,
    answers,
    files,
    addedDependencies: packageMerge.added,
    serverEntry: server.entry,
    shape,
    mountPattern,
    origin,
    notes,
    projectAnswers,
    configKept: configFile.action === 'conflict',
  };
}
