import { applyEdits, modify, parse } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { detectFormatting, sortedInsertionIndex } from './json-format.js';

/** What a project's package.json must have for the generated code. */
export interface PackageJsonWants {
  /** Used only when the file is created. */
  name: string;
  scripts: Readonly<Record<string, string>>;
  dependencies: Readonly<Record<string, string>>;
  devDependencies: Readonly<Record<string, string>>;
}

/** The merged file and what the merge did, for the plan and the warnings. */
export interface PackageJsonMerge {
  content: string;
  /** Dependencies (either kind) that were added, name → range. */
  added: Record<string, string>;
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

  if (current.type !== 'module') {
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
  return { content, added, notes };
}
