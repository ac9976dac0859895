import type ts from 'typescript';
import type { TypeScriptApi } from '../typescript-api.js';
import { toCommonJs } from './commonjs.js';
import { stripTypes } from './strip-types.js';

/**
 * The type of each exported `const x: T = …` written into its JSDoc as `@type {import('m').T}`, T's names taken from
 * the `import type` they come from: the JavaScript then checks `authConfig` against `FrameworkAuthConfig` in an
 * editor, as the TypeScript does.
 */
function withJsDocTypes(api: TypeScriptApi, path: string, source: string): string {
  const sourceFile = api.createSourceFile(path, source, api.ScriptTarget.Latest, true, api.ScriptKind.TS);
  const typeModules = new Map<string, string>();
  for (const statement of sourceFile.statements) {
    if (!api.isImportDeclaration(statement) || !statement.importClause?.namedBindings || !api.isNamedImports(statement.importClause.namedBindings)) continue;
    for (const element of statement.importClause.namedBindings.elements) {
      if (statement.importClause.isTypeOnly || element.isTypeOnly) typeModules.set(element.name.text, (statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  const inserts: { position: number; text: string }[] = [];
  for (const statement of sourceFile.statements) {
    if (!api.isVariableStatement(statement) || !(api.getModifiers(statement) ?? []).some((modifier) => modifier.kind === api.SyntaxKind.ExportKeyword)) continue;
    const declaration = statement.declarationList.declarations[0];
    if (!declaration?.type || statement.declarationList.declarations.length !== 1) continue;
    const type = declaration.type.getText(sourceFile).replace(/\b[A-Za-z_$][\w$]*\b/g, (name) => {
      const module = typeModules.get(name);
      return module === undefined ? name : `import('${module}').${name}`;
    });
    const jsDoc = (statement as unknown as { jsDoc?: ts.JSDoc[] }).jsDoc?.at(-1);
    if (jsDoc) {
      const close = source.lastIndexOf('*/', jsDoc.end);
      const oneLine = !source.slice(jsDoc.pos, jsDoc.end).includes('\n');
      inserts.push({ position: close, text: `${oneLine ? '\n' : ''} * @type {${type}}\n ` });
    } else {
      inserts.push({ position: statement.getStart(sourceFile), text: `/** @type {${type}} */\n` });
    }
  }
  let result = source;
  for (const { position, text } of inserts.sort((a, b) => b.position - a.position)) {
    // A one-line `/** text */` becomes a block: its text, then the tag.
    const before = result.slice(0, position).replace(/ $/, '');
    result = before + text + result.slice(position);
  }
  return result;
}

/**
 * One of the auth module's own files (config, index, env), rendered as TypeScript, in a JavaScript project's format:
 * `<name>.js` (ES module or CommonJS) and `<name>.d.ts` (its declarations, as `tsc --declaration` would write them).
 */
export function projectFileAsJavaScript(api: TypeScriptApi, path: string, source: string, module: 'esm' | 'commonjs'): Map<string, string> {
  const esm = stripTypes(api, path, withJsDocTypes(api, path, source));
  const files = new Map<string, string>([[path.replace(/\.ts$/, '.js'), module === 'esm' ? esm : commonJsWithHeader(api, path, esm)]]);
  const declaration = api.transpileDeclaration(source, { fileName: path, compilerOptions: { module: api.ModuleKind.ESNext, target: api.ScriptTarget.ES2022 } }).outputText;
  files.set(path.replace(/\.ts$/, '.d.ts'), declaration);
  return files;
}

/** The CommonJS form, its `'use strict'` after the file's first line (the header that says who wrote it). */
function commonJsWithHeader(api: TypeScriptApi, path: string, esm: string): string {
  const header = /^\/\/.*\n/.exec(esm)?.[0] ?? '';
  return header + toCommonJs(api, path, esm.slice(header.length));
}
