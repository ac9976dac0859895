import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'jsonc-parser';
import { findAdapter, findAdapterByModule } from '../catalog/adapters.js';
import type { PackageManager } from '../catalog/package-managers.js';
import { getProvider } from '../catalog/providers.js';
import type { ProviderEntry } from '../catalog/providers.js';
import { CliError, usageError } from '../cli/errors.js';
import type { Answers } from '../prompts/answers.js';
import { runtimeDependencies, testedRanges, toolDevDependencies } from './dependencies.js';
import { adapterEnvGroup, appOrigin, providerEnvGroup, secretEnvGroup } from './env-groups.js';
import { appendEnvGroups, readEnvLines } from './merge/env-file.js';
import type { EnvGroup } from './merge/env-file.js';
import { ensureGitignoreEntries } from './merge/gitignore.js';
import { mergePackageJson } from './merge/package-json.js';
import { mergeTsconfig } from './merge/tsconfig.js';
import { runtimeTargetDir } from './paths.js';
import { planMergedFile, planOwnedFile, readProjectFile } from './planned-file.js';
import type { PlannedFile } from './planned-file.js';
import { addProviderToConfig, normaliseModule, readAuthConfig, setAdapterInConfig } from './provider-list.js';
import type { AuthConfigInfo } from './provider-list.js';
import { readProjectTemplate, renderTemplate } from './render-template.js';
import { readRuntimeFiles, withRuntimeHeader } from './runtime-files.js';
import { generateSecret } from './secret.js';
import { loadTypeScript } from './typescript-api.js';

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
  serverEntry: { path: string; generated: boolean } | undefined;
  /** The mount pattern for `app.use` (Express 5 `/*splat`, Express 4 `/*`). */
  mountPattern: string;
  /** The origin used for callback URLs in messages. */
  origin: string;
  /** Things worth telling the user (kept scripts, changed tsconfig options, ...). */
  notes: string[];
}

/** Inputs of {@link planProject}. */
export interface ProjectPlanOptions {
  root: string;
  answers: Answers;
  force: boolean;
  version: string;
  /** The project's package manager: pnpm and bun get their own list of dependencies allowed to build. */
  packageManager: PackageManager;
}

/** The first line of every file the CLI generates (runtime copies have their own). */
export function generatedHeader(version: string): string {
  return `// Written by create-framework-auth ${version}. This file is yours: read it, edit it.`;
}

const generatedHeaderPrefix = '// Written by create-framework-auth ';

// Files that mean "this project already has a server"; the CLI then adds the auth module and says how to mount it.
const serverEntryCandidates = [
  'src/index.ts', 'src/app.ts', 'src/main.ts', 'server.ts', 'index.ts', 'app.ts', 'main.ts',
  'src/server.js', 'src/index.js', 'src/app.js', 'server.js', 'index.js', 'app.js',
  'src/server.mts', 'src/index.mts', 'server.mjs', 'index.mjs', 'app.mjs',
] as const;

interface PackageJsonInfo {
  main?: unknown;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
}

function packageName(root: string): string {
  const name = basename(root)
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+/, '');
  return name === '' ? 'app' : name;
}

