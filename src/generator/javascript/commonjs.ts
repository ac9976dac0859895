import type ts from 'typescript';
import type { TypeScriptApi } from '../typescript-api.js';
import { UnsupportedSyntax } from './strip-types.js';

interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * The CommonJS form of an ES module written in JavaScript (what {@link stripTypes} gives), statement for statement,
 * so that it reads as the module does:
 * - `import { a, b as c } from 'm'` → `const { a, b: c } = require('m');`, `import * as m from 'm'` → `const m =
 *   require('m');`, `import 'm'` → `require('m');`
 * - `import X from './x.js'` → `const X = require('./x.js').default;` (a module of the auth module exports its default
 *   as `default`), `import X from 'package'` → `const X = require('package');` (a CommonJS package's export is its
 *   default)
 * - `export function f`, `export const x`, `export class C` lose `export`; `export { a }` and `export { a } from 'm'`
 *   become a `const` of what is re-exported, and `module.exports = { … }` at the end lists every export. An exported
 *   `let` or `var` is refused: `module.exports` would keep its value at load time, not later assignments.
 * `'use strict';` keeps the module's semantics (ES modules are strict). Dynamic `import()` stays: CommonJS has it
 * too. Binding at load time is right for the auth module, whose value imports have no cycle.
 */
export function toCommonJs(api: TypeScriptApi, path: string, source: string): string {
  const sourceFile = api.createSourceFile(path, source, api.ScriptTarget.Latest, true, api.ScriptKind.JS);
  const text = sourceFile.text;
  const edits: TextEdit[] = [];
  const exported: string[] = [];
  const unsupported = (node: ts.Node, what: string): never => {
    const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
    throw new UnsupportedSyntax(`${path}:${line + 1}: ${what} has no CommonJS form here`);
  };
  const quote = (specifier: ts.Expression): string => specifier.getText(sourceFile);
  const isRelative = (specifier: ts.StringLiteral): boolean => specifier.text.startsWith('.');
  const replace = (node: ts.Node, replacement: string): void => {
    edits.push({ start: node.getStart(sourceFile), end: node.end, text: replacement });
  };
  const semicolon = (node: ts.Node): string => (node.getText(sourceFile).trimEnd().endsWith(';') ? ';' : '');
  /** `{ a, b as c }` of an import or export as a destructuring pattern, `{ a, b: c }`, laid out as it was. */
  const pattern = (bindings: ts.NamedImports | ts.NamedExports, keep: (name: string) => boolean = () => true): string => {
    const elements = [...bindings.elements].filter((element) => keep(element.name.text));
    if (elements.length === bindings.elements.length) return bindings.getText(sourceFile).replace(/\b([\w$]+)\s+as\s+([\w$]+)\b/g, '$1: $2');
    return `{ ${elements.map((element) => (element.propertyName ? `${element.propertyName.text}: ${element.name.text}` : element.name.text)).join(', ')} }`;
  };
  // Names a top-level `let` or `var` binds: `module.exports` would hold their value at load time, not later ones.
  const reassignable = new Set(
    sourceFile.statements.flatMap((statement) =>
      api.isVariableStatement(statement) && (statement.declarationList.flags & api.NodeFlags.Const) === 0
        ? statement.declarationList.declarations.flatMap((declaration) => (api.isIdentifier(declaration.name) ? [declaration.name.text] : []))
        : [],
    ),
  );
  // Names bound at the top by an import, and the module each comes from.
  const imported = new Map<string, string>();
  for (const statement of sourceFile.statements) {
    if (!api.isImportDeclaration(statement) || !statement.importClause) continue;
    const from = (statement.moduleSpecifier as ts.StringLiteral).text;
    const { name, namedBindings } = statement.importClause;
    if (name) imported.set(name.text, from);
    if (namedBindings && api.isNamespaceImport(namedBindings)) imported.set(namedBindings.name.text, from);
    else if (namedBindings) for (const element of namedBindings.elements) imported.set(element.name.text, from);
  }

  for (const statement of sourceFile.statements) {
    if (api.isImportDeclaration(statement)) {
      const specifier = statement.moduleSpecifier as ts.StringLiteral;
      const required = `require(${quote(specifier)})`;
      const clause = statement.importClause;
      const end = semicolon(statement);
      if (!clause) {
        replace(statement, `${required}${end}`);
        continue;
      }
      const lines: string[] = [];
      if (clause.name) lines.push(`const ${clause.name.text} = ${required}${isRelative(specifier) ? '.default' : ''}${end || ';'}`);
      const bindings = clause.namedBindings;
      if (bindings && api.isNamespaceImport(bindings)) lines.push(`const ${bindings.name.text} = ${required}${end || ';'}`);
      else if (bindings) {
        if (bindings.elements.some((element) => (element.propertyName ?? element.name).text === 'default')) unsupported(statement, 'importing `default` by name');
        if (bindings.elements.length > 0) lines.push(`const ${pattern(bindings)} = ${required}${end || ';'}`);
      }
      replace(statement, lines.join('\n'));
      continue;
    }
    if (api.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (!clause || !api.isNamedExports(clause)) unsupported(statement, '`export *`');
      const named = clause as ts.NamedExports;
      const elements = named.elements.map((element) => ({ name: element.name.text, property: (element.propertyName ?? element.name).text }));
      if (statement.moduleSpecifier) {
        // `export { a } from 'm'` binds `a` here too, as the exports list below needs (unless an import did).
        const from = (statement.moduleSpecifier as ts.StringLiteral).text;
        for (const { name } of elements) if (imported.has(name) && imported.get(name) !== from) unsupported(statement, `re-exporting ${name}, imported from another module,`);
        const unbound = (name: string): boolean => !imported.has(name);
        if (elements.some(({ name }) => unbound(name))) replace(statement, `const ${pattern(named, unbound)} = require(${quote(statement.moduleSpecifier)})${semicolon(statement) || ';'}`);
        else replace(statement, '');
        exported.push(...elements.map(({ name }) => name));
      } else {
        for (const { name, property } of elements) {
          if (reassignable.has(property)) unsupported(statement, `exporting \`${property}\`, a \`let\` or \`var\`,`);
          exported.push(name === property ? name : `${name}: ${property}`);
        }
        const lineStart = text.lastIndexOf('\n', statement.getStart(sourceFile) - 1) + 1;
        const lineEnd = text.indexOf('\n', statement.end);
        edits.push({ start: lineStart, end: lineEnd === -1 ? text.length : lineEnd + 1, text: '' });
      }
      continue;
    }
    if (api.isExportAssignment(statement)) {
      // `export default <expression>;`
      edits.push({ start: statement.getStart(sourceFile), end: statement.expression.getStart(sourceFile), text: 'const defaultExport = ' });
      exported.push('default: defaultExport');
      continue;
    }
    const modifiers = api.canHaveModifiers(statement) ? (api.getModifiers(statement) ?? []) : [];
    const exportKeyword = modifiers.find((modifier) => modifier.kind === api.SyntaxKind.ExportKeyword);
    if (!exportKeyword) continue;
    const defaultKeyword = modifiers.find((modifier) => modifier.kind === api.SyntaxKind.DefaultKeyword);
    const last = defaultKeyword ?? exportKeyword;
    let end = last.end;
    while (text[end] === ' ') end += 1;
    edits.push({ start: exportKeyword.getStart(sourceFile), end, text: '' });
    if (api.isVariableStatement(statement)) {
      if ((statement.declarationList.flags & api.NodeFlags.Const) === 0) unsupported(statement, 'an exported `let` or `var`');
      for (const declaration of statement.declarationList.declarations) {
        if (!api.isIdentifier(declaration.name)) unsupported(declaration, 'an exported destructuring');
        exported.push((declaration.name as ts.Identifier).text);
      }
    } else if ((api.isFunctionDeclaration(statement) || api.isClassDeclaration(statement)) && statement.name) {
      exported.push(defaultKeyword ? `default: ${statement.name.text}` : statement.name.text);
    } else {
      unsupported(statement, 'this export');
    }
  }

  let result = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  const oneLine = `module.exports = { ${exported.join(', ')} };`;
  const exportsLine = exported.length === 0 ? '' : `\n${oneLine.length <= 120 ? oneLine : `module.exports = {\n${exported.map((name) => `  ${name},\n`).join('')}};`}\n`;
  return `'use strict';\n${result.replace(/\n*$/, '\n')}${exportsLine}`;
}
