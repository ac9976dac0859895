import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'jsonc-parser';
import { findAdapter } from '../catalog/adapters.js';
import { getProvider } from '../catalog/providers.js';
import type { ProviderEntry } from '../catalog/providers.js';
import { CliError, usageError } from '../cli/errors.js';
import type { Answers } from '../prompts/answers.js';
import { runtimeDependencies, toolDevDependencies } from './dependencies.js';
import { adapterEnvGroup, appOrigin, providerEnvGroup, secretEnvGroup } from './env-groups.js';
import { appendEnvGroups } from './merge/env-file.js';
import type { EnvGroup } from './merge/env-file.js';
import { ensureGitignoreEntries } from './merge/gitignore.js';
import { mergePackageJson } from './merge/package-json.js';
import { mergeTsconfig } from './merge/tsconfig.js';
import { runtimeTargetDir } from './paths.js';
import { planMergedFile, planOwnedFile, readProjectFile } from './planned-file.js';
import type { PlannedFile } from './planned-file.js';
import { addProviderToConfig, readAuthConfig } from './provider-list.js';
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

function configImports(providers: readonly ProviderEntry[], answers: Answers): { name: string; path: string }[] {
  const imports = providers.map((entry) => ({ name: entry.importName, path: entry.importPath }));
  const adapter = findAdapter(answers.adapter);
  if (adapter?.importName && adapter.importPath) imports.push({ name: adapter.importName, path: adapter.importPath });
  return imports;
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
    if (info.basePath !== answers.mount) {
      return conflict(`its basePath is ${JSON.stringify(info.basePath)}, not ${JSON.stringify(answers.mount)}; kept as it is, --force regenerates it`);
    }
    if (answers.adapter !== 'none' && !info.hasAdapter) {
      return conflict(`it sets no adapter, but --adapter is ${answers.adapter}; kept as it is, --force regenerates it`);
    }
    // A re-run with more providers adds them to the user's list, as add-provider would.
    let content = previous;
    const added: string[] = [];
    for (const entry of providers) {
      const edit = addProviderToConfig(api, content, entry);
      if (edit.changed) added.push(entry.id);
      content = edit.content;
    }
    return planMergedFile(path, previous, content, added.length > 0 ? `adds ${added.join(', ')} to the providers` : undefined);
  } catch (error) {
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
  const { root, answers, force, version } = options;
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
    imports: configImports(providers, answers),
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
  for (const entry of [...providers, ...(adapter ? [adapter] : [])]) Object.assign(dependencies, entry.dependencies);
  const scripts: Record<string, string> = server.entry?.generated
    ? { dev: 'tsx watch src/server.ts', build: 'tsc', start: 'node dist/server.js' }
    : { build: 'tsc' };
  let packageMerge;
  try {
    packageMerge = mergePackageJson(packageText, {
      name: packageName(root),
      scripts,
      dependencies,
      devDependencies: toolDevDependencies(version),
    });
  } catch (error) {
    throw usageError(`package.json in ${root} is not valid JSON`, error instanceof Error ? error.message : undefined);
  }
  notes.push(...packageMerge.notes);
  const addedNames = Object.keys(packageMerge.added);
  files.push(
    planMergedFile('package.json', packageText, packageMerge.content, addedNames.length > 0 ? `adds ${addedNames.join(', ')}` : undefined),
  );

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
  files.push(planMergedFile('.env', envText, appendEnvGroups(envText, envGroups(generateSecret())), undefined, 0o600));
  const exampleText = readProjectFile(root, '.env.example');
  files.push(planMergedFile('.env.example', exampleText, appendEnvGroups(exampleText, envGroups(''))));
  const gitignoreText = readProjectFile(root, '.gitignore');
  files.push(
    planMergedFile(
      '.gitignore',
      gitignoreText,
      gitignoreText === undefined ? readProjectTemplate('_gitignore') : ensureGitignoreEntries(gitignoreText, ['.env']),
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
