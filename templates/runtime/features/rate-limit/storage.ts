/**
 * Where the rate-limit counters live: the `rate_limits` table of the SQL adapters (shared by every app process on
 * the database), or this process's memory (`MemoryRateLimitStore`, the default without a SQL adapter).
 */
import type { FeatureStorage } from '../database/adapter.js';
import type { Awaitable } from '../../types.js';

/** The count of a rate-limit key's current window after a hit, and when that window ends. */
export interface RateLimitHit {
  count: number;
  resetAt: Date;
}

declare module '../../contracts.js' {
  interface Adapter {
    /**
     * Not part of Auth.js's interface: counts one attempt for a rate-limit key in its fixed window, atomically (see
     * `RateLimitStore.hit`). With `resetRateLimit`, the `rateLimit` counters live in the database, so every app
     * process sharing it counts together; without them, they live in each process's memory.
     */
    hitRateLimit?(key: string, windowSeconds: number, max?: number): Awaitable<RateLimitHit>;
    /** Not part of Auth.js's interface: forgets a rate-limit key's window (see `RateLimitStore.reset`). */
    resetRateLimit?(key: string): Awaitable<void>;
  }
}

/**
 * Where the counters live. Both methods must be atomic: two concurrent hits on one key return two different
 * counts, whichever process they come from.
 */
export interface RateLimitStore {
  /**
   * Counts one attempt for `key`: starts a window of `windowSeconds` with count 1 when the key has none (or its
   * window ended), otherwise adds 1 to the window's count. `max` is the rule's limit: a store that must forget
   * keys (the memory store, when full) keeps the ones over it, so that a flood of other keys never unlocks them.
   */
  hit(key: string, windowSeconds: number, max?: number): Awaitable<RateLimitHit>;
  /** Forgets the key's window (a correct password clears its user name's failures). */
  reset(key: string): Awaitable<void>;
}

/** Options of the in-memory store. */
export interface MemoryRateLimitStoreOptions {
  /**
   * The most keys kept, so that an attacker who rotates user names or addresses cannot exhaust memory. When full,
   * ended windows are dropped first, then the oldest windows with budget left (fewer hits than their limit). A
   * locked key, one that has used its limit (5 of 5: the next hit is refused), is never dropped before its window
   * ends, or a flood of other keys would give it its budget back: when every key kept is locked, a new key is
   * refused (429) until a window ends.
   * @default 10000
   */
  maxKeys?: number;
}

/**
 * Counters in this process's memory: the default when the adapter has no rate-limit methods. Each app process
 * counts on its own; use the SQLite or PostgreSQL adapter (or a store of your own) to count across processes.
 */
export function MemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): RateLimitStore {
  const maxKeys = options.maxKeys ?? 10_000;
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new TypeError(`MemoryRateLimitStore: maxKeys must be a positive integer (got ${String(maxKeys)})`);
  // A Map keeps insertion order, and a key is re-inserted when its window starts: the first entries are the oldest windows.
  const windows = new Map<string, { count: number; resetAt: number; max: number }>();

  /** Drops ended windows, then the oldest windows with budget left, to a tenth below the cap; true if room was made. */
  function makeRoom(now: number): boolean {
    for (const [key, entry] of windows) if (entry.resetAt <= now) windows.delete(key);
    // Still full: drop a tenth, oldest first, so that the next hits do not scan again.
    const target = Math.floor(maxKeys * 0.9);
    for (const [key, entry] of windows) {
      if (windows.size <= target) break;
      // A key that has used its whole limit stays: dropped, its next hit would start a new window (security review 4, N2).
      if (entry.count < entry.max) windows.delete(key);
    }
    return windows.size < maxKeys;
  }

  return {
    hit(key, windowSeconds, max = Number.POSITIVE_INFINITY) {
      const now = Date.now();
      const existing = windows.get(key);
      if (existing && existing.resetAt > now) {
        existing.count += 1;
        existing.max = max;
        return { count: existing.count, resetAt: new Date(existing.resetAt) };
      }
      windows.delete(key);
      if (windows.size >= maxKeys && !makeRoom(now)) {
        // Every key kept is locked: refuse this one until the first of their windows ends.
        let firstEnd = Number.POSITIVE_INFINITY;
        for (const entry of windows.values()) firstEnd = Math.min(firstEnd, entry.resetAt);
        return { count: Number.MAX_SAFE_INTEGER, resetAt: new Date(firstEnd) };
      }
      const started = { count: 1, resetAt: now + windowSeconds * 1000, max };
      windows.set(key, started);
      return { count: 1, resetAt: new Date(started.resetAt) };
    },
    reset(key) {
      windows.delete(key);
    },
  };
}

/** Ended windows are deleted at most this often (per adapter), by the next hit. */
const CLEANUP_MS = 60_000;

export const rateLimitStorage: FeatureStorage = {
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
  memory() {
    const store = MemoryRateLimitStore();
    return { methods: { hitRateLimit: (key, windowSeconds, max) => store.hit(key, windowSeconds, max), resetRateLimit: (key) => store.reset(key) } };
  },
};
