// framework-auth.json and the kept bases: written by create, add-provider and remove-provider, stable on re-runs.
import { readFile, writeFile } from 'node:fs/promises';
import { join, win32 } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshotTree } from '../e2e/helpers/project.js';
import { Refusal } from '../../src/generator/errors.js';
import { basePathOf, parseManifest, sha256 } from '../../src/generator/project/manifest.js';
import { parseManifestJson } from './helpers/json-schema.js';
import { makeTempDir, runInProcess, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

interface ManifestShape {
  cliVersion: string;
  answers: { providers: string[]; mount: string; adapter: string };
  files: Record<string, { sha256: string; base: string }>;
  dependencies: Record<string, string>;
}

async function readManifestOf(root: string): Promise<ManifestShape> {
  return parseManifestJson(await readFile(join(root, 'framework-auth.json'), 'utf8')) as unknown as ManifestShape;
}

async function scaffold(flags: readonly string[]): Promise<string> {
  const parent = await makeTempDir();
  expect((await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', ...flags], { cwd: parent })).exitCode).toBe(0);
  return join(parent, 'app');
}

describe('the manifest', () => {
  it('records the version, the answers, and the hash and base of every generated file', async () => {
    const root = await scaffold(['--providers', 'oidc,microblog', '--mount', '/api/auth', '--adapter', 'memory']);
    const manifest = await readManifestOf(root);
    expect(manifest.cliVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(manifest.answers).toEqual({ providers: ['oidc', 'microblog'], mount: '/api/auth', adapter: 'memory' });
    const paths = Object.keys(manifest.files);
    expect(paths).toEqual(expect.arrayContaining(['src/auth/config.ts', 'src/auth/index.ts', 'src/auth/env.ts', 'src/server.ts', 'src/auth/core/index.ts', 'src/auth/core/providers/microblog.ts', 'src/auth/core/adapters/memory.ts']));
    expect(paths).not.toContain('package.json');
    for (const [path, entry] of Object.entries(manifest.files)) {
      const content = await readFile(join(root, path), 'utf8');
      expect(entry.sha256, path).toBe(sha256(content));
      expect(await readFile(join(root, basePathOf(path)), 'utf8'), path).toBe(content);
      expect(entry.base).toBe(entry.sha256);
    }
    expect(manifest.dependencies).toHaveProperty('express');
  });

  it('stays byte for byte the same on a re-run with the same answers', async () => {
    const root = await scaffold(['--providers', 'oidc,github']);
    const before = await snapshotTree(root);
    await runInProcess('create-framework-auth', ['.', '--yes', '--no-install', '--providers', 'oidc,github'], { cwd: root });
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('keeps the hash of what the CLI wrote when the user changed a file, and the base of a conflict', async () => {
    const root = await scaffold([]);
    const before = await readManifestOf(root);
    const index = join(root, 'src/auth/index.ts');
    await writeFile(index, `${await readFile(index, 'utf8')}// mine\n`);
    await runInProcess('create-framework-auth', ['.', '--yes', '--no-install'], { cwd: root });
    expect((await readManifestOf(root)).files['src/auth/index.ts']).toEqual(before.files['src/auth/index.ts']);
  });

  it('follows add-provider: the config\'s base is the render for the new answers', async () => {
    const root = await scaffold([]);
    await runInProcess('framework-auth', ['add-provider', 'github', '--no-install'], { cwd: root });
    const manifest = await readManifestOf(root);
    expect(manifest.answers.providers).toEqual(['oidc', 'github']);
    const config = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect(manifest.files['src/auth/config.ts']?.sha256).toBe(sha256(config));
    expect(await readFile(join(root, basePathOf('src/auth/config.ts')), 'utf8')).toBe(config);
    expect(manifest.files['src/auth/core/providers/github.ts']).toBeDefined();
  });

  it('is listed as one line with the bases in --dry-run', async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--dry-run'], { cwd: parent });
    expect(result.stdout).toContain('create  framework-auth.json');
    expect(result.stdout).toMatch(/create +\.framework-auth\/base\/ {2}\(\d+ bases of generated files, for framework-auth update\)/);
    expect(result.stdout).not.toContain('.framework-auth/base/src');
  });
});

// framework-auth.json may come from a repository someone cloned: its paths are read, written and deleted by update
// and remove-provider, so every one must stay inside the project on every OS (Windows takes "\" and drive letters).
describe('the paths in a manifest', () => {
  const hash = sha256('');
  const manifestWith = (paths: readonly string[]): string =>
    JSON.stringify({
      manifestFormat: 1,
      cliVersion: '1.0.0',
      answers: { providers: ['oidc'], mount: '/auth', adapter: 'none' },
      files: Object.fromEntries([['src/auth/config.ts', { sha256: hash, base: hash }], ...paths.map((path) => [path, { sha256: hash, base: hash }])]),
      dependencies: {},
    });
  const refusalOf = (text: string): unknown => {
    try {
      parseManifest(text);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  // A Windows project root; `inside` is what "stays in the project" means there.
  const winRoot = 'C:\\proj';
  const insideWinRoot = (path: string): boolean => win32.resolve(winRoot, path).startsWith(`${winRoot}\\`);

  const accepted = ['src/auth/config.ts', 'src/server.ts', 'src/auth/core/providers/microblog.ts', 'lib/auth/core/adapters/memory.ts', 'src/auth/.generated.ts', 'src/auth/core/x..y.ts'];

  // `escapes`: whether Windows would resolve it outside C:\proj (the ones that do not are refused all the same: they
  // are not paths the CLI writes, and they mean something else on another OS).
  const hostile: { label: string; path: string; escapes: boolean }[] = [
    { label: 'backslash dot-dot segments ..\\..\\x', path: '..\\..\\x', escapes: true },
    { label: 'a dot-dot segment hidden behind a backslash src/..\\..\\x', path: 'src/..\\..\\x', escapes: true },
    { label: 'backslash separators src\\auth\\config.ts', path: 'src\\auth\\config.ts', escapes: false },
    { label: 'a drive letter with a backslash C:\\Windows\\x', path: 'C:\\Windows\\x', escapes: true },
    { label: 'a drive letter with a slash C:/x', path: 'C:/x', escapes: true },
    { label: 'a drive-relative path D:x', path: 'D:x', escapes: true },
    { label: 'a UNC path \\\\server\\share\\x', path: '\\\\server\\share\\x', escapes: true },
    { label: 'a UNC path with slashes //server/share/x', path: '//server/share/x', escapes: true },
    { label: 'a root-relative backslash path \\x', path: '\\x', escapes: true },
    { label: 'an absolute path /etc/passwd', path: '/etc/passwd', escapes: true },
    { label: 'a device path \\\\?\\C:\\x', path: '\\\\?\\C:\\x', escapes: true },
    { label: 'a device path \\\\.\\C:\\x', path: '\\\\.\\C:\\x', escapes: true },
    { label: 'a device path with slashes //?/C:/x', path: '//?/C:/x', escapes: true },
    { label: 'a dot-dot segment ../x', path: '../x', escapes: true },
    { label: 'a dot-dot segment further in src/../../x', path: 'src/../../x', escapes: true },
    { label: 'a lone dot-dot ..', path: '..', escapes: true },
    { label: 'a dot segment ./src/x.ts', path: './src/x.ts', escapes: false },
    { label: 'a dot segment further in src/./x.ts', path: 'src/./x.ts', escapes: false },
    { label: 'an empty segment src//x.ts', path: 'src//x.ts', escapes: false },
    { label: 'a trailing slash src/x/', path: 'src/x/', escapes: false },
    { label: 'the empty path', path: '', escapes: true },
    { label: 'a NUL character', path: 'src/x.ts\u0000.png', escapes: false },
    { label: 'a newline', path: 'src/x\n.ts', escapes: false },
    { label: 'a tab', path: 'src/\tx.ts', escapes: false },
    { label: 'a DEL character', path: 'src/x\u007f.ts', escapes: false },
    { label: 'a C1 control character', path: 'src/x\u0085.ts', escapes: false },
  ];

  for (const { label, path } of hostile) {
    it(`refuses a files key with ${label}, naming the path and what is valid`, () => {
      const error = refusalOf(manifestWith([path]));
      expect(error).toBeInstanceOf(Refusal);
      expect((error as Refusal).type).toBe('usage');
      expect((error as Refusal).message).toContain(`framework-auth.json is not a manifest this CLI can read: files[${JSON.stringify(path)}]`);
      expect((error as Refusal).message).toContain('a relative path with "/" separators inside the project');
    });
  }

  it.each(accepted)('accepts the files key %s', (path) => {
    expect(Object.keys(parseManifest(manifestWith([path])).files)).toContain(path);
  });

  it.each(accepted)('resolves the accepted files key %s and its kept base inside a Windows project root', (path) => {
    expect(insideWinRoot(path)).toBe(true);
    expect(insideWinRoot(basePathOf(path))).toBe(true);
  });

  for (const { label, path } of hostile.filter((entry) => entry.escapes)) {
    it(`would resolve the refused ${label} outside a Windows project root`, () => {
      expect(insideWinRoot(path)).toBe(false);
    });
  }

  it.each([
    ['update', ['update']],
    ['remove-provider', ['remove-provider', 'github']],
  ])('%s refuses a manifest with a backslash path out of the project and changes nothing', async (_name, argv) => {
    const root = await scaffold(['--providers', 'oidc,github']);
    const manifestFile = join(root, 'framework-auth.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as ManifestShape;
    manifest.files['..\\outside.ts'] = { sha256: hash, base: hash };
    await writeFile(manifestFile, JSON.stringify(manifest));
    const before = await snapshotTree(root);
    const result = await runInProcess('framework-auth', argv, { cwd: root });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('files["..\\\\outside.ts"] is not a path inside the project');
    expect(await snapshotTree(root)).toEqual(before);
  });
});
