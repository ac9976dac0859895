import { createRequire } from 'node:module';
import { join } from 'node:path';
import type ts from 'typescript';

/** The TypeScript compiler API, used only to parse and check files, never to type-check a project. */
export type TypeScriptApi = typeof ts;

function tryRequire(from: string): TypeScriptApi | undefined {
  try {
    const api = createRequire(from)('typescript') as TypeScriptApi;
    // typescript@7 (the native port) ships no JavaScript compiler API.
    return typeof api.createSourceFile === 'function' ? api : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Loads `typescript` from the user's project first (generated projects depend on it), then from the CLI's own
 * dependencies, so that `npx create-framework-auth` does not have to download a compiler just to edit one list.
 */
export function loadTypeScript(projectRoot: string): TypeScriptApi | undefined {
  return tryRequire(join(projectRoot, 'package.json')) ?? tryRequire(import.meta.url);
}
