// `framework-auth update` moves a project made before issue 35 to the layout where features own their storage:
// the fixture is a project that the CLI as it was then wrote (`--providers oidc,passkey,credentials --adapter sqlite
// --two-factor`, no install), packed as it stood. After the update its runtime is what `create` writes today with the
// same answers, file for file and byte for byte.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const fixture = fileURLToPath(new URL('../fixtures/cli-0.1.0-before-issue-35.tgz', import.meta.url));

function filesBelow(directory: string, prefix = ''): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(join(directory, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) for (const [inner, text] of filesBelow(directory, path)) files.set(inner, text);
    else files.set(path, readFileSync(join(directory, path), 'utf8'));
  }
  return files;
}

describe('update of a project made before features owned their storage (issue 35)', () => {
  let updated: string;
  let fresh: string;
  let before: Map<string, string>;
  let result: Awaited<ReturnType<typeof runInProcess>>;

  beforeAll(async () => {
    const old = await makeTempDir();
    execFileSync('tar', ['xzf', fixture, '-C', old]);
    updated = join(old, 'app');
    before = filesBelow(join(updated, 'src/auth/core'));
    result = await runInProcess('framework-auth', ['update'], { cwd: updated });
    const parent = await makeTempDir();
    const created = await runInProcess('create-framework-auth', ['app', '--providers', 'oidc,passkey,credentials', '--adapter', 'sqlite', '--two-factor', '--yes', '--no-install'], { cwd: parent });
    if (created.exitCode !== 0) throw new Error(created.stderr);
    fresh = join(parent, 'app');
  });

  it('started from the old layout: every table in the SQLite adapter, no feature storage files', () => {
    expect(before.get('adapters/sqlite.ts')).toContain('CREATE TABLE IF NOT EXISTS authenticators');
    expect([...before.keys()].filter((path) => path.endsWith('/storage.ts'))).toEqual([]);
  });

  it('updates without a conflict', () => {
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  it('leaves the runtime exactly as create writes it today: new files added, moved code gone', () => {
    const after = filesBelow(join(updated, 'src/auth/core'));
    const expected = filesBelow(join(fresh, 'src/auth/core'));
    expect([...after.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [path, text] of expected) expect(after.get(path), path).toBe(text);
    expect(after.get('adapters/sqlite.ts')).not.toContain('authenticators');
    expect([...after.keys()].filter((path) => path.endsWith('/storage.ts')).sort()).toEqual([
      'features/passkey/storage.ts',
      'features/rate-limit/storage.ts',
      'features/two-factor/storage.ts',
    ]);
  });

  it('keeps the project\'s own files: the config and the server are the ones create writes for the same answers', () => {
    for (const path of ['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts']) {
      expect(readFileSync(join(updated, path), 'utf8'), path).toBe(readFileSync(join(fresh, path), 'utf8'));
    }
  });

  it('changes nothing when run again', async () => {
    const again = await runInProcess('framework-auth', ['update'], { cwd: updated });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('Already up to date.');
  });
});
