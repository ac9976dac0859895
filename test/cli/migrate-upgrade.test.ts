// `framework-auth update` then `framework-auth migrate` on a project and a database made by the release before the
// migration ledger (issue 47): the project is the fixture test/fixtures/cli-0.1.0-before-issue-47.tgz (`--providers
// oidc,password,email,passkey --adapter sqlite --two-factor --api-keys --account`, no install), its database
// test/fixtures/sqlite-before-issue-47.db (0.1.0's migrate() with a user, an account, a session, a password, an API
// key and a verification token). Then Organizations() (issue 48) added to its config: its steps listed, then applied.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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
    // The column issue 48 added to API keys is new; the project has no Organizations(), so none of its tables.
    expect(result.stdout).toContain('-- column:api_keys.organization_id\n│  ALTER TABLE api_keys ADD COLUMN organization_id TEXT;');
    expect(result.stdout).not.toMatch(/organization_members|active_organization_id/);
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
      expect((database.pragma('table_info(api_keys)') as { name: string }[]).map((column) => column.name)).toContain('organization_id');
      expect(database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'organization%'").all()).toEqual([]);
      expect((database.pragma('table_info(sessions)') as { name: string }[]).map((column) => column.name)).not.toContain('active_organization_id');
    } finally {
      database.close();
    }
    const again = await runInProcess('framework-auth', ['migrate', '--json'], { cwd: app });
    expect(again.exitCode).toBe(0);
    expect(parseJsonOutput(again.stdout)).toMatchObject({ command: 'migrate', ok: true, dryRun: false, steps: [], tables: expect.arrayContaining(['users', 'api_keys', 'auth_migrations']) });
    expect(existsSync(databasePath)).toBe(true);
  }, 120_000);

  it('with Organizations() added to the config, --dry-run lists its steps and changes nothing, and migrate adds its tables once (issue 48)', async () => {
    // As the feature's command would: its runtime folder copied, the feature in the config's `features`.
    cpSync(join(cliPackageRoot, 'templates/runtime/features/organizations'), join(app, 'src/auth/core/features/organizations'), { recursive: true });
    const configPath = join(app, 'src/auth/config.ts');
    const config = readFileSync(configPath, 'utf8');
    writeFileSync(
      configPath,
      config
        .replace("import { Account } from './core/features/account/index.js';", "$&\nimport { Organizations } from './core/features/organizations/index.js';")
        .replace('Account()]', 'Account(), Organizations()]'),
    );
    expect(readFileSync(configPath, 'utf8')).toContain('Account(), Organizations()]');
    const steps = [
      'table:organizations',
      'table:organization_members',
      'index:organization_members_user_id_index',
      'table:organization_invitations',
      'index:organization_invitations_organization_id_email_unique',
      'index:organization_invitations_email_index',
      'table:organization_events',
      'index:organization_events_organization_id_at_index',
      'column:sessions.active_organization_id',
    ];
    const before = readFileSync(databasePath);
    const dry = await runInProcess('framework-auth', ['migrate', '--dry-run', '--json'], { cwd: app });
    expect(dry.exitCode, dry.stderr).toBe(0);
    const planned = parseJsonOutput(dry.stdout) as { dryRun: boolean; steps: { id: string; sql: string }[] };
    expect(planned.dryRun).toBe(true);
    expect(planned.steps.filter((step) => step.sql !== '').map((step) => step.id)).toEqual(steps);
    expect(planned.steps.find((step) => step.id === 'column:sessions.active_organization_id')?.sql).toBe('ALTER TABLE sessions ADD COLUMN active_organization_id TEXT REFERENCES organizations (id) ON DELETE SET NULL;');
    expect(readFileSync(databasePath).equals(before)).toBe(true);

    const applied = await runInProcess('framework-auth', ['migrate', '--json'], { cwd: app });
    expect(applied.exitCode, applied.stderr).toBe(0);
    const report = parseJsonOutput(applied.stdout) as { steps: { id: string; sql: string }[]; tables: string[] };
    expect(report.steps.filter((step) => step.sql !== '').map((step) => step.id)).toEqual(steps);
    expect(report.tables).toEqual(expect.arrayContaining(['organizations', 'organization_members', 'organization_invitations', 'organization_events']));
    const database = new Database(databasePath, { readonly: true });
    try {
      expect(database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'organization%' ORDER BY name").all()).toEqual(
        ['organization_events', 'organization_invitations', 'organization_members', 'organizations'].map((name) => ({ name })),
      );
      expect(database.prepare('SELECT session_token, active_organization_id FROM sessions').all()).toEqual([{ session_token: 'session-token-1', active_organization_id: null }]);
    } finally {
      database.close();
    }
    const again = await runInProcess('framework-auth', ['migrate', '--json'], { cwd: app });
    expect(parseJsonOutput(again.stdout)).toMatchObject({ ok: true, steps: [] });
  }, 120_000);
});
