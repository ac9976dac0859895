import { basename } from 'node:path';
import type { PackageManager } from '../../catalog/package-managers.js';
import { appendEnvGroups, readEnvLines, removeEnvKeys } from '../edit/env-file.js';
import type { EnvGroup } from '../edit/env-file.js';
import { ensureGitignoreEntries } from '../edit/gitignore.js';
import { detectFormatting, setJsoncPrimitive } from '../edit/json-format.js';
import { mergePackageJson, removeDependencies } from '../edit/package-json.js';
import { markDifferences, mergeThreeWay } from '../edit/three-way-merge.js';
import { usageError } from '../errors.js';
import { planDeletedFile, planMergedFile, planOwnedFile } from '../planned-file.js';
import type { PlannedFile } from '../planned-file.js';
import { isImportedInProject } from '../project/imports.js';
import { basePathOf, planManifest, sha256 } from '../project/manifest.js';
import type { Manifest } from '../project/manifest.js';
import { fileIn } from '../project/snapshot.js';
import type { ProjectSnapshot } from '../project/snapshot.js';
import { cliPackageName } from '../version.js';
import type { DesiredProject } from './desired.js';
import { adapterEnvKey } from './env-groups.js';

/** The suffix of the file written beside a file whose merge has conflicts. */
export const mergeSuffix = '.merge';

/**
 * How generated files the project already has are treated:
 * - `render` (create): each is rendered again; one the user changed is a conflict, kept, unless `force` or the
 *   manifest shows the CLI wrote it as it is (then only the answers changed). Nothing is deleted.
 * - `merge` (update): each is 3-way merged with its kept base; the manifest's files this version no longer generates
 *   are deleted when untouched.
 * - `keep` (add-provider, remove-provider, the feature commands): runtime files the project has are left alone; what
 *   `after` holds and the project lacks is created, what only `before` held is deleted when untouched and no longer
 *   imported; the auth module's other files and the starter server follow their render where the command changes it
 *   (replaced when untouched, else merged with the user's changes, or kept as a conflict).
 */
export type GeneratedPolicy = 'render' | 'merge' | 'keep';

/** Inputs of {@link reconcile}. */
export interface ReconcileInput {
  /** The project as `readProject` read it: nothing else is read. */
  project: ProjectSnapshot;
  /** The project's manifest (what the CLI wrote), undefined for a project without one. */
  manifest: Manifest | undefined;
  /** What the project held before the command (`keep`); undefined for `render` and `merge`, which plan all of `after`. */
  before: DesiredProject | undefined;
  /** What the project holds after it. */
  after: DesiredProject;
  policy: GeneratedPolicy;
  /** The auth module's folder (`src/auth`). */
  authDir: string;
  /** config.ts as the command planned it: rendered and merged (create), or edited (add/remove), its base the render. */
  config: PlannedFile;
  /** The version the generated files and the manifest are written for. */
  version: string;
  /** A new `AUTH_SECRET`, written when `.env` has none. */
  secret: string;
  /** `--force`: generated files the user changed are overwritten (`render`). */
  force?: boolean;
  /** `--purge-env`: keys no longer read are removed from `.env` too, not only from `.env.example`. */
  purgeEnv?: boolean;
  /** pnpm and bun get their own list of dependencies allowed to build. */
  packageManager?: PackageManager;
  /** Files of the project's setup the command planned itself (tsconfig.json), placed after package.json. */
  setupFiles?: readonly PlannedFile[];
  /** The answers config.ts stands for once written, when a re-run of create kept or merged the user's (`render`). */
  configAnswers?: DesiredProject['answers'];
  /** Whether the manifest (and the kept bases) are planned; `render` and `merge` record `version`, `keep` the manifest's own. */
  recordManifest: boolean;
}

