// framework-auth.json and the kept bases: written by create, add-provider and remove-provider, stable on re-runs.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshotTree } from '../e2e/helpers/project.js';
import { basePathOf, sha256 } from '../../src/generator/manifest.js';
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
