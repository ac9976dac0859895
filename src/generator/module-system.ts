import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import type ts from 'typescript';
import type { TypeScriptApi } from './typescript-api.js';

/** What Node makes of a project's `.js` (and tsc of its `.ts`) files today. */
export const moduleSystems = ['esm', 'commonjs', 'unset'] as const;

/**
 * `esm`: package.json says `"type": "module"`. `commonjs`: something the project runs depends on CommonJS (the
 * evidence says what). `unset`: nothing does yet (a new project, `npm init`'s `"type": "commonjs"` over no code, or
 * sources that are ESM already), so `"type": "module"` changes nothing that works today.
 */
export type ModuleSystem = (typeof moduleSystems)[number];

/** One source file and what it needs to run as ESM. */
export interface SourceFileReport {
  /** Root-relative path with "/" separators. */
  path: string;
  /** CommonJS constructs in the file: `require()`, `module.exports`, `exports.*`, `__dirname`, `import = require`, `export =`. */
  commonJs: string[];
  /** Relative specifiers without a file extension, with the one they need (`./routes` → `./routes/index.js`). */
  extensionless: { specifier: string; suggestion: string }[];
  /** Whether the file has import/export declarations. */
  esmSyntax: boolean;
}

/** The project's module system and the files an ESM project would need changed. */
export interface ModuleSystemReport {
  system: ModuleSystem;
  /** Why the project is CommonJS (empty unless `system` is `commonjs`). */
  evidence: string[];
  /** The package.json `"type"` as it is (undefined when absent). */
  packageType: string | undefined;
  /** Files that need an edit to run as ESM (CommonJS constructs, or imports without `.js`). */
  filesToEdit: SourceFileReport[];
  /** Whether the project has JavaScript or TypeScript sources besides the auth module. */
  hasSources: boolean;
}

// Files whose module format depends on package.json "type" (.mjs/.mts are always ESM, .cjs/.cts always CommonJS).
const typeDependentExtensions = ['.js', '.jsx', '.ts', '.tsx'] as const;
const sourceExtensions = [...typeDependentExtensions, '.mjs', '.cjs', '.mts', '.cts'] as const;
// Not the user's sources: dependencies, output, tooling caches.
const skippedFolders = new Set(['node_modules', 'dist', 'build', 'out', 'coverage', 'bower_components', 'jspm_packages', 'tmp', 'temp']);
// A project of thousands of files is read in part: the verdict needs one CommonJS file, the list a page of them.
const maxFiles = 2000;
const maxFileSize = 1_000_000;
// tsc emits CommonJS for these `module` settings when package.json has no `"type": "module"`.
const commonJsEmitModules = new Set(['commonjs', 'amd', 'umd', 'system', 'node16', 'node18', 'node20', 'nodenext']);
const resolvedExtensions = ['.js', '.mjs', '.cjs', '.json', '.node', '.ts', '.mts', '.cts', '.tsx', '.jsx'];

function isTypeDependent(path: string): boolean {
  if (!posix.basename(path).includes('.')) return true;
  return !path.endsWith('.d.ts') && typeDependentExtensions.some((extension) => path.endsWith(extension));
}

/** Whether a file without an extension is a Node script (`#!/usr/bin/env node`). */
function isNodeScript(path: string): boolean {
  try {
    if (statSync(path).size > maxFileSize) return false;
    return /^#!.*\bnode\b/.test(readFileSync(path, 'utf8').slice(0, 200));
  } catch {
    return false;
  }
}

/**
 * The source files of a project (root-relative, "/" separators), leaving out dependencies, build output, hidden
 * folders and `skip` (the auth module, the project's outDir, workspace packages below it).
 */
export function listSourceFiles(root: string, skip: readonly string[] = []): string[] {
  const files: string[] = [];
  const skipped = new Set(skip.map((path) => path.replace(/\/+$/, '')).filter((path) => path !== '' && path !== '.'));
  const visit = (relativeDir: string): void => {
    let entries;
    try {
      entries = readdirSync(join(root, relativeDir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (files.length >= maxFiles) return;
      const path = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name.startsWith('.') || skippedFolders.has(entry.name) || skipped.has(path)) continue;
        // A folder with its own package.json is another package (a workspace member, a vendored tool).
        if (existsSync(join(root, path, 'package.json'))) continue;
        visit(path);
      } else if (entry.isFile() && sourceExtensions.some((extension) => entry.name.endsWith(extension)) && !entry.name.endsWith('.d.ts')) {
        files.push(path);
      } else if (entry.isFile() && !entry.name.includes('.') && isNodeScript(join(root, path))) {
        // An extensionless script (express-generator's bin/www) runs in the package's module format too.
        files.push(path);
      }
    }
  };
  visit('');
  return files;
}

