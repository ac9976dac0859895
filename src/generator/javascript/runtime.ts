import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type ts from 'typescript';
import { cliPackageRoot } from '../paths.js';
import type { Templates } from '../release.js';
import { loadTypeScript } from '../typescript-api.js';
import type { TypeScriptApi } from '../typescript-api.js';
import { toCommonJs } from './commonjs.js';
import { stripTypes } from './strip-types.js';

/**
 * The auth runtime as JavaScript, for projects written in JavaScript: each `templates/runtime/` file as an ES module
 * and as a CommonJS module (by its `.js` path), and its declarations (by its `.d.ts` path), which serve both.
 */
export interface JavaScriptRuntime {
  /** SHA-256 of the runtime sources it was compiled from (see {@link runtimeSourceHash}). */
  source: string;
  esm: Record<string, string>;
  commonjs: Record<string, string>;
  declarations: Record<string, string>;
}

/**
 * Where `npm run build` writes the compiled runtime, inside the package (shipped with `dist/`): gzipped JSON, a quarter
 * of its size, so that `npx create-framework-auth` installs less (test/e2e/npx-footprint.test.ts).
 */
export const builtRuntimePath = join(cliPackageRoot, 'dist', 'runtime-js.json.gz');

/** SHA-256 over the runtime's paths and texts: which sources a compiled runtime belongs to. */
export function runtimeSourceHash(runtime: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256');
  for (const [path, text] of [...runtime].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) hash.update(`${path}\0${text}\0`);
  return hash.digest('hex');
}

/** `http/redirect.ts` → `http/redirect.js` (or `.d.ts`). */
export function javaScriptPath(path: string, extension: '.js' | '.d.ts' = '.js'): string {
  return path.replace(/\.ts$/, extension);
}

const declarationRoot = join(cliPackageRoot, '.runtime-source');

/**
 * The declarations of every runtime file, emitted by one program over the sources (as they would sit in
 * `templates/runtime/`, so that `express`, `jose` and the rest resolve to this package's own installs).
 */
function emitDeclarations(api: TypeScriptApi, runtime: ReadonlyMap<string, string>): Record<string, string> {
  const options: ts.CompilerOptions = {
    target: api.ScriptTarget.ES2022,
    module: api.ModuleKind.ESNext,
    moduleResolution: api.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    strict: true,
    skipLibCheck: true,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: declarationRoot,
    outDir: join(declarationRoot, 'out'),
    noEmitOnError: false,
  };
  const host = api.createCompilerHost(options, true);
  const virtual = (fileName: string): string | undefined => {
    const relative = posix.relative(declarationRoot.split('\\').join('/'), fileName.split('\\').join('/'));
    return relative.startsWith('..') ? undefined : runtime.get(relative);
  };
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = virtual(fileName);
    return text === undefined ? getSourceFile(fileName, languageVersion, onError, shouldCreate) : api.createSourceFile(fileName, text, languageVersion, true);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtual(fileName) !== undefined || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => virtual(fileName) ?? readFile(fileName);
  const roots = [...runtime.keys()].filter((path) => path.endsWith('.ts')).map((path) => join(declarationRoot, path));
  const program = api.createProgram(roots, options, host);
  const declarations: Record<string, string> = {};
  const outRoot = join(declarationRoot, 'out').split('\\').join('/');
  const result = program.emit(undefined, (fileName, text) => {
    declarations[posix.relative(outRoot, fileName.split('\\').join('/'))] = text;
  });
  const errors = result.diagnostics.filter((diagnostic) => diagnostic.category === api.DiagnosticCategory.Error);
  if (errors.length > 0) throw new Error(`declarations of the runtime: ${api.formatDiagnostics(errors, host)}`);
  return declarations;
}

/** Each runtime file as an ES module ({@link stripTypes}) and as CommonJS ({@link toCommonJs}), by its `.js` path. */
export function compileModules(api: TypeScriptApi, runtime: ReadonlyMap<string, string>): Pick<JavaScriptRuntime, 'esm' | 'commonjs'> {
  const esm: Record<string, string> = {};
  const commonjs: Record<string, string> = {};
  for (const [path, text] of runtime) {
    if (!path.endsWith('.ts')) continue;
    const module = stripTypes(api, path, text);
    esm[javaScriptPath(path)] = module;
    commonjs[javaScriptPath(path)] = toCommonJs(api, path, module);
  }
  return { esm, commonjs };
}

/** Compiles the runtime to JavaScript: its modules ({@link compileModules}) and declarations. */
export function compileRuntime(api: TypeScriptApi, runtime: ReadonlyMap<string, string>): JavaScriptRuntime {
  return { source: runtimeSourceHash(runtime), ...compileModules(api, runtime), declarations: emitDeclarations(api, runtime) };
}

function readCompiled(path: string, source: string): JavaScriptRuntime | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const bytes = readFileSync(path);
    const compiled = JSON.parse((path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8')) as JavaScriptRuntime;
    return compiled.source === source ? compiled : undefined;
  } catch {
    return undefined;
  }
}

const compiledByTemplates = new WeakMap<Templates, JavaScriptRuntime>();

/**
 * The runtime of these templates as JavaScript: the one `npm run build` compiled into the package when it is of
 * these sources (always, for an installed CLI), else compiled now with this package's own TypeScript and kept in the
 * OS temp dir by the hash of the sources (a checkout run from source, or a test's changed copy of the templates).
 */
export function javaScriptRuntime(templates: Templates): JavaScriptRuntime {
  const known = compiledByTemplates.get(templates);
  if (known) return known;
  const source = runtimeSourceHash(templates.runtime);
  const cachePath = join(tmpdir(), 'create-framework-auth-runtime-js', `${source.slice(0, 16)}.json`);
  let compiled = readCompiled(builtRuntimePath, source) ?? readCompiled(cachePath, source);
  if (!compiled) {
    const api = loadTypeScript(cliPackageRoot);
    if (!api) throw new Error(`The auth runtime is not compiled to JavaScript (${builtRuntimePath} is missing or stale): run "npm run build" in ${cliPackageRoot}.`);
    compiled = compileRuntime(api, templates.runtime);
    mkdirSync(join(cachePath, '..'), { recursive: true });
    // Written whole under another name, then renamed: test workers compiling at once never read half a file.
    const temporary = `${cachePath}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(compiled));
    renameSync(temporary, cachePath);
  }
  compiledByTemplates.set(templates, compiled);
  return compiled;
}
