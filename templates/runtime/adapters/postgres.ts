/**
 * An adapter that keeps users, accounts, sessions and verification tokens in PostgreSQL (`pg`), and the tables and
 * methods the app's features add (passkeys, password hashes, two-factor, rate-limit counters: `Feature.storage`), given
 * to it when the config is resolved or by its `features` option. Every app process that uses the same database sees
 * the same sessions, so signing out (or deleting a session row) ends the session everywhere, and counts the
 * `rateLimit` rules together.
 *
 * The tables are created, and a database made by an earlier version upgraded, before the first query (the steps
 * its ledger lacks, once per adapter: sql-tables.ts), or ahead of time by `npx framework-auth migrate`, which calls
 * `migrate()` below.
 */
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { PoolClient, QueryResultRow } from 'pg';
import {
  type Adapter,
  type AdapterAccount,
  type AdapterFeaturesOption,
  type AdapterUser,
  type SqlDatabase,
  addMissing,
  storeFeatures,
  storeOptionFeatures,
} from '../features/database/adapter.js';
import { type Feature, carriedFeatures } from '../contracts.js';
import { database } from '../features/database/index.js';
import {
  type AccountRow,
  type SessionAndUserRow,
  type SessionForReadValues,
  type SessionRow,
  type UserRow,
  type VerificationTokenRow,
  accountFromRow,
  refreshedTokenFields,
  sessionAndUserSql,
  sessionForReadFromValues,
  sessionForReadSql,
  sessionDetailColumns,
  sessionFromRow,
  toDate,
  tokenFields,
  tokenParameter,
  userFromRow,
  verificationTokenFromRow,
} from './sql-rows.js';
import { type AppliedStep, type MigrateOptions, type MigrationStep, columnSteps, ledgerSql, ledgerTable, migrationSteps, presenceSql, tableNames } from './sql-tables.js';

/** `getSessionAndUser`'s statement, and `getSessionAndUserForRead`'s (built once: each read looks its text up). */
const selectSessionAndUser = sessionAndUserSql('$1');
const selectSessionForRead = sessionForReadSql('postgres');

/**
 * Where the database is: a connection URL, or a `pg` pool the app already has; and the features whose tables it has
 * from the start (`features`).
 */
export type PostgresAdapterOptions = AdapterFeaturesOption &
  (
    | {
        /**
         * A connection URL such as `postgres://user:password@localhost:5432/app`.
         * @default process.env['DATABASE_URL']
         */
        url?: string;
      }
    | {
        /** A `pg` pool. The adapter only runs queries on it; it never ends it. */
        pool: Pool;
      }
  );

/**
 * The core's tables as migration steps (each feature brings its own: `Feature.storage`, made into steps by
 * sql-tables.ts), in order. Every statement is idempotent. `counter` is a bigint because WebAuthn signature counters
 * are unsigned 32-bit numbers.
 */
const coreSteps: readonly MigrationStep[] = [
  {
    id: 'table:users',
    creates: { table: 'users' },
    sql: `CREATE TABLE IF NOT EXISTS users (
  id text PRIMARY KEY,
  name text,
  email text UNIQUE,
  email_verified timestamptz,
  image text
);`,
  },
  {
    id: 'table:accounts',
    creates: { table: 'accounts' },
    sql: `CREATE TABLE IF NOT EXISTS accounts (
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL,
  provider text NOT NULL,
  provider_account_id text NOT NULL,
  access_token text,
  refresh_token text,
  id_token text,
  expires_at bigint,
  scope text,
  token_type text,
  session_state text,
  oauth_token text,
  oauth_token_secret text,
  PRIMARY KEY (provider, provider_account_id)
);`,
  },
  { id: 'index:accounts_user_id_index', creates: { index: 'accounts_user_id_index' }, sql: 'CREATE INDEX IF NOT EXISTS accounts_user_id_index ON accounts (user_id);' },
  {
    id: 'table:sessions',
    creates: { table: 'sessions' },
    sql: `CREATE TABLE IF NOT EXISTS sessions (
  session_token text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires timestamptz NOT NULL
);`,
  },
  { id: 'index:sessions_user_id_index', creates: { index: 'sessions_user_id_index' }, sql: 'CREATE INDEX IF NOT EXISTS sessions_user_id_index ON sessions (user_id);' },
  // Session management (created, last seen, browser).
  ...Object.entries(sessionDetailColumns).flatMap(([name, type]) => columnSteps('postgres', { table: 'sessions', name, type, nullable: true })),
  {
    id: 'table:verification_tokens',
    creates: { table: 'verification_tokens' },
    sql: `CREATE TABLE IF NOT EXISTS verification_tokens (
  identifier text NOT NULL,
  token text NOT NULL,
  expires timestamptz NOT NULL,
  PRIMARY KEY (identifier, token)
);`,
  },
];

