import { existsSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import type ts from 'typescript';
import { readSourceText, scriptKindOf, sourceExtensions } from './files.js';
import type { TypeScriptApi } from '../typescript-api.js';

/** Where the user's Express app is created: the file to mount the auth module in, and the app's name there. */
export interface AppFile {
  /** Root-relative path with "/" separators. */
  path: string;
  /** The variable holding `express()` (`app`, `server`, ...). */
  appName: string;
}

/** The file a relative specifier of `fromFile` points to, as Node or tsc would find it (`./app.js` → `src/app.ts`). */
function resolveRelative(root: string, fromFile: string, specifier: string): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(fromFile), specifier));
  const withoutJs = base.replace(/\.(m|c)?jsx?$/, '');
  const candidates = [
    base,
    ...sourceExtensions.map((extension) => `${withoutJs}${extension}`),
    ...sourceExtensions.map((extension) => `${base}${extension}`),
    ...sourceExtensions.map((extension) => `${base}/index${extension}`),
  ];
  return candidates.find((candidate) => !candidate.startsWith('..') && existsSync(join(root, candidate)) && statSync(join(root, candidate)).isFile());
}

interface FileFacts {
  /** The name that `express()` is assigned to, when the file creates an app. */
  appName: string | undefined;
  createsApp: boolean;
  relativeImports: string[];
}

/** Reads which local names are Express's default export, where `express()` is called, and the relative imports. */
function readFacts(api: TypeScriptApi, path: string, text: string): FileFacts {
  const source = api.createSourceFile(path, text, api.ScriptTarget.Latest, true, scriptKindOf(api, path));
  const expressNames = new Set<string>();
  const relativeImports: string[] = [];
  const isRequireOf = (node: ts.Node | undefined, module?: string): node is ts.CallExpression =>
    node !== undefined &&
    api.isCallExpression(node) &&
    api.isIdentifier(node.expression) &&
    node.expression.text === 'require' &&
    node.arguments.length === 1 &&
    node.arguments[0] !== undefined &&
    api.isStringLiteralLike(node.arguments[0]) &&
    (module === undefined || node.arguments[0].text === module);
  const addRelative = (node: ts.Node | undefined): void => {
    if (node && api.isStringLiteralLike(node) && node.text.startsWith('.')) relativeImports.push(node.text);
  };
  const collect = (node: ts.Node): void => {
    if (api.isImportDeclaration(node) && api.isStringLiteralLike(node.moduleSpecifier)) {
      addRelative(node.moduleSpecifier);
      const clause = node.importClause;
      if (node.moduleSpecifier.text === 'express' && clause && !clause.isTypeOnly) {
        if (clause.name) expressNames.add(clause.name.text);
        const bindings = clause.namedBindings;
        if (bindings && api.isNamedImports(bindings)) {
          for (const element of bindings.elements) if ((element.propertyName ?? element.name).text === 'default') expressNames.add(element.name.text);
        }
      }
    } else if (api.isExportDeclaration(node)) {
      addRelative(node.moduleSpecifier);
    } else if (api.isImportEqualsDeclaration(node) && api.isExternalModuleReference(node.moduleReference)) {
      const specifier = node.moduleReference.expression;
      addRelative(specifier);
      if (api.isStringLiteralLike(specifier) && specifier.text === 'express') expressNames.add(node.name.text);
    } else if (api.isVariableDeclaration(node) && api.isIdentifier(node.name) && isRequireOf(node.initializer, 'express')) {
      expressNames.add(node.name.text);
    } else if (isRequireOf(node)) {
      addRelative(node.arguments[0]);
    } else if (api.isCallExpression(node) && node.expression.kind === api.SyntaxKind.ImportKeyword) {
      addRelative(node.arguments[0]);
    }
    api.forEachChild(node, collect);
  };
  collect(source);

  let appName: string | undefined;
  let createsApp = false;
  const isExpressCall = (node: ts.Node): boolean =>
    api.isCallExpression(node) && api.isIdentifier(node.expression) && expressNames.has(node.expression.text) && node.arguments.length === 0;
  const find = (node: ts.Node): void => {
    if (isExpressCall(node)) {
      createsApp = true;
      const parent = node.parent;
      if (appName === undefined && api.isVariableDeclaration(parent) && api.isIdentifier(parent.name)) appName = parent.name.text;
      if (appName === undefined && api.isBinaryExpression(parent) && parent.operatorToken.kind === api.SyntaxKind.EqualsToken && api.isIdentifier(parent.left)) {
        appName = parent.left.text;
      }
    }
    api.forEachChild(node, find);
  };
  if (expressNames.size > 0) find(source);
  return { appName, createsApp, relativeImports };
}

/**
 * The file that creates the Express app, starting at the server entry and following its relative imports (an
 * `src/index.ts` that imports `./app.js` and listens: the app is made in `src/app.ts`). Undefined when no file
 * within a few imports of the entry calls `express()`.
 */
export function findAppFile(api: TypeScriptApi | undefined, root: string, entry: string): AppFile | undefined {
  if (!api) return undefined;
  const seen = new Set<string>();
  let level = [entry];
  for (let depth = 0; depth < 4 && level.length > 0; depth += 1) {
    const next: string[] = [];
    for (const path of level) {
      if (seen.has(path)) continue;
      seen.add(path);
      const text = readSourceText(root, path);
      if (text === undefined) continue;
      const facts = readFacts(api, path, text);
      if (facts.createsApp) return { path, appName: facts.appName ?? 'app' };
      for (const specifier of facts.relativeImports) {
        const resolved = resolveRelative(root, path, specifier);
        if (resolved !== undefined && !resolved.includes('node_modules/')) next.push(resolved);
      }
    }
    level = next;
  }
  return undefined;
}
