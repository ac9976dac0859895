import type { Pool } from 'pg';
import { Client } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresAdapter, migrate } from '../../templates/runtime/adapters/postgres.js';
import type { Adapter, AdapterUser } from '../../templates/runtime/features/database/adapter.js';
import { createTestPool, startPostgres } from '../support/postgres.js';
import type { RunningPostgres } from '../support/postgres.js';
import { runAdapterSuite } from './adapter-suite.js';
import { ApiKeys } from '../../templates/runtime/features/api-keys/index.js';
import { allFeatures, withAllFeatures } from '../support/all-features.js';

let server: RunningPostgres;
let pool: Pool;

beforeAll(async () => {
  server = await startPostgres();
  pool = createTestPool({ connectionString: server.url });
});

afterAll(async () => {
  await pool?.end();
  // Adapters made from a URL own their pool and never end it: stopping the server closes those connections,
  // which the adapter reports (see "survives the server closing an idle connection").
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  await server?.stop();
  vi.restoreAllMocks();
});

/** Every test starts without tables, so each new adapter creates them again before its first query. */
async function dropTables(): Promise<void> {
  await pool.query('DROP TABLE IF EXISTS admin_actions, admin_grants, organization_events, organization_invitations, organization_members, organizations, email_changes, security_events, api_keys, recovery_codes, two_factor, passwords, authenticators, sessions, accounts, verification_tokens, users, rate_limits, auth_migrations');
}

/** A fresh database on the same server, for tests that look at a schema from scratch. */
async function createDatabase(name: string): Promise<string> {
  await pool.query(`CREATE DATABASE ${name}`);
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return url.href;
}

async function newUser(adapter: Adapter, id = 'user-1'): Promise<AdapterUser> {
  return adapter.createUser!({ id, name: 'Ada', email: `${id}@example.com`, emailVerified: null });
}

runAdapterSuite('postgres', async () => ({ adapter: withAllFeatures(PostgresAdapter({ pool })), cleanup: dropTables }));