/** What {@link reconcile} plans. */
export interface Reconciled {
  files: PlannedFile[];
  /** Conflicting path → the file beside it with the merge's conflict markers (`merge`). */
  mergeFiles: Map<string, string>;
  /** Dependencies added to package.json (both kinds), name → range. */
  added: Record<string, string>;
  /** Dependencies removed from package.json. */
  removed: string[];
  /** Env keys left in `.env` with the user's values (without `purgeEnv`). */
  envKept: string[];
  notes: string[];
}

function packageName(root: string): string {
  const name = basename(root)
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+/, '');
  return name === '' ? 'app' : name;
}

/** The generated files of a desired project by root-relative path, in plan order: runtime copy, module files, server. */
function generatedFiles(desired: DesiredProject, authDir: string): Map<string, string> {
  return new Map([
    ...[...desired.runtime].map(([path, content]): [string, string] => [`${authDir}/core/${path}`, content]),
    ...[...desired.module].map(([path, content]): [string, string] => [`${authDir}/${path}`, content]),
    ...(desired.server ? [[desired.server.path, desired.server.content] as [string, string]] : []),
  ]);
}

/** Whether a generated file is exactly what the CLI rendered for it: its manifest base, else `rendered`. */
function untouched(text: string, manifest: Manifest | undefined, path: string, rendered: string | undefined): boolean {
  const known = manifest?.files[path];
  // The base, not the last write: a file `update` merged with the user's changes holds them, and is theirs to delete.
  return known ? sha256(text) === known.base : text === rendered;
}

/**
 * Turns what the project held (`before`) and what it holds after a command (`after`) into the command's files: the
 * generated files (by `policy`), package.json's dependencies, `.env` and `.env.example`'s groups, `.gitignore` and the
 * manifest. Every writing command plans through it, so the rules for each artefact are written once.
 */
export function reconcile(input: ReconcileInput): Reconciled {
  const { project, manifest, before, after, policy, authDir, version } = input;
  const read = (path: string): string | undefined => fileIn(project, path);
  const configPath = input.config.path;
  const files: PlannedFile[] = [];
  const notes: string[] = [];
  const mergeFiles = new Map<string, string>();
  const keep: string[] = [];
  const wanted = generatedFiles(after, authDir);
  const held = before ? generatedFiles(before, authDir) : new Map<string, string>();

  // Generated files.
  if (policy === 'keep') {
    files.push(input.config);
    for (const [path, content] of wanted) {
      if (path.startsWith(`${authDir}/core/`)) {
        if (read(path) === undefined) files.push({ ...planMergedFile(path, undefined, content), base: content });
      } else if (path !== configPath) {
        const rendered = held.get(path);
        if (rendered !== undefined && rendered !== content) files.push(...followRender(path, rendered, content, input, mergeFiles));
      }
    }
  } else {
    const configKept = input.config.action === 'conflict';
    for (const [path, content] of wanted) {
      if (policy === 'merge') files.push(...mergeGenerated(path, content, input, mergeFiles, keep, notes));
      else if (path === configPath) files.push(input.config);
      else files.push(configKept ? planOwnedFile(path, read(path), content, input.force === true) : regenerateUnedited(planOwnedFile(path, read(path), content, input.force === true), manifest));
    }
  }
  const previouslyGenerated = policy === 'merge' ? new Map(Object.keys(manifest?.files ?? {}).map((path): [string, string | undefined] => [path, undefined])) : held;
  if (policy !== 'render') files.push(...planStaleFiles(input, previouslyGenerated, wanted, files, notes, keep));

  // package.json.
  const dependencies = planDependencies(input, notes);
  if (dependencies.file) files.push(dependencies.file);
  files.push(...(input.setupFiles ?? []));

  // .env and .env.example: the groups the project gains, then the keys it lost.
  const envKept = planEnv(input, files, notes);

  // .gitignore.
  const gitignoreText = read('.gitignore');
  const ignored = before ? after.gitignore.entries.filter((entry) => !before.gitignore.entries.includes(entry)) : after.gitignore.entries;
  if (!before || ignored.length > 0) {
    const gitignoreBase = gitignoreText ?? after.gitignore.template;
    const newlyIgnored = ignored.filter((entry) => ensureGitignoreEntries(gitignoreBase, [entry]) !== gitignoreBase);
    const reason = gitignoreText !== undefined && newlyIgnored.length > 0 ? `ignores ${newlyIgnored.join(', ')}` : undefined;
    files.push(planMergedFile('.gitignore', gitignoreText, ensureGitignoreEntries(gitignoreBase, ignored), reason));
  }

  if (input.recordManifest) {
    const projectFiles = files;
    files.push(
      ...planManifest({
        read,
        previous: manifest,
        version: policy === 'keep' ? (manifest?.cliVersion ?? version) : version,
        answers: policy === 'render' ? answersOf(input) : after.answers,
        files: projectFiles,
        addedDependencies: dependencies.recorded,
        removedDependencies: dependencies.removed,
        keep,
        code: after.code,
      }),
    );
  }
  return { files, mergeFiles, added: dependencies.added, removed: dependencies.removed, envKept, notes };
}

