// Issue 11: what the generator reads of a project before planning (Express major, module system, TypeScript
// settings, source folder, server entry, workspace), and the CommonJS refusal / --convert-esm.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isSupportedNode, unsupportedNodeMessage } from '../../src/cli/node-version.js';
import { detectPackageManager } from '../../src/generator/io/install.js';
import { analyseModuleSystem } from '../../src/generator/project/module-system.js';
import { detectExpress, expressMajorOfRange, readProjectShape, shapeAt } from '../../src/generator/project/shape.js';
import { loadTypeScript } from '../../src/generator/typescript-api.js';
import { findWorkspace } from '../../src/generator/project/workspace.js';
import { makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const api = loadTypeScript(process.cwd());

/** A project made of `files` (path → text; objects are written as JSON). */
async function project(files: Record<string, string | object>): Promise<string> {
  const root = await makeTempDir('cfa-shape-');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  }
  return root;
}

const shapeOf = (root: string, pkg?: object) => shapeAt(readProjectShape(root, { packageJson: pkg as never, typescript: () => api }), '/auth');

describe('the Express major', () => {
  it.each([
    ['^4.21.2', 4],
    ['~4.18.0', 4],
    ['4.x', 4],
    ['>=4.17.0 <5', 4],
    ['<5', 4],
    ['npm:express@^4.22.3', 4],
    ['^5.1.0', 5],
    ['5.0.0-beta.3', 5],
    ['^4.0.0 || ^5.0.0', 5],
  ])('reads %s as Express %i', (range, major) => {
    expect(expressMajorOfRange(range)).toBe(major);
  });

  it.each(['>=4', '*', 'latest', '', 'workspace:*', 'catalog:'])('leaves "%s" open (npm would install the newest)', (range) => {
    expect(expressMajorOfRange(range)).toBeUndefined();
  });

  it('takes the installed version over the range in package.json', async () => {
    const root = await project({ 'package.json': {}, 'node_modules/express/package.json': { name: 'express', version: '4.21.2' } });
    expect(detectExpress(root, { dependencies: { express: '^5.1.0' } }, undefined)).toEqual({ major: 4, source: 'installed', detail: '4.21.2' });
  });

  it('falls back to Express 5 for a project without Express', async () => {
    const root = await project({});
    expect(detectExpress(root, undefined, undefined)).toEqual({ major: 5, source: 'default', detail: undefined });
  });

  it('mounts on /auth/* for Express 4 and /auth/*splat for Express 5', async () => {
    const root = await project({ 'package.json': { dependencies: { express: '^4.22.3' } } });
    expect(shapeOf(root, { dependencies: { express: '^4.22.3' } }).mountPattern).toBe('/auth/*');
    expect(shapeOf(root, { dependencies: { express: '^5.1.0' } }).mountPattern).toBe('/auth/*splat');
  });
});

describe('the module system', () => {
  const analyse = (root: string, packageType: unknown, tsconfigModule?: string) =>
    analyseModuleSystem({ root, packageType, tsconfigModule, skip: [], api });

  it('is ESM with "type": "module"', async () => {
    const root = await project({ 'app.js': "const express = require('express');\n" });
    expect(analyse(root, 'module').system).toBe('esm');
  });

  it('is not CommonJS when "type": "commonjs" covers no code (what npm init writes)', async () => {
    const root = await project({ 'eslint.config.mjs': 'export default [];\n' });
    expect(analyse(root, 'commonjs')).toMatchObject({ system: 'unset', evidence: [], hasSources: true });
  });

  it('is CommonJS when "type": "commonjs" covers JavaScript', async () => {
    const root = await project({ 'index.js': "import express from 'express';\n" });
    expect(analyse(root, 'commonjs').evidence).toEqual(['package.json has "type": "commonjs"']);
  });

  it('is CommonJS when tsconfig compiles the TypeScript sources to CommonJS', async () => {
    const root = await project({ 'src/index.ts': "import { a } from './a';\n", 'src/a.ts': 'export const a = 1;\n' });
    const report = analyse(root, undefined, 'commonjs');
    expect(report.evidence).toEqual(['tsconfig.json "module": "commonjs" compiles the .ts files to CommonJS while package.json has no "type": "module"']);
    expect(report.filesToEdit).toEqual([{ path: 'src/index.ts', commonJs: [], extensionless: [{ specifier: './a', suggestion: './a.js' }], esmSyntax: true }]);
  });

  it('is not CommonJS for ESM sources without a "type" (they only lack it)', async () => {
    const root = await project({ 'src/index.ts': "import { a } from './a.js';\n", 'src/a.ts': 'export const a = 1;\n' });
    expect(analyse(root, undefined, 'es2022').system).toBe('unset');
  });

  it('finds require(), module.exports and __dirname with the parser, not in comments or strings', async () => {
    const root = await project({
      'quiet.js': "// require('x') and module.exports in a comment\nexport const text = 'module.exports = require(\"y\")';\n",
      'loud.js': "const path = require('path');\nmodule.exports = { dir: __dirname, routes: require('./routes') };\n",
      'routes/index.js': 'exports.list = [];\n',
    });
    const report = analyse(root, undefined);
    expect(report.filesToEdit.map((file) => [file.path, file.commonJs, file.extensionless])).toEqual([
      ['loud.js', ['require()', 'module.exports', '__dirname'], [{ specifier: './routes', suggestion: './routes/index.js' }]],
      ['routes/index.js', ['exports.*'], []],
    ]);
  });

  it('leaves .cjs and .mjs files out: their format does not depend on "type"', async () => {
    const root = await project({ 'config.cjs': "module.exports = require('./x.cjs');\n" });
    expect(analyse(root, undefined)).toMatchObject({ system: 'unset', filesToEdit: [] });
  });
});

