// Layers run one way (issue 15): bin → cli → prompts → generator → catalog, and the runtime (templates/runtime/, which
// ships into users' projects) imports nothing of this repository outside itself. Every relative import of every
// source file, static or dynamic, is read and checked.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** The layers of src/, top first: a layer may import itself and the layers after it. */
const srcLayers = ['cli', 'prompts', 'dev-idp', 'generator', 'catalog'] as const;

function sourceFiles(directory: string): string[] {
  return readdirSync(join(repoRoot, directory), { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative specifiers a file imports: `import … from '…'`, `export … from '…'`, `import('…')`. */
function relativeImports(file: string, text = readFileSync(join(repoRoot, file), 'utf8')): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((match) => match[1]!);
}

/** `src/<layer>/…` → its layer; anything else (bin, templates, the repo root) by its top folder. */
function layerOf(path: string): string {
  const parts = path.split(sep);
  return parts[0] === 'src' ? (parts[1] ?? 'src') : (parts[0] ?? '');
}

function upwardImports(files: readonly { file: string; text?: string }[] = sourceFiles('src').map((file) => ({ file }))): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    const from = layerOf(file);
    for (const specifier of relativeImports(file, text)) {
      const target = relative(repoRoot, resolve(repoRoot, dirname(file), specifier));
      const to = layerOf(target);
      const fromIndex = srcLayers.indexOf(from as (typeof srcLayers)[number]);
      const toIndex = srcLayers.indexOf(to as (typeof srcLayers)[number]);
      if (toIndex === -1 || fromIndex === -1 || toIndex < fromIndex) found.push(`${file} imports ${specifier} (${from} → ${to})`);
    }
  }
  return found;
}

