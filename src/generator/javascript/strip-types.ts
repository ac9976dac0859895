import type ts from 'typescript';
import type { TypeScriptApi } from '../typescript-api.js';

/** A range of the source to replace: [start, end) by `text`. */
interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * TypeScript that is more than types to erase (an enum, a namespace, a parameter property), which `erasableSyntaxOnly`
 * in tsconfig.strictest.json keeps out of the runtime.
 */
export class UnsupportedSyntax extends Error {}

function lineStartOf(text: string, position: number): number {
  return text.lastIndexOf('\n', position - 1) + 1;
}

function lineEndOf(text: string, position: number): number {
  const end = text.indexOf('\n', position);
  return end === -1 ? text.length : end;
}

/**
 * The JavaScript of a TypeScript file as its author wrote it: the types are cut out and everything else (comments,
 * blank lines, indentation, quotes, the order of statements) stays as it is, so that the JavaScript reads like the
 * TypeScript it comes from. Statements that are types only (`import type`, `interface`, `type`, `declare`) go with
 * the comments right above them. Imports stay as written: the sources mark type-only imports (`verbatimModuleSyntax`),
 * so every other import is a value import. Throws {@link UnsupportedSyntax} for TypeScript that has runtime semantics
 * of its own (enums, namespaces, parameter properties), which the runtime does not use.
 */
