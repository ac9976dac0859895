import { existsSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import type ts from 'typescript';
import { listSourceFiles, readSourceText, scriptKindOf, sourceExtensions } from './files.js';
import type { TypeScriptApi } from '../typescript-api.js';

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
// tsc emits CommonJS for these `module` settings when package.json has no `"type": "module"`.
const commonJsEmitModules = new Set(['commonjs', 'amd', 'umd', 'system', 'node16', 'node18', 'node20', 'nodenext']);
const resolvedExtensions = [...sourceExtensions, '.json', '.node'];

function isTypeDependent(path: string): boolean {
  if (!posix.basename(path).includes('.')) return true;
  return !path.endsWith('.d.ts') && typeDependentExtensions.some((extension) => path.endsWith(extension));
}

/**
 * The source files whose module format matters (root-relative, "/" separators): the project's sources and its
 * extensionless Node scripts, leaving out `skip` (the auth module, the project's outDir, workspace packages below it).
 */
function moduleSourceFiles(root: string, skip: readonly string[] = []): string[] {
  return listSourceFiles(root, { skip, nodeScripts: true });
}

/** The specifier a relative import needs under Node's ESM resolution, by looking at what it points to. */
function suggestSpecifier(root: string, fromFile: string, specifier: string): string {
  const target = join(root, dirname(fromFile), specifier);
  for (const extension of sourceExtensions) {
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
  const source = api.createSourceFile(path, text, api.ScriptTarget.Latest, true, scriptKindOf(api, path));
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
  /** The TypeScript API, or how to load it: loaded only when there are sources to read. */
  api: TypeScriptApi | undefined | (() => TypeScriptApi | undefined);
}

/**
 * Whether the project is CommonJS today, and what would have to change for ESM. Only files whose format depends on
 * package.json `"type"` are listed; `.cjs`/`.mjs` files keep theirs.
 */
export function analyseModuleSystem(inputs: ModuleSystemInputs): ModuleSystemReport {
  const { root, tsconfigModule } = inputs;
  const packageType = typeof inputs.packageType === 'string' ? inputs.packageType : undefined;
  const sources = moduleSourceFiles(root, inputs.skip);
  const hasSources = sources.length > 0;
  if (packageType === 'module') return { system: 'esm', evidence: [], packageType, filesToEdit: [], hasSources };

  const reports: SourceFileReport[] = [];
  const typeDependent = sources.filter(isTypeDependent);
  const api = typeDependent.length === 0 ? undefined : typeof inputs.api === 'function' ? inputs.api() : inputs.api;
  if (api) {
    for (const path of typeDependent) {
      const text = readSourceText(root, path);
      if (text !== undefined) reports.push(inspectSourceFile(api, root, path, text));
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
  return moduleSourceFiles(root, skip)
    .filter((path) => /\.[cm]?tsx?$/.test(path) && !path.endsWith('.d.ts'))
    .flatMap((path) => {
      const text = readSourceText(root, path);
      return text === undefined ? [] : [inspectSourceFile(api, root, path, text)];
    })
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
