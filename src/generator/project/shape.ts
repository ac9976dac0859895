import { mountPattern } from '../../catalog/mount-path.js';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { applyEdits, findNodeAtLocation, modify, parse, parseTree } from 'jsonc-parser';
import { findAppFile } from './app-file.js';
import { detectFormatting } from '../edit/json-format.js';
import { compilesGeneratedModules } from '../edit/tsconfig.js';
import { analyseModuleSystem, filesNeedingExtensions } from './module-system.js';
import type { ModuleSystemReport, SourceFileReport } from './module-system.js';
import { isSourceFileName, listSourceFiles, sourceExtensions } from './files.js';
import { isJavaScript } from '../code-format.js';
import type { CodeFormat } from '../code-format.js';
import type { TypeScriptApi } from '../typescript-api.js';
import { loadTypeScript } from '../typescript-api.js';
import { findWorkspace } from './workspace.js';
import type { Workspace } from './workspace.js';

/** The Express majors the generated code supports. */
export const expressMajors = [4, 5] as const;

/** 4 or 5. */
export type ExpressMajor = (typeof expressMajors)[number];

/** Which Express the project runs, and how that was found. */
export interface ExpressVersion {
  major: ExpressMajor;
  /** `installed` (node_modules), `package.json` (the range), or `default` (no Express yet: a new project gets 5). */
  source: 'installed' | 'package.json' | 'default';
  /** The installed version or the range, for messages. */
  detail: string | undefined;
}

/** The project's TypeScript settings that decide where the auth module goes and where it compiles to. */
export interface TsconfigInfo {
  /** Effective `module` (after `extends`), lower case (`nodenext`, `commonjs`, `es2022`, ...). */
  module: string | undefined;
  /** Effective `moduleResolution`, lower case (`nodenext`, `bundler`, `node10`, ...). */
  moduleResolution: string | undefined;
  /** Effective options the merge would otherwise add again (set in a base config the file extends). */
  inherited: { module?: string; moduleResolution?: string; strict?: boolean; outDir?: string };
  /** Root-relative `outDir` and `rootDir` ('' is the root), when set. */
  outDir: string | undefined;
  rootDir: string | undefined;
  /** Whether `paths` aliases are configured. */
  hasPaths: boolean;
  allowJs: boolean;
  /** Effective `verbatimModuleSyntax`: with CommonJS output it forbids `import`/`export` in the project's .ts files. */
  verbatimModuleSyntax: boolean;
  /** Root-relative folders compiled with all their files (from `include`), to tell whether the auth module is. */
  recursiveDirs: string[];
  /** Root-relative source files the config compiles today. */
  fileNames: string[];
  /** Whether the project's own tsconfig.json sets `include`. */
  ownInclude: boolean;
}

/** The server file: the user's own (mount the auth module there) or the one the CLI generates. */
export interface ServerEntryShape {
  /** The entry (root-relative): the user's, or `<source dir>/server.ts` when generated. */
  path: string;
  generated: boolean;
  /** For a user's entry: where `express()` is called (may be another file than the entry), its variable, and the import. */
  mount?: { file: string; appName: string; importPath: string; found: boolean };
}

/** What `create-framework-auth` reads of a project before planning. */
export interface ProjectShape {
  /** Whether a package.json exists. */
  hasPackageJson: boolean;
  express: ExpressVersion;
  /** `app.use` pattern of the auth routes: `/auth/*splat` on Express 5, `/auth/*` on Express 4. */
  mountPattern: string;
  module: ModuleSystemReport;
  tsconfig: TsconfigInfo | undefined;
  /** `typescript` when the user's server is TypeScript (or the CLI writes one); `javascript` for a JS app run as it is. */
  language: 'typescript' | 'javascript';
  /**
   * What the auth module is written in: JavaScript in the project's module system for a JavaScript project (no
   * tsconfig, no TypeScript sources) or one whose module is JavaScript already, else TypeScript.
   */
  code: CodeFormat;
  /** Folder of the user's sources ('' is the project root): `src`, `lib`, ... */
  sourceDir: string;
  /** Where the auth module goes: `<sourceDir>/auth`, or where a previous run put it. */
  authDir: string;
  serverEntry: ServerEntryShape;
  /** Where tsc writes the compiled project (root-relative), after the tsconfig merge. */
  outDir: string;
  /** The monorepo this project is a package of (installs run at its root). */
  workspace: Workspace | undefined;
  /** TypeScript files whose relative imports need a `.js` once tsconfig moves to NodeNext resolution. */
  extensionFixes: SourceFileReport[];
}

