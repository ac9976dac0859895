/**
 * An adapter that keeps users, accounts, sessions and verification tokens in a SQLite file (better-sqlite3): the
 * embedded default for database sessions. The app's features add their own tables and methods (passkeys, password
 * hashes, two-factor, rate-limit counters: `Feature.storage`), given to it when the config is resolved or by its
 * `features` option (for use without a config, as an Auth.js adapter). Several app processes on one machine can share
 * the file (and count the `rateLimit` rules together in it); for several machines use the PostgreSQL adapter.
 *
 * The tables are created, and a database made by an earlier version upgraded, on first use (the steps its ledger
 * lacks: sql-tables.ts), or ahead of time by `npx framework-auth migrate`, which calls `migrate()` below. Dates are stored as milliseconds since the epoch.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
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
const selectSessionAndUser = sessionAndUserSql('?');
const selectSessionForRead = sessionForReadSql('sqlite');

/**
 * Where the database is: a `file:` URL or path, or a better-sqlite3 connection the app already opened; and the
 * features whose tables it has from the start (`features`).
 */
export type SqliteAdapterOptions = AdapterFeaturesOption &
  (
    | {
        /**
         * A `file:` URL (`file:./data/auth.db`, relative to the working directory) or a plain path. The folder is
         * created when missing. `:memory:` keeps the database in memory. The file is opened in WAL mode with
         * `synchronous = NORMAL` (docs/adapters.md, "SQLite file settings").
         * @default process.env['DATABASE_URL'] ?? 'file:./data/auth.db'
         */
        url?: string;
      }
    | {
        /**
         * An open better-sqlite3 connection. The adapter turns on `foreign_keys` for it (SQLite's default is off),
         * so that deleting a user deletes its rows, and `secure_delete`, so that deleted rows are overwritten; it
         * never closes it.
         */
        database: Database.Database;
      }
  );

/**
 * The core's tables as migration steps (each feature brings its own: `Feature.storage`, made into steps by
 * sql-tables.ts), in order. Every statement is idempotent. Dates are integers (milliseconds since the epoch).
 */
const coreSteps: readonly MigrationStep[] = [
  {
    id: 'table:users',
    creates: { table: 'users' },
    sql: `CREATE TABLE IF NOT EXISTS users (
  id TEXT NOT NULL PRIMARY KEY,
  name TEXT,
  email TEXT UNIQUE,
  email_verified INTEGER,
  image TEXT
);`,
  },
  {
    id: 'table:accounts',
    creates: { table: 'accounts' },
    sql: `CREATE TABLE IF NOT EXISTS accounts (
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  provider TEXT NOT NULL,
  provider_account_id TEXT NOT NULL,
  access_token TEXT,
  refresh_token TEXT,
  id_token TEXT,
  expires_at INTEGER,
  scope TEXT,
  token_type TEXT,
  session_state TEXT,
  oauth_token TEXT,
  oauth_token_secret TEXT,
  PRIMARY KEY (provider, provider_account_id)
);`,
  },
  { id: 'index:accounts_user_id_index', creates: { index: 'accounts_user_id_index' }, sql: 'CREATE INDEX IF NOT EXISTS accounts_user_id_index ON accounts (user_id);' },
  {
    id: 'table:sessions',
    creates: { table: 'sessions' },
    sql: `CREATE TABLE IF NOT EXISTS sessions (
  session_token TEXT NOT NULL PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires INTEGER NOT NULL
);`,
  },
  { id: 'index:sessions_user_id_index', creates: { index: 'sessions_user_id_index' }, sql: 'CREATE INDEX IF NOT EXISTS sessions_user_id_index ON sessions (user_id);' },
  // Session management (created, last seen, browser).
  ...Object.entries(sessionDetailColumns).flatMap(([name, type]) => columnSteps('sqlite', { table: 'sessions', name, type, nullable: true })),
  {
    id: 'table:verification_tokens',
    creates: { table: 'verification_tokens' },
    sql: `CREATE TABLE IF NOT EXISTS verification_tokens (
  identifier TEXT NOT NULL,
  token TEXT NOT NULL,
  expires INTEGER NOT NULL,
  PRIMARY KEY (identifier, token)
);`,
  },
];

/**
 * Applies the steps the database's ledger lacks (`auth_migrations`), in order, in one transaction that holds the
 * file's write lock (another app process upgrading the same file waits, then finds the steps done); a step whose
 * table, index or column is already there (a database made before the ledger) is only recorded. Resolves the steps
 * it ran or recorded; with `dryRun`, those it would, and changes nothing. An up-to-date database costs one query.
 */
