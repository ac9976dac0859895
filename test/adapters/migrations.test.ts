// The storage contract and the migration ledger (issue 47): a feature's tables with foreign keys to any table,
// composite unique constraints and indexes, columns it adds to other tables; the steps recorded in auth_migrations,
// each applied once; databases made by the release before (test/fixtures/*-before-issue-47.*, made by 0.1.0's
// migrate() with a user, an account, a session, a password, an API key and a verification token) upgraded in place to
// the schema of a fresh one, and then by adding Organizations() (issue 48) and Admin() (issue 49); a dry run that changes
// nothing. In SQLite (a real file) and PostgreSQL.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SqliteAdapter, migrate as migrateSqlite } from '../../templates/runtime/adapters/sqlite.js';
import { PostgresAdapter, migrate as migratePostgres } from '../../templates/runtime/adapters/postgres.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import type { AppliedStep } from '../../templates/runtime/adapters/sql-tables.js';
import type { Feature } from '../../templates/runtime/contracts.js';
import type { FeatureStorage } from '../../templates/runtime/features/database/adapter.js';
import { allFeatures } from '../support/all-features.js';
import { createTestPool, startPostgres } from '../support/postgres.js';
import type { RunningPostgres } from '../support/postgres.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/**
 * A feature as organizations would need it: its tables (a composite unique constraint, a composite index, a
 * reference to its own other table with cascade) and columns on a core table and on another feature's.
 */
const teamsStorage: FeatureStorage = {
  tables: [
    {
      name: 'teams',
      columns: { id: 'text', org: 'text', slug: 'text', created_at: 'date' },
      primaryKey: ['id'],
      unique: [['org', 'slug']],
      indexes: [['org', 'created_at']],
    },
    {
      name: 'team_members',
      columns: { team_id: 'text', user_id: 'text', role: 'text' },
      primaryKey: ['team_id', 'user_id'],
      references: { team_id: { table: 'teams', onDelete: 'cascade' } },
      indexes: ['user_id'],
    },
  ],
  columns: [
    { table: 'users', name: 'active_team_id', type: 'text', nullable: true, references: { table: 'teams', onDelete: 'set null' }, indexed: true },
    { table: 'users', name: 'plan', type: 'text', default: 'free' },
    { table: 'users', name: 'invited_by', type: 'text', nullable: true, references: { table: 'users', onDelete: 'set null' } },
    { table: 'sessions', name: 'impersonator_id', type: 'text', nullable: true, references: { table: 'users', onDelete: 'cascade' } },
    { table: 'api_keys', name: 'team_id', type: 'text', nullable: true, references: { table: 'teams', onDelete: 'cascade' } },
  ],
  sql: () => ({}),
  memory: () => ({ methods: {} }),
};
const teams: Feature = { id: 'teams', storage: teamsStorage };
/** The features of the fixtures' project: every one but Organizations (issue 48) and Admin() (issue 49), which came after. */
const released: readonly Feature[] = allFeatures.filter((feature) => feature.id !== 'organizations' && feature.id !== 'admin');
/** The features of a project of issue 48: every one but Admin(). */
const beforeAdmin: readonly Feature[] = allFeatures.filter((feature) => feature.id !== 'admin');
const withTeams: readonly Feature[] = [...released, teams];
/** The step issue 48 added to ApiKeys' own table: a database made before it gets the column with or without organizations. */
const apiKeyColumn = 'column:api_keys.organization_id';
/** Organizations()'s steps beside that one: its tables and their indexes, then its column on sessions. */
const organizationSteps = [
  'table:organizations',
  'table:organization_members',
  'index:organization_members_user_id_index',
  'table:organization_invitations',
  'index:organization_invitations_organization_id_email_unique',
  'index:organization_invitations_email_index',
  'table:organization_events',
  'index:organization_events_organization_id_at_index',
];
/** Admin()'s steps (issue 49): its tables and their index, then its columns on users and sessions. */
const adminSteps = [
  'table:admin_grants',
  'table:admin_actions',
  'index:admin_actions_user_id_at_index',
  'column:users.disabled_at',
  'column:users.disabled_reason',
  'column:users.created_at',
  'column:sessions.impersonated_by',
  'column:sessions.impersonator_session',
];
/** What the fixtures lack for the features of issue 48, in the order migrate runs it. */
const stepsSinceFixtures = ['auth_migrations', ...organizationSteps, apiKeyColumn, 'column:sessions.active_organization_id'];

const teamSteps = [
  'table:teams',
  'index:teams_org_slug_unique',
  'index:teams_org_created_at_index',
  'table:team_members',
  'index:team_members_user_id_index',
  'column:users.active_team_id',
  'index:users_active_team_id_index',
  'column:users.plan',
  'column:users.invited_by',
  'column:sessions.impersonator_id',
  'column:api_keys.team_id',
];

