// Issue 47: every runtime module, as the CLI writes it into a JavaScript project, loads on this Node: with import()
// in a "type": "module" project, with require() in a CommonJS one (each in a child Node, as an app would load it).
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileModules } from '../../src/generator/javascript/runtime.js';
import { packageTemplateDirs } from '../../src/generator/paths.js';
import { runtimeHeader } from '../../src/generator/plan/runtime-files.js';
import { readTemplates } from '../../src/generator/release.js';
import { cliVersion } from '../../src/generator/version.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Loads each file it is given, one after the other, and prints what failed to load (the error's first line, by file)
 * and, for each package given, whether `require()` answers the default export that `import()` gets (a package that
 * is an ES module only would give `require()` its namespace, and the CommonJS runtime would call that).
 */
const loader = `import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const { format, files, packages } = JSON.parse(process.argv[2]);
const require = createRequire(import.meta.url);
const failures = {};
for (const file of files) {
  try {
    if (format === 'esm') await import(pathToFileURL(file).href);
    else require(file);
  } catch (error) {
    failures[file] = String(error instanceof Error ? error.message : error).split('\\n')[0];
  }
}
const defaults = {};
for (const name of packages) defaults[name] = require(name) === (await import(name)).default;
console.log(JSON.stringify({ failures, defaults }));
`;

interface Loaded {
  failures: Record<string, string>;
  defaults: Record<string, boolean>;
}

const loaded = new Map<'esm' | 'commonjs', Loaded>();
let root: string;
let moduleCount = 0;
let defaultImports: string[] = [];

/** The packages an ES module of the runtime imports by default (`import Database from 'better-sqlite3'`). */
function packagesImportedByDefault(modules: Record<string, string>): string[] {
  const names = new Set<string>();
  for (const [path, text] of Object.entries(modules)) {
    for (const statement of ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS).statements) {
      if (!ts.isImportDeclaration(statement) || !statement.importClause?.name) continue;
      const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
      if (!specifier.startsWith('.') && !specifier.startsWith('node:')) names.add(specifier);
    }
  }
  return [...names].sort();
}

/** A project of this format with every runtime module in src/auth/core/, loaded by {@link loader}. */
async function load(format: 'esm' | 'commonjs', modules: Record<string, string>): Promise<Loaded> {
  const project = join(root, format);
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: `runtime-${format}`, private: true, type: format === 'esm' ? 'module' : 'commonjs' }));
  await symlink(join(repoRoot, 'node_modules'), join(project, 'node_modules'), 'dir');
  const files: string[] = [];
  for (const [path, text] of Object.entries(modules)) {
    const file = join(project, 'src/auth/core', path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${runtimeHeader(cliVersion)}\n${text}`);
    files.push(file);
  }
  await writeFile(join(project, 'load.mjs'), loader);
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  const { stdout } = await execa(process.execPath, ['load.mjs', JSON.stringify({ format, files, packages: format === 'commonjs' ? defaultImports : [] })], { cwd: project, env, extendEnv: false });
  const { failures, defaults } = JSON.parse(stdout) as Loaded;
  // Named by runtime path (`pages/html.js`), not by the temporary directory.
  return { failures: Object.fromEntries(Object.entries(failures).map(([file, error]) => [relative(join(project, 'src/auth/core'), file), error])), defaults };
}

beforeAll(async () => {
  const { esm, commonjs } = compileModules(ts, readTemplates(packageTemplateDirs).runtime);
  moduleCount = Object.keys(esm).length;
  defaultImports = packagesImportedByDefault(esm);
  root = await mkdtemp(join(tmpdir(), 'cfa-runtime-load-'));
  const [asEsm, asCommonJs] = await Promise.all([load('esm', esm), load('commonjs', commonjs)]);
  loaded.set('esm', asEsm);
  loaded.set('commonjs', asCommonJs);
}, 60_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the runtime as JavaScript', () => {
  it('loads every runtime module as an ES module with import()', () => {
    expect(moduleCount).toBeGreaterThan(100);
    expect(loaded.get('esm')?.failures).toEqual({});
  });

  it('loads every runtime module as CommonJS with require()', () => {
    expect(loaded.get('commonjs')?.failures).toEqual({});
  });

  it("gives CommonJS the same default export of a package as an ES module's import", () => {
    expect(defaultImports.length).toBeGreaterThan(0);
    expect(loaded.get('commonjs')?.defaults).toEqual(Object.fromEntries(defaultImports.map((name) => [name, true])));
  });
});
