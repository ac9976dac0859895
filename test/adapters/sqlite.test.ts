import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteAdapter, migrate } from '../../templates/runtime/adapters/sqlite.js';
import type { Adapter, AdapterUser } from '../../templates/runtime/features/database/adapter.js';
import { runAdapterSuite } from './adapter-suite.js';
import { allFeatures, withAllFeatures } from '../support/all-features.js';
import { resolveConfig } from '../../templates/runtime/config.js';
import { webAuthnFlow } from '../../templates/runtime/features/passkey/index.js';
import { ApiKeys } from '../../templates/runtime/features/api-keys/index.js';
import { SecurityEvents } from '../../templates/runtime/features/security-events/index.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import Password from '../../templates/runtime/providers/password.js';

runAdapterSuite('sqlite', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'framework-auth-sqlite-'));
  const database = new Database(join(folder, 'auth.db'));
  return {
    adapter: withAllFeatures(SqliteAdapter({ database })),
    async cleanup() {
      database.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
});

describe('sqlite adapter files', () => {
  let folder: string;
  const opened: Database.Database[] = [];

  function open(path: string): Database.Database {
    const database = new Database(path);
    opened.push(database);
    return database;
  }

  function tableNames(database: Database.Database): string[] {
    const rows = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    return rows.map((row) => row.name);
  }

  async function newUser(adapter: Adapter): Promise<AdapterUser> {
    return adapter.createUser!({ id: 'user-1', name: 'Ada', email: 'ada@example.com', emailVerified: null });
  }

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'framework-auth-sqlite-'));
  });

  afterEach(async () => {
    for (const database of opened.splice(0)) database.close();
    vi.unstubAllEnvs();
    await rm(folder, { recursive: true, force: true });
  });

  it('creates the folder of a file: URL and the tables on first use', async () => {
    const path = join(folder, 'nested', 'data', 'auth.db');
    const adapter = withAllFeatures(SqliteAdapter({ url: `file:${path}` }));
    expect(existsSync(path)).toBe(false);
    await newUser(adapter);
    expect(tableNames(open(path))).toEqual(['accounts', 'admin_actions', 'admin_grants', 'api_keys', 'auth_migrations', 'authenticators', 'email_changes', 'organization_events', 'organization_invitations', 'organization_members', 'organizations', 'passwords', 'rate_limits', 'recovery_codes', 'security_events', 'sessions', 'two_factor', 'users', 'verification_tokens']);
  });

  it('accepts a plain path and a file:// URL', async () => {
    const plain = join(folder, 'plain.db');
    const url = join(folder, 'url.db');
    await newUser(SqliteAdapter({ url: plain }));
    await newUser(SqliteAdapter({ url: pathToFileURL(url).href }));
    expect(open(plain).prepare('SELECT email FROM users').get()).toEqual({ email: 'ada@example.com' });
    expect(open(url).prepare('SELECT email FROM users').get()).toEqual({ email: 'ada@example.com' });
  });

  it('reads DATABASE_URL when no url is given', async () => {
    const path = join(folder, 'from-env.db');
    vi.stubEnv('DATABASE_URL', `file:${path}`);
    await newUser(SqliteAdapter());
    expect(open(path).prepare('SELECT id FROM users').get()).toEqual({ id: 'user-1' });
  });

  it('refuses a database URL that is not a file, without showing it', async () => {
    const adapter = SqliteAdapter({ url: 'postgres://app:hunter2@db.example.com/app' });
    let message = '';
    try {
      await newUser(adapter);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('must be a file: URL or a path (got a postgres:// URL)');
    expect(message).not.toContain('hunter2');
  });

  it('adds the session-management columns and the passwords table to a database of an earlier version, keeping its rows', async () => {
    const path = join(folder, 'old.db');
    const old = open(path);
    old.exec(`CREATE TABLE users (id TEXT NOT NULL PRIMARY KEY, name TEXT, email TEXT UNIQUE, email_verified INTEGER, image TEXT);
      CREATE TABLE sessions (session_token TEXT NOT NULL PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE, expires INTEGER NOT NULL);
      INSERT INTO users (id, email) VALUES ('user-1', 'ada@example.com');
      INSERT INTO sessions VALUES ('old-session', 'user-1', 1893456000000);`);
    migrate({ url: `file:${path}`, features: allFeatures });
    const columns = (old.pragma('table_info(sessions)') as { name: string }[]).map((column) => column.name);
    expect(columns).toEqual(['session_token', 'user_id', 'expires', 'created_at', 'last_seen_at', 'user_agent', 'active_organization_id', 'impersonated_by', 'impersonator_session']);
    const adapter = withAllFeatures(SqliteAdapter({ url: `file:${path}` }));
    expect(await adapter.listSessionsByUserId!('user-1')).toEqual([
      { sessionToken: 'old-session', userId: 'user-1', expires: new Date(1893456000000) },
    ]);
    // Running it again on the upgraded table changes nothing.
    migrate({ url: `file:${path}`, features: allFeatures });
    expect((old.pragma('table_info(sessions)') as unknown[]).length).toBe(9);
    // The password and two-factor tables came with the upgrade, for the users already there.
    await adapter.setPasswordHash!('user-1', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA');
    expect(await adapter.getPasswordHash!('user-1')).toBe('$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA');
    await adapter.setTwoFactor!('user-1', { secret: 'sealed', enabledAt: null });
    expect(await adapter.getTwoFactor!('user-1')).toEqual({ secret: 'sealed', enabledAt: null, lastStep: null, recoveryCodes: 0 });
  });

  it('opens a file in WAL mode with synchronous = NORMAL, new or existing, and leaves a connection passed to it as it is', async () => {
    // docs/adapters.md, "SQLite file settings": what it says of durability holds only with these settings.
    const seen: Database.Database[] = [];
    const original = Database.prototype.pragma;
    const spy = vi.spyOn(Database.prototype, 'pragma').mockImplementation(function (this: Database.Database, ...args: Parameters<Database.Database['pragma']>) {
      if (!seen.includes(this)) seen.push(this);
      return original.apply(this, args);
    });
    try {
      const url = `file:${join(folder, 'auth.db')}`;
      await newUser(SqliteAdapter({ url }));
      await SqliteAdapter({ url }).getUser!('user-1');
      const passed = open(join(folder, 'own.db'));
      passed.pragma('synchronous = FULL');
      await newUser(SqliteAdapter({ database: passed }));
      const [first, later] = seen.filter((database) => database !== passed);
      expect(seen).toHaveLength(3);
      for (const database of [first!, later!]) {
        expect(original.call(database, 'journal_mode', { simple: true })).toBe('wal');
        expect(original.call(database, 'synchronous', { simple: true })).toBe(1);
      }
      expect(original.call(passed, 'synchronous', { simple: true })).toBe(2);
    } finally {
      spy.mockRestore();
    }
  });

  it('keeps the data in the file for a new adapter instance', async () => {
    const url = `file:${join(folder, 'auth.db')}`;
    const first = SqliteAdapter({ url });
    const user = await newUser(first);
    await first.linkAccount!({ userId: user.id, type: 'oauth', provider: 'github', providerAccountId: '42', access_token: 'gho_x', expires_at: 1_900_000_000, token_type: 'bearer' });
    const expires = new Date('2030-01-01T00:00:00.000Z');
    await first.createSession!({ sessionToken: 'session-1', userId: user.id, expires });

    const second = SqliteAdapter({ url });
    expect(await second.getUserByAccount!({ provider: 'github', providerAccountId: '42' })).toEqual(user);
    expect(await second.getSessionAndUser!('session-1')).toEqual({ session: { sessionToken: 'session-1', userId: user.id, expires }, user });
    expect(await second.getAccount!('42', 'github')).toEqual({
      userId: user.id,
      type: 'oauth',
      provider: 'github',
      providerAccountId: '42',
      access_token: 'gho_x',
      expires_at: 1_900_000_000,
      token_type: 'bearer',
    });
  });

  it('migrate() creates the core\'s tables and only the given features\' tables (issue 35), and resolves their names', () => {
    const path = join(folder, 'core-only.db');
    expect(migrate({ url: `file:${path}` })).toEqual(['users', 'accounts', 'sessions', 'verification_tokens', 'auth_migrations']);
    expect(tableNames(open(path))).toEqual(['accounts', 'auth_migrations', 'sessions', 'users', 'verification_tokens']);
    const passkeys = join(folder, 'passkeys.db');
    expect(migrate({ url: `file:${passkeys}`, features: webAuthnFlow.features })).toEqual(['users', 'accounts', 'sessions', 'verification_tokens', 'rate_limits', 'authenticators', 'auth_migrations']);
    expect(tableNames(open(passkeys))).toEqual(['accounts', 'auth_migrations', 'authenticators', 'rate_limits', 'sessions', 'users', 'verification_tokens']);
  });

  it('migrate() creates api_keys only when the features have ApiKeys() (issue 37)', () => {
    const without = join(folder, 'without-keys.db');
    expect(migrate({ url: `file:${without}`, features: webAuthnFlow.features })).not.toContain('api_keys');
    expect(tableNames(open(without))).not.toContain('api_keys');
    const withKeys = join(folder, 'with-keys.db');
    expect(migrate({ url: `file:${withKeys}`, features: [ApiKeys()] })).toEqual(['users', 'accounts', 'sessions', 'verification_tokens', 'api_keys', 'auth_migrations']);
    const database = open(withKeys);
    expect(tableNames(database)).toEqual(['accounts', 'api_keys', 'auth_migrations', 'sessions', 'users', 'verification_tokens']);
    const columns = (database.pragma('table_info(api_keys)') as { name: string; notnull: number; pk: number }[]).map(({ name, notnull, pk }) => ({ name, notnull, pk }));
    expect(columns).toEqual([
      { name: 'id', notnull: 1, pk: 1 },
      { name: 'user_id', notnull: 1, pk: 0 },
      { name: 'name', notnull: 1, pk: 0 },
      { name: 'start', notnull: 1, pk: 0 },
      { name: 'digest', notnull: 1, pk: 0 },
      { name: 'scopes', notnull: 1, pk: 0 },
      { name: 'created_at', notnull: 1, pk: 0 },
      { name: 'last_used_at', notnull: 0, pk: 0 },
      { name: 'expires_at', notnull: 1, pk: 0 },
      // Added after the table's first version (issue 48), as migrate() adds it to an existing table.
      { name: 'organization_id', notnull: 0, pk: 0 },
    ]);
    // The key is looked up by its digest: a unique index.
    const unique = (database.pragma('index_list(api_keys)') as { name: string; unique: number }[]).filter((index) => index.unique === 1);
    expect(unique.flatMap((index) => (database.pragma(`index_info(${index.name})`) as { name: string }[]).map((column) => column.name))).toContain('digest');
  });

  it('migrate() creates security_events only when the features have SecurityEvents (issue 38)', () => {
    const without = join(folder, 'without-events.db');
    expect(migrate({ url: `file:${without}`, features: [ApiKeys()] })).not.toContain('security_events');
    expect(tableNames(open(without))).not.toContain('security_events');
    const withEvents = join(folder, 'with-events.db');
    expect(migrate({ url: `file:${withEvents}`, features: [SecurityEvents] })).toEqual(['users', 'accounts', 'sessions', 'verification_tokens', 'security_events', 'auth_migrations']);
    const database = open(withEvents);
    expect(tableNames(database)).toEqual(['accounts', 'auth_migrations', 'security_events', 'sessions', 'users', 'verification_tokens']);
    const columns = (database.pragma('table_info(security_events)') as { name: string; notnull: number; pk: number }[]).map(({ name, notnull, pk }) => ({ name, notnull, pk }));
    expect(columns).toEqual([
      { name: 'id', notnull: 1, pk: 1 },
      { name: 'user_id', notnull: 1, pk: 0 },
      { name: 'type', notnull: 1, pk: 0 },
      { name: 'at', notnull: 1, pk: 0 },
      { name: 'method', notnull: 0, pk: 0 },
      { name: 'ip', notnull: 0, pk: 0 },
      { name: 'user_agent', notnull: 0, pk: 0 },
      { name: 'detail', notnull: 0, pk: 0 },
    ]);
  });

  it('gives an adapter the api_keys table and the API-key methods only with ApiKeys() in the config (issue 37)', async () => {
    const oidc = { id: 'oidc', name: 'OIDC', type: 'oidc' as const, issuer: 'https://issuer.example', clientId: 'id', clientSecret: 'secret' };
    const plain = open(join(folder, 'plain-config.db'));
    const without = SqliteAdapter({ database: plain });
    resolveConfig({ adapter: without, providers: [oidc], secret: 'x'.repeat(32) }, {});
    await newUser(without);
    expect(tableNames(plain)).not.toContain('api_keys');
    for (const method of ['createApiKey', 'listApiKeys', 'getApiKeyAndUser', 'deleteApiKey', 'touchApiKey'] as const) expect(without[method], method).toBeUndefined();
    const keyed = open(join(folder, 'keys-config.db'));
    const adapter = SqliteAdapter({ database: keyed });
    resolveConfig({ adapter, providers: [oidc], features: [ApiKeys()], secret: 'x'.repeat(32) }, {});
    await newUser(adapter);
    expect(tableNames(keyed)).toContain('api_keys');
    for (const method of ['createApiKey', 'listApiKeys', 'getApiKeyAndUser', 'deleteApiKey', 'touchApiKey'] as const) expect(typeof adapter[method], method).toBe('function');
  });

  it('adds no table and no method of a feature the config does not have: an OIDC config gets the core\'s and the refresh lease\'s (issue 35)', async () => {
    const database = open(join(folder, 'oidc.db'));
    const adapter = SqliteAdapter({ database });
    resolveConfig({ adapter, providers: [{ id: 'oidc', name: 'OIDC', type: 'oidc', issuer: 'https://issuer.example', clientId: 'id', clientSecret: 'secret' }], secret: 'x'.repeat(32) }, {});
    await newUser(adapter);
    expect(tableNames(database)).toEqual(['accounts', 'auth_migrations', 'rate_limits', 'sessions', 'users', 'verification_tokens']);
    for (const method of ['createAuthenticator', 'setPasswordHash', 'getTwoFactor'] as const) expect(adapter[method], method).toBeUndefined();
    expect(typeof adapter.hitRateLimit, 'the lease of a token refresh').toBe('function');
    resolveConfig({ adapter, providers: [Passkey()], secret: 'x'.repeat(32) }, {});
    expect(tableNames(database)).toEqual(['accounts', 'auth_migrations', 'authenticators', 'rate_limits', 'sessions', 'users', 'verification_tokens']);
    expect(typeof adapter.createAuthenticator).toBe('function');
  });

  it('gives the features\' methods to an adapter the app wraps and to the one it wraps, keeping the app\'s own (issue 35)', async () => {
    const inner = SqliteAdapter({ database: open(join(folder, 'wrapped.db')) });
    const calls: string[] = [];
    // An app's own method that delegates to the adapter it wraps, as apps override Auth.js adapters' methods.
    const wrapper: Adapter = {
      ...inner,
      async setPasswordHash(userId, hash) {
        calls.push(userId);
        await inner.setPasswordHash!(userId, hash);
      },
    };
    resolveConfig({ adapter: wrapper, trustHost: ['127.0.0.1'], providers: [Password()], secret: 'x'.repeat(32) }, {});
    const user = await newUser(wrapper);
    const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA';
    await wrapper.setPasswordHash!(user.id, hash);
    expect(calls).toEqual([user.id]);
    expect(await wrapper.getPasswordHash!(user.id)).toBe(hash);
    expect(await inner.getPasswordHash!(user.id)).toBe(hash);
  });

  it('migrate() creates the schema and can run again', () => {
    const path = join(folder, 'migrated.db');
    migrate({ url: `file:${path}`, features: allFeatures });
    migrate({ url: `file:${path}`, features: allFeatures });
    const database = open(path);
    expect(tableNames(database)).toEqual(['accounts', 'admin_actions', 'admin_grants', 'api_keys', 'auth_migrations', 'authenticators', 'email_changes', 'organization_events', 'organization_invitations', 'organization_members', 'organizations', 'passwords', 'rate_limits', 'recovery_codes', 'security_events', 'sessions', 'two_factor', 'users', 'verification_tokens']);
    const indexes = database.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name").all();
    expect(indexes).toEqual([{ name: 'accounts_user_id_index' }, { name: 'admin_actions_user_id_at_index' }, { name: 'api_keys_user_id_index' }, { name: 'email_changes_new_email_index' }, { name: 'organization_events_organization_id_at_index' }, { name: 'organization_invitations_email_index' }, { name: 'organization_invitations_organization_id_email_unique' }, { name: 'organization_members_user_id_index' }, { name: 'rate_limits_reset_at_index' }, { name: 'security_events_at_index' }, { name: 'security_events_user_id_index' }, { name: 'sessions_user_id_index' }]);
  });

  it('deleting a user row cascades to its accounts, sessions and authenticators', async () => {
    const database = open(join(folder, 'cascade.db'));
    const adapter = withAllFeatures(SqliteAdapter({ database }));
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
    database.prepare('DELETE FROM users WHERE id = ?').run(user.id);

    for (const table of ['accounts', 'sessions', 'authenticators']) {
      expect(database.prepare(`SELECT count(*) AS count FROM ${table}`).get()).toEqual({ count: 0 });
    }
  });

  it('stores dates as milliseconds since the epoch', async () => {
    const database = open(join(folder, 'dates.db'));
    const adapter = SqliteAdapter({ database });
    const user = await newUser(adapter);
    await adapter.createSession!({ sessionToken: 'session-1', userId: user.id, expires: new Date('2030-01-01T00:00:00.000Z') });
    expect(database.prepare('SELECT expires FROM sessions').get()).toEqual({ expires: Date.parse('2030-01-01T00:00:00.000Z') });
  });
});
