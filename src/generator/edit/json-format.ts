import { applyEdits, findNodeAtLocation, modify, parseTree } from 'jsonc-parser';
import type { FormattingOptions } from 'jsonc-parser';

/** The indentation and line ending a JSON(C) file already uses, so that edits blend in. */
export function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /^([ \t]+)\S/m.exec(text);
  const indent = indented?.[1] ?? '  ';
  if (indent.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent.length, eol };
}

/**
 * An insertion index that keeps alphabetical order when the existing keys are sorted (as npm writes
 * dependencies), and appends otherwise.
 */
export function sortedInsertionIndex(key: string): (existingKeys: string[]) => number {
  return (existingKeys) => {
    const sorted = existingKeys.every((existing, index) => index === 0 || (existingKeys[index - 1] ?? '') <= existing);
    if (!sorted) return existingKeys.length;
    const index = existingKeys.findIndex((existing) => existing > key);
    return index === -1 ? existingKeys.length : index;
  };
}

/**
 * Sets a primitive property of a JSONC object in place. A new property goes after the object's last one, on its
 * own line with that line's indentation, so that the rest of the object (one-line arrays, comments after commas)
 * is not reformatted as jsonc-parser's own insertion would do; existing values are replaced where they stand.
 */
export function setJsoncPrimitive(text: string, path: string[], value: string | number | boolean, formattingOptions: FormattingOptions): string {
  const tree = parseTree(text);
  const parent = tree ? findNodeAtLocation(tree, path.slice(0, -1)) : undefined;
  const exists = tree ? findNodeAtLocation(tree, path) !== undefined : false;
  const last = parent?.type === 'object' ? parent.children?.at(-1) : undefined;
  const lineStart = (offset: number): number => text.lastIndexOf('\n', offset - 1) + 1;
  if (exists || !parent || !last || lineStart(last.offset) === lineStart(parent.offset)) {
    return applyEdits(text, modify(text, path, value, { formattingOptions }));
  }
  const indent = /^[ \t]*/.exec(text.slice(lineStart(last.offset)))?.[0] ?? '';
  const end = last.offset + last.length;
  const comma = /^[ \t]*,/.exec(text.slice(end));
  const afterComma = comma ? end + comma[0].length : end;
  const newline = text.indexOf('\n', afterComma);
  const closing = parent.offset + parent.length - 1;
  // Insert at the end of the last property's line so that a comment after it stays on its line.
  let position = newline === -1 || newline > closing ? closing : newline;
  if (position === newline && text[position - 1] === '\r') position -= 1;
  const property = `${formattingOptions.eol ?? '\n'}${indent}${JSON.stringify(path.at(-1))}: ${JSON.stringify(value)}${comma ? ',' : ''}`;
  const withProperty = text.slice(0, position) + property + text.slice(position);
  return comma ? withProperty : `${withProperty.slice(0, end)},${withProperty.slice(end)}`;
}