/** What a database has, as comparable data: columns, foreign keys, indexes (their columns, unique or not). */
interface Shape {
  [table: string]: { columns: unknown[]; foreignKeys: unknown[]; indexes: unknown[] };
}

function sqliteShape(database: Database.Database): Shape {
  const tables = (database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((row) => row.name);
  return Object.fromEntries(
    tables.map((table) => [
      table,
      {
        columns: (database.pragma(`table_info(${table})`) as { name: string; type: string; notnull: number; dflt_value: unknown; pk: number }[]).map(({ name, type, notnull, dflt_value, pk }) => ({ name, type, notnull, dflt_value, pk })),
        foreignKeys: (database.pragma(`foreign_key_list(${table})`) as { table: string; from: string; to: string; on_delete: string }[])
          .map(({ table: target, from, to, on_delete }) => ({ target, from, to, on_delete }))
          .sort((a, b) => a.from.localeCompare(b.from)),
        indexes: (database.pragma(`index_list(${table})`) as { name: string; unique: number; origin: string }[])
          .map(({ name, unique, origin }) => ({ name: origin === 'c' ? name : `(${origin})`, unique, columns: (database.pragma(`index_info(${name})`) as { name: string }[]).map((column) => column.name) }))
          .sort((a, b) => `${a.name}${a.columns.join()}`.localeCompare(`${b.name}${b.columns.join()}`)),
      },
    ]),
  );
}

async function postgresShape(client: Client): Promise<Shape> {
  const tables = (await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")).rows.map((row) => row.tablename);
  const shape: Shape = {};
  for (const table of tables) {
    const columns = await client.query(
      `SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    const constraints = await client.query(
      `SELECT conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint
       WHERE conrelid = ('public.' || $1)::regclass ORDER BY conname`,
      [table],
    );
    const indexes = await client.query("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = $1 ORDER BY indexname", [table]);
    shape[table] = { columns: columns.rows, foreignKeys: constraints.rows, indexes: indexes.rows };
  }
  return shape;
}

let folder: string;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'framework-auth-migrations-'));
});

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

function sqliteFile(name: string, from?: string): { path: string; url: string } {
  const path = join(folder, name);
  if (from) copyFileSync(fixture(from), path);
  return { path, url: `file:${path}` };
}

/** The rows the fixtures hold, as both adapters read them back. */
async function expectFixtureRows(adapter: ReturnType<typeof SqliteAdapter>): Promise<void> {
  const user = await adapter.getUser!('user-1');
  expect(user).toMatchObject({ id: 'user-1', name: 'Ada', email: 'ada@example.com', emailVerified: new Date('2026-11-28T12:00:00Z') });
  expect(await adapter.getUserByAccount!({ provider: 'oidc', providerAccountId: 'sub-1' })).toMatchObject({ id: 'user-1' });
  expect((await adapter.listAccountsByUserId!('user-1')).map((account) => account.refresh_token)).toEqual(['rt']);
  expect(await adapter.getSessionAndUser!('session-token-1')).toMatchObject({ session: { userId: 'user-1', userAgent: 'fixture', expires: new Date('2030-01-01T00:00:00Z') } });
  expect(await adapter.getPasswordHash!('user-1')).toMatch(/^\$argon2id\$/);
  expect(await adapter.listApiKeys!('user-1')).toEqual([expect.objectContaining({ id: 'key-1', name: 'ci', scopes: ['read'] })]);
  expect(await adapter.useVerificationToken!({ identifier: 'ada@example.com', token: 'b'.repeat(64) })).toMatchObject({ identifier: 'ada@example.com' });
}

/** An upgraded fixture's user makes an organization, has it active on the fixture's session and keys it (issue 48). */
async function expectOrganizationsWork(adapter: ReturnType<typeof SqliteAdapter>): Promise<void> {
  const organization = { id: 'org-1', slug: 'acme', name: 'Acme', createdAt: new Date('2026-11-29T10:00:00Z') };
  expect(await adapter.createOrganization!(organization, 'user-1')).toBe(true);
  await adapter.setActiveOrganization!('session-token-1', organization.id);
  expect(await adapter.findMemberships!('user-1', { sessionToken: 'session-token-1', organization: null })).toMatchObject({ active: { organization, role: 'owner' } });
  // The key made before the column is the user's own; a new one can be the organization's.
  const digest = 'e'.repeat(64);
  await adapter.createApiKey!({ id: 'key-2', userId: 'user-1', name: 'acme ci', start: 'fak_y', digest, scopes: [], organizationId: organization.id, createdAt: new Date(), lastUsedAt: null, expiresAt: new Date(Date.now() + 60_000) }, 10);
  expect(Object.fromEntries((await adapter.listApiKeys!('user-1')).map((key) => [key.id, key.organizationId]))).toEqual({ 'key-1': null, 'key-2': organization.id });
  expect((await adapter.getApiKeyAndUser!(digest))?.apiKey.organizationId).toBe(organization.id);
}

/** An upgraded fixture's user is disabled, which ends the fixture's session, and is then granted admin (issue 49). */
async function expectAdminWorks(adapter: ReturnType<typeof SqliteAdapter>): Promise<void> {
  expect(await adapter.getAdminState!('user-1')).toStrictEqual({ disabledAt: null, disabledReason: null, granted: false, createdAt: null });
  expect(await adapter.disableUser!('user-1', { at: new Date('2026-11-30T10:00:00Z'), reason: 'Spam' })).toBe(1);
  expect(await adapter.getSessionAndUser!('session-token-1')).toBeNull();
  expect(await adapter.grantAdmin!({ userId: 'user-1', grantedBy: 'user-1', at: new Date('2026-11-30T10:00:00Z') })).toBe(true);
  expect(await adapter.getAdminState!('user-1')).toMatchObject({ disabledAt: new Date('2026-11-30T10:00:00Z'), disabledReason: 'Spam', granted: true });
}

describe('SQLite migrations (issue 47)', () => {
  it('applies each step once, in order, and records it: a second run applies nothing', () => {
    const { url, path } = sqliteFile('ledger.db');
    const first: AppliedStep[] = [];
    migrateSqlite({ url, features: withTeams, onStep: (step) => first.push(step) });
    expect(first[0]).toEqual({ id: 'auth_migrations', sql: expect.stringContaining('CREATE TABLE IF NOT EXISTS auth_migrations') });
    // The core's steps first (the session columns among them), then the features' tables, then the added columns.
    expect(first.slice(1, 10).map((step) => step.id)).toEqual([
      'table:users',
      'table:accounts',
      'index:accounts_user_id_index',
      'table:sessions',
      'index:sessions_user_id_index',
      'column:sessions.created_at',
      'column:sessions.last_seen_at',
      'column:sessions.user_agent',
      'table:verification_tokens',
    ]);
    expect(first.map((step) => step.id)).toEqual(expect.arrayContaining(teamSteps));
    expect(first.map((step) => step.id).slice(-6)).toEqual(teamSteps.slice(-6));
    expect(first.filter((step) => step.sql === '')).toEqual([]);
    const database = new Database(path);
    try {
      const ledger = (database.prepare('SELECT id, applied_at FROM auth_migrations').all() as { id: string; applied_at: number }[]);
      expect(ledger.map((row) => row.id).sort()).toEqual(first.slice(1).map((step) => step.id).sort());
      expect(ledger.every((row) => Math.abs(row.applied_at - Date.now()) < 60_000)).toBe(true);
    } finally {
      database.close();
    }
    const second: AppliedStep[] = [];
    migrateSqlite({ url, features: withTeams, onStep: (step) => second.push(step) });
    expect(second).toEqual([]);
  });

  it('enforces the composite unique constraint, cascades and clears references, and has the indexes', async () => {
    const { path } = sqliteFile('contract.db');
    const database = new Database(path);
    try {
      const adapter = SqliteAdapter({ database, features: withTeams });
      await adapter.createUser!({ id: 'user-1', email: 'ada@example.com', emailVerified: null });
      await adapter.createUser!({ id: 'user-2', email: 'bob@example.com', emailVerified: null });
      database.prepare("INSERT INTO teams (id, org, slug, created_at) VALUES ('t1', 'acme', 'red', 1), ('t2', 'acme', 'blue', 2), ('t3', 'other', 'red', 3)").run();
      expect(() => database.prepare("INSERT INTO teams (id, org, slug, created_at) VALUES ('t4', 'acme', 'red', 4)").run()).toThrow(/UNIQUE/);
      database.prepare("INSERT INTO team_members (team_id, user_id, role) VALUES ('t1', 'user-1', 'owner'), ('t1', 'user-2', 'member'), ('t2', 'user-2', 'owner')").run();
      database.prepare("UPDATE users SET active_team_id = 't1', invited_by = 'user-1' WHERE id = 'user-2'").run();
      await adapter.createApiKey!({ id: 'key-1', userId: 'user-1', name: 'ci', start: 'fak_x', digest: 'd'.repeat(64), scopes: ['read'], organizationId: null, createdAt: new Date(), lastUsedAt: null, expiresAt: new Date(Date.now() + 60_000) }, 10);
      database.prepare("UPDATE api_keys SET team_id = 't1'").run();
      expect(database.prepare("SELECT plan FROM users WHERE id = 'user-1'").get()).toEqual({ plan: 'free' });

      // A team goes: its members and keys with it, the users' active team cleared.
      database.prepare("DELETE FROM teams WHERE id = 't1'").run();
      expect(database.prepare('SELECT team_id, user_id FROM team_members').all()).toEqual([{ team_id: 't2', user_id: 'user-2' }]);
      expect(database.prepare('SELECT count(*) AS n FROM api_keys').get()).toEqual({ n: 0 });
      expect(database.prepare("SELECT active_team_id FROM users WHERE id = 'user-2'").get()).toEqual({ active_team_id: null });

      // A user goes (deleteUser): their memberships and the sessions they impersonate with them, who they invited kept.
      await adapter.createSession!({ sessionToken: 's-1', userId: 'user-2', expires: new Date(Date.now() + 60_000) });
      database.prepare("UPDATE sessions SET impersonator_id = 'user-1' WHERE session_token = 's-1'").run();
      await adapter.deleteUser!('user-1');
      expect(database.prepare("SELECT invited_by FROM users WHERE id = 'user-2'").get()).toEqual({ invited_by: null });
      expect(database.prepare('SELECT count(*) AS n FROM sessions').get()).toEqual({ n: 0 });
      await adapter.deleteUser!('user-2');
      expect(database.prepare('SELECT count(*) AS n FROM team_members').get()).toEqual({ n: 0 });

      const shape = sqliteShape(database);
      expect(shape['teams']!.indexes).toEqual(expect.arrayContaining([
        { name: 'teams_org_slug_unique', unique: 1, columns: ['org', 'slug'] },
        { name: 'teams_org_created_at_index', unique: 0, columns: ['org', 'created_at'] },
      ]));
      expect(shape['users']!.indexes).toEqual(expect.arrayContaining([{ name: 'users_active_team_id_index', unique: 0, columns: ['active_team_id'] }]));
      expect(shape['team_members']!.foreignKeys).toEqual([
        { target: 'teams', from: 'team_id', to: 'id', on_delete: 'CASCADE' },
        { target: 'users', from: 'user_id', to: 'id', on_delete: 'CASCADE' },
      ]);
    } finally {
      database.close();
    }
  });

  it('upgrades a database made by 0.1.0 in place: its rows kept, what it has recorded, the schema a fresh one\'s', async () => {
    const { url, path } = sqliteFile('upgraded.db', 'sqlite-before-issue-47.db');
    // With the features of the fixture's project, 0.1.0 made every table: each step is only recorded, but for the
    // column issue 48 added to api_keys.
    const recorded: AppliedStep[] = [];
    migrateSqlite({ url, features: released, onStep: (step) => recorded.push(step) });
    expect(recorded.filter((step) => step.sql !== '').map((step) => step.id)).toEqual(['auth_migrations', apiKeyColumn]);
    // A new feature's steps then run on it, once.
    const added: AppliedStep[] = [];
    migrateSqlite({ url, features: withTeams, onStep: (step) => added.push(step) });
    expect(added.map((step) => step.id)).toEqual(teamSteps);
    const adapter = SqliteAdapter({ url, features: withTeams });
    await expectFixtureRows(adapter);
    expect(readFileSync(path).length).toBeGreaterThan(0);

    const fresh = sqliteFile('fresh.db');
    migrateSqlite({ url: fresh.url, features: withTeams });
    const [upgradedDb, freshDb] = [new Database(path), new Database(fresh.path)];
    try {
      expect(sqliteShape(upgradedDb)).toEqual(sqliteShape(freshDb));
      expect(upgradedDb.prepare("SELECT plan, active_team_id FROM users WHERE id = 'user-1'").get()).toEqual({ plan: 'free', active_team_id: null });
    } finally {
      upgradedDb.close();
      freshDb.close();
    }
  });

  it('adds the session columns to a table made before them (the core steps that were hand-written ALTERs)', () => {
    const { url, path } = sqliteFile('older.db');
    const old = new Database(path);
    old.exec(`CREATE TABLE users (id TEXT NOT NULL PRIMARY KEY, name TEXT, email TEXT UNIQUE, email_verified INTEGER, image TEXT);
      CREATE TABLE sessions (session_token TEXT NOT NULL PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE, expires INTEGER NOT NULL);`);
    old.close();
    const steps: AppliedStep[] = [];
    migrateSqlite({ url, onStep: (step) => steps.push(step) });
    const ran = Object.fromEntries(steps.map((step) => [step.id, step.sql]));
    expect(ran['table:sessions']).toBe('');
    expect(ran['column:sessions.user_agent']).toBe('ALTER TABLE sessions ADD COLUMN user_agent TEXT;');
    expect(ran['table:accounts']).toContain('CREATE TABLE IF NOT EXISTS accounts');
  });

  it('a dry run prints the SQL that would run and changes nothing, also on a file that does not exist yet', () => {
    const { url, path } = sqliteFile('dry.db', 'sqlite-before-issue-47.db');
    const before = readFileSync(path);
    const planned: AppliedStep[] = [];
    migrateSqlite({ url, features: withTeams, dryRun: true, onStep: (step) => planned.push(step) });
    expect(planned[0]?.id).toBe('auth_migrations');
    expect(planned.filter((step) => step.sql !== '').map((step) => step.id)).toEqual(['auth_migrations', ...teamSteps.slice(0, 5), apiKeyColumn, ...teamSteps.slice(5)]);
    expect(planned.find((step) => step.id === 'column:users.plan')?.sql).toBe("ALTER TABLE users ADD COLUMN plan TEXT NOT NULL DEFAULT 'free';");
    expect(readFileSync(path).equals(before)).toBe(true);
    const missing = join(folder, 'not-yet', 'auth.db');
    const fromNothing: AppliedStep[] = [];
    migrateSqlite({ url: `file:${missing}`, dryRun: true, onStep: (step) => fromNothing.push(step) });
    expect(fromNothing.map((step) => step.sql).join('\n')).toContain('CREATE TABLE IF NOT EXISTS users');
    expect(existsSync(join(folder, 'not-yet'))).toBe(false);
  });

  it('adds no organization table without Organizations(), only api_keys.organization_id (issue 48)', () => {
    const { url, path } = sqliteFile('without-organizations.db', 'sqlite-before-issue-47.db');
    const steps: AppliedStep[] = [];
    migrateSqlite({ url, features: released, onStep: (step) => steps.push(step) });
    expect(steps.map((step) => step.id).filter((id) => id.includes('organization'))).toEqual([apiKeyColumn]);
    const database = new Database(path);
    try {
      const shape = sqliteShape(database);
      expect(Object.keys(shape).filter((table) => table.startsWith('organization'))).toEqual([]);
      expect(shape['sessions']!.columns.map((column) => (column as { name: string }).name)).not.toContain('active_organization_id');
      expect(shape['api_keys']!.columns).toContainEqual({ name: 'organization_id', type: 'TEXT', notnull: 0, dflt_value: null, pk: 0 });
    } finally {
      database.close();
    }
  });

  it('upgrades a database made before issue 48 by adding Organizations(): a dry run lists the steps, migrate applies them once, the rows kept and the schema a fresh one\'s', async () => {
    const { url, path } = sqliteFile('organizations.db', 'sqlite-before-issue-47.db');
    const before = readFileSync(path);
    const planned: AppliedStep[] = [];
    migrateSqlite({ url, features: beforeAdmin, dryRun: true, onStep: (step) => planned.push(step) });
    expect(planned.filter((step) => step.sql !== '').map((step) => step.id)).toEqual(stepsSinceFixtures);
    expect(planned.find((step) => step.id === 'column:sessions.active_organization_id')?.sql).toBe('ALTER TABLE sessions ADD COLUMN active_organization_id TEXT REFERENCES organizations (id) ON DELETE SET NULL;');
    expect(readFileSync(path).equals(before)).toBe(true);
    const applied: AppliedStep[] = [];
    migrateSqlite({ url, features: beforeAdmin, onStep: (step) => applied.push(step) });
    expect(applied.filter((step) => step.sql !== '').map((step) => step.id)).toEqual(stepsSinceFixtures);
    const again: AppliedStep[] = [];
    migrateSqlite({ url, features: beforeAdmin, onStep: (step) => again.push(step) });
    expect(again).toEqual([]);
    const adapter = SqliteAdapter({ url, features: beforeAdmin });
    await expectFixtureRows(adapter);
    await expectOrganizationsWork(adapter);

    const fresh = sqliteFile('fresh-organizations.db');
    migrateSqlite({ url: fresh.url, features: beforeAdmin });
    const [upgradedDb, freshDb] = [new Database(path), new Database(fresh.path)];
    try {
      expect(sqliteShape(upgradedDb)).toEqual(sqliteShape(freshDb));
    } finally {
      upgradedDb.close();
      freshDb.close();
    }
  });
  it('adds no administration table or column without Admin(), and its steps once with it (issue 49): the rows kept, the schema a fresh one\'s', async () => {
    const { url, path } = sqliteFile('admin.db', 'sqlite-before-issue-47.db');
    const without: AppliedStep[] = [];
    migrateSqlite({ url, features: beforeAdmin, onStep: (step) => without.push(step) });
    expect(without.map((step) => step.id).filter((id) => adminSteps.includes(id))).toEqual([]);
    const plain = new Database(path);
    try {
      const shape = sqliteShape(plain);
      expect(Object.keys(shape).filter((table) => table.startsWith('admin'))).toEqual([]);
      expect(shape['users']!.columns.map((column) => (column as { name: string }).name)).toEqual(['id', 'name', 'email', 'email_verified', 'image']);
    } finally {
      plain.close();
    }
    const applied: AppliedStep[] = [];
    migrateSqlite({ url, features: allFeatures, onStep: (step) => applied.push(step) });
    expect(applied.map((step) => step.id)).toEqual(adminSteps);
    expect(applied.find((step) => step.id === 'column:sessions.impersonated_by')?.sql).toBe('ALTER TABLE sessions ADD COLUMN impersonated_by TEXT REFERENCES users (id) ON DELETE CASCADE;');
    const again: AppliedStep[] = [];
    migrateSqlite({ url, features: allFeatures, onStep: (step) => again.push(step) });
    expect(again).toEqual([]);
    const adapter = SqliteAdapter({ url, features: allFeatures });
    await expectFixtureRows(adapter);
    await expectAdminWorks(adapter);

    const fresh = sqliteFile('fresh-admin.db');
    migrateSqlite({ url: fresh.url, features: allFeatures });
    const [upgradedDb, freshDb] = [new Database(path), new Database(fresh.path)];
    try {
      expect(sqliteShape(upgradedDb)).toEqual(sqliteShape(freshDb));
    } finally {
      upgradedDb.close();
      freshDb.close();
    }
  });
});

describe('PostgreSQL migrations (issue 47)', () => {
  let server: RunningPostgres;
  let pool: Pool;

  beforeAll(async () => {
    server = await startPostgres();
    pool = createTestPool({ connectionString: server.url });
  });

  afterAll(async () => {
    await pool?.end();
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await server?.stop();
    vi.restoreAllMocks();
  });

  async function createDatabase(name: string): Promise<string> {
    await pool.query(`CREATE DATABASE ${name}`);
    const url = new URL(server.url);
    url.pathname = `/${name}`;
    return url.href;
  }

  async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  /** A database as 0.1.0's migrate() left it, with the fixture's rows (pg_dump of it). */
  async function databaseOf010(name: string): Promise<string> {
    const url = await createDatabase(name);
    await withClient(url, (client) => client.query(readFileSync(fixture('postgres-before-issue-47.sql'), 'utf8')));
    return url;
  }

  it('applies each step once, also from several processes at once: a second run applies nothing', async () => {
    const url = await createDatabase('ledger');
    const runs: AppliedStep[][] = [[], [], [], []];
    await Promise.all(runs.map((steps) => migratePostgres({ url, features: withTeams, onStep: (step) => steps.push(step) })));
    // One process applied the steps; the others waited for its lock, then found nothing to do.
    expect(runs.filter((steps) => steps.length > 0)).toHaveLength(1);
    const applied = runs.find((steps) => steps.length > 0)!;
    expect(applied.map((step) => step.id)).toEqual(expect.arrayContaining(['auth_migrations', 'table:users', 'column:sessions.user_agent', ...teamSteps]));
    const ledger = await withClient(url, async (client) => (await client.query<{ id: string }>('SELECT id FROM auth_migrations')).rows.map((row) => row.id));
    expect(ledger.sort()).toEqual(applied.slice(1).map((step) => step.id).sort());
    const again: AppliedStep[] = [];
    await migratePostgres({ url, features: withTeams, onStep: (step) => again.push(step) });
    expect(again).toEqual([]);
  });

  it('enforces the composite unique constraint, cascades and clears references, and has the indexes', async () => {
    const url = await createDatabase('contract');
    const adapter = PostgresAdapter({ url, features: withTeams });
    await adapter.createUser!({ id: 'user-1', email: 'ada@example.com', emailVerified: null });
    await adapter.createUser!({ id: 'user-2', email: 'bob@example.com', emailVerified: null });
    await withClient(url, async (client) => {
      await client.query("INSERT INTO teams (id, org, slug, created_at) VALUES ('t1', 'acme', 'red', now()), ('t2', 'acme', 'blue', now()), ('t3', 'other', 'red', now())");
      await expect(client.query("INSERT INTO teams (id, org, slug, created_at) VALUES ('t4', 'acme', 'red', now())")).rejects.toMatchObject({ code: '23505' });
      await client.query("INSERT INTO team_members (team_id, user_id, role) VALUES ('t1', 'user-1', 'owner'), ('t1', 'user-2', 'member'), ('t2', 'user-2', 'owner')");
      await client.query("UPDATE users SET active_team_id = 't1', invited_by = 'user-1' WHERE id = 'user-2'");
      await adapter.createApiKey!({ id: 'key-1', userId: 'user-1', name: 'ci', start: 'fak_x', digest: 'd'.repeat(64), scopes: ['read'], organizationId: null, createdAt: new Date(), lastUsedAt: null, expiresAt: new Date(Date.now() + 60_000) }, 10);
      await client.query("UPDATE api_keys SET team_id = 't1'");
      expect((await client.query("SELECT plan FROM users WHERE id = 'user-1'")).rows).toEqual([{ plan: 'free' }]);

      await client.query("DELETE FROM teams WHERE id = 't1'");
      expect((await client.query('SELECT team_id, user_id FROM team_members')).rows).toEqual([{ team_id: 't2', user_id: 'user-2' }]);
      expect((await client.query('SELECT count(*)::int AS n FROM api_keys')).rows).toEqual([{ n: 0 }]);
      expect((await client.query("SELECT active_team_id FROM users WHERE id = 'user-2'")).rows).toEqual([{ active_team_id: null }]);

      await adapter.createSession!({ sessionToken: 's-1', userId: 'user-2', expires: new Date(Date.now() + 60_000) });
      await client.query("UPDATE sessions SET impersonator_id = 'user-1' WHERE session_token = 's-1'");
      await adapter.deleteUser!('user-1');
      expect((await client.query("SELECT invited_by FROM users WHERE id = 'user-2'")).rows).toEqual([{ invited_by: null }]);
      expect((await client.query('SELECT count(*)::int AS n FROM sessions')).rows).toEqual([{ n: 0 }]);
      await adapter.deleteUser!('user-2');
      expect((await client.query('SELECT count(*)::int AS n FROM team_members')).rows).toEqual([{ n: 0 }]);

      const shape = await postgresShape(client);
      expect(shape['teams']!.indexes).toEqual(expect.arrayContaining([
        { indexname: 'teams_org_slug_unique', indexdef: 'CREATE UNIQUE INDEX teams_org_slug_unique ON public.teams USING btree (org, slug)' },
        { indexname: 'teams_org_created_at_index', indexdef: 'CREATE INDEX teams_org_created_at_index ON public.teams USING btree (org, created_at)' },
      ]));
      expect(shape['users']!.indexes).toEqual(expect.arrayContaining([{ indexname: 'users_active_team_id_index', indexdef: 'CREATE INDEX users_active_team_id_index ON public.users USING btree (active_team_id)' }]));
      expect(shape['team_members']!.foreignKeys).toEqual(expect.arrayContaining([
        { conname: 'team_members_team_id_fkey', definition: 'FOREIGN KEY (team_id) REFERENCES teams(id) ON DELETE CASCADE' },
        { conname: 'team_members_user_id_fkey', definition: 'FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE' },
      ]));
    });
  });

  it('upgrades a database made by 0.1.0 in place: its rows kept, what it has recorded, the schema a fresh one\'s', async () => {
    const url = await databaseOf010('upgraded');
    const recorded: AppliedStep[] = [];
    await migratePostgres({ url, features: released, onStep: (step) => recorded.push(step) });
    expect(recorded.filter((step) => step.sql !== '').map((step) => step.id)).toEqual(['auth_migrations', apiKeyColumn]);
    const added: AppliedStep[] = [];
    await migratePostgres({ url, features: withTeams, onStep: (step) => added.push(step) });
    expect(added.map((step) => step.id)).toEqual(teamSteps);
    await expectFixtureRows(PostgresAdapter({ url, features: withTeams }));

    const fresh = await createDatabase('fresh');
    await migratePostgres({ url: fresh, features: withTeams });
    const [upgradedShape, freshShape] = [await withClient(url, postgresShape), await withClient(fresh, postgresShape)];
    // The ledger's rows differ (when each step ran), not its shape.
    expect(upgradedShape).toEqual(freshShape);
  });

  it('a dry run prints the SQL that would run and changes nothing', async () => {
    const url = await databaseOf010('dry');
    const before = await withClient(url, postgresShape);
    const planned: AppliedStep[] = [];
    await migratePostgres({ url, features: withTeams, dryRun: true, onStep: (step) => planned.push(step) });
    expect(planned.filter((step) => step.sql !== '').map((step) => step.id)).toEqual(['auth_migrations', ...teamSteps.slice(0, 5), apiKeyColumn, ...teamSteps.slice(5)]);
    expect(planned.find((step) => step.id === 'column:api_keys.team_id')?.sql).toBe('ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS team_id text REFERENCES teams (id) ON DELETE CASCADE;');
    expect(await withClient(url, postgresShape)).toEqual(before);
  });

  it('adds no organization table without Organizations(), only api_keys.organization_id (issue 48)', async () => {
    const url = await databaseOf010('without_organizations');
    const steps: AppliedStep[] = [];
    await migratePostgres({ url, features: released, onStep: (step) => steps.push(step) });
    expect(steps.map((step) => step.id).filter((id) => id.includes('organization'))).toEqual([apiKeyColumn]);
    const shape = await withClient(url, postgresShape);
    expect(Object.keys(shape).filter((table) => table.startsWith('organization'))).toEqual([]);
    expect(shape['sessions']!.columns.map((column) => (column as { column_name: string }).column_name)).not.toContain('active_organization_id');
    expect(shape['api_keys']!.columns).toContainEqual({ column_name: 'organization_id', data_type: 'text', is_nullable: 'YES', column_default: null });
  });

  it('upgrades a database made before issue 48 by adding Organizations(): a dry run lists the steps, migrate applies them once, the rows kept and the schema a fresh one\'s', async () => {
    const url = await databaseOf010('organizations');
    const before = await withClient(url, postgresShape);
    const planned: AppliedStep[] = [];
    await migratePostgres({ url, features: beforeAdmin, dryRun: true, onStep: (step) => planned.push(step) });
    expect(planned.filter((step) => step.sql !== '').map((step) => step.id)).toEqual(stepsSinceFixtures);
    expect(await withClient(url, postgresShape)).toEqual(before);
    const applied: AppliedStep[] = [];
    await migratePostgres({ url, features: beforeAdmin, onStep: (step) => applied.push(step) });
    expect(applied.filter((step) => step.sql !== '').map((step) => step.id)).toEqual(stepsSinceFixtures);
    const again: AppliedStep[] = [];
    await migratePostgres({ url, features: beforeAdmin, onStep: (step) => again.push(step) });
    expect(again).toEqual([]);
    const adapter = PostgresAdapter({ url, features: beforeAdmin });
    await expectFixtureRows(adapter);
    await expectOrganizationsWork(adapter);

    const fresh = await createDatabase('fresh_organizations');
    await migratePostgres({ url: fresh, features: beforeAdmin });
    expect(await withClient(url, postgresShape)).toEqual(await withClient(fresh, postgresShape));
  });

  it('adds no administration table or column without Admin(), and its steps once with it (issue 49): the rows kept, the schema a fresh one\'s', async () => {
    const url = await databaseOf010('admin');
    const without: AppliedStep[] = [];
    await migratePostgres({ url, features: beforeAdmin, onStep: (step) => without.push(step) });
    expect(without.map((step) => step.id).filter((id) => adminSteps.includes(id))).toEqual([]);
    const shape = await withClient(url, postgresShape);
    expect(Object.keys(shape).filter((table) => table.startsWith('admin'))).toEqual([]);
    expect(shape['users']!.columns.map((column) => (column as { column_name: string }).column_name)).toEqual(['id', 'name', 'email', 'email_verified', 'image']);
    const applied: AppliedStep[] = [];
    await migratePostgres({ url, features: allFeatures, onStep: (step) => applied.push(step) });
    expect(applied.map((step) => step.id)).toEqual(adminSteps);
    const again: AppliedStep[] = [];
    await migratePostgres({ url, features: allFeatures, onStep: (step) => again.push(step) });
    expect(again).toEqual([]);
    const adapter = PostgresAdapter({ url, features: allFeatures });
    await expectFixtureRows(adapter);
    await expectAdminWorks(adapter);

    const fresh = await createDatabase('fresh_admin');
    await migratePostgres({ url: fresh, features: allFeatures });
    expect(await withClient(url, postgresShape)).toEqual(await withClient(fresh, postgresShape));
  });

  it('an up-to-date database costs a new adapter one query and no lock, and a session read none more (the fast path)', async () => {
    const url = await createDatabase('fast_path');
    await migratePostgres({ url, features: withTeams });
    const ownPool = createTestPool({ connectionString: url });
    try {
      const adapter = PostgresAdapter({ pool: ownPool, features: withTeams });
      const query = vi.spyOn(ownPool, 'query');
      const connect = vi.spyOn(ownPool, 'connect');
      await adapter.createUser!({ id: 'user-1', email: 'ada@example.com', emailVerified: null });
      expect(query.mock.calls.map((call) => String(call[0]))).toEqual(['SELECT id FROM auth_migrations', expect.stringContaining('INSERT INTO users')]);
      // Each of the two took a connection for itself: no third one for a migration's transaction.
      expect(connect).toHaveBeenCalledTimes(2);
      await adapter.createSession!({ sessionToken: 's-1', userId: 'user-1', expires: new Date(Date.now() + 60_000) });
      query.mockClear();
      expect(await adapter.getSessionAndUserForRead!('s-1')).toMatchObject({ session: { userId: 'user-1' } });
      expect(query).toHaveBeenCalledTimes(1);
    } finally {
      vi.restoreAllMocks();
      await ownPool.end();
    }
  });
});

describe('the memory adapter and added columns (issue 47)', () => {
  it('keeps an added column of sessions and users, and applies its reference to users when a user is deleted', async () => {
    const adapter = MemoryAdapter({ features: [teams] });
    await adapter.createUser!({ id: 'user-1', email: 'ada@example.com', emailVerified: null });
    await adapter.createUser!({ id: 'user-2', email: 'bob@example.com', emailVerified: null, invitedBy: 'user-1' } as never);
    await adapter.createSession!({ sessionToken: 's-1', userId: 'user-2', expires: new Date(Date.now() + 60_000), impersonatorId: 'user-1' } as never);
    await adapter.createSession!({ sessionToken: 's-2', userId: 'user-2', expires: new Date(Date.now() + 60_000) });
    expect(await adapter.getSessionAndUser!('s-1')).toMatchObject({ session: { impersonatorId: 'user-1' }, user: { invitedBy: 'user-1' } });
    await adapter.deleteUser!('user-1');
    expect(await adapter.getSessionAndUser!('s-1')).toBeNull();
    expect(await adapter.getSessionAndUser!('s-2')).toMatchObject({ user: { id: 'user-2', invitedBy: null } });
  });
});
