import { applyEdits, modify, parse } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import type { PackageManager } from '../../catalog/package-managers.js';
import { detectFormatting, sortedInsertionIndex } from './json-format.js';

/** What a project's package.json must have for the generated code. */
export interface PackageJsonWants {
  /** Used only when the file is created. */
  name: string;
  scripts: Readonly<Record<string, string>>;
  dependencies: Readonly<Record<string, string>>;
  devDependencies: Readonly<Record<string, string>>;
  /** The `"type"` to set: `module` (the default), or undefined to leave the project's as it is (CommonJS JavaScript). */
  moduleType?: 'module' | undefined;
  /**
   * Dependencies whose install script must run (a native build): allowed in `allowScripts` (npm 11 skips the
   * others), and in `pnpm.onlyBuiltDependencies` or `trustedDependencies` when the project uses pnpm or bun.
   */
  installScripts?: { packages: readonly string[]; packageManager: PackageManager };
}

/** The merged file and what the merge did, for the plan and the warnings. */
export interface PackageJsonMerge {
  content: string;
  /** Dependencies (either kind) that were added, name → range. */
  added: Record<string, string>;
  /** Packages whose install script the merge allowed (in any of the package managers' fields). */
  allowedScripts: string[];
  /** Things kept as the user had them or changed against their value, worth telling the user. */
  notes: string[];
}

// "type" goes with the package's identity (after name, version, description, main...), where people look for it.
const identityFields = new Set(['name', 'version', 'description', 'private', 'license', 'author', 'main', 'module', 'exports', 'bin']);

function afterIdentityFields(existingKeys: string[]): number {
  let index = 0;
  while (index < existingKeys.length && identityFields.has(existingKeys[index] ?? '')) index += 1;
  return index;
}

interface PackageJsonShape {
  type?: unknown;
  scripts?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  allowScripts?: unknown;
  pnpm?: { onlyBuiltDependencies?: unknown };
  trustedDependencies?: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `allowScripts` entry that covers `name`: `name` itself or a pinned `name@version`. */
function allowScriptsEntry(allowScripts: Record<string, unknown>, name: string): [string, unknown] | undefined {
  return Object.entries(allowScripts).find(([key]) => key === name || key.startsWith(`${name}@`));
}

/**
 * Adds what the generated code needs to package.json text (or creates it), editing in place so that the user's
 * formatting, order and every other field stay as they were. Existing dependency ranges and scripts are kept.
 */
export function mergePackageJson(text: string | undefined, wants: PackageJsonWants): PackageJsonMerge {
  let content = text ?? `${JSON.stringify({ name: wants.name, version: '0.1.0', private: true }, null, 2)}\n`;
  const errors: ParseError[] = [];
  const current = (parse(content, errors, { allowTrailingComma: true }) ?? {}) as PackageJsonShape;
  if (errors.length > 0 || typeof current !== 'object' || Array.isArray(current)) {
    throw new SyntaxError('package.json is not valid JSON');
  }
  const formattingOptions = detectFormatting(content);
  const set = (path: string[], value: unknown, sortKeys = false): void => {
    const key = path[path.length - 1] ?? '';
    const edits = modify(content, path, value, {
      formattingOptions,
      ...(sortKeys ? { getInsertionIndex: sortedInsertionIndex(key) } : {}),
    });
    content = applyEdits(content, edits);
  };
  const notes: string[] = [];
  const added: Record<string, string> = {};

  if (current.type !== 'module' && (!('moduleType' in wants) || wants.moduleType === 'module')) {
    if (current.type !== undefined) notes.push(`package.json "type" changed from ${JSON.stringify(current.type)} to "module" (the auth module is ESM)`);
    content = applyEdits(content, modify(content, ['type'], 'module', { formattingOptions, getInsertionIndex: afterIdentityFields }));
  }
  for (const [script, command] of Object.entries(wants.scripts)) {
    const existing = current.scripts?.[script];
    if (existing === undefined) set(['scripts', script], command);
    else if (existing !== command) notes.push(`kept your "${script}" script (${JSON.stringify(existing)})`);
  }
  const hasDependency = (name: string): boolean =>
    current.dependencies?.[name] !== undefined || current.devDependencies?.[name] !== undefined;
  for (const kind of ['dependencies', 'devDependencies'] as const) {
    for (const [name, range] of Object.entries(wants[kind])) {
      if (hasDependency(name)) continue;
      set([kind, name], range, true);
      added[name] = range;
    }
  }
  const allowedScripts = new Set<string>();
  const scripts = wants.installScripts;
  for (const name of scripts?.packages ?? []) {
    if (current.allowScripts !== undefined && !isObject(current.allowScripts)) {
      notes.push(`package.json "allowScripts" is not an object; add "${name}": true to it so that npm builds ${name}`);
    } else {
      const entry = isObject(current.allowScripts) ? allowScriptsEntry(current.allowScripts, name) : undefined;
      if (entry === undefined) {
        set(['allowScripts', name], true);
        allowedScripts.add(name);
      } else if (entry[1] === false) {
        notes.push(`kept your allowScripts "${entry[0]}": false; ${name} needs its install script (a native build) to load`);
      }
    }
    // pnpm and bun have their own lists; an existing list is appended to, never replaced.
    const list =
      scripts?.packageManager === 'pnpm'
        ? { path: ['pnpm', 'onlyBuiltDependencies'], value: current.pnpm?.onlyBuiltDependencies }
        : scripts?.packageManager === 'bun'
          ? { path: ['trustedDependencies'], value: current.trustedDependencies }
          : undefined;
    if (!list) continue;
    if (current.pnpm !== undefined && list.path[0] === 'pnpm' && !isObject(current.pnpm)) {
      notes.push(`package.json "pnpm" is not an object; add ${name} to pnpm.onlyBuiltDependencies so that pnpm builds it`);
    } else if (list.value === undefined) {
      set(list.path, [name]);
      allowedScripts.add(name);
    } else if (!Array.isArray(list.value)) {
      notes.push(`package.json "${list.path.join('.')}" is not a list; add ${name} to it so that ${scripts?.packageManager} builds it`);
    } else if (!list.value.includes(name)) {
      content = applyEdits(content, modify(content, [...list.path, -1], name, { formattingOptions, isArrayInsertion: true }));
      allowedScripts.add(name);
    }
  }
  return { content, added, allowedScripts: [...allowedScripts], notes };
}

/**
 * Removes dependencies (either kind) from package.json text, editing in place: the inverse of the additions of
 * {@link mergePackageJson}. Names that are not there are skipped. Returns the names removed.
 */
export function removeDependencies(text: string, names: readonly string[]): { content: string; removed: string[] } {
  let content = text;
  const current = (parse(content, [], { allowTrailingComma: true }) ?? {}) as PackageJsonShape;
  const formattingOptions = detectFormatting(content);
  const removed: string[] = [];
  for (const name of names) {
    for (const kind of ['dependencies', 'devDependencies'] as const) {
      if (current[kind]?.[name] === undefined) continue;
      content = applyEdits(content, modify(content, [kind, name], undefined, { formattingOptions }));
      if (!removed.includes(name)) removed.push(name);
    }
  }
  return { content, removed };
}
