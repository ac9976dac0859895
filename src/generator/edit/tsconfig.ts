import { findNodeAtLocation, parse, parseTree } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { detectFormatting, setJsoncPrimitive } from './json-format.js';

/** The merged tsconfig text and one line per change, for the plan. */
export interface TsconfigMerge {
  content: string;
  changes: string[];
}

interface CompilerOptionsShape {
  module?: unknown;
  moduleResolution?: unknown;
  strict?: unknown;
  outDir?: unknown;
  target?: unknown;
  types?: unknown;
}

// Targets too old for the runtime (private fields, top-level await, Error cause).
const tooOldTargets = new Set(['es3', 'es5', 'es6', 'es2015', 'es2016', 'es2017', 'es2018', 'es2019', 'es2020', 'es2021']);

// `module` values under which tsc refuses a CommonJS file's import of an ES module (TS1479); NodeNext and Node20 allow it.
const requireEsmRefusingModules = new Set(['node16', 'node18']);

// `module` values that emit ES modules and pair with `moduleResolution: Bundler` (the seed's "ESNext" setup).
const bundlerModules = new Set(['esnext', 'es2020', 'es2022', 'preserve']);

/**
 * Whether `module`/`moduleResolution` (any case) compile the generated ESM code as they are: NodeNext or Node16, or an
 * ES module target with Bundler resolution (which reads the `.js` import suffixes too). The one rule the merge and
 * `doctor` share.
 */
export function compilesGeneratedModules(module: string | undefined, moduleResolution: string | undefined): boolean {
  const moduleName = module?.toLowerCase() ?? '';
  const resolution = moduleResolution?.toLowerCase();
  if (moduleName === 'nodenext' || moduleName === 'node16') return resolution === undefined || resolution === moduleName || resolution === 'nodenext' || resolution === 'node16';
  return bundlerModules.has(moduleName) && resolution === 'bundler';
}

/** Options a base config (`extends`) already sets, so that the project's own file need not repeat them. */
export interface InheritedCompilerOptions {
  module?: string;
  moduleResolution?: string;
  strict?: boolean;
  outDir?: string;
}

/** Options of {@link mergeTsconfig}. */
export interface TsconfigMergeOptions {
  /**
   * Keep `module` and `moduleResolution` as they are: TypeScript compiled to CommonJS, where the generated code
   * compiles under the project's own settings (issue 36). Node16 and Node18 alone become NodeNext: only NodeNext
   * (and Node20) let a CommonJS file import an ES module such as jose, as Node's require(esm) does.
   * @default false
   */
  keepModule?: boolean;
}

/**
 * Makes an existing tsconfig compile the generated ESM code: `module`/`moduleResolution` NodeNext (an ES module
 * target with Bundler resolution, or a CommonJS project with `keepModule`, is kept as it is), `strict` on, `outDir`
 * set. Edits in place with a JSONC editor so comments, order and every other option survive. What the file inherits
 * through `extends` counts as set.
 */
export function mergeTsconfig(text: string, inherited: InheritedCompilerOptions = {}, mergeOptions: TsconfigMergeOptions = {}): TsconfigMerge {
  const errors: ParseError[] = [];
  const current = parse(text, errors, { allowTrailingComma: true, disallowComments: false }) as
    | { compilerOptions?: CompilerOptionsShape }
    | undefined;
  if (errors.length > 0 || current === undefined || typeof current !== 'object' || Array.isArray(current)) {
    throw new SyntaxError('tsconfig.json is not valid JSONC');
  }
  const options: CompilerOptionsShape = { ...inherited, ...current.compilerOptions };
  const formattingOptions = detectFormatting(text);
  let content = text;
  const changes: string[] = [];
  const set = (key: string, value: string | boolean, why: string): void => {
    content = setJsoncPrimitive(content, ['compilerOptions', key], value, formattingOptions);
    changes.push(why);
  };
  const lower = (value: unknown): string => (typeof value === 'string' ? value.toLowerCase() : '');

  const keepsModules = mergeOptions.keepModule === true || (bundlerModules.has(lower(options.module)) && compilesGeneratedModules(lower(options.module), lower(options.moduleResolution)));
  if (mergeOptions.keepModule === true && requireEsmRefusingModules.has(lower(options.module))) {
    const why = 'lets the CommonJS output require() jose and oauth4webapi, ES modules';
    set('module', 'NodeNext', `compilerOptions.module ${String(options.module)} → "NodeNext" (${why})`);
    if (requireEsmRefusingModules.has(lower(options.moduleResolution))) set('moduleResolution', 'NodeNext', `compilerOptions.moduleResolution → "NodeNext"`);
  }
  if (!keepsModules) {
    if (lower(options.module) !== 'nodenext') set('module', 'NodeNext', `compilerOptions.module → "NodeNext"`);
    if (lower(options.moduleResolution) !== 'nodenext') {
      set('moduleResolution', 'NodeNext', `compilerOptions.moduleResolution → "NodeNext"`);
    }
  }
  if (options.strict !== true) set('strict', true, 'compilerOptions.strict → true');
  if (options.outDir === undefined) set('outDir', 'dist', 'compilerOptions.outDir → "dist"');
  if (tooOldTargets.has(lower(options.target))) set('target', 'ES2022', 'compilerOptions.target → "ES2022"');
  if (Array.isArray(options.types) && !options.types.includes('node')) {
    // Appended by hand: jsonc-parser's array insertion would reformat a one-line array over several lines.
    const types = findNodeAtLocation(parseTree(content) ?? { type: 'null', offset: 0, length: 0 }, ['compilerOptions', 'types']);
    const last = types?.children?.at(-1);
    if (types && last) {
      const position = last.offset + last.length;
      content = `${content.slice(0, position)}, "node"${content.slice(position)}`;
    } else if (types) {
      content = `${content.slice(0, types.offset + 1)}"node"${content.slice(types.offset + 1)}`;
    }
    changes.push('compilerOptions.types += "node"');
  }
  return { content, changes };
}
