/**
 * The `rate_limits` table of the SQL adapters: fixed-window counters by key, shared by every app process on the
 * database. The rate-limit feature counts its rules in it, and app processes take their lease on a token refresh
 * there (access-token.ts), so every app with a SQL adapter has it. In memory there is nothing to share: the lease
 * is not taken, and the rate-limit feature brings its own store.
 */
import type { Awaitable } from '../../types.js';
import type { FeatureStorage } from './adapter.js';

declare module '../../contracts.js' {
  interface Adapter {
    /**
     * Not part of Auth.js's interface: counts one attempt for a key in its fixed window of `windowSeconds`,
     * atomically, and resolves the window's count and end. With `resetRateLimit`, the `rateLimit` counters live in
     * the database, so every app process sharing it counts together; without them, they live in each process's memory.
     */
    hitRateLimit?(key: string, windowSeconds: number, max?: number): Awaitable<{ count: number; resetAt: Date }>;
    /** Not part of Auth.js's interface: forgets a key's window. */
    resetRateLimit?(key: string): Awaitable<void>;
  }
}

/** Ended windows are deleted at most this often (per adapter), by the next hit. */
const CLEANUP_MS = 60_000;

export const counterStorage: FeatureStorage = {
  tables: [{ name: 'rate_limits', columns: { key: 'text', count: 'integer', reset_at: 'date' }, primaryKey: ['key'], indexes: ['reset_at'] }],
  sql(database) {
    let cleanedAt = 0;
    return {
      async hitRateLimit(key, windowSeconds) {
        // The app's clock, not the database's, so that every store counts windows the same way.
        const now = new Date();
        if (now.getTime() - cleanedAt >= CLEANUP_MS) {
          cleanedAt = now.getTime();
          await database.run('DELETE FROM rate_limits WHERE reset_at <= ?', [now]);
        }
        // One upsert, so one write: concurrent hits on a key (from any process) wait for each other (SQLite's write
        // lock, PostgreSQL's row lock), and each gets its own count. SET expressions read the row as it was.
        const [row] = await database.all<{ count: number; reset_at: Date | number }>(
          `INSERT INTO rate_limits (key, count, reset_at) VALUES (?, 1, ?)
           ON CONFLICT (key) DO UPDATE SET
             count = CASE WHEN rate_limits.reset_at <= ? THEN 1 ELSE rate_limits.count + 1 END,
             reset_at = CASE WHEN rate_limits.reset_at <= ? THEN excluded.reset_at ELSE rate_limits.reset_at END
           RETURNING count, reset_at`,
          [key, new Date(now.getTime() + windowSeconds * 1000), now, now],
        );
        return { count: Number(row!.count), resetAt: new Date(row!.reset_at) };
      },
      async resetRateLimit(key) {
        await database.run('DELETE FROM rate_limits WHERE key = ?', [key]);
      },
    };
  },
  memory: () => ({ methods: {} }),
};