/** The answers the manifest records for `render`: what the config stands for once written (its base's answers). */
function answersOf(input: ReconcileInput): DesiredProject['answers'] {
  return input.configAnswers ?? input.after.answers;
}

/**
 * A generated file that differs from this run's render is the user's to keep, unless it is exactly what the CLI
 * last wrote (the manifest's hash): then only the answers changed (`--adapter sqlite` on a project made without
 * one changes src/auth/index.ts), and the new render replaces it.
 */
function regenerateUnedited(file: PlannedFile, manifest: Manifest | undefined): PlannedFile {
  if (file.action !== 'conflict' || file.previous === undefined) return file;
  if (manifest?.files[file.path]?.sha256 !== sha256(file.previous)) return file;
  return { ...file, action: 'update', reason: 'rendered for the new answers (you had not changed it)' };
}

/** The base kept beside the manifest for a generated file, when it is there and is the one the manifest names. */
function keptBase(input: ReconcileInput, path: string): string | undefined {
  const entry = input.manifest?.files[path];
  const text = entry ? fileIn(input.project, basePathOf(path)) : undefined;
  return text !== undefined && entry !== undefined && sha256(text) === entry.base ? text : undefined;
}

/**
 * `keep`: a generated file besides the config whose render the command changes (what a feature adds to
 * src/auth/index.ts and to the starter server's home page) follows the new render: replaced when the user has not
 * changed it, else their changes 3-way merged with the command's, the render before the command as the base; kept as
 * it is, a conflict, where both touch the same lines, the merge with conflict markers beside it. A file the user
 * deleted stays deleted.
 */
function followRender(path: string, before: string, after: string, input: ReconcileInput, mergeFiles: Map<string, string>): PlannedFile[] {
  const current = fileIn(input.project, path);
  if (current === undefined) return [];
  if (current === after) return [{ path, action: 'unchanged', content: current, previous: current, base: after }];
  if (untouched(current, input.manifest, path, before)) {
    return [{ path, action: 'update', content: after, previous: current, base: after, reason: 'rendered for the new answers (you had not changed it)' }];
  }
  const labels = { ours: 'yours', base: 'before this command', theirs: 'after this command' };
  const merge = mergeThreeWay(current, before, after, labels);
  if (!merge.clean) {
    const mergePath = `${path}${mergeSuffix}`;
    mergeFiles.set(path, mergePath);
    const reason = `your changes and this command's touch the same lines; kept as it is, the merge with conflict markers is in ${mergePath} (resolve it into ${path}, then delete it)`;
    return [{ path, action: 'conflict', content: after, previous: current, reason }, planMergedFile(mergePath, fileIn(input.project, mergePath), merge.content)];
  }
  // The kept base takes the same change, so that `update` later merges from what the CLI wrote (an older version's
  // render, maybe) and not from this version's.
  const stored = keptBase(input, path);
  const storedMerge = stored === undefined || stored === before ? undefined : mergeThreeWay(stored, before, after, labels);
  const base = storedMerge?.clean ? storedMerge.content : after;
  return [{ path, action: 'update', content: merge.content, previous: current, base, reason: 'merged with your changes' }];
}

