// Issue 47: every runtime file as stripTypes writes it for a JavaScript project is the code TypeScript itself emits,
// compared as syntax trees (comments, blank lines, semicolons, commas between list items and parentheses are layout).
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { stripTypes } from '../../src/generator/javascript/strip-types.js';
import { packageTemplateDirs } from '../../src/generator/paths.js';
import { readTemplates } from '../../src/generator/release.js';

const compilerOptions: ts.CompilerOptions = { target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true };

/**
 * The syntax tree of a JavaScript module written out node by node, every token included, without layout: comments,
 * a semicolon that ends its node, the commas between list items (a trailing one too). A parenthesized expression is
 * its expression, the tree holds the grouping (TypeScript drops the parentheses of `(value as T).name`, stripTypes
 * keeps them).
 */
function syntax(path: string, code: string): string {
  const file = ts.createSourceFile(path, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const words: string[] = [];
  const write = (node: ts.Node, parent: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    if (ts.isParenthesizedExpression(node)) return write(node.expression, parent);
    const children = node.getChildren(file);
    if (node.kind === ts.SyntaxKind.SyntaxList) {
      for (const child of children) if (child.kind !== ts.SyntaxKind.CommaToken) write(child, node);
      return;
    }
    if (node.kind === ts.SyntaxKind.EndOfFileToken || (node.kind === ts.SyntaxKind.SemicolonToken && node.end === parent.end)) return;
    if (children.length === 0) {
      words.push(ts.isStringLiteral(node) ? JSON.stringify(node.text) : node.getText(file));
      return;
    }
    words.push(`${ts.SyntaxKind[node.kind]}(`);
    for (const child of children) write(child, node);
    words.push(')');
  };
  write(file, file);
  return words.join(' ');
}

/** Where two trees part, with some of what comes before and after, for the failure message. */
function firstDifference(ours: string, theirs: string): { ours: string; theirs: string } {
  let index = 0;
  while (index < ours.length && ours[index] === theirs[index]) index += 1;
  const around = (text: string): string => text.slice(Math.max(0, index - 150), index + 150);
  return { ours: around(ours), theirs: around(theirs) };
}

describe('the runtime as JavaScript', () => {
  it('strips every runtime file to the code TypeScript emits for it', () => {
    const runtime = [...readTemplates(packageTemplateDirs).runtime].filter(([path]) => path.endsWith('.ts'));
    expect(runtime.length).toBeGreaterThan(100);
    const differences: Record<string, { ours: string; theirs: string }> = {};
    for (const [path, source] of runtime) {
      const ours = syntax(path, stripTypes(ts, path, source));
      let theirs = syntax(path, ts.transpileModule(source, { fileName: path, compilerOptions }).outputText);
      // A file of types only: TypeScript adds `export {}` so that it stays a module when run as a script; ours is a
      // module by its package's "type" (or CommonJS, where an empty file is an empty module).
      if (ours === 'SourceFile( )' && theirs === 'SourceFile( ExportDeclaration( export NamedExports( { } ) ) )') theirs = ours;
      if (ours !== theirs) differences[path] = firstDifference(ours, theirs);
    }
    expect(differences).toEqual({});
  });
});