/**
 * Key of the advisory lock that migrations hold, so that app processes starting together do not race on
 * `CREATE TABLE IF NOT EXISTS` (which is not safe to run concurrently in PostgreSQL).
 */
const migrationLockKey = 7_412_730_214;

function connectionUrl(url: string | undefined): string {
  const resolved = url ?? process.env['DATABASE_URL'];
  if (!resolved) {
    throw new Error('PostgresAdapter needs a database: set DATABASE_URL (postgres://user:password@host:5432/database) or pass { url } or { pool }');
  }
  return resolved;
}

/**
 * Applies the steps the database's ledger lacks (`auth_migrations`), in order, in one transaction that holds the
 * advisory lock (app processes starting together wait for each other, then find the steps done); a step whose table,
 * index or column is already there (a database made before the ledger) is only recorded. Resolves the steps it ran or
 * recorded; with `dryRun`, those it would, and changes nothing. An up-to-date database costs one query, and no lock.
 */
async function migrateWith(pool: Pool, steps: readonly MigrationStep[], dryRun = false): Promise<AppliedStep[]> {
  const ledgerIds = async (client: Pool | PoolClient): Promise<Set<string> | undefined> => {
    try {
      return new Set((await client.query<{ id: string }>(`SELECT id FROM ${ledgerTable}`)).rows.map((row) => row.id));
    } catch (error) {
      // undefined_table: a database made before the ledger, or a new one.
      if ((error as { code?: unknown }).code === '42P01') return undefined;
      throw error;
    }
  };
  const known = await ledgerIds(pool);
  if (known && steps.every((step) => known.has(step.id))) return [];
  const plan = async (client: PoolClient): Promise<AppliedStep[]> => {
    if (!dryRun) await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLockKey]);
    // A failed query ends a transaction: the ledger is looked for, not read and caught.
    const { rows } = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [ledgerTable]);
    const done = rows[0]?.present ? await ledgerIds(client) : undefined;
    const applied: AppliedStep[] = done ? [] : [{ id: ledgerTable, sql: ledgerSql.postgres }];
    if (!dryRun && !done) await client.query(ledgerSql.postgres);
    for (const step of steps) {
      if (done?.has(step.id)) continue;
      const [presence, parameters] = presenceSql('postgres', step);
      const present = (await client.query(numbered(presence), parameters)).rows.length > 0;
      applied.push({ id: step.id, sql: present ? '' : step.sql });
      if (dryRun) continue;
      if (!present) await client.query(step.sql);
      await client.query(`INSERT INTO ${ledgerTable} (id, applied_at) VALUES ($1, now())`, [step.id]);
    }
    return applied;
  };
  // A dry run reads in a transaction too, rolled back: nothing it does stays.
  return inTransaction(pool, plan, dryRun);
}

