/**
 * The language and module system the auth module is written in: TypeScript (ESM, compiled or run by tsx with the
 * project), or JavaScript as the project runs it, ES modules or CommonJS, with declarations beside it (SPEC §12).
 */
export const codeFormats = ['typescript', 'javascript-esm', 'javascript-commonjs'] as const;

/** One of {@link codeFormats}. */
export type CodeFormat = (typeof codeFormats)[number];

/** Whether the auth module is JavaScript. */
export function isJavaScript(code: CodeFormat): code is 'javascript-esm' | 'javascript-commonjs' {
  return code !== 'typescript';
}

/** The extension of the auth module's source files in this format. */
export function sourceExtension(code: CodeFormat): '.ts' | '.js' {
  return isJavaScript(code) ? '.js' : '.ts';
}

/** The path of one of the auth module's files in this format: `config.ts` → `config.js` in a JavaScript project. */
export function inCodeFormat(path: string, code: CodeFormat): string {
  return isJavaScript(code) ? path.replace(/\.ts$/, '.js') : path;
}