describe('postgres adapter database', () => {
  afterEach(async () => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    await dropTables();
  });

  it('creates the tables and indexes before its first query', async () => {
    const url = await createDatabase('first_query');
    const ownPool = createTestPool({ connectionString: url });
    const adapter = withAllFeatures(PostgresAdapter({ pool: ownPool }));
    expect(await adapter.getUser!('nobody')).toBeNull();
    await ownPool.end();
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const tables = await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
      expect(tables.rows.map((row: { tablename: string }) => row.tablename)).toEqual(['accounts', 'admin_actions', 'admin_grants', 'api_keys', 'auth_migrations', 'authenticators', 'email_changes', 'organization_events', 'organization_invitations', 'organization_members', 'organizations', 'passwords', 'rate_limits', 'recovery_codes', 'security_events', 'sessions', 'two_factor', 'users', 'verification_tokens']);
      const indexes = await client.query("SELECT indexname FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname");
      expect(indexes.rows.map((row: { indexname: string }) => row.indexname)).toEqual([
        'accounts_pkey',
        'accounts_user_id_index',
        'admin_actions_pkey',
        'admin_actions_user_id_at_index',
        'admin_grants_pkey',
        'api_keys_digest_key',
        'api_keys_pkey',
        'api_keys_user_id_index',
        'auth_migrations_pkey',
        'authenticators_credential_id_key',
        'authenticators_pkey',
        'email_changes_digest_key',
        'email_changes_new_email_index',
        'email_changes_pkey',
        'organization_events_organization_id_at_index',
        'organization_events_pkey',
        'organization_invitations_digest_key',
        'organization_invitations_email_index',
        'organization_invitations_organization_id_email_unique',
        'organization_invitations_pkey',
        'organization_members_pkey',
        'organization_members_user_id_index',
        'organizations_pkey',
        'organizations_slug_key',
        'passwords_pkey',
        'rate_limits_pkey',
        'rate_limits_reset_at_index',
        'recovery_codes_pkey',
        'security_events_at_index',
        'security_events_pkey',
        'security_events_user_id_index',
        'sessions_pkey',
        'sessions_user_id_index',
        'two_factor_pkey',
        'users_email_key',
        'users_pkey',
        'verification_tokens_pkey',
      ]);
    } finally {
      await client.end();
    }
  });

  it('migrate() can run again, and from several processes at once', async () => {
    const url = await createDatabase('concurrent_migrations');
    const options = { url, features: allFeatures };
    await Promise.all([migrate(options), migrate(options), migrate(options), migrate(options)]);
    await migrate(options);
    const adapter = withAllFeatures(PostgresAdapter({ url }));
    expect((await newUser(adapter)).id).toBe('user-1');
  });

  it('migrate() creates the core\'s tables and only the given features\' tables (issue 35; api_keys only with ApiKeys(), issue 37), and resolves their names', async () => {
    const tablesOf = async (url: string): Promise<string[]> => {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
        return rows.map((row) => row.tablename);
      } finally {
        await client.end();
      }
    };
    const core = await createDatabase('core_only');
    expect(await migrate({ url: core })).toEqual(['users', 'accounts', 'sessions', 'verification_tokens', 'auth_migrations']);
    expect(await tablesOf(core)).toEqual(['accounts', 'auth_migrations', 'sessions', 'users', 'verification_tokens']);
    const keys = await createDatabase('api_keys_only');
    expect(await migrate({ url: keys, features: [ApiKeys()] })).toEqual(['users', 'accounts', 'sessions', 'verification_tokens', 'api_keys', 'auth_migrations']);
    expect(await tablesOf(keys)).toEqual(['accounts', 'api_keys', 'auth_migrations', 'sessions', 'users', 'verification_tokens']);
    const all = await createDatabase('all_features');
    const names = await migrate({ url: all, features: allFeatures });
    expect([...names].sort()).toEqual(['accounts', 'admin_actions', 'admin_grants', 'api_keys', 'auth_migrations', 'authenticators', 'email_changes', 'organization_events', 'organization_invitations', 'organization_members', 'organizations', 'passwords', 'rate_limits', 'recovery_codes', 'security_events', 'sessions', 'two_factor', 'users', 'verification_tokens']);
    expect(await tablesOf(all)).toEqual([...names].sort());
  });

  it('reads DATABASE_URL when no url is given', async () => {
    vi.stubEnv('DATABASE_URL', server.url);
    const adapter = PostgresAdapter();
    await newUser(adapter);
    expect((await pool.query('SELECT id FROM users')).rows).toEqual([{ id: 'user-1' }]);
  });

  it('refuses to start without a database URL, naming DATABASE_URL', () => {
    vi.stubEnv('DATABASE_URL', undefined);
    expect(() => PostgresAdapter()).toThrow(/set DATABASE_URL/);
  });

  it('creates the tables once for many queries at the same time', async () => {
    const adapter = withAllFeatures(PostgresAdapter({ pool }));
    const users = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => newUser(adapter, id)));
    expect(users.map((user) => user.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('shares sessions between two adapters on one database (two app processes)', async () => {
    const pools = [createTestPool({ connectionString: server.url }), createTestPool({ connectionString: server.url })] as const;
    try {
      const first = PostgresAdapter({ pool: pools[0] });
      const second = PostgresAdapter({ pool: pools[1] });
      const user = await newUser(first);
      const expires = new Date('2030-01-01T00:00:00.000Z');
      await first.createSession!({ sessionToken: 'session-1', userId: user.id, expires });
      expect(await second.getSessionAndUser!('session-1')).toEqual({ session: { sessionToken: 'session-1', userId: user.id, expires }, user });
      await second.deleteSession!('session-1');
      expect(await first.getSessionAndUser!('session-1')).toBeNull();
    } finally {
      await Promise.all(pools.map((each) => each.end()));
    }
  });

  it('survives the server closing an idle connection, and reconnects', async () => {
    const url = await createDatabase('idle_failure');
    const adapter = PostgresAdapter({ url });
    await newUser(adapter);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // What a server restart or failover does to the adapter's idle pooled connection.
    await pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'idle_failure'");
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringContaining('an idle database connection failed')));
    expect((await adapter.getUser!('user-1'))?.email).toBe('user-1@example.com');
  });

  it('deleting a user row cascades to its accounts, sessions and authenticators', async () => {
    const adapter = withAllFeatures(PostgresAdapter({ pool }));
    const user = await newUser(adapter);
    await adapter.linkAccount!({ userId: user.id, type: 'oauth', provider: 'github', providerAccountId: '42' });
    await adapter.createSession!({ sessionToken: 'session-1', userId: user.id, expires: new Date() });
    await adapter.createAuthenticator!({
      credentialID: 'credential-1',
      userId: user.id,
      providerAccountId: 'credential-1',
      credentialPublicKey: 'key',
      counter: 0,
      credentialDeviceType: 'singleDevice',
      credentialBackedUp: false,
    });

    // Straight SQL, not deleteUser(): the schema's foreign keys do the work.
    await pool.query('DELETE FROM users WHERE id = $1', [user.id]);

    for (const table of ['accounts', 'sessions', 'authenticators']) {
      expect((await pool.query(`SELECT count(*)::int AS count FROM ${table}`)).rows).toEqual([{ count: 0 }]);
    }
  });

  it('adds the session-management columns and the passwords table to a database of an earlier version, keeping its rows', async () => {
    await pool.query(`CREATE TABLE users (id text PRIMARY KEY, name text, email text UNIQUE, email_verified timestamptz, image text);
      CREATE TABLE sessions (session_token text PRIMARY KEY, user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE, expires timestamptz NOT NULL);
      INSERT INTO users (id, email) VALUES ('user-1', 'ada@example.com');
      INSERT INTO sessions VALUES ('old-session', 'user-1', '2030-01-01T00:00:00Z');`);
    await migrate({ pool, features: allFeatures });
    await migrate({ pool, features: allFeatures });
    const { rows } = await pool.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'sessions' ORDER BY ordinal_position`);
    expect(rows.map((row: { column_name: string }) => row.column_name)).toEqual(['session_token', 'user_id', 'expires', 'created_at', 'last_seen_at', 'user_agent', 'active_organization_id', 'impersonated_by', 'impersonator_session']);
    const upgraded = withAllFeatures(PostgresAdapter({ pool }));
    expect(await upgraded.listSessionsByUserId!('user-1')).toEqual([
      { sessionToken: 'old-session', userId: 'user-1', expires: new Date('2030-01-01T00:00:00Z') },
    ]);
    // The password and two-factor tables came with the upgrade, for the users already there.
    await upgraded.setPasswordHash!('user-1', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA');
    expect(await upgraded.getPasswordHash!('user-1')).toBe('$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA');
    await upgraded.setTwoFactor!('user-1', { secret: 'sealed', enabledAt: null });
    expect(await upgraded.getTwoFactor!('user-1')).toEqual({ secret: 'sealed', enabledAt: null, lastStep: null, recoveryCodes: 0 });
  });

  it('stores dates as timestamptz', async () => {
    const adapter = withAllFeatures(PostgresAdapter({ pool }));
    await newUser(adapter);
    const types = await pool.query(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = 'public' AND data_type = 'timestamp with time zone' ORDER BY table_name, column_name`,
    );
    expect(types.rows).toEqual([
      { table_name: 'admin_actions', column_name: 'at' },
      { table_name: 'admin_grants', column_name: 'granted_at' },
      { table_name: 'api_keys', column_name: 'created_at' },
      { table_name: 'api_keys', column_name: 'expires_at' },
      { table_name: 'api_keys', column_name: 'last_used_at' },
      { table_name: 'auth_migrations', column_name: 'applied_at' },
      { table_name: 'email_changes', column_name: 'expires' },
      { table_name: 'organization_events', column_name: 'at' },
      { table_name: 'organization_invitations', column_name: 'created_at' },
      { table_name: 'organization_invitations', column_name: 'expires_at' },
      { table_name: 'organization_members', column_name: 'created_at' },
      { table_name: 'organizations', column_name: 'created_at' },
      { table_name: 'passwords', column_name: 'updated_at' },
      { table_name: 'rate_limits', column_name: 'reset_at' },
      { table_name: 'security_events', column_name: 'at' },
      { table_name: 'sessions', column_name: 'created_at' },
      { table_name: 'sessions', column_name: 'expires' },
      { table_name: 'sessions', column_name: 'last_seen_at' },
      { table_name: 'two_factor', column_name: 'enabled_at' },
      { table_name: 'users', column_name: 'created_at' },
      { table_name: 'users', column_name: 'disabled_at' },
      { table_name: 'users', column_name: 'email_verified' },
      { table_name: 'verification_tokens', column_name: 'expires' },
    ]);
  });
});