export function stripTypes(api: TypeScriptApi, path: string, source: string): string {
  const sourceFile = api.createSourceFile(path, source, api.ScriptTarget.Latest, true, api.ScriptKind.TS);
  const text = sourceFile.text;
  const edits: TextEdit[] = [];
  const unsupported = (node: ts.Node, what: string): never => {
    const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
    throw new UnsupportedSyntax(`${path}:${line + 1}: ${what} has no JavaScript of its own; write it without TypeScript-only syntax`);
  };
  const remove = (start: number, end: number): void => {
    edits.push({ start, end, text: '' });
  };
  const removed = (node: ts.Node): boolean => {
    const start = node.getStart(sourceFile);
    return edits.some((edit) => edit.start <= start && node.end <= edit.end && edit.text === '');
  };

  /**
   * A whole statement or member: its lines, and the comments right above it (not one separated by a blank line, not
   * the file's own at its top, and never above an import or export, which describe the file).
   */
  const removeStatement = (node: ts.Node): void => {
    let start = node.getStart(sourceFile);
    const describesFile = api.isImportDeclaration(node) || api.isExportDeclaration(node);
    const comments = describesFile ? [] : (api.getLeadingCommentRanges(text, node.pos) ?? []);
    for (let index = comments.length - 1; index >= 0; index -= 1) {
      const comment = comments[index]!;
      if (text.slice(0, comment.pos).trim() === '' || text.slice(0, comment.pos).startsWith('#!')) break;
      const between = text.slice(comment.end, start);
      if ((between.match(/\n/g) ?? []).length > 1) break;
      start = comment.pos;
    }
    const lineStart = lineStartOf(text, start);
    if (text.slice(lineStart, start).trim() === '') start = lineStart;
    let end = node.end;
    const lineEnd = lineEndOf(text, end);
    // A comment after it on its line goes with it.
    if (/^\s*(\/\/.*)?$/.test(text.slice(end, lineEnd)) || /^\s*\/\*.*\*\/\s*$/.test(text.slice(end, lineEnd))) end = Math.min(lineEnd + 1, text.length);
    // Where it stood between two blank lines, one of them goes too.
    if (start === lineStartOf(text, start) && (start === 0 || text.slice(lineStartOf(text, start - 1), start).trim() === '') && text[end] === '\n') end += 1;
    remove(start, end);
  };

  /** `: Type` after a name, a parameter list or a `?`. */
  const removeAnnotation = (type: ts.TypeNode): void => {
    let colon = type.getStart(sourceFile) - 1;
    while (colon >= 0 && /\s/.test(text[colon]!)) colon -= 1;
    if (text[colon] !== ':') unsupported(type, 'a type annotation without its colon');
    remove(colon, type.end);
  };
  /** `<...>` of type parameters or type arguments. */
  const removeAngleList = (list: ts.NodeArray<ts.Node>): void => {
    let open = list.pos - 1;
    while (open >= 0 && text[open] !== '<') open -= 1;
    const close = text.indexOf('>', list.end);
    remove(open, close + 1);
  };
  /** A modifier keyword and the space after it. */
  const removeModifier = (modifier: ts.Node): void => {
    let end = modifier.end;
    while (/[ \t]/.test(text[end] ?? '')) end += 1;
    remove(modifier.getStart(sourceFile), end);
  };
  /** The elements of a list (import or export specifiers, parameters) that `drop` picks, with their commas. */
  const removeListElements = (list: ts.NodeArray<ts.Node>, drop: (element: ts.Node) => boolean): void => {
    const elements = [...list];
    let lastKept = -1;
    elements.forEach((element, index) => {
      if (!drop(element)) lastKept = index;
    });
    elements.forEach((element, index) => {
      if (!drop(element) || index > lastKept) return;
      remove(element.getStart(sourceFile), elements[index + 1]!.getStart(sourceFile));
    });
    // The run after the last element kept goes from the end of that element (its comma included).
    if (lastKept < elements.length - 1) {
      const from = lastKept === -1 ? elements[0]!.getStart(sourceFile) : elements[lastKept]!.end;
      remove(from, elements[elements.length - 1]!.end);
    }
  };

  const typeOnlyModifiers = new Set([
    api.SyntaxKind.PublicKeyword,
    api.SyntaxKind.PrivateKeyword,
    api.SyntaxKind.ProtectedKeyword,
    api.SyntaxKind.ReadonlyKeyword,
    api.SyntaxKind.OverrideKeyword,
    api.SyntaxKind.AbstractKeyword,
  ]);
  const hasModifier = (node: ts.Node, kind: ts.SyntaxKind): boolean => (api.canHaveModifiers(node) ? (api.getModifiers(node) ?? []).some((modifier) => modifier.kind === kind) : false);

  const visit = (node: ts.Node): void => {
    if (removed(node)) return;
    if (api.isInterfaceDeclaration(node) || api.isTypeAliasDeclaration(node)) return removeStatement(node);
    if (api.isEnumDeclaration(node)) return unsupported(node, 'an enum');
    if (api.isModuleDeclaration(node)) {
      if (hasModifier(node, api.SyntaxKind.DeclareKeyword) || (node.flags & api.NodeFlags.GlobalAugmentation) !== 0) return removeStatement(node);
      return unsupported(node, 'a namespace');
    }
    if (api.isImportEqualsDeclaration(node)) return node.isTypeOnly ? removeStatement(node) : unsupported(node, '`import = require()`');
    if (api.isExportAssignment(node) && node.isExportEquals) return unsupported(node, '`export =`');
    if (hasModifier(node, api.SyntaxKind.DeclareKeyword)) return removeStatement(node);
    if ((api.isFunctionDeclaration(node) || api.isMethodDeclaration(node) || api.isConstructorDeclaration(node)) && node.body === undefined) return removeStatement(node);
    if (api.isIndexSignatureDeclaration(node)) return removeStatement(node);
    if (api.isPropertyDeclaration(node) && hasModifier(node, api.SyntaxKind.AbstractKeyword)) return removeStatement(node);

    if (api.isImportDeclaration(node)) {
      const clause = node.importClause;
      if (clause?.isTypeOnly) return removeStatement(node);
      const bindings = clause?.namedBindings;
      if (clause && bindings && api.isNamedImports(bindings)) {
        const values = bindings.elements.filter((element) => !element.isTypeOnly);
        if (values.length === 0 && !clause.name) return removeStatement(node);
        if (values.length === 0) remove(clause.name!.end, bindings.end);
        else removeListElements(bindings.elements, (element) => (element as ts.ImportSpecifier).isTypeOnly);
      }
      return;
    }
    if (api.isExportDeclaration(node)) {
      if (node.isTypeOnly) return removeStatement(node);
      const clause = node.exportClause;
      if (clause && api.isNamedExports(clause)) {
        const values = clause.elements.filter((element) => !element.isTypeOnly);
        if (values.length === 0) return removeStatement(node);
        removeListElements(clause.elements, (element) => (element as ts.ExportSpecifier).isTypeOnly);
      }
      return;
    }

    if (api.canHaveModifiers(node)) {
      for (const modifier of api.getModifiers(node) ?? []) if (typeOnlyModifiers.has(modifier.kind)) removeModifier(modifier);
    }
    if (api.isParameter(node)) {
      if (api.isIdentifier(node.name) && node.name.text === 'this') {
        const parent = node.parent as ts.SignatureDeclaration;
        return removeListElements(parent.parameters, (element) => element === node);
      }
      if (api.isConstructorDeclaration(node.parent) && (api.getModifiers(node) ?? []).some((modifier) => typeOnlyModifiers.has(modifier.kind))) {
        return unsupported(node, 'a parameter property');
      }
      if (node.questionToken) remove(node.questionToken.getStart(sourceFile), node.questionToken.end);
    }
    if ((api.isPropertyDeclaration(node) || api.isMethodDeclaration(node)) && node.questionToken) remove(node.questionToken.getStart(sourceFile), node.questionToken.end);
    if ((api.isPropertyDeclaration(node) || api.isVariableDeclaration(node)) && node.exclamationToken) remove(node.exclamationToken.getStart(sourceFile), node.exclamationToken.end);
    if ((api.isParameter(node) || api.isVariableDeclaration(node) || api.isPropertyDeclaration(node) || api.isFunctionLike(node)) && node.type) removeAnnotation(node.type);
    if ((api.isFunctionLike(node) || api.isClassLike(node)) && node.typeParameters) removeAngleList(node.typeParameters);
    if ((api.isCallExpression(node) || api.isNewExpression(node) || api.isExpressionWithTypeArguments(node) || api.isTaggedTemplateExpression(node)) && node.typeArguments) {
      removeAngleList(node.typeArguments);
    }
    if (api.isClassLike(node)) {
      for (const clause of node.heritageClauses ?? []) if (clause.token === api.SyntaxKind.ImplementsKeyword) remove(clause.pos, clause.end);
    }
    if (api.isAsExpression(node) || api.isSatisfiesExpression(node) || api.isNonNullExpression(node)) remove(node.expression.end, node.end);
    if (api.isTypeAssertionExpression(node)) remove(node.getStart(sourceFile), node.expression.getStart(sourceFile));
    if (api.isTypeNode(node) && !api.isExpressionWithTypeArguments(node)) return;
    api.forEachChild(node, visit);
  };
  api.forEachChild(sourceFile, visit);

  // An edit inside another (a modifier of a member whose statement goes) is gone with it.
  const kept = edits.filter((edit, index) => !edits.some((other, otherIndex) => otherIndex !== index && other.start <= edit.start && edit.end <= other.end && (other.start < edit.start || other.end > edit.end || otherIndex < index)));
  let result = text;
  let lowest = Number.POSITIVE_INFINITY;
  for (const edit of kept.sort((a, b) => b.start - a.start)) {
    if (edit.end > lowest) throw new Error(`${path}: overlapping edits at ${edit.start}..${edit.end}`);
    result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
    lowest = edit.start;
  }
  return result;
}