function applySchema(database: Database.Database, steps: readonly MigrationStep[], dryRun = false): AppliedStep[] {
  const ledgerIds = (): Set<string> | undefined =>
    database.prepare(presenceSql('sqlite', { id: '', creates: { table: ledgerTable }, sql: '' })[0]).get(ledgerTable)
      ? new Set((database.prepare(`SELECT id FROM ${ledgerTable}`).all() as { id: string }[]).map((row) => row.id))
      : undefined;
  const known = ledgerIds();
  if (known && steps.every((step) => known.has(step.id))) return [];
  const plan = (): AppliedStep[] => {
    const done = ledgerIds();
    const applied: AppliedStep[] = done ? [] : [{ id: ledgerTable, sql: ledgerSql.sqlite }];
    if (!dryRun && !done) database.exec(ledgerSql.sqlite);
    for (const step of steps) {
      if (done?.has(step.id)) continue;
      const [presence, parameters] = presenceSql('sqlite', step);
      const present = database.prepare(presence).get(...parameters) !== undefined;
      applied.push({ id: step.id, sql: present ? '' : step.sql });
      if (dryRun) continue;
      if (!present) database.exec(step.sql);
      database.prepare(`INSERT INTO ${ledgerTable} (id, applied_at) VALUES (?, ?)`).run(step.id, Date.now());
    }
    return applied;
  };
  return dryRun ? plan() : database.transaction(plan).immediate();
}

/** The file a `file:` URL or path names; `:memory:` stays as it is. */
function databasePath(url: string): string {
  if (url === ':memory:' || url === 'file::memory:') return ':memory:';
  if (url.startsWith('file://')) return fileURLToPath(url);
  if (url.startsWith('file:')) return url.slice('file:'.length).replace(/\?.*$/, '');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  // Only the scheme is shown: a database URL may hold a password.
  if (scheme) throw new Error(`SqliteAdapter: the database URL must be a file: URL or a path (got a ${scheme[1]}:// URL)`);
  return url;
}

function openDatabase(url: string): Database.Database {
  const path = databasePath(url);
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const database = new Database(path);
  // WAL lets readers and one writer (other app processes sharing the file) work at the same time.
  useWriteAheadLog(database);
  // NORMAL, SQLite's advice for WAL: a commit does not wait for the disk, the file cannot be corrupted, and a power
  // loss or an operating-system crash (not an app crash) may roll back the last commits. better-sqlite3's build
  // defaults WAL connections to it; said here so that it does not depend on how SQLite was built (docs/adapters.md).
  database.pragma('synchronous = NORMAL');
  return database;
}

/**
 * Switches the file to WAL. Switching takes an exclusive lock for which SQLite does not wait (no busy timeout):
 * when another app process opens the same new file at that moment, the pragma fails with SQLITE_BUSY. It is tried
 * again for up to 5 seconds, blocking as SQLite's own busy timeout does.
 */
