/**
 * Where the rate-limit counters live: the `rate_limits` table of the SQL adapters (shared by every app process on
 * the database), or this process's memory (`MemoryRateLimitStore`, the default without a SQL adapter).
 */
import type { FeatureStorage } from '../database/adapter.js';
import { counterStorage } from '../database/counters.js';
import type { Awaitable } from '../../types.js';

/** The count of a rate-limit key's current window after a hit, and when that window ends. */
export interface RateLimitHit {
  count: number;
  resetAt: Date;
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

/**
 * The counters' table and SQL methods are the database feature's (counters.ts: every app with a SQL adapter has them,
 * for the lease on a token refresh); in memory, the counters are this store's.
 */
export const rateLimitStorage: FeatureStorage = {
  ...counterStorage,
  memory() {
    const store = MemoryRateLimitStore();
    return { methods: { hitRateLimit: (key, windowSeconds, max) => store.hit(key, windowSeconds, max), resetRateLimit: (key) => store.reset(key) } };
  },
};
