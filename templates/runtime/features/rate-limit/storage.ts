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
   * keys (the memory store, when full) forgets the ones under it first, so that a flood of other keys does not unlock
   * the locked ones.
   */
  hit(key: string, windowSeconds: number, max?: number): Awaitable<RateLimitHit>;
  /** Forgets the key's window (a correct password clears its user name's failures). */
  reset(key: string): Awaitable<void>;
}

/** Options of the in-memory store. */
export interface MemoryRateLimitStoreOptions {
  /**
   * The most keys kept per rule, so that an attacker who rotates user names or addresses cannot exhaust memory. A key
   * is `<rule>:<hash of the subject>`, and each rule keeps its own keys: a flood of client addresses never pushes out
   * or blocks the user names. When a rule is full, ended windows are dropped first, then the oldest windows with
   * budget left (fewer hits than their limit). A locked key, one that has used its limit (5 of 5: the next hit is
   * refused), stays while any other can go, or a flood of other keys would give it its budget back. When every key of
   * the rule is locked, the one whose window ends first goes: it loses at most the rest of one window, and a subject
   * the store has not counted is never refused because the store is full.
   * @default 10000
   */
  maxKeys?: number;
  /**
   * Called the first time a rule is full (`rule`: the part of the key before `:`), once per store: from then on the
   * store forgets counts. The app's limiter adds the logger's `rate-limit-store-full` warning.
   */
  onFull?: (rule: string) => void;
}

/** A key's window: its count, when it ends, and the limit of the last hit. */
interface Window {
  count: number;
  resetAt: number;
  max: number;
}

/** The in-memory stores (and the MemoryAdapter's counter methods over one) with what is called when they fill up. */
const memoryStores = new WeakMap<object, Set<(rule: string) => void>>();

/**
 * Counters in this process's memory: the default when the adapter has no rate-limit methods. Each app process
 * counts on its own; use the SQLite or PostgreSQL adapter (or a store of your own) to count across processes.
 */
export function MemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): RateLimitStore {
  const maxKeys = options.maxKeys ?? 10_000;
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new TypeError(`MemoryRateLimitStore: maxKeys must be a positive integer (got ${String(maxKeys)})`);
  const onFull = new Set(options.onFull ? [options.onFull] : []);
  let filledUp = false;
  // One map per rule. A Map keeps insertion order, and a key is re-inserted when its window starts: the first entries
  // are the oldest windows.
  const rules = new Map<string, Map<string, Window>>();
  const ruleOf = (key: string): string => key.slice(0, Math.max(0, key.indexOf(':')));

  /** Drops ended windows; then the oldest windows with budget left, to a tenth below the cap; else the locked one that ends first. */
  function makeRoom(rule: string, windows: Map<string, Window>, now: number): void {
    for (const [key, entry] of windows) if (entry.resetAt <= now) windows.delete(key);
    if (windows.size < maxKeys) return;
    if (!filledUp) {
      filledUp = true;
      for (const listener of onFull) listener(rule);
    }
    // Still full: drop a tenth, oldest first, so that the next hits do not scan again.
    const target = Math.floor(maxKeys * 0.9);
    for (const [key, entry] of windows) {
      if (windows.size <= target) break;
      // A key that has used its whole limit stays while another can go: dropped, its next hit would start a new window.
      if (entry.count < entry.max) windows.delete(key);
    }
    if (windows.size < maxKeys) return;
    // Every key is locked. Refusing the new key would refuse every new visitor until a window ends (a flood that
    // locks maxKeys clients would lock everyone out); the key dropped loses only what is left of its window.
    let first: string | undefined;
    let firstEnd = Number.POSITIVE_INFINITY;
    for (const [key, entry] of windows) {
      if (entry.resetAt < firstEnd) [first, firstEnd] = [key, entry.resetAt];
    }
    windows.delete(first!);
  }

  const store: RateLimitStore = {
    hit(key, windowSeconds, max = Number.POSITIVE_INFINITY) {
      const now = Date.now();
      const rule = ruleOf(key);
      let windows = rules.get(rule);
      if (!windows) rules.set(rule, (windows = new Map()));
      const existing = windows.get(key);
      if (existing && existing.resetAt > now) {
        existing.count += 1;
        existing.max = max;
        return { count: existing.count, resetAt: new Date(existing.resetAt) };
      }
      windows.delete(key);
      if (windows.size >= maxKeys) makeRoom(rule, windows, now);
      const started = { count: 1, resetAt: now + windowSeconds * 1000, max };
      windows.set(key, started);
      return { count: 1, resetAt: new Date(started.resetAt) };
    },
    reset(key) {
      rules.get(ruleOf(key))?.delete(key);
    },
  };
  memoryStores.set(store, onFull);
  return store;
}

/**
 * Whether `counter` (a store, or an adapter's `hitRateLimit`) counts in this process's memory; if so, `onFull` is
 * called too the first time one of its rules is full.
 */
export function watchMemoryCounter(counter: object, onFull: (rule: string) => void): boolean {
  const listeners = memoryStores.get(counter);
  listeners?.add(onFull);
  return listeners !== undefined;
}

/**
 * The counters' table and SQL methods are the database feature's (counters.ts: every app with a SQL adapter has them,
 * for the lease on a token refresh); in memory, the counters are this store's.
 */
export const rateLimitStorage: FeatureStorage = {
  ...counterStorage,
  memory() {
    const store = MemoryRateLimitStore();
    const hitRateLimit = (key: string, windowSeconds: number, max?: number) => store.hit(key, windowSeconds, max);
    memoryStores.set(hitRateLimit, memoryStores.get(store)!);
    return { methods: { hitRateLimit, resetRateLimit: (key) => store.reset(key) } };
  },
};
