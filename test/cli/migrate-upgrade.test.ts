// `framework-auth update` then `framework-auth migrate` on a project and a database made by the release before the
// migration ledger (issue 47): the project is the fixture test/fixtures/cli-0.1.0-before-issue-47.tgz (`--providers
// oidc,password,email,passkey --adapter sqlite --two-factor --api-keys --account`, no install), its database
// test/fixtures/sqlite-before-issue-47.db (0.1.0's migrate() with a user, an account, a session, a password, an API
// key and a verification token).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPackageRoot } from '../../src/generator/paths.js';
import { parseJsonOutput } from './helpers/json-schema.js';
import { projectTree } from './helpers/project-tree.js';
import { makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

describe('migrate on a project and a database made before the migration ledger (issue 47)', () => {
  let app: string;
  let databasePath: string;

  beforeAll(async () => {
    const parent = await makeTempDir();
    execFileSync('tar', ['xzf', fixture('cli-0.1.0-before-issue-47.tgz'), '-C', parent]);
    app = join(parent, 'app');
    // The project's own tsx and better-sqlite3 run its adapter: this repo's installs stand in for npm install.
    symlinkSync(join(cliPackageRoot, 'node_modules'), join(app, 'node_modules'), 'dir');
    mkdirSync(join(app, 'data'));
    databasePath = join(app, 'data/auth.db');
    copyFileSync(fixture('sqlite-before-issue-47.db'), databasePath);
  });

  it('refuses a dry run with the adapter of the release before, which would apply everything (exit 2), and says to update', async () => {
    const result = await runInProcess('framework-auth', ['migrate', '--dry-run'], { cwd: app });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('src/auth/core/adapters/sqlite.ts was copied by an earlier version, whose migrate() has no dry run.');
    expect(result.stderr).toContain('npx framework-auth update');
  });

  it('after update, --dry-run prints the SQL that would run and changes nothing', async () => {
    const updated = await runInProcess('framework-auth', ['update'], { cwd: app });
    expect(updated.exitCode, updated.stderr).toBe(0);
    const before = readFileSync(databasePath);
    const result = await runInProcess('framework-auth', ['migrate', '--dry-run'], { cwd: app });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('The SQL that would run (nothing applied):');
    expect(result.stdout).toContain('CREATE TABLE IF NOT EXISTS auth_migrations');
    // Every table of 0.1.0 is there: its steps would only be recorded.
    expect(result.stdout).toContain('-- table:users: already there, recorded');
    expect(result.stdout).not.toContain('CREATE TABLE IF NOT EXISTS users');
    expect(readFileSync(databasePath).equals(before)).toBe(true);
  }, 120_000);

  it('after update, src/auth is what create writes today with the same answers, file for file (the account names no other feature)', async () => {
    const parent = await makeTempDir();
    const created = await runInProcess(
      'create-framework-auth',
      ['app', '--providers', 'oidc,password,email,passkey', '--adapter', 'sqlite', '--two-factor', '--api-keys', '--account', '--yes', '--no-install'],
      { cwd: parent },
    );
    expect(created.exitCode, created.stderr).toBe(0);
    const expected = await projectTree(join(parent, 'app/src/auth'));
    const after = await projectTree(join(app, 'src/auth'));
    expect(Object.keys(after).sort()).toEqual(Object.keys(expected).sort());
    for (const [path, text] of Object.entries(expected)) expect(after[path], path).toBe(text);
    expect(Object.keys(after)).not.toContain('core/features/account/other-features.ts');
    expect(Object.keys(after)).toContain('core/features/database/account-parts.ts');
  }, 120_000);

  it('migrate upgrades the database in place, printing what it applied, and keeps its rows; run again, it applies nothing', async () => {
    const result = await runInProcess('framework-auth', ['migrate'], { cwd: app });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Applied \d+ migration steps:/);
    expect(result.stdout).toContain('-- auth_migrations\n│  CREATE TABLE IF NOT EXISTS auth_migrations');
    expect(result.stdout).toContain('-- column:sessions.user_agent: already there, recorded');
    const database = new Database(databasePath, { readonly: true });
    try {
      expect(database.prepare('SELECT id, email FROM users').all()).toEqual([{ id: 'user-1', email: 'ada@example.com' }]);
      for (const table of ['accounts', 'sessions', 'passwords', 'api_keys', 'verification_tokens']) {
        expect(database.prepare(`SELECT count(*) AS n FROM ${table}`).get(), table).toEqual({ n: 1 });
      }
      expect((database.prepare('SELECT count(*) AS n FROM auth_migrations').get() as { n: number }).n).toBeGreaterThan(20);
    } finally {
      database.close();
    }
    const again = await runInProcess('framework-auth', ['migrate', '--json'], { cwd: app });
    expect(again.exitCode).toBe(0);
    expect(parseJsonOutput(again.stdout)).toMatchObject({ command: 'migrate', ok: true, dryRun: false, steps: [], tables: expect.arrayContaining(['users', 'api_keys', 'auth_migrations']) });
    expect(existsSync(databasePath)).toBe(true);
  }, 120_000);
});