/** `merge`: a generated file brought to this version, 3-way with the base kept beside the manifest. */
function mergeGenerated(path: string, theirs: string, input: ReconcileInput, mergeFiles: Map<string, string>, keep: string[], notes: string[]): PlannedFile[] {
  const { project, manifest, version } = input;
  const read = (file: string): string | undefined => fileIn(project, file);
  const labels = { ours: 'yours', base: `create-framework-auth ${manifest?.cliVersion ?? version} (base)`, theirs: `create-framework-auth ${version}` };
  const current = read(path);
  const entry = manifest?.files[path];
  const base = keptBase(input, path);
  if (current === undefined) {
    if (entry) {
      notes.push(`${path} was deleted; not restored (restore it from ${basePathOf(path)} or with "npx create-framework-auth --force").`);
      keep.push(path);
      return [];
    }
    return [{ path, action: 'create', content: theirs, previous: undefined, base: theirs, reason: `new in ${version}` }];
  }
  if (current === theirs) return [{ path, action: 'unchanged', content: current, previous: current, base: theirs }];
  if (base !== undefined && current === base) return [{ path, action: 'update', content: theirs, previous: current, base: theirs, reason: 'not changed by you: replaced' }];
  // The template did not change: the user's edits stay as they are, and so do the manifest entry and base.
  if (base !== undefined && base === theirs) return [{ path, action: 'unchanged', content: current, previous: current, base: theirs }];
  const merge = base === undefined ? { clean: false, content: markDifferences(current, theirs, labels) } : mergeThreeWay(current, base, theirs, labels);
  if (merge.clean) return [{ path, action: 'update', content: merge.content, previous: current, base: theirs, reason: 'merged with your changes' }];
  const mergePath = `${path}${mergeSuffix}`;
  const reason =
    base === undefined
      ? `no base to merge with (${entry ? `${basePathOf(path)} is missing or changed` : 'not in the manifest'}); both versions are in ${mergePath}`
      : `your changes and ${version}'s touch the same lines; the merge with conflict markers is in ${mergePath}`;
  mergeFiles.set(path, mergePath);
  return [{ path, action: 'conflict', content: theirs, previous: current, reason }, planMergedFile(mergePath, read(mergePath), merge.content)];
}

/**
 * The generated files the project held (`held`) that `wanted` no longer has: each is deleted when it is exactly what
 * the CLI rendered (the manifest's base, else `held`'s render) and no file that stays imports it; kept otherwise (with
 * a note under `keep`, in the manifest under `merge`). The import check reads the plan's texts, not the files'.
 */
function planStaleFiles(input: ReconcileInput, held: ReadonlyMap<string, string | undefined>, wanted: ReadonlyMap<string, string>, planned: readonly PlannedFile[], notes: string[], keep: string[]): PlannedFile[] {
  const { project, manifest, policy } = input;
  const stale = [...held].filter(([path]) => !wanted.has(path)).flatMap(([path, rendered]) => {
    const text = fileIn(project, path);
    if (text === undefined) return [];
    if (untouched(text, manifest, path, rendered)) return [{ path, text }];
    if (policy === 'keep') notes.push(`Kept ${path}: it has changes of yours. Delete it by hand if you no longer need it.`);
    else keep.push(path);
    return [];
  });
  const texts = new Map<string, string | undefined>([
    ...planned.filter((file) => file.action === 'create' || file.action === 'update').map((file): [string, string] => [file.path, file.content]),
    ...stale.map(({ path }): [string, undefined] => [path, undefined]),
  ]);
  // A file kept because something imports it keeps what it imports in turn (src/auth/index.ts kept with the user's
  // changes still imports a feature's index.ts, which imports the rest of the feature).
  const imported = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const { path, text } of stale) {
      if (imported.has(path) || !isImportedInProject(project.sourceFiles, path, texts)) continue;
      imported.add(path);
      texts.set(path, text);
      grew = true;
    }
  }
  const files: PlannedFile[] = [];
  for (const { path, text } of stale) {
    if (imported.has(path)) {
      notes.push(`Kept ${path}: another file still imports it.`);
      keep.push(path);
    } else {
      files.push(planDeletedFile(path, text, policy === 'merge' ? `no longer part of ${input.version}` : 'no longer used'));
    }
  }
  return files;
}