function useWriteAheadLog(database: Database.Database): void {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      database.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** The fields that have a value: in an update, `undefined` leaves a column as it is (and `null` clears it). */
function definedFields<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function toEpochMilliseconds(date: Date | string | number | null | undefined): number | null {
  return toDate(date)?.getTime() ?? null;
}

function userParameters(user: Partial<AdapterUser>): Omit<UserRow<number>, 'id'> {
  return {
    name: user.name ?? null,
    email: user.email ?? null,
    email_verified: toEpochMilliseconds(user.emailVerified),
    image: user.image ?? null,
  };
}

/**
 * Applies the migration steps of the core and of `features` that the database lacks (the ledger, `auth_migrations`),
 * and resolves the names of the tables. Safe to run on every start, on an up-to-date database, and on a database
 * made by an earlier version (what it has is recorded, what it lacks added). `npx framework-auth migrate` calls it
 * with `DATABASE_URL` and the features of the project's config; `dryRun` changes nothing and reports (`onStep`) the SQL
 * that would run.
 *
 * @example
 * ```ts
 * migrate({ url: 'file:./data/auth.db', features: featuresOf(authConfig), onStep: (step) => console.log(step.sql) });
 * ```
 */
export function migrate(options: SqliteAdapterOptions & MigrateOptions = {}): string[] {
  const steps = migrationSteps('sqlite', coreSteps, options.features ?? []);
  const run = (database: Database.Database): void => {
    for (const step of applySchema(database, steps, options.dryRun)) options.onStep?.(step);
  };
  if ('database' in options) {
    run(options.database);
  } else {
    const url = options.url ?? process.env['DATABASE_URL'] ?? 'file:./data/auth.db';
    const path = databasePath(url);
    // A dry run only reads: the file as it is, or an empty database in its place when there is none yet.
    const database = !options.dryRun ? openDatabase(url) : path !== ':memory:' && existsSync(path) ? new Database(path, { fileMustExist: true }) : new Database(':memory:');
    try {
      run(database);
    } finally {
      database.close();
    }
  }
  return tableNames(steps);
}

/** SQLite's form of a parameter: a date as milliseconds since the epoch, a boolean as 0 or 1. */
function sqliteValue(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/**
 * Creates the SQLite adapter. The file is opened and its tables are created on the first call, not here, so that
 * importing the config never touches the disk.
 *
 * @example
 * ```ts
 * const authConfig: FrameworkAuthConfig = { adapter: SqliteAdapter(), providers: [GitHub] };
 * const shared = SqliteAdapter({ url: 'file:/var/lib/my-app/auth.db' });
 * // As the adapter of @auth/express with its Passkey provider (passkeys from features/passkey/index.ts):
 * const forAuthJs = SqliteAdapter({ features: [passkeys] });
 * ```
 */
export function SqliteAdapter(options: SqliteAdapterOptions = {}): Adapter {
  let opened: Database.Database | undefined;
  const statements = new Map<string, Database.Statement>();
  // `getSessionAndUserForRead`'s statement, answering arrays (`raw`): its own, since `raw` changes a statement.
  let readSession: Database.Statement | undefined;
  // The features given so far, whose steps the database gets (`migrationSteps`).
  const features: Feature[] = [];

  function connection(): Database.Database {
    if (!opened) {
      const database = 'database' in options ? options.database : openDatabase(options.url ?? process.env['DATABASE_URL'] ?? 'file:./data/auth.db');
      database.pragma('foreign_keys = ON');
      // Deleted rows are overwritten with zeros instead of left in free pages, where a copy of the file would still
      // show them: a deleted account's address, a revoked key's digest, an ended session's token (GDPR art. 17). It
      // costs a write of each freed page, which rows this small make cheap. The WAL file (`-wal`) keeps the pages as
      // they were until later writes overwrite its frames, or `PRAGMA wal_checkpoint(TRUNCATE)` empties it.
      database.pragma('secure_delete = ON');
      applySchema(database, migrationSteps('sqlite', coreSteps, features));
      opened = database;
    }
    return opened;
  }

  /** Each SQL text is prepared once per connection. */
  function statement(sql: string): Database.Statement {
    let prepared = statements.get(sql);
    if (!prepared) {
      prepared = connection().prepare(sql);
      statements.set(sql, prepared);
    }
    return prepared;
  }

  function selectUser(id: string): AdapterUser | null {
    const row = statement('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
    return row ? userFromRow(row) : null;
  }

  // The writes are synchronous (better-sqlite3), so that createUserWithAccount can run both in one transaction; the
  // adapter's methods are async, so that every failure is a rejected promise, as Auth.js's adapter tests expect.
  function insertUser(user: AdapterUser): AdapterUser {
    // Auth.js passes a fresh random id; keep it, and make one when it is missing.
    const row = statement(
      `INSERT INTO users (id, name, email, email_verified, image)
       VALUES (@id, @name, @email, @email_verified, @image) RETURNING *`,
    ).get({ id: user.id || randomUUID(), ...userParameters(user) }) as UserRow;
    return userFromRow(row);
  }

  function insertAccount(account: AdapterAccount): AdapterAccount {
    const row = statement(
      `INSERT INTO accounts (user_id, type, provider, provider_account_id, ${tokenFields.join(', ')})
       VALUES (@user_id, @type, @provider, @provider_account_id, ${tokenFields.map((field) => `@${field}`).join(', ')})
       RETURNING *`,
    ).get({
      user_id: account.userId,
      type: account.type,
      provider: account.provider,
      provider_account_id: account.providerAccountId,
      ...Object.fromEntries(tokenFields.map((field) => [field, tokenParameter(account, field)])),
    }) as AccountRow;
    return accountFromRow(row);
  }

  const adapter: Adapter = {
    [carriedFeatures]: [database],
    async createUser(user) {
      return insertUser(user);
    },

    async getUser(id) {
      return selectUser(id);
    },

    async getUserByEmail(email) {
      const row = statement('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
      return row ? userFromRow(row) : null;
    },

    async getUserByAccount({ provider, providerAccountId }) {
      const row = statement(
        `SELECT users.* FROM users JOIN accounts ON accounts.user_id = users.id
         WHERE accounts.provider = ? AND accounts.provider_account_id = ?`,
      ).get(provider, providerAccountId) as UserRow | undefined;
      return row ? userFromRow(row) : null;
    },

    async updateUser(user) {
      const update = connection().transaction((changes: typeof user): AdapterUser => {
        const stored = selectUser(changes.id);
        if (!stored) throw new Error(`updateUser: no user has the id ${JSON.stringify(changes.id)}`);
        const row = statement(
          `UPDATE users SET name = @name, email = @email, email_verified = @email_verified, image = @image
           WHERE id = @id RETURNING *`,
        ).get({ id: changes.id, ...userParameters({ ...stored, ...definedFields(changes) }) }) as UserRow;
        return userFromRow(row);
      });
      return update(user);
    },

    async deleteUser(userId) {
      // The foreign keys cascade; the explicit deletes also cover a connection opened with foreign_keys off.
      const remove = connection().transaction((id: string): AdapterUser | null => {
        const user = selectUser(id);
        if (!user) return null;
        statement('DELETE FROM accounts WHERE user_id = ?').run(id);
        statement('DELETE FROM sessions WHERE user_id = ?').run(id);
        for (const step of migrationSteps('sqlite', coreSteps, features)) {
          if (!('table' in step.creates)) continue;
          const { table } = step.creates;
          for (const { column, onDelete } of step.userColumns ?? []) {
            statement(onDelete === 'cascade' ? `DELETE FROM ${table} WHERE ${column} = ?` : `UPDATE ${table} SET ${column} = NULL WHERE ${column} = ?`).run(id);
          }
        }
        statement('DELETE FROM users WHERE id = ?').run(id);
        return user;
      });
      const removed = remove(userId);
      // The WAL still holds earlier versions of the pages, with the deleted rows (secure_delete zeroes only the newest):
      // the newest are copied into the file and the WAL emptied. A reader on another connection may hold frames back
      // for a moment; SQLite's own next checkpoint (every 1,000 pages) then takes them.
      if (removed) connection().pragma('wal_checkpoint(TRUNCATE)');
      return removed;
    },

    async linkAccount(account) {
      return insertAccount(account);
    },

    async unlinkAccount({ provider, providerAccountId }) {
      const row = statement('DELETE FROM accounts WHERE provider = ? AND provider_account_id = ? RETURNING *').get(
        provider,
        providerAccountId,
      ) as AccountRow | undefined;
      return row ? accountFromRow(row) : undefined;
    },

    async getAccount(providerAccountId, provider) {
      const row = statement('SELECT * FROM accounts WHERE provider = ? AND provider_account_id = ?').get(
        provider,
        providerAccountId,
      ) as AccountRow | undefined;
      return row ? accountFromRow(row) : null;
    },

    async listAccountsByUserId(userId) {
      const rows = statement('SELECT * FROM accounts WHERE user_id = ? ORDER BY provider, provider_account_id').all(userId) as AccountRow[];
      return rows.map(accountFromRow);
    },

    async updateAccountTokens({ provider, providerAccountId, tokens, expectedRefreshToken }) {
      // The compare-and-set is part of the one UPDATE (`IS` also matches NULL to NULL), so a write of another
      // process between reading and writing cannot be overwritten.
      const compare = expectedRefreshToken === undefined ? '' : ' AND refresh_token IS @expected_refresh_token';
      const row = statement(
        `UPDATE accounts SET ${refreshedTokenFields.map((field) => `${field} = @${field}`).join(', ')}
         WHERE provider = @provider AND provider_account_id = @provider_account_id${compare}
         RETURNING *`,
      ).get({
        provider,
        provider_account_id: providerAccountId,
        ...Object.fromEntries(refreshedTokenFields.map((field) => [field, tokenParameter(tokens, field)])),
        ...(expectedRefreshToken !== undefined && { expected_refresh_token: expectedRefreshToken }),
      }) as AccountRow | undefined;
      return row ? accountFromRow(row) : null;
    },

    async createSession({ sessionToken, userId, expires, createdAt, lastSeenAt, userAgent }) {
      const row = statement(
        `INSERT INTO sessions (session_token, user_id, expires, created_at, last_seen_at, user_agent)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
      ).get(sessionToken, userId, toEpochMilliseconds(expires), toEpochMilliseconds(createdAt), toEpochMilliseconds(lastSeenAt), userAgent ?? null) as SessionRow;
      return sessionFromRow(row);
    },

    async getSessionAndUser(sessionToken) {
      // Expired sessions are returned as they are: the runtime compares `expires` and deletes them.
      const row = statement(selectSessionAndUser).get(sessionToken) as SessionAndUserRow | undefined;
      return row ? { session: sessionFromRow(row), user: userFromRow(row) } : null;
    },

    // Not async: better-sqlite3 answers at once, and the runtime then reads the session without waiting a turn.
    getSessionAndUserForRead(sessionToken) {
      const row = (readSession ??= connection().prepare(selectSessionForRead).raw(true)).get(sessionToken) as SessionForReadValues | undefined;
      return row ? sessionForReadFromValues(sessionToken, row) : null;
    },

    async updateSession(session) {
      const row = statement(
        `UPDATE sessions SET user_id = coalesce(@user_id, user_id), expires = coalesce(@expires, expires),
                last_seen_at = coalesce(@last_seen_at, last_seen_at)
         WHERE session_token = @session_token RETURNING *`,
      ).get({
        session_token: session.sessionToken,
        user_id: session.userId ?? null,
        expires: toEpochMilliseconds(session.expires),
        last_seen_at: toEpochMilliseconds(session.lastSeenAt),
      }) as SessionRow | undefined;
      return row ? sessionFromRow(row) : null;
    },

    async listSessionsByUserId(userId) {
      return (statement('SELECT * FROM sessions WHERE user_id = ?').all(userId) as SessionRow[]).map(sessionFromRow);
    },

    async deleteSession(sessionToken) {
      const row = statement('DELETE FROM sessions WHERE session_token = ? RETURNING *').get(sessionToken) as SessionRow | undefined;
      return row ? sessionFromRow(row) : null;
    },

    async createVerificationToken({ identifier, token, expires }) {
      statement('INSERT INTO verification_tokens (identifier, token, expires) VALUES (?, ?, ?)').run(
        identifier,
        token,
        toEpochMilliseconds(expires),
      );
      return { identifier, token, expires };
    },

    async useVerificationToken({ identifier, token }) {
      // Single use: one DELETE … RETURNING reads and removes the row in the same statement (SQLite runs each
      // statement in its own transaction), so two requests with the same link cannot both get it.
      const row = statement('DELETE FROM verification_tokens WHERE identifier = ? AND token = ? RETURNING *').get(
        identifier,
        token,
      ) as VerificationTokenRow | undefined;
      return row ? verificationTokenFromRow(row) : null;
    },

    async deleteVerificationTokens(identifier) {
      statement('DELETE FROM verification_tokens WHERE identifier = ?').run(identifier);
    },
  };
  // Not in Auth.js's interface: both writes in one transaction, so a failure between them leaves neither.
  adapter.createUserWithAccount = async (user, account) =>
    connection().transaction((): AdapterUser => {
      const created = insertUser(user);
      insertAccount({ ...account, userId: created.id });
      return created;
    })();

  // The features' tables and methods, on the same connection (`Feature.storage`).
  const sql: SqlDatabase = {
    dialect: 'sqlite',
    all: async <Row>(text: string, parameters: readonly unknown[]) => statement(text).all(...parameters.map(sqliteValue)) as Row[],
    first: <Row>(text: string, parameters: readonly unknown[]) => statement(text).get(...parameters.map(sqliteValue)) as Row | undefined,
    run: async (text, parameters) => statement(text).run(...parameters.map(sqliteValue)).changes,
    batch: async (list) => connection().transaction(() => list.map(([text, parameters]) => statement(text).run(...parameters.map(sqliteValue)).changes))(),
  };
  adapter[storeFeatures] = function (this: Adapter, given) {
    features.push(...given.filter((feature) => !features.includes(feature)));
    if (opened) applySchema(opened, migrationSteps('sqlite', coreSteps, features));
    // On the adapter and on the object it is called on, each keeping the methods it has: see MemoryAdapter.
    for (const feature of given) if (feature.storage) addMissing([adapter, this], feature.storage.sql(sql));
  };
  storeOptionFeatures(adapter, options);
  return adapter;
}