describe('the layout', () => {
  it('puts the auth module in src/ when there is one', async () => {
    const root = await project({ 'package.json': { type: 'module' }, 'src/index.ts': "import express from 'express';\nconst app = express();\n" });
    expect(shapeOf(root, { type: 'module' })).toMatchObject({ sourceDir: 'src', authDir: 'src/auth', language: 'typescript' });
  });

  it('puts it beside the sources in lib/ when there is no src/', async () => {
    const pkg = { type: 'module', main: 'lib/index.ts' };
    const root = await project({ 'package.json': pkg, 'lib/index.ts': "import express from 'express';\nexport const server = express();\n" });
    expect(shapeOf(root, pkg)).toMatchObject({
      sourceDir: 'lib',
      authDir: 'lib/auth',
      serverEntry: { path: 'lib/index.ts', generated: false, mount: { file: 'lib/index.ts', appName: 'server', importPath: './auth/index.js', found: true } },
    });
  });

  it('puts it in auth/ for a JavaScript app at the root, written as JavaScript in the app\'s module system (issue 36)', async () => {
    const pkg = { type: 'module', scripts: { start: 'node server.js' } };
    const root = await project({ 'package.json': pkg, 'server.js': "import express from 'express';\nconst app = express();\napp.listen(3000);\n" });
    expect(shapeOf(root, pkg)).toMatchObject({
      sourceDir: '',
      authDir: 'auth',
      language: 'javascript',
      code: 'javascript-esm',
      serverEntry: { path: 'server.js', generated: false, mount: { file: 'server.js', importPath: './auth/index.js' } },
    });
  });

  it('writes CommonJS JavaScript for a CommonJS JavaScript app, which requires ./auth (issue 36)', async () => {
    const pkg = { scripts: { start: 'node server.js' } };
    const root = await project({ 'package.json': pkg, 'server.js': "const express = require('express');\nconst app = express();\napp.listen(3000);\n" });
    expect(shapeOf(root, pkg)).toMatchObject({ code: 'javascript-commonjs', serverEntry: { mount: { file: 'server.js', importPath: './auth' } } });
  });

  it('keeps TypeScript, compiled to dist/, for a JavaScript app with a tsconfig', async () => {
    const pkg = { type: 'module', scripts: { start: 'node server.js' } };
    const root = await project({ 'package.json': pkg, 'tsconfig.json': { compilerOptions: { outDir: 'dist' } }, 'server.js': "import express from 'express';\nconst app = express();\napp.listen(3000);\n" });
    expect(shapeOf(root, pkg)).toMatchObject({ code: 'typescript', serverEntry: { mount: { importPath: './dist/auth/index.js' } } });
  });

  it('follows the entry\'s imports to the file that makes the app', async () => {
    const pkg = { type: 'module', scripts: { dev: 'tsx watch src/index.ts' } };
    const root = await project({
      'package.json': pkg,
      'src/index.ts': "import { createApp } from './app.js';\ncreateApp().listen(3000);\n",
      'src/app.ts': "import expressFactory from 'express';\nexport function createApp() {\n  const web = expressFactory();\n  return web;\n}\n",
    });
    expect(shapeOf(root, pkg).serverEntry.mount).toEqual({ file: 'src/app.ts', appName: 'web', importPath: './auth/index.js', found: true });
  });

  it('maps a compiled start script back to its source (build/index.js → src/index.ts)', async () => {
    const pkg = { type: 'module', scripts: { start: 'node build/index.js' } };
    const root = await project({
      'package.json': pkg,
      'tsconfig.json': { compilerOptions: { rootDir: 'src', outDir: 'build' } },
      'src/index.ts': "import express from 'express';\nconst app = express();\n",
      'src/other.ts': 'export {};\n',
    });
    expect(shapeOf(root, pkg)).toMatchObject({ outDir: 'build', serverEntry: { path: 'src/index.ts', generated: false } });
  });

  it('counts what a tsconfig inherits through extends', async () => {
    const root = await project({
      'package.json': { type: 'module' },
      'base.json': { compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out' } },
      'tsconfig.json': { extends: './base.json', include: ['src'] },
      'src/index.ts': 'export {};\n',
    });
    expect(shapeOf(root, { type: 'module' }).tsconfig).toMatchObject({
      module: 'nodenext',
      moduleResolution: 'nodenext',
      inherited: { module: 'nodenext', moduleResolution: 'nodenext', strict: true },
      recursiveDirs: ['src'],
    });
  });
});

describe('workspaces', () => {
  it('finds the npm workspace root whose globs take the package', async () => {
    const root = await project({ 'package.json': { workspaces: ['packages/*', '!packages/legacy'] }, 'packages/api/package.json': {}, 'packages/legacy/package.json': {} });
    expect(findWorkspace(join(root, 'packages/api'))).toEqual({ root, kind: 'package.json workspaces' });
    expect(findWorkspace(join(root, 'packages/legacy'))).toBeUndefined();
    expect(findWorkspace(root)).toBeUndefined();
  });

  it('finds a pnpm workspace, and its package manager', async () => {
    const root = await project({ 'pnpm-workspace.yaml': "packages:\n  - 'apps/*'\n  - \"libs/**\"\n", 'apps/web/package.json': {} });
    expect(findWorkspace(join(root, 'apps/web'))).toEqual({ root, kind: 'pnpm-workspace.yaml' });
    expect(detectPackageManager(join(root, 'apps/web'), undefined, {})).toEqual({ pm: 'pnpm', source: 'lockfile' });
  });

  it('takes the lockfile of the workspace root for a package without its own', async () => {
    const root = await project({ 'package.json': { workspaces: { packages: ['services/*'] } }, 'yarn.lock': '', 'services/api/package.json': {} });
    expect(detectPackageManager(join(root, 'services/api'), undefined, {})).toEqual({ pm: 'yarn', source: 'lockfile' });
  });
});

describe('create-framework-auth on a CommonJS project', () => {
  const commonJsProject = () =>
    project({
      'package.json': { name: 'legacy', dependencies: { express: '^4.21.2' } },
      'tsconfig.json': '{\n  "compilerOptions": {\n    "module": "commonjs",\n    "outDir": "dist"\n  }\n}\n',
      'src/index.ts': "import express from 'express';\nimport { routes } from './routes';\nconst app = express();\napp.use(routes);\napp.listen(3000);\n",
      'src/routes.ts': "import { Router } from 'express';\nexport const routes = Router();\n",
    });

  it('extends TypeScript compiled to CommonJS as it is, without --convert-esm (issue 36)', async () => {
    const root = await commonJsProject();
    const result = await runInProcess('create-framework-auth', ['--yes', '--no-install'], { cwd: root });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('CommonJS TypeScript (tsconfig.json "module": "commonjs")');
    expect(JSON.parse(await readFile(join(root, 'package.json'), 'utf8'))).not.toHaveProperty('type');
  });

  it('with --convert-esm sets "type" and NodeNext, leaves the sources alone and lists them', async () => {
    const root = await commonJsProject();
    const result = await runInProcess('create-framework-auth', ['--yes', '--no-install', '--convert-esm'], { cwd: root });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('--convert-esm: set package.json "type" to "module", tsconfig.json "module"/"moduleResolution" to "NodeNext"');
    expect(result.stdout).toContain("src/index.ts: './routes' → './routes.js'");
    expect(JSON.parse(await readFile(join(root, 'package.json'), 'utf8'))).toMatchObject({ type: 'module' });
    expect(await readFile(join(root, 'tsconfig.json'), 'utf8')).toMatchInlineSnapshot(`
      "{
        "compilerOptions": {
          "module": "NodeNext",
          "outDir": "dist",
          "moduleResolution": "NodeNext",
          "strict": true
        }
      }
      "
    `);
    expect(await readFile(join(root, 'src/index.ts'), 'utf8')).toContain("from './routes';");
  });

  it('switches "type": "commonjs" over no code without asking, and says so', async () => {
    const root = await project({ 'package.json': { name: 'fresh', version: '1.0.0', main: 'index.js', type: 'commonjs' } });
    const result = await runInProcess('create-framework-auth', ['--yes', '--no-install'], { cwd: root });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('package.json "type" changed from "commonjs" to "module"');
  });
});

describe('the Node version check of the bins', () => {
  it.each(['20.12.0', '20.20.2', '22.0.0', '24.21.0', 'v25.1.0'])('accepts %s', (version) => {
    expect(isSupportedNode(version)).toBe(true);
  });

  it.each(['18.20.4', '20.11.1', 'v16.0.0'])('refuses %s with one line', (version) => {
    const message = unsupportedNodeMessage('create-framework-auth', version) ?? '';
    expect(message).toMatch(/^create-framework-auth needs Node\.js 20\.12\.0 or newer \(20, 22 and 24 are supported\); this is Node\.js \d+\.\d+\.\d+\.$/);
  });
});