/** Names of a record missing from another. */
function missingFrom(record: Readonly<Record<string, string>>, other: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter(([name]) => !(name in other)));
}

/**
 * package.json: under `render` and `merge` everything `after` wants (scripts, dependencies, install scripts) merged in,
 * and the CLI's pin moved to this version (`merge`); under `keep` the dependencies `after` brings and `before` did not,
 * and the removal of those only `before` brought, when the CLI added them (the manifest's range) and still at that
 * range, from `dependencies` or `devDependencies` alike.
 */
function planDependencies(input: ReconcileInput, notes: string[]): { file: PlannedFile | undefined; added: Record<string, string>; recorded: Record<string, string>; removed: string[] } {
  const { project, manifest, before, after, policy, version } = input;
  const root = project.root;
  const packageText = fileIn(project, 'package.json');
  const merge = (text: string | undefined, wants: DesiredProject['packageJson']) => {
    try {
      return mergePackageJson(text, {
        name: packageName(root),
        scripts: wants.scripts,
        dependencies: wants.dependencies,
        devDependencies: wants.devDependencies,
        moduleType: wants.moduleType,
        ...(input.packageManager === undefined ? {} : { installScripts: { packages: wants.installScripts, packageManager: input.packageManager } }),
      });
    } catch (error) {
      throw usageError(`package.json in ${root} is not valid JSON`, error instanceof Error ? error.message : undefined);
    }
  };

  if (!before) {
    const merged = merge(packageText, after.packageJson);
    notes.push(...merged.notes);
    const addedNames = Object.keys(merged.added);
    const changes = [...(addedNames.length > 0 ? [`adds ${addedNames.join(', ')}`] : []), ...merged.allowedScripts.map((name) => `allows ${name}'s install script`)];
    let file = planMergedFile('package.json', packageText, merged.content, changes.length > 0 ? changes.join('; ') : undefined);
    const recorded: Record<string, string> = { ...merged.added };
    if (policy === 'merge') {
      // The project pins the CLI that wrote it (SPEC §4): after an update that is this version.
      const pinned = (JSON.parse(file.content) as { devDependencies?: Record<string, unknown> }).devDependencies?.[cliPackageName];
      if (typeof pinned === 'string' && /^\d+\.\d+\.\d+/.test(pinned) && pinned !== version) {
        file = planMergedFile('package.json', packageText, setJsoncPrimitive(file.content, ['devDependencies', cliPackageName], version, detectFormatting(file.content)), `${cliPackageName} ${pinned} → ${version}`);
        recorded[cliPackageName] = version;
      }
    }
    return { file, added: merged.added, recorded, removed: [] };
  }

  const gained = { dependencies: missingFrom(after.dependencies, before.dependencies), devDependencies: missingFrom(after.devDependencies, before.devDependencies) };
  const stillNeeded = { ...after.dependencies, ...after.devDependencies };
  const gone = Object.keys({ ...before.dependencies, ...before.devDependencies }).filter((name) => !(name in stillNeeded));
  const gaining = Object.keys(gained.dependencies).length + Object.keys(gained.devDependencies).length > 0;
  if ((!gaining && gone.length === 0) || (!gaining && packageText === undefined)) return { file: undefined, added: {}, recorded: {}, removed: [] };
  let text = packageText;
  let added: Record<string, string> = {};
  if (gaining) {
    const merged = merge(text, { scripts: {}, ...gained, installScripts: [], moduleType: after.packageJson.moduleType });
    added = merged.added;
    text = merged.content;
  }
  let removed: string[] = [];
  if (gone.length > 0 && text !== undefined) {
    const current = JSON.parse(text) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
    const rangeOf = (name: string): string | undefined => current.dependencies?.[name] ?? current.devDependencies?.[name];
    const removable = gone.filter((name) => rangeOf(name) !== undefined && manifest?.dependencies[name] === rangeOf(name));
    const kept = gone.filter((name) => !removable.includes(name) && rangeOf(name) !== undefined);
    if (kept.length > 0) notes.push(`Kept ${kept.join(', ')} in package.json: create-framework-auth did not add ${kept.length === 1 ? 'it' : 'them'} (or the range changed).`);
    const removal = removeDependencies(text, removable);
    removed = removal.removed;
    text = removal.content;
  }
  const addedNames = Object.keys(added);
  const reason = addedNames.length > 0 ? `adds ${addedNames.join(', ')}` : removed.length > 0 ? `removes ${removed.join(', ')}` : undefined;
  return { file: planMergedFile('package.json', packageText, text ?? '', reason), added, recorded: added, removed };
}

