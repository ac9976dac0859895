/**
 * Where the suspensions live: the `suspensions` table (one row per suspension, with the user; at most one started at
 * a given instant per user) and `users.suspended_at`, the open suspension's start (null: not suspended). In memory, a
 * list beside the users.
 */
import type { AdapterUser, Awaitable } from '../../../templates/runtime/types.js';
import type { Adapter } from '../../../templates/runtime/contracts.js';
import { MissingAdapterMethods } from '../../../templates/runtime/errors.js';
import type { FeatureStorage, SqlDatabase } from '../../../templates/runtime/features/database/adapter.js';

/** One suspension as the feature reads it. */
export interface Suspension {
  id: string;
  userId: string;
  reason: string;
  startedAt: Date;
  liftedAt: Date | null;
}

/**
 * The adapter methods the feature keeps its rows with. A feature of the runtime would declare them on `Adapter`
 * (`declare module`); this one, compiled with the repository's tests, keeps them on its own interface, because
 * test/adapters/adapter-suite.ts fails to compile when `Adapter` gains a method its suite does not list.
 */
export interface SuspensionMethods {
  /** Suspends a user (`users.suspended_at` and a row of `suspensions`). */
  suspendUser(suspension: Omit<Suspension, 'liftedAt'>): Awaitable<void>;
  /** Lifts the user's open suspension; resolves whether there was one. */
  liftSuspension(userId: string, at: Date): Awaitable<boolean>;
  /** The user's open suspension, or null. */
  getOpenSuspension(userId: string): Awaitable<Suspension | null>;
  /** Every suspension of the user, newest first. */
  listSuspensions(userId: string): Awaitable<Suspension[]>;
  /** Marks the lifted suspensions the user was not yet told about as told; resolves how many. */
  markLiftedSuspensionsSeen(userId: string, at: Date): Awaitable<number>;
}

const neededMethods = ['suspendUser', 'liftSuspension', 'getOpenSuspension', 'listSuspensions', 'markLiftedSuspensionsSeen'] as const;

/** The adapter's suspension methods; throws, naming those it lacks (the feature's startup check). */
export function suspensionMethods(adapter: Adapter | undefined): SuspensionMethods {
  const methods = (adapter ?? {}) as Partial<SuspensionMethods>;
  const missing = neededMethods.filter((method) => typeof methods[method] !== 'function');
  if (missing.length > 0) throw new MissingAdapterMethods(`Suspensions are kept through the adapter, which lacks these methods: ${missing.join(', ')}`);
  return methods as SuspensionMethods;
}

interface SuspensionRow {
  id: string;
  user_id: string;
  reason: string;
  started_at: Date | number;
  lifted_at: Date | number | null;
}

function fromRow(row: SuspensionRow): Suspension {
  return { id: row.id, userId: row.user_id, reason: row.reason, startedAt: new Date(row.started_at), liftedAt: row.lifted_at === null ? null : new Date(row.lifted_at) };
}

const columns = 'id, user_id, reason, started_at, lifted_at';

export const suspensionStorage: FeatureStorage = {
  tables: [
    {
      name: 'suspensions',
      columns: { id: 'text', user_id: 'text', reason: 'text', started_at: 'date', lifted_at: 'date', seen_at: 'date' },
      nullable: ['lifted_at', 'seen_at'],
      primaryKey: ['id'],
      // `user_id` refers to users (id) and goes with its user (the TableSpec default), said here as a feature would.
      references: { user_id: { table: 'users', onDelete: 'cascade' } },
      unique: [['user_id', 'started_at']],
      indexes: [['user_id', 'lifted_at']],
    },
  ],
  columns: [{ table: 'users', name: 'suspended_at', type: 'date', nullable: true }],
  sql: (database) => sqlMethods(database) as Partial<Adapter>,
  memory(users: ReadonlyMap<string, AdapterUser>) {
    const methods = memoryMethods(users);
    return { forgetUser: methods.forgetUser, methods: methods.methods as Partial<Adapter> };
  },
};

function sqlMethods(database: SqlDatabase): SuspensionMethods {
  return {
    async suspendUser({ id, userId, reason, startedAt }) {
      await database.batch([
        ['UPDATE users SET suspended_at = ? WHERE id = ?', [startedAt, userId]],
        [`INSERT INTO suspensions (id, user_id, reason, started_at) VALUES (?, ?, ?, ?)`, [id, userId, reason, startedAt]],
      ]);
    },
    async liftSuspension(userId, at) {
      const open = await database.all<{ suspended_at: Date | number | null }>('SELECT suspended_at FROM users WHERE id = ?', [userId]);
      const since = open[0]?.suspended_at;
      if (since === undefined || since === null) return false;
      await database.batch([
        ['UPDATE suspensions SET lifted_at = ? WHERE user_id = ? AND started_at = ?', [at, userId, new Date(since)]],
        ['UPDATE users SET suspended_at = NULL WHERE id = ?', [userId]],
      ]);
      return true;
    },
    async getOpenSuspension(userId) {
      const rows = await database.all<SuspensionRow>(
        `SELECT s.id, s.user_id, s.reason, s.started_at, s.lifted_at FROM users u JOIN suspensions s ON s.user_id = u.id AND s.started_at = u.suspended_at WHERE u.id = ?`,
        [userId],
      );
      return rows[0] ? fromRow(rows[0]) : null;
    },
    async listSuspensions(userId) {
      return (await database.all<SuspensionRow>(`SELECT ${columns} FROM suspensions WHERE user_id = ? ORDER BY started_at DESC`, [userId])).map(fromRow);
    },
    async markLiftedSuspensionsSeen(userId, at) {
      return database.run('UPDATE suspensions SET seen_at = ? WHERE user_id = ? AND lifted_at IS NOT NULL AND seen_at IS NULL', [at, userId]);
    },
  };
}

function memoryMethods(users: ReadonlyMap<string, AdapterUser>): { methods: SuspensionMethods; forgetUser(userId: string): void } {
    let rows: (Suspension & { seenAt: Date | null })[] = [];
    const open = (userId: string) => rows.find((row) => row.userId === userId && row.liftedAt === null) ?? null;
    return {
      forgetUser(userId) {
        rows = rows.filter((row) => row.userId !== userId);
      },
      methods: {
        async suspendUser(suspension) {
          if (!users.has(suspension.userId)) throw new Error(`suspendUser: no user has the id ${JSON.stringify(suspension.userId)}`);
          rows.push({ ...suspension, liftedAt: null, seenAt: null });
        },
        async liftSuspension(userId, at) {
          const row = open(userId);
          if (row) row.liftedAt = at;
          return row !== null;
        },
        async getOpenSuspension(userId) {
          const row = open(userId);
          return row && { id: row.id, userId, reason: row.reason, startedAt: row.startedAt, liftedAt: null };
        },
        async listSuspensions(userId) {
          return rows.filter((row) => row.userId === userId).map(({ seenAt: _seen, ...row }) => row).sort((a, b) => b.startedAt.valueOf() - a.startedAt.valueOf());
        },
        async markLiftedSuspensionsSeen(userId, at) {
          const unseen = rows.filter((row) => row.userId === userId && row.liftedAt !== null && row.seenAt === null);
          for (const row of unseen) row.seenAt = at;
          return unseen.length;
        },
      },
    };
}
