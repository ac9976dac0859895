import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../src/cli/errors.js';
import { Refusal } from '../../src/generator/errors.js';
import type { PlannedFile } from '../../src/generator/planned-file.js';
import { writePlannedFiles } from '../../src/generator/io/write-plan.js';
import { makeTempDir, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

async function projectWithOneFile(): Promise<string> {
  const root = await makeTempDir();
  await writeFile(join(root, 'package.json'), '{ "name": "mine" }\n');
  return root;
}

function plan(): PlannedFile[] {
  return [
    { path: 'package.json', action: 'update', content: '{ "name": "mine", "type": "module" }\n', previous: '{ "name": "mine" }\n' },
    { path: 'src/auth/core/index.ts', action: 'create', content: 'export {};\n', previous: undefined },
    { path: 'src/auth/config.ts', action: 'create', content: 'export const authConfig = {};\n', previous: undefined },
    { path: '.env', action: 'create', content: 'AUTH_SECRET=x\n', previous: undefined, mode: 0o600 },
    { path: 'README.md', action: 'unchanged', content: 'same', previous: 'same' },
    { path: 'tsconfig.json', action: 'conflict', content: 'ours', previous: 'theirs' },
  ];
}

describe('writePlannedFiles', () => {
  it('writes created and updated files, skipping unchanged ones and conflicts', async () => {
    const root = await projectWithOneFile();
    const written = await writePlannedFiles(root, plan());
    expect(written).toEqual(['package.json', 'src/auth/core/index.ts', 'src/auth/config.ts', '.env']);
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).toBe('export const authConfig = {};\n');
    expect(existsSync(join(root, 'tsconfig.json'))).toBe(false);
    expect((await stat(join(root, '.env'))).mode & 0o777).toBe(0o600);
  });

  it('rolls everything back when a write fails half-way: old content, no new files, no new folders, no temp files', async () => {
    const root = await projectWithOneFile();
    let commits = 0;
    const attempt = writePlannedFiles(root, plan(), {
      beforeCommit: () => {
        commits += 1;
        if (commits === 3) throw new Error('disk full');
      },
    });
    await expect(attempt).rejects.toMatchObject({ type: 'write-failed' });
    expect(await listTree(root)).toEqual(['package.json']);
    expect(await readFile(join(root, 'package.json'), 'utf8')).toBe('{ "name": "mine" }\n');
  });

  it('deletes a planned file only once everything else is written, and puts it back on a rollback', async () => {
    const root = await projectWithOneFile();
    await writeFile(join(root, 'old.ts'), 'old\n');
    const files: PlannedFile[] = [
      { path: 'old.ts', action: 'delete', content: '', previous: 'old\n' },
      { path: 'new.ts', action: 'create', content: 'new\n', previous: undefined },
    ];
    const failing = writePlannedFiles(root, files, {
      beforeCommit: (file) => {
        if (file.action === 'delete') throw new Error('disk full');
      },
    });
    await expect(failing).rejects.toMatchObject({ type: 'write-failed' });
    expect(await listTree(root)).toEqual(['old.ts', 'package.json']);
    expect(await readFile(join(root, 'old.ts'), 'utf8')).toBe('old\n');
    expect(await writePlannedFiles(root, files)).toEqual(['new.ts', 'old.ts']);
    expect(await listTree(root)).toEqual(['new.ts', 'package.json']);
  });

  it('rolls back and reports a cancel (exit 130) when aborted between two files', async () => {
    const root = await projectWithOneFile();
    const controller = new AbortController();
    let commits = 0;
    const attempt = writePlannedFiles(root, plan(), {
      signal: controller.signal,
      beforeCommit: () => {
        commits += 1;
        if (commits === 2) controller.abort();
      },
    });
    const error = await attempt.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Refusal);
    expect(error).toMatchObject({ type: 'cancelled' });
    expect(exitCodeOf(error as Refusal)).toBe(130);
    expect(await listTree(root)).toEqual(['package.json']);
  });

  it('creates a missing project directory and removes it again on rollback', async () => {
    const parent = await makeTempDir();
    const root = join(parent, 'new-app');
    const files = plan().filter((file) => file.previous === undefined);
    await expect(
      writePlannedFiles(root, files, {
        beforeCommit: (file) => {
          if (file.path === '.env') throw new Error('boom');
        },
      }),
    ).rejects.toThrow(/boom/);
    expect(existsSync(root)).toBe(false);
  });

  it('refuses an update whose file was edited after planning and leaves every file of the plan as it was', async () => {
    const root = await projectWithOneFile();
    await writeFile(join(root, '.gitignore'), 'node_modules\n');
    const files: PlannedFile[] = [
      { path: 'package.json', action: 'update', content: '{ "name": "mine", "type": "module" }\n', previous: '{ "name": "mine" }\n' },
      { path: '.gitignore', action: 'update', content: 'node_modules\n.env\n', previous: 'node_modules\n' },
      { path: 'src/auth/config.ts', action: 'create', content: 'export const authConfig = {};\n', previous: undefined },
    ];
    await writeFile(join(root, 'package.json'), '{ "name": "edited" }\n');
    const error = await writePlannedFiles(root, files).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Refusal);
    expect(error).toMatchObject({ type: 'stale-plan', message: expect.stringContaining('package.json (edited)') as unknown });
    expect((error as Refusal).message).toContain('Nothing was written');
    expect((error as Refusal).message).not.toContain('.gitignore');
    expect((error as Refusal).hint).toContain('Run the command again');
    expect(exitCodeOf(error as Refusal)).toBe(1);
    expect(await listTree(root)).toEqual(['.gitignore', 'package.json']);
    expect(await readFile(join(root, 'package.json'), 'utf8')).toBe('{ "name": "edited" }\n');
    expect(await readFile(join(root, '.gitignore'), 'utf8')).toBe('node_modules\n');
  });

  it('refuses a create whose path appeared after planning and keeps the file that appeared', async () => {
    const root = await projectWithOneFile();
    const files = plan();
    await writeFile(join(root, '.env'), 'MINE=1\n');
    await expect(writePlannedFiles(root, files)).rejects.toMatchObject({ type: 'stale-plan', message: expect.stringContaining('.env (now exists)') as unknown });
    expect(await listTree(root)).toEqual(['.env', 'package.json']);
    expect(await readFile(join(root, '.env'), 'utf8')).toBe('MINE=1\n');
    expect(await readFile(join(root, 'package.json'), 'utf8')).toBe('{ "name": "mine" }\n');
  });

  it('refuses a delete whose file changed after planning and keeps it', async () => {
    const root = await projectWithOneFile();
    await writeFile(join(root, 'old.ts'), 'old\n');
    const files: PlannedFile[] = [
      { path: 'old.ts', action: 'delete', content: '', previous: 'old\n' },
      { path: 'new.ts', action: 'create', content: 'new\n', previous: undefined },
    ];
    await writeFile(join(root, 'old.ts'), 'old, and edited\n');
    await expect(writePlannedFiles(root, files)).rejects.toMatchObject({ type: 'stale-plan', message: expect.stringContaining('old.ts (edited)') as unknown });
    expect(await listTree(root)).toEqual(['old.ts', 'package.json']);
    expect(await readFile(join(root, 'old.ts'), 'utf8')).toBe('old, and edited\n');
  });

  it('refuses an update whose file was deleted after planning without creating it again', async () => {
    const root = await projectWithOneFile();
    const files = plan();
    await rm(join(root, 'package.json'));
    await expect(writePlannedFiles(root, files)).rejects.toMatchObject({ type: 'stale-plan', message: expect.stringContaining('package.json (deleted)') as unknown });
    expect(await listTree(root)).toEqual([]);
  });

  it('names every file that changed after planning in one refusal', async () => {
    const root = await projectWithOneFile();
    const files = plan();
    await writeFile(join(root, 'package.json'), '{}\n');
    await writeFile(join(root, '.env'), 'MINE=1\n');
    const error = await writePlannedFiles(root, files).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ type: 'stale-plan' });
    expect((error as Refusal).message).toContain('2 files changed on disk after the plan was made: package.json (edited), .env (now exists).');
  });

  it('leaves unchanged files and conflicts out of the check', async () => {
    const root = await projectWithOneFile();
    await writeFile(join(root, 'README.md'), 'edited after planning');
    await writeFile(join(root, 'tsconfig.json'), 'edited after planning');
    expect(await writePlannedFiles(root, plan())).toEqual(['package.json', 'src/auth/core/index.ts', 'src/auth/config.ts', '.env']);
    expect(await readFile(join(root, 'README.md'), 'utf8')).toBe('edited after planning');
    expect(await readFile(join(root, 'tsconfig.json'), 'utf8')).toBe('edited after planning');
  });

  it('keeps the mode of an updated file', async () => {
    const root = await makeTempDir();
    await mkdir(join(root, 'bin'));
    await writeFile(join(root, 'bin/run'), 'old', { mode: 0o755 });
    await writePlannedFiles(root, [{ path: 'bin/run', action: 'update', content: 'new', previous: 'old' }]);
    expect((await stat(join(root, 'bin/run'))).mode & 0o777).toBe(0o755);
  });
});