/** What the CLI reads of a package.json. */
export interface PackageJsonInfo {
  type?: unknown;
  main?: unknown;
  scripts?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  peerDependencies?: Record<string, unknown>;
}

/** The places an auth module written by an earlier run may be, after `<sourceDir>/auth`. */
const authDirCandidates = ['src/auth', 'lib/auth', 'app/auth', 'server/auth', 'auth'] as const;

// Files that mean "this project already has a server"; the CLI then adds the auth module and says how to mount it.
const serverEntryCandidates = [
  'src/server.ts', 'src/index.ts', 'src/app.ts', 'src/main.ts', 'server.ts', 'index.ts', 'app.ts', 'main.ts',
  'src/server.js', 'src/index.js', 'src/app.js', 'server.js', 'index.js', 'app.js',
  'src/server.mts', 'src/index.mts', 'server.mjs', 'index.mjs', 'app.mjs',
  'lib/server.ts', 'lib/index.ts', 'lib/app.ts', 'lib/server.js', 'lib/index.js', 'lib/app.js',
  // express-generator's layout: bin/www listens, app.js makes the app.
  'bin/www',
] as const;

const generatedHeaderPrefix = '// Written by create-framework-auth ';

function readJsonc<T>(path: string): T | undefined {
  try {
    return parse(readFileSync(path, 'utf8'), [], { allowTrailingComma: true }) as T;
  } catch {
    return undefined;
  }
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

/** Root-relative, "/" separators, '' for the root itself; undefined for a path outside the root. */
function rootRelative(root: string, path: string): string | undefined {
  const result = toPosix(relative(root, isAbsolute(path) ? path : join(root, path)));
  return result.startsWith('..') ? undefined : result;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The Express major a semver range installs (`^4.21.2` → 4, `>=4` → undefined: the newest, whatever it is). */
export function expressMajorOfRange(range: string): number | undefined {
  const spec = range.trim().replace(/^npm:express@/, '');
  if (/^(workspace|catalog|link|file|git|github|https?):/.test(spec)) return undefined;
  const majors = spec.split('||').map((alternative): number | undefined => {
    const text = alternative.trim();
    if (text === '' || text === '*' || /^(latest|next|x)$/i.test(text)) return undefined;
    // Without an upper bound, npm installs the newest major.
    if (/^>/.test(text) && !/</.test(text)) return undefined;
    const below = /^<\s*v?(\d+)(?:\.0)?(?:\.0)?$/.exec(text);
    if (below?.[1]) return Number(below[1]) - 1;
    const first = /(\d+)/.exec(text)?.[1];
    return first === undefined ? undefined : Number(first);
  });
  if (majors.some((major) => major === undefined)) return undefined;
  return Math.max(...(majors as number[]));
}

function toExpressMajor(major: number | undefined): ExpressMajor | undefined {
  if (major === undefined) return undefined;
  return major <= 4 ? 4 : 5;
}

function declaredExpressRange(pkg: PackageJsonInfo | undefined): string | undefined {
  const range = pkg?.dependencies?.express ?? pkg?.devDependencies?.express ?? pkg?.peerDependencies?.express;
  return typeof range === 'string' ? range : undefined;
}

/**
 * The project's Express: the installed copy when there is one (node_modules of the project, or of its workspace
 * root), else the range in package.json (the workspace root's when the package declares none), else 5.
 */
export function detectExpress(root: string, pkg: PackageJsonInfo | undefined, workspace: Workspace | undefined): ExpressVersion {
  const workspacePkg = workspace ? readJsonc<PackageJsonInfo>(join(workspace.root, 'package.json')) : undefined;
  const range = declaredExpressRange(pkg) ?? declaredExpressRange(workspacePkg);
  const top = workspace?.root ?? root;
  for (let dir = root; ; dir = dirname(dir)) {
    const installed = readJsonc<{ version?: unknown }>(join(dir, 'node_modules/express/package.json'));
    const major = typeof installed?.version === 'string' ? toExpressMajor(Number(installed.version.split('.')[0])) : undefined;
    if (major !== undefined && typeof installed?.version === 'string') return { major, source: 'installed', detail: installed.version };
    if (dir === top || dirname(dir) === dir) break;
  }
  const fromRange = range === undefined ? undefined : toExpressMajor(expressMajorOfRange(range));
  if (fromRange !== undefined) return { major: fromRange, source: 'package.json', detail: range };
  return { major: 5, source: 'default', detail: range };
}

/** `app.use` pattern for the auth routes: Express 5's path-to-regexp 8 needs a named wildcard. */
export function mountPatternFor(major: ExpressMajor, mount: string): string {
  return mountPattern(mount, major);
}

function kindName(names: Record<number, string>, value: number): string | undefined {
  return names[value]?.toLowerCase();
}

/** Reads tsconfig.json with the compiler's own reader, so that `extends` (a base file, a package) counts. */
export function readTsconfig(api: TypeScriptApi | undefined, root: string): TsconfigInfo | undefined {
  const path = join(root, 'tsconfig.json');
  if (!existsSync(path)) return undefined;
  const own = readJsonc<{ compilerOptions?: Record<string, unknown>; include?: unknown }>(path) ?? {};
  const ownOptions = own.compilerOptions ?? {};
  const ownString = (key: string): string | undefined => (typeof ownOptions[key] === 'string' ? (ownOptions[key] as string) : undefined);
  const fallback: TsconfigInfo = {
    module: ownString('module')?.toLowerCase(),
    moduleResolution: ownString('moduleResolution')?.toLowerCase(),
    inherited: {},
    outDir: ownString('outDir') === undefined ? undefined : rootRelative(root, ownString('outDir') ?? ''),
    rootDir: ownString('rootDir') === undefined ? undefined : rootRelative(root, ownString('rootDir') ?? ''),
    hasPaths: typeof ownOptions.paths === 'object' && ownOptions.paths !== null,
    allowJs: ownOptions.allowJs === true,
    verbatimModuleSyntax: ownOptions.verbatimModuleSyntax === true,
    recursiveDirs: Array.isArray(own.include) ? [] : [''],
    fileNames: [],
    ownInclude: Array.isArray(own.include),
  };
  if (!api) return fallback;
  const read = api.readConfigFile(path, (file) => api.sys.readFile(file));
  if (read.error) return fallback;
  const parsed = api.parseJsonConfigFileContent(read.config, api.sys, root, undefined, path);
  const options = parsed.options;
  const relativeOption = (value: string | undefined): string | undefined => (value === undefined ? undefined : rootRelative(root, value));
  // The compiler's own defaults (they differ between TypeScript 5 and 6) through its internal helpers when present.
  const internal = api as unknown as {
    getEmitModuleKind?: (compilerOptions: typeof options) => number;
    getEmitModuleResolutionKind?: (compilerOptions: typeof options) => number;
  };
  const moduleKind = internal.getEmitModuleKind?.(options) ?? options.module;
  const resolutionKind = internal.getEmitModuleResolutionKind?.(options) ?? options.moduleResolution;
  const module = moduleKind === undefined ? undefined : kindName(api.ModuleKind as unknown as Record<number, string>, moduleKind);
  const moduleResolution = resolutionKind === undefined ? undefined : kindName(api.ModuleResolutionKind as unknown as Record<number, string>, resolutionKind);
  const inherited: TsconfigInfo['inherited'] = {};
  // What a base config sets counts as set: the merge must not repeat it in the project's own file.
  if (options.module !== undefined && ownOptions.module === undefined) inherited.module = module;
  if (options.moduleResolution !== undefined && ownOptions.moduleResolution === undefined) inherited.moduleResolution = moduleResolution;
  if (options.strict !== undefined && ownOptions.strict === undefined) inherited.strict = options.strict;
  if (options.outDir !== undefined && ownOptions.outDir === undefined) inherited.outDir = relativeOption(options.outDir);
  const recursiveDirs = Object.entries(parsed.wildcardDirectories ?? {})
    .filter(([, flags]) => (flags & api.WatchDirectoryFlags.Recursive) !== 0)
    .map(([dir]) => rootRelative(root, dir))
    .filter((dir): dir is string => dir !== undefined);
  return {
    module,
    moduleResolution,
    inherited,
    outDir: relativeOption(options.outDir),
    rootDir: relativeOption(options.rootDir),
    hasPaths: options.paths !== undefined,
    allowJs: options.allowJs === true,
    verbatimModuleSyntax: options.verbatimModuleSyntax === true,
    recursiveDirs,
    fileNames: parsed.fileNames.map((file) => rootRelative(root, file)).filter((file): file is string => file !== undefined),
    ownInclude: Array.isArray(own.include),
  };
}

// `module` settings under which tsc emits CommonJS for Node when package.json has no `"type": "module"`.
const nodeCommonJsModules = new Set(['commonjs', 'node16', 'node18', 'node20', 'nodenext']);

/**
 * Whether the project is TypeScript that its own tsc compiles to CommonJS (`module: commonjs`, or Node16/NodeNext
 * without `"type": "module"`). It keeps that: the auth module stays TypeScript, compiles with the project's settings,
 * and its ESM-only dependencies (jose, oauth4webapi) load through Node's `require(esm)` (SPEC §12).
 */
export function compilesToCommonJs(shape: Pick<ProjectShape, 'language' | 'module' | 'tsconfig'>): boolean {
  const module = shape.tsconfig?.module;
  return shape.language === 'typescript' && shape.module.system === 'commonjs' && module !== undefined && nodeCommonJsModules.has(module);
}

/** Whether tsc compiles a file in `dir` (root-relative) under this config. */
export function tsconfigCovers(info: TsconfigInfo, dir: string): boolean {
  return info.recursiveDirs.some((covered) => covered === '' || dir === covered || dir.startsWith(`${covered}/`));
}

/** The folder where an earlier run put the auth module (its `config.ts` and runtime copy), if any. */
export function findAuthModuleDir(root: string, preferred: readonly string[] = []): string | undefined {
  return [...preferred, ...authDirCandidates].find((dir) =>
    ['.ts', '.js'].some((extension) => existsSync(join(root, dir, `config${extension}`)) && existsSync(join(root, dir, `core/index${extension}`))),
  );
}

/** The path of a script's or `main`'s file, mapped from the compiled output back to its source (`build/index.js` → `src/index.ts`). */
function sourceOf(root: string, path: string, tsconfig: TsconfigInfo | undefined): string | undefined {
  const clean = posix.normalize(path.replace(/^\.\//, ''));
  if (existsSync(join(root, clean)) && !isDirectory(join(root, clean))) {
    const outDir = tsconfig?.outDir;
    if (outDir === undefined || !(clean === outDir || clean.startsWith(`${outDir}/`))) return clean;
  }
  const outDir = tsconfig?.outDir ?? 'dist';
  if (!clean.startsWith(`${outDir}/`)) return undefined;
  const rest = clean.slice(outDir.length + 1).replace(/\.(m|c)?js$/, '');
  const rootDir = tsconfig?.rootDir ?? 'src';
  for (const extension of sourceExtensions) {
    const candidate = rootDir === '' ? `${rest}${extension}` : `${rootDir}/${rest}${extension}`;
    if (existsSync(join(root, candidate))) return candidate;
  }
  return undefined;
}

/** Candidate entries named by package.json: `main`, then the files run by `start`, `dev` and `serve`. */
function declaredEntries(root: string, pkg: PackageJsonInfo | undefined, tsconfig: TsconfigInfo | undefined): string[] {
  const found: string[] = [];
  const add = (path: string): void => {
    const source = sourceOf(root, path, tsconfig);
    if (source !== undefined && !found.includes(source)) found.push(source);
  };
  for (const script of ['start', 'dev', 'serve']) {
    const command = pkg?.scripts?.[script];
    if (typeof command !== 'string') continue;
    for (const token of command.split(/[\s;&|]+/)) {
      if (isSourceFileName(token) || token === 'bin/www' || token === './bin/www') add(token);
    }
  }
  if (typeof pkg?.main === 'string') add(pkg.main);
  return found;
}

function commonDir(paths: readonly string[]): string {
  if (paths.length === 0) return '';
  const split = paths.map((path) => posix.dirname(path).split('/').filter((part) => part !== '.' && part !== ''));
  const first = split[0] ?? [];
  let length = first.length;
  for (const parts of split) {
    let index = 0;
    while (index < length && parts[index] === first[index]) index += 1;
    length = index;
  }
  return first.slice(0, length).join('/');
}

function joinPath(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

function relativeImport(fromFile: string, toFile: string): string {
  const path = posix.relative(posix.dirname(fromFile), toFile);
  return path.startsWith('.') ? path : `./${path}`;
}

/** Inputs of {@link readProjectShape}. */
export interface ProjectShapeOptions {
  /** The package.json as parsed (undefined when there is none). */
  packageJson: PackageJsonInfo | undefined;
  /** The TypeScript API (the project's, else the CLI's), loaded when first needed. */
  typescript?: () => TypeScriptApi | undefined;
}

/** The shape as read, before a mount path turns the Express major into the `app.use` pattern. */
export type ProjectLayout = Omit<ProjectShape, 'mountPattern'>;

/** The shape of a layout for one mount path: its `app.use` pattern on the layout's Express major. */
export function shapeAt(layout: ProjectLayout, mount: string): ProjectShape {
  return { ...layout, mountPattern: mountPatternFor(layout.express.major, mount) };
}

/**
 * Reads what the generated code must fit: the Express major, the module system, the TypeScript settings, where the
 * sources are, the server entry and where its app is made, and the workspace. Writes nothing.
 */
export function readProjectShape(root: string, options: ProjectShapeOptions): ProjectLayout {
  const pkg = options.packageJson;
  // The compiler is loaded only for what needs it (a tsconfig, the user's sources, their entry): a new empty
  // project is planned without it.
  let api: TypeScriptApi | undefined | null = null;
  const typescript = options.typescript ?? ((): TypeScriptApi | undefined => (api === null ? (api = loadTypeScript(root)) : api));
  const workspace = findWorkspace(root);
  const express = detectExpress(root, pkg, workspace);
  const tsconfig = readTsconfig(existsSync(join(root, 'tsconfig.json')) ? typescript() : undefined, root);

  const existingAuthDir = findAuthModuleDir(root);
  const declared = declaredEntries(root, pkg, tsconfig);
  const generatedServer = (dir: string): string | undefined => {
    const path = joinPath(dir, 'server.ts');
    const text = existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined;
    return text?.startsWith(generatedHeaderPrefix) ? path : undefined;
  };
  const userEntry = [...declared, ...serverEntryCandidates].find((candidate) => {
    const full = join(root, candidate);
    if (!existsSync(full) || isDirectory(full)) return false;
    return readFileSync(full, 'utf8').startsWith(generatedHeaderPrefix) === false;
  });

  let sourceDir: string;
  if (existingAuthDir !== undefined) sourceDir = posix.dirname(existingAuthDir) === '.' ? '' : posix.dirname(existingAuthDir);
  else if (isDirectory(join(root, 'src'))) sourceDir = 'src';
  else if (tsconfig?.rootDir !== undefined && tsconfig.rootDir !== '' && isDirectory(join(root, tsconfig.rootDir))) sourceDir = tsconfig.rootDir;
  else if (userEntry !== undefined && !userEntry.startsWith('bin/')) sourceDir = posix.dirname(userEntry) === '.' ? '' : posix.dirname(userEntry);
  else if (userEntry !== undefined || hasRootSources(root)) sourceDir = '';
  else sourceDir = 'src';
  const authDir = existingAuthDir ?? joinPath(sourceDir, 'auth');

  const isJavaScriptFile = (path: string): boolean => !/\.[cm]?tsx?$/.test(path);
  // A JavaScript app run as it is (not compiled by tsc with allowJs) imports the auth module's compiled output.
  const language: ProjectShape['language'] = userEntry !== undefined && isJavaScriptFile(userEntry) && !(tsconfig?.allowJs ?? false) ? 'javascript' : 'typescript';
  const outDir = tsconfig?.outDir ?? tsconfig?.inherited.outDir ?? 'dist';
  const skip = [authDir, outDir, ...(tsconfig?.outDir === undefined ? [] : [tsconfig.outDir])];
  const module = analyseModuleSystem({ root, packageType: pkg?.type, tsconfigModule: tsconfig?.module, skip, api: typescript });
  const code = codeFormatOf(root, { existingAuthDir, language, tsconfig, module, skip });

  let serverEntry: ServerEntryShape;
  const generatedPath = generatedServer(sourceDir) ?? generatedServer('src');
  if (userEntry !== undefined && generatedPath === undefined) {
    const app = findAppFile(typescript(), root, userEntry);
    const file = app?.path ?? userEntry;
    const importPath = authImportPath({ language, code, outDir, sourceDir, authDir }, file);
    serverEntry = { path: userEntry, generated: false, mount: { file, appName: app?.appName ?? 'app', importPath, found: app !== undefined } };
  } else {
    serverEntry = { path: generatedPath ?? joinPath(sourceDir, 'server.ts'), generated: true };
  }

  // tsc under NodeNext asks for the extension of every relative import: said before the merge changes the setting.
  const extensionFixes =
    tsconfig !== undefined && !compilesGeneratedModules(tsconfig.module, tsconfig.moduleResolution) && module.system !== 'commonjs'
      ? filesNeedingExtensions(typescript(), root, skip)
      : [];

  return {
    hasPackageJson: pkg !== undefined,
    express,
    module,
    tsconfig,
    language,
    code,
    sourceDir,
    authDir,
    serverEntry,
    outDir,
    workspace,
    extensionFixes,
  };
}

/**
 * What the auth module is (to be) written in: the language of the one already there (`config.js` is JavaScript, in
 * the project's module system), else JavaScript for a JavaScript project, one with a JavaScript entry, no tsconfig and
 * no TypeScript sources (CommonJS unless the project is ESM), else TypeScript.
 */
function codeFormatOf(
  root: string,
  project: { existingAuthDir: string | undefined; language: ProjectShape['language']; tsconfig: TsconfigInfo | undefined; module: ModuleSystemReport; skip: readonly string[] },
): CodeFormat {
  const javaScriptFormat: CodeFormat = project.module.system === 'commonjs' ? 'javascript-commonjs' : 'javascript-esm';
  if (project.existingAuthDir !== undefined) {
    if (existsSync(join(root, project.existingAuthDir, 'config.ts'))) return 'typescript';
    return project.module.packageType === 'module' ? 'javascript-esm' : 'javascript-commonjs';
  }
  if (project.language !== 'javascript' || project.tsconfig !== undefined) return 'typescript';
  const typeScriptSources = listSourceFiles(root, { skip: project.skip }).some((path) => /\.[cm]?tsx?$/.test(path) && !path.endsWith('.d.ts'));
  return typeScriptSources ? 'typescript' : javaScriptFormat;
}

/**
 * How `file` imports the auth module: its `index.js` (`./auth` in CommonJS, which finds it), or the compiled output
 * of a TypeScript module in a JavaScript app (`./dist/auth/index.js`).
 */
export function authImportPath(shape: Pick<ProjectShape, 'language' | 'code' | 'outDir' | 'sourceDir' | 'authDir'>, file: string): string {
  if (shape.code === 'javascript-commonjs') return relativeImport(file, shape.authDir);
  const index = shape.language === 'javascript' && !isJavaScript(shape.code) ? `${shape.outDir}/${posix.relative(shape.sourceDir, shape.authDir)}/index.js` : `${shape.authDir}/index.js`;
  return relativeImport(file, index);
}

// Configuration files at the root (eslint.config.js, vite.config.ts, ...) are not the app's sources.
function hasRootSources(root: string): boolean {
  try {
    return readdirSync(root).some((name) => isSourceFileName(name) && !/(^|\.)config\./.test(name) && !name.startsWith('.'));
  } catch {
    return false;
  }
}

/** The compiled path of a source file under a tsconfig (`src/server.ts` → `dist/server.js`). */
export function compiledPath(shape: ProjectShape, sourcePath: string): string {
  const tsconfig = shape.tsconfig;
  const rootDir = tsconfig?.rootDir ?? (tsconfig ? commonDir([...tsconfig.fileNames.filter((file) => !file.endsWith('.d.ts')), sourcePath]) : shape.sourceDir);
  const inside = rootDir === '' ? sourcePath : posix.relative(rootDir, sourcePath);
  return joinPath(shape.outDir, inside.replace(/\.(m|c)?tsx?$/, (extension) => extension.replace('tsx', 'js').replace('ts', 'js')));
}

/**
 * A new tsconfig.json for the project's layout: the template as it is for `src/`, else its `rootDir`/`include` set
 * to the source folder. For a JavaScript app only the auth module is compiled (to `dist/`), which the app imports.
 */
export function tsconfigForShape(template: string, shape: ProjectShape): string {
  if (shape.language === 'typescript' && shape.sourceDir === 'src') return template;
  const formattingOptions = detectFormatting(template);
  let content = template;
  const rootDir = shape.sourceDir === '' ? '.' : shape.sourceDir;
  content = applyEdits(content, modify(content, ['compilerOptions', 'rootDir'], rootDir, { formattingOptions }));
  const include = shape.language === 'javascript' ? [shape.authDir] : [rootDir];
  // Replaced where it stands, on one line as the template writes it (jsonc-parser would spread it over several).
  const node = findNodeAtLocation(parseTree(content) ?? { type: 'null', offset: 0, length: 0 }, ['include']);
  if (node) return `${content.slice(0, node.offset)}${JSON.stringify(include).replace(/,/g, ', ')}${content.slice(node.offset + node.length)}`;
  return applyEdits(content, modify(content, ['include'], include, { formattingOptions }));
}

/**
 * The tsconfig `include` with the auth module added, when the project's config would leave it out (an `include`
 * of named folders that does not take the source folder): undefined when nothing needs adding.
 */
export function includeAuthModule(text: string, shape: ProjectShape): { content: string; change: string } | undefined {
  const tsconfig = shape.tsconfig;
  if (!tsconfig || tsconfigCovers(tsconfig, shape.authDir) || !tsconfig.ownInclude) return undefined;
  const formattingOptions = detectFormatting(text);
  const content = applyEdits(text, modify(text, ['include', -1], shape.authDir, { formattingOptions, isArrayInsertion: true }));
  return { content, change: `include += "${shape.authDir}"` };
}