/** The specifier a relative import needs under Node's ESM resolution, by looking at what it points to. */
function suggestSpecifier(root: string, fromFile: string, specifier: string): string {
  const target = join(root, dirname(fromFile), specifier);
  for (const extension of ['.ts', '.tsx', '.js', '.jsx', '.mts', '.mjs']) {
    if (existsSync(`${target}${extension}`)) return `${specifier}${extension.replace('ts', 'js').replace('jsx', 'js')}`;
  }
  if (existsSync(target) && statSync(target).isDirectory()) {
    for (const index of ['index.ts', 'index.tsx', 'index.js']) {
      if (existsSync(join(target, index))) return `${specifier.replace(/\/$/, '')}/index.js`;
    }
  }
  return `${specifier}.js`;
}

function hasExtension(specifier: string): boolean {
  const base = posix.basename(specifier);
  return resolvedExtensions.some((extension) => base.endsWith(extension));
}

/** Reads one file's module constructs with the TypeScript parser (comments and strings never count). */
export function inspectSourceFile(api: TypeScriptApi, root: string, path: string, text: string): SourceFileReport {
  const kind = path.endsWith('.tsx') ? api.ScriptKind.TSX : path.endsWith('.jsx') ? api.ScriptKind.JSX : /\.[cm]?ts$/.test(path) ? api.ScriptKind.TS : api.ScriptKind.JS;
  const source = api.createSourceFile(path, text, api.ScriptTarget.Latest, true, kind);
  const commonJs = new Set<string>();
  const extensionless = new Map<string, string>();
  let esmSyntax = false;
  const checkSpecifier = (node: ts.Node | undefined): void => {
    if (!node || !api.isStringLiteralLike(node)) return;
    const specifier = node.text;
    if ((specifier.startsWith('./') || specifier.startsWith('../') || specifier === '.' || specifier === '..') && !hasExtension(specifier)) {
      extensionless.set(specifier, suggestSpecifier(root, path, specifier));
    }
  };
  const visit = (node: ts.Node): void => {
    if (api.isImportDeclaration(node) || api.isExportDeclaration(node)) {
      esmSyntax = true;
      // Type-only imports vanish from the output; they need no extension at runtime, but tsc asks for one anyway.
      checkSpecifier(node.moduleSpecifier);
    } else if (api.isExportAssignment(node)) {
      if (node.isExportEquals) commonJs.add('export =');
      else esmSyntax = true;
    } else if (api.isImportEqualsDeclaration(node) && api.isExternalModuleReference(node.moduleReference)) {
      commonJs.add('import = require()');
      checkSpecifier(node.moduleReference.expression);
    } else if (api.isCallExpression(node)) {
      if (node.expression.kind === api.SyntaxKind.ImportKeyword) checkSpecifier(node.arguments[0]);
      else if (api.isIdentifier(node.expression) && node.expression.text === 'require' && node.arguments.length === 1) {
        commonJs.add('require()');
        checkSpecifier(node.arguments[0]);
      }
    } else if (api.isPropertyAccessExpression(node) && api.isIdentifier(node.expression)) {
      if (node.expression.text === 'module' && node.name.text === 'exports') commonJs.add('module.exports');
      else if (node.expression.text === 'exports') commonJs.add('exports.*');
    } else if (api.isIdentifier(node) && (node.text === '__dirname' || node.text === '__filename')) {
      const parent = node.parent;
      const isName = (api.isPropertyAccessExpression(parent) && parent.name === node) || (api.isVariableDeclaration(parent) && parent.name === node) || (api.isPropertyAssignment(parent) && parent.name === node);
      if (!isName) commonJs.add(node.text);
    }
    api.forEachChild(node, visit);
  };
  visit(source);
  return {
    path,
    commonJs: [...commonJs],
    extensionless: [...extensionless].map(([specifier, suggestion]) => ({ specifier, suggestion })),
    esmSyntax,
  };
}

/** Inputs of {@link analyseModuleSystem}. */
export interface ModuleSystemInputs {
  root: string;
  /** package.json `"type"`, as written. */
  packageType: unknown;
  /** The effective `compilerOptions.module` of the project's tsconfig (lower case), when it has one. */
  tsconfigModule: string | undefined;
  /** Folders that are not the user's sources (the auth module, outDir). */
  skip: readonly string[];
  api: TypeScriptApi | undefined;
}

