// The runtime's imports run one way (issue 15): config.ts sits above providers/ and pages/, which read their shared
// types (Theme, AuthEnv) from the bottom modules rather than from the config. Issue 35: the shared types sit in one bottom
// module, contracts.ts, and no import cycle remains, type-only imports included (the generator copies files by
// following every import, so a type-only edge is as real as any other).
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { relativeImports } from '../../src/generator/plan/runtime-files.js';

const runtime = fileURLToPath(new URL('../../templates/runtime/', import.meta.url));

function importsOf(folder: string): { file: string; specifier: string }[] {
  return readdirSync(join(runtime, folder))
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => {
      const text = readFileSync(join(runtime, folder, name), 'utf8');
      return [...text.matchAll(/\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => ({ file: `${folder}/${name}`, specifier: match[1]! }));
    });
}

/** Every runtime file (posix path below templates/runtime/) and its text. */
function runtimeFiles(): Map<string, string> {
  const names = readdirSync(runtime, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
  return new Map(names.map((name) => [name.split('\\').join('/'), readFileSync(join(runtime, name), 'utf8')]));
}

/** Each file's imports, by the generator's own reading (`relativeImports`), as paths of the same set of files. */
function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  return new Map(
    [...files].map(([path, text]) => [
      path,
      relativeImports(text)
        .map((specifier) => posix.join(posix.dirname(path), specifier).replace(/\.js$/, '.ts'))
        .filter((target) => files.has(target)),
    ]),
  );
}

/** The import cycles: strongly connected components of more than one file, or a file that imports itself (Tarjan). */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, order.size);
    lowest.set(file, order.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!order.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file)!, lowest.get(target)!));
      } else if (onStack.has(target)) {
        lowest.set(file, Math.min(lowest.get(file)!, order.get(target)!));
      }
    }
    if (lowest.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return cycles;
}

describe('the runtime module graph', () => {
  it('has no provider module that imports the config (the config imports the providers)', () => {
    expect(importsOf('providers').filter(({ specifier }) => specifier === '../config.js')).toEqual([]);
  });

  it('has no page module that imports the config', () => {
    expect(importsOf('pages').filter(({ specifier }) => specifier === '../config.js')).toEqual([]);
  });

  it('has no import cycle in templates/runtime/, type-only imports included', () => {
    expect(importCycles(importGraph(runtimeFiles()))).toEqual([]);
  });

  it('finds a cycle of type-only imports, re-exports and dynamic imports, and names its files', () => {
    const files = new Map([
      ['a.ts', "import type { B } from './b.js';"],
      ['b.ts', "export { c } from './sub/c.js';"],
      ['sub/c.ts', "const a = await import('../a.js');"],
      ['d.ts', "import './a.js';"],
      ['e.ts', "import type { E } from './e.js';"],
    ]);
    expect(importCycles(importGraph(files))).toEqual([['a.ts', 'b.ts', 'sub/c.ts'], ['e.ts']]);
  });

  it('has a shared types module, contracts.ts, that imports nothing of the runtime but two leaves: the data types and the error types', () => {
    const files = runtimeFiles();
    const imports = (path: string): string[] => [...files.get(path)!.matchAll(/\bfrom\s*['"]([^'"]+)['"]/g)].map((match) => match[1]!);
    expect(imports('contracts.ts').filter((specifier) => !/^(node:|express$|jose$|oauth4webapi$)/.test(specifier))).toEqual(['./errors.js', './types.js']);
    expect(relativeImports(files.get('errors.ts')!)).toEqual([]);
    expect(relativeImports(files.get('types.ts')!)).toEqual([]);
  });

  it('has no feature module that imports a type from config.ts or context.ts (the shared types are in contracts.ts)', () => {
    const typeImports = [...runtimeFiles()]
      .filter(([path]) => path.startsWith('features/'))
      .flatMap(([path, text]) =>
        [...text.matchAll(/^import\s+(type\s+)?\{([^}]*)\}\s*from\s*'((?:\.\.\/)+(?:config|context)\.js)';/gm)]
          .filter((match) => match[1] !== undefined || /\btype\s/.test(match[2]!))
          .map((match) => `${path}: ${match[3]!}`),
      );
    expect(typeImports).toEqual([]);
  });
});