/** The names of the env keys the groups add to a .env text, for the plan's reason. */
function addedEnvKeys(text: string | undefined, groups: readonly EnvGroup[]): string[] {
  const existing = new Set(readEnvLines(text ?? '').map((line) => line.key));
  return groups.flatMap((group) => group.entries.map((entry) => entry.key)).filter((key) => !existing.has(key));
}

/**
 * `.env` and `.env.example`: every group of `after` (a new `AUTH_SECRET` in `.env`) without `before`; else the groups
 * `after` gains, before the database's group where a new project has them, then the keys it no longer reads removed
 * from `.env.example` (and from `.env` with `purgeEnv`; else kept, with a note). Returns the keys kept in `.env`.
 */
function planEnv(input: ReconcileInput, files: PlannedFile[], notes: string[]): string[] {
  const { project, before, after } = input;
  const envText = fileIn(project, '.env');
  const exampleText = fileIn(project, '.env.example');
  if (!before) {
    const reason = (text: string | undefined): string | undefined => {
      const keys = addedEnvKeys(text, after.envGroups(''));
      return keys.length > 0 ? `adds ${keys.join(', ')}` : undefined;
    };
    files.push(planMergedFile('.env', envText, appendEnvGroups(envText, after.envGroups(input.secret)), reason(envText), 0o600));
    files.push(planMergedFile('.env.example', exampleText, appendEnvGroups(exampleText, after.envGroups('')), reason(exampleText)));
    return [];
  }
  const held = new Set(before.envGroups('').flatMap((group) => group.entries.map((entry) => entry.key)));
  const gained = after.envGroups('').filter((group) => group.entries.some((entry) => !held.has(entry.key)));
  if (gained.length > 0) {
    const anchor = { before: adapterEnvKey(after.answers.adapter) };
    files.push(planMergedFile('.env', envText, appendEnvGroups(envText, gained, anchor), undefined, 0o600));
    files.push(planMergedFile('.env.example', exampleText, appendEnvGroups(exampleText, gained, anchor)));
  }
  // The env keys nothing reads any more (a key two providers share stays).
  const lost = before.envKeys.filter((key) => !after.envKeys.includes(key));
  if (lost.length === 0) return [];
  if (exampleText !== undefined) files.push(planMergedFile('.env.example', exampleText, removeEnvKeys(exampleText, lost), `removes ${lost.join(', ')}`));
  if (envText !== undefined && input.purgeEnv === true) files.push(planMergedFile('.env', envText, removeEnvKeys(envText, lost), `removes ${lost.join(', ')}`));
  const kept = envText === undefined || input.purgeEnv === true ? [] : lost.filter((key) => removeEnvKeys(envText, [key]) !== envText);
  if (kept.length > 0) notes.push(`Kept ${kept.join(', ')} in .env (your values); --purge-env removes them.`);
  return kept;
}