function expressMajor(pkg: PackageJsonInfo | undefined): number | undefined {
  const range = pkg?.dependencies?.express ?? pkg?.devDependencies?.express;
  const major = typeof range === 'string' ? /(\d+)/.exec(range)?.[1] : undefined;
  return major === undefined ? undefined : Number(major);
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
function assertSameAdapter(info: AuthConfigInfo, answers: Answers): void {
  const wanted = findAdapter(answers.adapter);
  if (!wanted?.importPath || !info.hasAdapter || info.adapterModule === normaliseModule(wanted.importPath)) return;
  const current = info.adapterModule === undefined ? undefined : findAdapterByModule(info.adapterModule);
  throw usageError(
    `src/auth/config.ts already uses ${current ? `the ${current.id} adapter` : 'an adapter of its own'}; --adapter ${answers.adapter} would replace it.`,
    `To move to ${wanted.name}, change \`adapter:\` in src/auth/config.ts to ${wanted.snippet} (import { ${wanted.importName} } from '${wanted.importPath}') and run again to add its files and dependencies, or pass --force to regenerate config.ts (--force also overwrites your changes to the other generated files).`,
  );
}

function planConfigFile(root: string, rendered: string, answers: Answers, providers: readonly ProviderEntry[], force: boolean): PlannedFile {
  const path = 'src/auth/config.ts';
  const previous = readProjectFile(root, path);
  if (previous === undefined || previous === rendered || force) return planOwnedFile(root, path, rendered, force);
  const conflict = (reason: string): PlannedFile => ({ path, action: 'conflict', content: rendered, previous, reason });
  const api = loadTypeScript(root);
  if (!api) return conflict('differs from what this version generates; kept as it is, --force regenerates it');
  try {
    const info = readAuthConfig(api, previous);
    assertSameAdapter(info, answers);
    if (info.basePath !== answers.mount) {
      return conflict(`its basePath is ${JSON.stringify(info.basePath)}, not ${JSON.stringify(answers.mount)}; kept as it is, --force regenerates it`);
    }
    // A re-run with more providers adds them to the user's list, as add-provider would.
    let content = previous;
    const changes: string[] = [];
    const added: string[] = [];
    for (const entry of providers) {
      const edit = addProviderToConfig(api, content, entry);
      if (edit.changed) added.push(entry.id);
      content = edit.content;
    }
    if (added.length > 0) changes.push(`adds ${added.join(', ')} to the providers`);
    const adapter = adapterInsertion(answers);
    if (adapter) {
      let edit;
      try {
        edit = setAdapterInConfig(api, content, adapter);
      } catch (error) {
        // Kept as a conflict, the config would miss the adapter whose files and dependencies the run adds.
        if (error instanceof CliError) throw usageError(error.message, error.hint);
        throw error;
      }
      if (edit.changed) changes.push(`sets adapter: ${adapter.snippet}`);
      content = edit.content;
    }
    return planMergedFile(path, previous, content, changes.length > 0 ? changes.join('; ') : undefined);
  } catch (error) {
    if (error instanceof CliError && error.type === 'usage') throw error;
    if (error instanceof CliError) return conflict(`${error.message}; kept as it is`);
    throw error;
  }
}

function planServer(root: string, pkg: PackageJsonInfo | undefined, content: string, force: boolean): {
  file: PlannedFile | undefined;
  entry: ProjectPlan['serverEntry'];
} {
  const path = 'src/server.ts';
  const existing = readProjectFile(root, path);
  if (existing !== undefined) {
    if (!existing.startsWith(generatedHeaderPrefix)) return { file: undefined, entry: { path, generated: false } };
    return { file: planOwnedFile(root, path, content, force), entry: { path, generated: true } };
  }
  const main = typeof pkg?.main === 'string' ? pkg.main.replace(/^\.\//, '') : undefined;
  const candidates = main === undefined ? serverEntryCandidates : [main, ...serverEntryCandidates];
  const userEntry = candidates.find((candidate) => existsSync(`${root}/${candidate}`));
  if (userEntry !== undefined) return { file: undefined, entry: { path: userEntry, generated: false } };
  return { file: planOwnedFile(root, path, content, force), entry: { path, generated: true } };
}

/**
 * Decides every file `create-framework-auth` writes for these answers, reading the project but writing nothing.
 * Generated files the user changed become conflicts (kept) unless `force`; merged files keep all of the user's
 * content. A second run with the same answers plans only "unchanged".
 */
export function planProject(options: ProjectPlanOptions): ProjectPlan {
  const { root, answers, force, version, packageManager } = options;
  const rootExists = existsSync(root);
  if (rootExists && !statSync(root).isDirectory()) throw usageError(`${root} exists and is not a directory`);

  const packageText = readProjectFile(root, 'package.json');
  const pkg = packageText === undefined ? undefined : (parse(packageText) as PackageJsonInfo | undefined);
  const providers = answers.providers.map((id) => getProvider(id));
  const adapter = findAdapter(answers.adapter);
  const header = generatedHeader(version);
  const mountPattern = expressMajor(pkg) === 4 ? `${answers.mount}/*` : `${answers.mount}/*splat`;
  const envText = readProjectFile(root, '.env');
  const origin = appOrigin(envText);
  const notes: string[] = [];
  const files: PlannedFile[] = [];

  for (const file of readRuntimeFiles(answers.providers, answers.adapter)) {
    const path = `${runtimeTargetDir}/${file.path}`;
    files.push(planOwnedFile(root, path, withRuntimeHeader(file.path, file.content, version), force));
  }
  files.push(planOwnedFile(root, 'src/auth/env.ts', renderTemplate('auth/env.ts.hbs', { header }), force));
  files.push(planOwnedFile(root, 'src/auth/index.ts', renderTemplate('auth/index.ts.hbs', { header, mountPattern }), force));
  const config = renderTemplate('auth/config.ts.hbs', {
    header,
    imports: providers.map((entry) => ({ name: entry.importName, path: entry.importPath })),
    adapterImport: adapter?.importName && adapter.importPath ? { name: adapter.importName, path: adapter.importPath } : null,
    basePath: answers.mount,
    providers: providers.map((entry) => entry.snippet),
    adapter: adapter?.snippet ?? null,
  });
  files.push(planConfigFile(root, config, answers, providers, force));

  const server = planServer(
    root,
    pkg,
    renderTemplate('server.ts.hbs', {
      header,
      mountPattern,
      signInPath: `${answers.mount}/signin`,
      signOutPath: `${answers.mount}/signout`,
    }),
    force,
  );
  if (server.file) files.push(server.file);

  const dependencies: Record<string, string> = { ...runtimeDependencies() };
  for (const entry of [...providers, ...(adapter ? [adapter] : [])]) Object.assign(dependencies, testedRanges(entry.dependencies));
  const devDependencies = { ...toolDevDependencies(version), ...testedRanges(adapter?.devDependencies ?? {}) };
  const scripts: Record<string, string> = server.entry?.generated
    ? { dev: 'tsx watch src/server.ts', build: 'tsc', start: 'node dist/server.js' }
    : { build: 'tsc' };
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

  const tsconfigText = readProjectFile(root, 'tsconfig.json');
  if (tsconfigText === undefined) {
    files.push(planMergedFile('tsconfig.json', undefined, readProjectTemplate('tsconfig.json')));
  } else {
    let merge;
    try {
      merge = mergeTsconfig(tsconfigText);
    } catch {
      throw usageError(`tsconfig.json in ${root} is not valid JSONC`, 'Fix it (or move it away) and run again.');
    }
    files.push(planMergedFile('tsconfig.json', tsconfigText, merge.content, merge.changes.join(', ')));
  }

  const envGroups = (secret: string): EnvGroup[] => [
    secretEnvGroup(secret),
    ...providers.flatMap((entry) => providerEnvGroup(entry, origin, answers.mount) ?? []),
    ...(adapter ? [adapterEnvGroup(adapter)] : []).filter((group): group is EnvGroup => group !== undefined),
  ];
  const envReason = (text: string | undefined): string | undefined => {
    const keys = addedEnvKeys(text, envGroups(''));
    return keys.length > 0 ? `adds ${keys.join(', ')}` : undefined;
  };
  files.push(planMergedFile('.env', envText, appendEnvGroups(envText, envGroups(generateSecret())), envReason(envText), 0o600));
  const exampleText = readProjectFile(root, '.env.example');
  files.push(planMergedFile('.env.example', exampleText, appendEnvGroups(exampleText, envGroups('')), envReason(exampleText)));
  const gitignoreText = readProjectFile(root, '.gitignore');
  const ignored = ['.env', ...(adapter?.gitignore ?? [])];
  const gitignoreBase = gitignoreText ?? readProjectTemplate('_gitignore');
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
    rootExists,
    answers,
    files,
    addedDependencies: packageMerge.added,
    serverEntry: server.entry,
    mountPattern,
    origin,
    notes,
  };
}