/** A statement with `?` placeholders (the features' SQL) in PostgreSQL's numbered form, `$1`, `$2`, … */
function numbered(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

/**
 * Runs `work` in a transaction on one checked-out connection. While checked out, a connection the server drops
 * emits 'error' on the client itself (the pool only listens on idle ones): without a listener Node would end the
 * process. The query in flight rejects anyway, so the listener only keeps the process alive; a connection that
 * failed is discarded rather than returned to the pool.
 */
async function inTransaction<Result>(pool: Pool, work: (client: PoolClient) => Promise<Result>, rollBack = false): Promise<Result> {
  const client = await pool.connect();
  const ignore = (): void => {};
  client.on('error', ignore);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query(rollBack ? 'ROLLBACK' : 'COMMIT');
    client.off('error', ignore);
    client.release();
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.off('error', ignore);
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}

// Auth.js passes a fresh random id to createUser; it is kept, and one is made when missing.
const insertUserSql = 'INSERT INTO users (id, name, email, email_verified, image) VALUES ($1, $2, $3, $4, $5) RETURNING *';

function insertUserParameters(user: AdapterUser): unknown[] {
  return [user.id || randomUUID(), user.name ?? null, user.email ?? null, toDate(user.emailVerified), user.image ?? null];
}

const insertAccountSql = `INSERT INTO accounts (user_id, type, provider, provider_account_id, ${tokenFields.join(', ')})
  VALUES ($1, $2, $3, $4, ${tokenFields.map((_field, index) => `$${index + 5}`).join(', ')})
  RETURNING *`;

function insertAccountParameters(account: AdapterAccount): unknown[] {
  return [account.userId, account.type, account.provider, account.providerAccountId, ...tokenFields.map((field) => tokenParameter(account, field))];
}

/** A database that does not answer fails the request (an error page) instead of hanging it. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Applies the migration steps of the core and of `features` that the database lacks (the ledger, `auth_migrations`),
 * and resolves the names of the tables. Safe to run on every start, from several processes at once, on an up-to-date
 * database, and on a database made by an earlier version (what it has is recorded, what it lacks added).
 * `npx framework-auth migrate` calls it with `DATABASE_URL`; `dryRun` changes nothing and reports (`onStep`) the SQL
 * that would run.
 *
 * @example
 * ```ts
 * await migrate({ url: process.env['DATABASE_URL'], onStep: (step) => console.log(step.sql) });
 * ```
 */
export async function migrate(options: PostgresAdapterOptions & MigrateOptions = {}): Promise<string[]> {
  const steps = migrationSteps('postgres', coreSteps, options.features ?? []);
  const run = async (pool: Pool): Promise<void> => {
    for (const step of await migrateWith(pool, steps, options.dryRun)) options.onStep?.(step);
  };
  if ('pool' in options) {
    await run(options.pool);
  } else {
    const pool = new Pool({ connectionString: connectionUrl(options.url), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    try {
      await run(pool);
    } finally {
      await pool.end();
    }
  }
  return tableNames(steps);
}

/**
 * Creates the PostgreSQL adapter. Nothing connects until the first call, which creates the tables if needed.
 *
 * @example
 * ```ts
 * const authConfig: FrameworkAuthConfig = { adapter: PostgresAdapter(), providers: [GitHub] };
 * const withOwnPool = PostgresAdapter({ pool: new Pool({ connectionString: process.env['DATABASE_URL'], max: 5 }) });
 * // As the adapter of @auth/express with its Passkey provider (passkeys from features/passkey/index.ts):
 * const forAuthJs = PostgresAdapter({ features: [passkeys] });
 * ```
 */
export function PostgresAdapter(options: PostgresAdapterOptions = {}): Adapter {
  const pool = 'pool' in options ? options.pool : createPool(connectionUrl(options.url));
  let ready: Promise<void> | undefined;
  // True once the migration of `ready` is done (until features add tables): a session read then waits for nothing else.
  let migrated = false;
  // The features given so far, whose steps the database gets (`migrationSteps`).
  const features: Feature[] = [];

  function ensureSchema(): Promise<void> {
    // One migration per adapter (and again after features add tables); a failed one (database not up yet) is tried
    // again by the next query.
    if (!ready) {
      const migration: Promise<void> = migrateWith(pool, migrationSteps('postgres', coreSteps, features)).then(
        () => {
          // Features may have added tables meanwhile: then `ready` is another migration, not yet done.
          if (ready === migration) migrated = true;
        },
        (error: unknown) => {
          if (ready === migration) ready = undefined;
          throw error;
        },
      );
      ready = migration;
    }
    return ready;
  }

  async function query<Row extends QueryResultRow>(sql: string, parameters: unknown[]): Promise<Row[]> {
    await ensureSchema();
    const result = await pool.query<Row>(sql, parameters);
    return result.rows;
  }

  async function first<Row extends QueryResultRow>(sql: string, parameters: unknown[]): Promise<Row | undefined> {
    const rows = await query<Row>(sql, parameters);
    return rows[0];
  }

  const adapter: Adapter = {
    [carriedFeatures]: [database],
    async createUser(user) {
      const row = await first<UserRow>(insertUserSql, insertUserParameters(user));
      return userFromRow(row as UserRow);
    },

    async createUserWithAccount(user, account) {
      // Not in Auth.js's interface: both writes in one transaction, so a failure between them leaves neither.
      await ensureSchema();
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<UserRow>(insertUserSql, insertUserParameters(user));
        const created = userFromRow(rows[0] as UserRow);
        await client.query(insertAccountSql, insertAccountParameters({ ...account, userId: created.id }));
        return created;
      });
    },

    async getUser(id) {
      const row = await first<UserRow>('SELECT * FROM users WHERE id = $1', [id]);
      return row ? userFromRow(row) : null;
    },

    async getUserByEmail(email) {
      const row = await first<UserRow>('SELECT * FROM users WHERE email = $1', [email]);
      return row ? userFromRow(row) : null;
    },

    async getUserByAccount({ provider, providerAccountId }) {
      const row = await first<UserRow>(
        `SELECT users.* FROM users JOIN accounts ON accounts.user_id = users.id
         WHERE accounts.provider = $1 AND accounts.provider_account_id = $2`,
        [provider, providerAccountId],
      );
      return row ? userFromRow(row) : null;
    },

    async updateUser(user) {
      // Only the fields given are set: `undefined` leaves a column as it is, `null` clears it.
      const changes: [column: string, value: unknown][] = [];
      if (user.name !== undefined) changes.push(['name', user.name]);
      if (user.email !== undefined) changes.push(['email', user.email]);
      if (user.emailVerified !== undefined) changes.push(['email_verified', toDate(user.emailVerified)]);
      if (user.image !== undefined) changes.push(['image', user.image]);
      const row =
        changes.length === 0
          ? await first<UserRow>('SELECT * FROM users WHERE id = $1', [user.id])
          : await first<UserRow>(
              `UPDATE users SET ${changes.map(([column], index) => `${column} = $${index + 2}`).join(', ')}
               WHERE id = $1 RETURNING *`,
              [user.id, ...changes.map(([, value]) => value)],
            );
      if (!row) throw new Error(`updateUser: no user has the id ${JSON.stringify(user.id)}`);
      return userFromRow(row);
    },

    async deleteUser(userId) {
      // Accounts, sessions and the features' rows go with the user (ON DELETE CASCADE).
      const row = await first<UserRow>('DELETE FROM users WHERE id = $1 RETURNING *', [userId]);
      return row ? userFromRow(row) : null;
    },

    async linkAccount(account) {
      const row = await first<AccountRow>(insertAccountSql, insertAccountParameters(account));
      return accountFromRow(row as AccountRow);
    },

    async unlinkAccount({ provider, providerAccountId }) {
      const row = await first<AccountRow>('DELETE FROM accounts WHERE provider = $1 AND provider_account_id = $2 RETURNING *', [
        provider,
        providerAccountId,
      ]);
      return row ? accountFromRow(row) : undefined;
    },

    async getAccount(providerAccountId, provider) {
      const row = await first<AccountRow>('SELECT * FROM accounts WHERE provider = $1 AND provider_account_id = $2', [
        provider,
        providerAccountId,
      ]);
      return row ? accountFromRow(row) : null;
    },

    async listAccountsByUserId(userId) {
      const rows = await query<AccountRow>('SELECT * FROM accounts WHERE user_id = $1 ORDER BY provider, provider_account_id', [userId]);
      return rows.map(accountFromRow);
    },

    async updateAccountTokens({ provider, providerAccountId, tokens, expectedRefreshToken }) {
      // The compare-and-set is part of the one UPDATE, which locks the row: of two processes that refreshed one
      // token, the second one's condition is evaluated after the first commits, and no longer matches.
      const values = refreshedTokenFields.map((field) => tokenParameter(tokens, field));
      const compare = expectedRefreshToken === undefined ? '' : ` AND refresh_token IS NOT DISTINCT FROM $${values.length + 3}`;
      const row = await first<AccountRow>(
        `UPDATE accounts SET ${refreshedTokenFields.map((field, index) => `${field} = $${index + 3}`).join(', ')}
         WHERE provider = $1 AND provider_account_id = $2${compare}
         RETURNING *`,
        [provider, providerAccountId, ...values, ...(expectedRefreshToken === undefined ? [] : [expectedRefreshToken])],
      );
      return row ? accountFromRow(row) : null;
    },

    async createSession({ sessionToken, userId, expires, createdAt, lastSeenAt, userAgent }) {
      const row = await first<SessionRow>(
        `INSERT INTO sessions (session_token, user_id, expires, created_at, last_seen_at, user_agent)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [sessionToken, userId, toDate(expires), toDate(createdAt), toDate(lastSeenAt), userAgent ?? null],
      );
      return sessionFromRow(row as SessionRow);
    },

    async getSessionAndUser(sessionToken) {
      // Expired sessions are returned as they are: the runtime compares `expires` and deletes them.
      const row = await first<SessionAndUserRow>(selectSessionAndUser, [sessionToken]);
      return row ? { session: sessionFromRow(row), user: userFromRow(row) } : null;
    },

    // One promise from the pool to the runtime (no async wrappers): this runs on every request with a session.
    getSessionAndUserForRead(sessionToken) {
      const read = () =>
        // The text and values, not a config object: `pg` copies a config object's property descriptors per query.
        pool.query<{ r: SessionForReadValues }>(selectSessionForRead, [sessionToken]).then((result) => {
          const row = result.rows[0];
          return row ? sessionForReadFromValues(sessionToken, row.r) : null;
        });
      return migrated ? read() : ensureSchema().then(read);
    },

    async updateSession(session) {
      const row = await first<SessionRow>(
        `UPDATE sessions SET user_id = coalesce($2, user_id), expires = coalesce($3, expires), last_seen_at = coalesce($4, last_seen_at)
         WHERE session_token = $1 RETURNING *`,
        [session.sessionToken, session.userId ?? null, toDate(session.expires), toDate(session.lastSeenAt)],
      );
      return row ? sessionFromRow(row) : null;
    },

    async listSessionsByUserId(userId) {
      return (await query<SessionRow>('SELECT * FROM sessions WHERE user_id = $1', [userId])).map(sessionFromRow);
    },

    async deleteSession(sessionToken) {
      const row = await first<SessionRow>('DELETE FROM sessions WHERE session_token = $1 RETURNING *', [sessionToken]);
      return row ? sessionFromRow(row) : null;
    },

    async createVerificationToken({ identifier, token, expires }) {
      await query('INSERT INTO verification_tokens (identifier, token, expires) VALUES ($1, $2, $3)', [identifier, token, toDate(expires)]);
      return { identifier, token, expires };
    },

    async useVerificationToken({ identifier, token }) {
      // Single use: DELETE … RETURNING reads and removes the row atomically, so two requests with the same link
      // cannot both get it.
      const row = await first<VerificationTokenRow>(
        'DELETE FROM verification_tokens WHERE identifier = $1 AND token = $2 RETURNING *',
        [identifier, token],
      );
      return row ? verificationTokenFromRow(row) : null;
    },

    async deleteVerificationTokens(identifier) {
      await query('DELETE FROM verification_tokens WHERE identifier = $1', [identifier]);
    },
  };

  // The features' tables and methods, on the same pool (`Feature.storage`).
  const sql: SqlDatabase = {
    dialect: 'postgres',
    all: <Row>(text: string, parameters: readonly unknown[]) => query(numbered(text), [...parameters]) as Promise<Row[]>,
    first: async <Row>(text: string, parameters: readonly unknown[]) => ((await query(numbered(text), [...parameters])) as Row[])[0],
    run: async (text, parameters) => {
      await ensureSchema();
      return (await pool.query(numbered(text), [...parameters])).rowCount ?? 0;
    },
    batch: async (list) => {
      await ensureSchema();
      return inTransaction(pool, async (client) => {
        const changed: number[] = [];
        for (const [text, parameters] of list) changed.push((await client.query(numbered(text), [...parameters])).rowCount ?? 0);
        return changed;
      });
    },
  };
  adapter[storeFeatures] = function (this: Adapter, given) {
    const added = given.filter((feature) => feature.storage && !features.includes(feature));
    if (added.length > 0) {
      features.push(...added);
      ready = undefined;
      migrated = false;
    }
    // On the adapter and on the object it is called on, each keeping the methods it has: see MemoryAdapter.
    for (const feature of given) if (feature.storage) addMissing([adapter, this], feature.storage.sql(sql));
  };
  storeOptionFeatures(adapter, options);
  return adapter;
}

function createPool(connectionString: string): Pool {
  const pool = new Pool({ connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // An idle connection that the server closes (restart, failover) is an 'error' event on the pool; without a
  // listener Node would end the process. The pool drops that connection and the next query opens a new one.
  pool.on('error', (error) => {
    console.warn(`PostgresAdapter: an idle database connection failed (${error.message}); it will be replaced`);
  });
  return pool;
}