/**
 * Whether the project is CommonJS today, and what would have to change for ESM. Only files whose format depends on
 * package.json `"type"` are listed; `.cjs`/`.mjs` files keep theirs.
 */
export function analyseModuleSystem(inputs: ModuleSystemInputs): ModuleSystemReport {
  const { root, tsconfigModule, api } = inputs;
  const packageType = typeof inputs.packageType === 'string' ? inputs.packageType : undefined;
  const sources = listSourceFiles(root, inputs.skip);
  const hasSources = sources.length > 0;
  if (packageType === 'module') return { system: 'esm', evidence: [], packageType, filesToEdit: [], hasSources };

  const reports: SourceFileReport[] = [];
  if (api) {
    for (const path of sources.filter(isTypeDependent)) {
      const full = join(root, path);
      if (statSync(full).size > maxFileSize) continue;
      reports.push(inspectSourceFile(api, root, path, readFileSync(full, 'utf8')));
    }
  }
  const isTypeScript = (path: string): boolean => /\.tsx?$/.test(path);
  const typeScriptSources = sources.filter((path) => isTypeDependent(path) && isTypeScript(path));
  const compilesToCommonJs = typeScriptSources.length > 0 && tsconfigModule !== undefined && commonJsEmitModules.has(tsconfigModule);
  const commonJsFiles = reports.filter((report) => report.commonJs.length > 0);

  const evidence: string[] = [];
  if (packageType === 'commonjs' && sources.some(isTypeDependent)) evidence.push('package.json has "type": "commonjs"');
  if (packageType !== 'commonjs' && compilesToCommonJs) {
    evidence.push(`tsconfig.json "module": "${tsconfigModule}" compiles the .ts files to CommonJS while package.json has no "type": "module"`);
  }
  if (commonJsFiles.length > 0) {
    const names = commonJsFiles.slice(0, 3).map((report) => `${report.path} (${report.commonJs.join(', ')})`);
    evidence.push(`${names.join(', ')}${commonJsFiles.length > 3 ? ` and ${commonJsFiles.length - 3} more` : ''} use${commonJsFiles.length === 1 ? 's' : ''} CommonJS`);
  }
  const system: ModuleSystem = evidence.length > 0 ? 'commonjs' : 'unset';
  // In ESM, a relative import names its file; CommonJS (and tsc's CommonJS output) found it without the extension.
  const filesToEdit = reports.filter(
    (report) => report.commonJs.length > 0 || (report.extensionless.length > 0 && (system === 'commonjs' || isTypeScript(report.path))),
  );
  return { system, evidence, packageType, filesToEdit, hasSources };
}

/** Extensionless relative imports of the TypeScript sources: what a move to NodeNext resolution asks to change. */
export function filesNeedingExtensions(api: TypeScriptApi | undefined, root: string, skip: readonly string[]): SourceFileReport[] {
  if (!api) return [];
  return listSourceFiles(root, skip)
    .filter((path) => /\.[cm]?tsx?$/.test(path) && !path.endsWith('.d.ts'))
    .filter((path) => statSync(join(root, path)).size <= maxFileSize)
    .map((path) => inspectSourceFile(api, root, path, readFileSync(join(root, path), 'utf8')))
    .filter((report) => report.extensionless.length > 0);
}

const commonJsAdvice: Record<string, string> = {
  'require()': 'require() → import',
  'module.exports': 'module.exports → export',
  'exports.*': 'exports.x → export',
  __dirname: '__dirname → import.meta.dirname',
  __filename: '__filename → import.meta.filename',
  'import = require()': 'import x = require() → import',
  'export =': 'export = → export default',
};

/** One line per file: what to change in it (`app.js: require() → import; './routes' → './routes/index.js'`). */
export function describeFileEdits(files: readonly SourceFileReport[], limit = 20): string[] {
  const lines = files.slice(0, limit).map((file) => {
    const changes = [
      ...file.commonJs.map((construct) => commonJsAdvice[construct] ?? construct),
      ...file.extensionless.map(({ specifier, suggestion }) => `'${specifier}' → '${suggestion}'`),
    ];
    return `${file.path}: ${changes.join('; ')}`;
  });
  if (files.length > limit) lines.push(`… and ${files.length - limit} more files`);
  return lines;
}