describe('the import graph', () => {
  it('knows every folder of src/ as a layer', () => {
    const folders = readdirSync(join(repoRoot, 'src'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(folders.sort()).toEqual([...srcLayers].sort());
  });

  it('has no import in src/ that runs back up (cli → prompts → dev-idp/generator → catalog)', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('keeps the runtime self-contained: templates/runtime/ imports nothing outside itself', () => {
    const escaping = sourceFiles('templates/runtime').flatMap((file) =>
      relativeImports(file)
        .filter((specifier) => !resolve(repoRoot, dirname(file), specifier).startsWith(join(repoRoot, 'templates/runtime') + sep))
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(escaping).toEqual([]);
  });

  it('finds an upward import when there is one, static or dynamic (the check itself works)', () => {
    const generatorFile = join('src', 'generator', 'example.ts');
    expect(upwardImports([{ file: generatorFile, text: "import { usageError } from '../cli/errors.js';\n" }])).toEqual([
      `${generatorFile} imports ../cli/errors.js (generator → cli)`,
    ]);
    expect(upwardImports([{ file: join('src', 'catalog', 'example.ts'), text: "const late = await import('../prompts/ask-answers.js');\n" }])).toHaveLength(1);
    expect(upwardImports([{ file: join('src', 'cli', 'example.ts'), text: "import { plan } from '../generator/plan/project.js';\n" }])).toEqual([]);
  });
});

/**
 * The generator's own layers, by folder, top first: planners compute what to write from the project they read; the
 * project layer reads (and edits the AST of) what is there; edit/ holds pure text and AST transforms; javascript/
 * turns the TypeScript the CLI generates into JavaScript; io/ writes and runs processes. A sub-layer may import itself, the sub-layers after it in its list, and the generator's root files
 * (shared types and helpers), which import no sub-layer.
 */
const generatorLayers: Readonly<Record<string, readonly string[]>> = {
  plan: ['project', 'javascript', 'edit', 'root'],
  io: ['project', 'root'],
  project: ['edit', 'root'],
  edit: ['root'],
  // The auth module as JavaScript (issue 36): the compiled runtime and the transforms that make it.
  javascript: ['root'],
  root: [],
};

/** `src/generator/<folder>/…` → its sub-layer; a file directly in src/generator/ is `root`. */
function generatorLayerOf(path: string): string | undefined {
  const parts = path.split(sep);
  if (parts[0] !== 'src' || parts[1] !== 'generator') return undefined;
  return parts.length === 3 ? 'root' : parts[2];
}

function crossLayerImports(files: readonly { file: string; text?: string }[] = sourceFiles(join('src', 'generator')).map((file) => ({ file }))): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    const from = generatorLayerOf(file)!;
    for (const specifier of relativeImports(file, text)) {
      const to = generatorLayerOf(relative(repoRoot, resolve(repoRoot, dirname(file), specifier)));
      if (to === undefined || to === from) continue;
      if (!(generatorLayers[from] ?? []).includes(to)) found.push(`${file} imports ${specifier} (${from} → ${to})`);
    }
  }
  return found;
}

describe('the generator\'s layers (plan → project → edit, io → project; all → root files)', () => {
  it('knows every folder of src/generator/ as a layer', () => {
    const folders = readdirSync(join(repoRoot, 'src', 'generator'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(folders.sort()).toEqual(Object.keys(generatorLayers).filter((layer) => layer !== 'root').sort());
  });

  it('has no import that crosses its layers the wrong way', () => {
    expect(crossLayerImports()).toEqual([]);
  });

  it('finds a wrong-way import when there is one (the check itself works)', () => {
    const edit = join('src', 'generator', 'edit', 'example.ts');
    expect(crossLayerImports([{ file: edit, text: "import { readProject } from '../project/shape.js';\n" }])).toEqual([
      `${edit} imports ../project/shape.js (edit → project)`,
    ]);
    expect(crossLayerImports([{ file: join('src', 'generator', 'paths.ts'), text: "import { planCreate } from './plan/create.js';\n" }])).toHaveLength(1);
    expect(crossLayerImports([{ file: join('src', 'generator', 'io', 'example.ts'), text: "import { planCreate } from '../plan/create.js';\n" }])).toHaveLength(1);
    expect(crossLayerImports([{ file: join('src', 'generator', 'plan', 'example.ts'), text: "import { mergeEnv } from '../edit/env-file.js';\n" }])).toEqual([]);
  });
});

describe('planners that only compute (issue 24)', () => {
  it('leaves reading the project to readProject: no planner reads a project file, walks its folders or loads its compiler', () => {
    // The package's own files are read elsewhere: the templates by release.ts before planning, CHANGELOG.md and package.json by changelog and dependencies.
    const readers = /\b(readProjectFile|readProjectShape|readProjectAdapter|readSourceText|listSourceFiles|listFolderFiles|loadTypeScript|existsSync|statSync)\b/;
    const offending = sourceFiles(join('src', 'generator', 'plan')).filter((file) => readers.test(readFileSync(join(repoRoot, file), 'utf8')));
    expect(offending).toEqual([]);
  });
});

describe('the tree shows the pipeline (issue 24)', () => {
  it('holds at most 20 files directly in any folder of src/ and templates/runtime/', () => {
    const crowded: string[] = [];
    const visit = (directory: string): void => {
      const entries = readdirSync(join(repoRoot, directory), { withFileTypes: true });
      const files = entries.filter((entry) => entry.isFile()).length;
      if (files > 20) crowded.push(`${directory}: ${files} files`);
      for (const entry of entries) if (entry.isDirectory()) visit(join(directory, entry.name));
    };
    visit('src');
    visit(join('templates', 'runtime'));
    expect(crowded).toEqual([]);
  });
});

describe('one owner per concept', () => {
  // Code only: comments may name the default layout when they explain it.
  const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const srcFiles = sourceFiles('src').map((file) => ({ file, text: withoutComments(readFileSync(join(repoRoot, file), 'utf8')) }));

  it('lists source-file extensions in one place (src/generator/project/files.ts)', () => {
    const owners = srcFiles.filter(({ text }) => /['"]\.mts['"]|['"]\.cts['"]|\(m\|c\)\?\[jt\]sx\?|ts\|tsx\|mts/.test(text)).map(({ file }) => file);
    expect(owners).toEqual([join('src', 'generator', 'project', 'files.ts')]);
  });

  it('walks the project\'s folders in one place (readdirSync of the user\'s project only in project/files.ts)', () => {
    // release.ts reads this package's templates (before any planner runs), project-shape.ts one folder's names (no walk), dev-idp none.
    const walkers = srcFiles.filter(({ text }) => /withFileTypes: true/.test(text)).map(({ file }) => file);
    expect(walkers.sort()).toEqual([join('src', 'generator', 'project', 'files.ts'), join('src', 'generator', 'release.ts')].sort());
  });

  it('names the default auth folder once (paths.ts); everything else finds it with locateAuthModule', () => {
    const literal = srcFiles
      .filter(({ file }) => file !== join('src', 'generator', 'paths.ts'))
      .filter(({ text }) => /['"`]src\/auth\/(config|core|index)/.test(text))
      .map(({ file }) => file);
    expect(literal).toEqual([]);
  });

  it('builds mount-derived paths in one place (catalog/mount-path.ts): pattern, callback, sign-in and sign-out paths', () => {
    const rebuilt = srcFiles
      .filter(({ file }) => file !== join('src', 'catalog', 'mount-path.ts'))
      .filter(({ text }) => /\$\{[^}]*\}\/(callback\/|\*splat|\*['`]|signin\b|signout\b)/.test(text))
      .map(({ file }) => file);
    expect(rebuilt).toEqual([]);
  });
});
