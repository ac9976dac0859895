/**
 * Anti-automation (ASVS V2.2.1): fixed-window counters that cap password guesses, sign-in emails and passkey
 * option requests. Each attempt is one atomic `hit` on a key made of the rule and a keyed hash of its subject (a
 * user name, an email address, a client address), so the store never holds an address or a user name.
 *
 * The counters live in memory by default (one process). When the adapter has `hitRateLimit` and `resetRateLimit`
 * (the SQLite and PostgreSQL adapters do), they live in its database, and every app process that shares the
 * database counts together.
 */
import { createHmac } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { Request } from 'express';
import { type Adapter, callAdapter } from './adapter.js';
import { RateLimited } from './errors.js';
import type { Awaitable } from './types.js';

/** The count of a key's current window after a hit, and when that window ends. */
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
   * window ended), otherwise adds 1 to the window's count.
   */
  hit(key: string, windowSeconds: number): Awaitable<RateLimitHit>;
  /** Forgets the key's window (a correct password clears its user name's failures). */
  reset(key: string): Awaitable<void>;
}

/** The rules, by name: what is counted, and per what. */
export const rateLimitRules = ['credentialsPerUser', 'credentialsPerClient', 'emailPerAddress', 'emailPerClient', 'passkeyOptionsPerClient'] as const;

export type RateLimitRuleName = (typeof rateLimitRules)[number];

/** At most `max` attempts per `window` seconds; the next one is answered 429 until the window ends. */
export interface RateLimitRule {
  /** The window's length in seconds. */
  window: number;
  /** Attempts allowed in one window. */
  max: number;
}

/** The default of each rule; see `RateLimitOptions` for what each counts. */
export const defaultRateLimitRules: Readonly<Record<RateLimitRuleName, Readonly<RateLimitRule>>> = {
  credentialsPerUser: { window: 15 * 60, max: 5 },
  credentialsPerClient: { window: 15 * 60, max: 30 },
  emailPerAddress: { window: 15 * 60, max: 3 },
  emailPerClient: { window: 15 * 60, max: 10 },
  passkeyOptionsPerClient: { window: 60, max: 30 },
} as const;

/**
 * The `rateLimit` option: each rule can be changed (`{ window, max }`, either part alone) or switched off
 * (`false`). A client is the request's address as Express sees it (`req.ip`, which follows `X-Forwarded-For`
 * only as far as `trust proxy` allows); IPv6 clients are counted per /64 network.
 * @example
 * rateLimit: { credentialsPerUser: { max: 10 }, passkeyOptionsPerClient: false }
 */
export interface RateLimitOptions {
  /**
   * Failed credentials sign-ins (POST `<mount>/callback/<id>` or `<mount>/signin/<id>`) per user name: the
   * provider's first credential field that is not a password (or `username`, `email`), trimmed and lower-cased.
   * A correct password clears the count.
   * @default { window: 900, max: 5 }
   */
  credentialsPerUser?: Partial<RateLimitRule> | false;
  /**
   * Credentials sign-in attempts, successful or not, per client.
   * @default { window: 900, max: 30 }
   */
  credentialsPerClient?: Partial<RateLimitRule> | false;
  /**
   * Sign-in emails (POST `<mount>/signin/<email provider>`) per address, as the provider normalises it.
   * @default { window: 900, max: 3 }
   */
  emailPerAddress?: Partial<RateLimitRule> | false;
  /**
   * Sign-in emails per client.
   * @default { window: 900, max: 10 }
   */
  emailPerClient?: Partial<RateLimitRule> | false;
  /**
   * Passkey options (GET `<mount>/webauthn-options/<id>`) per client.
   * @default { window: 60, max: 30 }
   */
  passkeyOptionsPerClient?: Partial<RateLimitRule> | false;
  /**
   * Where the counters live. Several app processes count together only if they share it.
   * @default the adapter's database when it has `hitRateLimit` and `resetRateLimit` (SqliteAdapter,
   * PostgresAdapter), otherwise `MemoryRateLimitStore()` (this process only)
   */
  store?: RateLimitStore;
}

/** The `rateLimit` option after checks: every rule filled in, the store chosen. */
export interface ResolvedRateLimit {
  rules: Record<RateLimitRuleName, RateLimitRule | false>;
  store: RateLimitStore;
  /** Keys the hashes of subjects (the first secret), so the store holds no address or user name. */
  keySecret: string;
}

/** Options of the in-memory store. */
export interface MemoryRateLimitStoreOptions {
  /**
   * The most keys kept. When full, ended windows are dropped first, then the oldest windows, so an attacker who
   * rotates user names or addresses cannot exhaust memory.
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
  const windows = new Map<string, { count: number; resetAt: number }>();

  function makeRoom(now: number): void {
    for (const [key, entry] of windows) if (entry.resetAt <= now) windows.delete(key);
    // Still full: drop a tenth, oldest first, so that the next hits do not scan again.
    const target = Math.floor(maxKeys * 0.9);
    for (const key of windows.keys()) {
      if (windows.size <= target) break;
      windows.delete(key);
    }
  }

  return {
    hit(key, windowSeconds) {
      const now = Date.now();
      const existing = windows.get(key);
      if (existing && existing.resetAt > now) {
        existing.count += 1;
        return { count: existing.count, resetAt: new Date(existing.resetAt) };
      }
      windows.delete(key);
      if (windows.size >= maxKeys) makeRoom(now);
      const started = { count: 1, resetAt: now + windowSeconds * 1000 };
      windows.set(key, started);
      return { count: 1, resetAt: new Date(started.resetAt) };
    },
    reset(key) {
      windows.delete(key);
    },
  };
}

/** The adapter's database as the store, through `callAdapter` (a database failure is an `AdapterError`, 503). */
function adapterStore(adapter: Adapter): RateLimitStore {
  return {
    hit: (key, windowSeconds) => callAdapter(adapter, 'hitRateLimit', key, windowSeconds),
    reset: async (key) => {
      await callAdapter(adapter, 'resetRateLimit', key);
    },
  };
}

function resolveRule(name: RateLimitRuleName, value: Partial<RateLimitRule> | false | undefined): RateLimitRule | false {
  if (value === false) return false;
  const rule = { ...defaultRateLimitRules[name], ...value };
  for (const field of ['window', 'max'] as const) {
    if (!Number.isInteger(rule[field]) || rule[field] < 1) {
      throw new TypeError(`rateLimit.${name}.${field} must be a positive whole number (got ${String(rule[field])})`);
    }
  }
  return rule;
}

/**
 * Resolves the `rateLimit` option once, at startup: `false` switches every rule off; a rule's bad `window` or `max`
 * throws now.
 */
export function resolveRateLimit(option: RateLimitOptions | false | undefined, adapter: Adapter | undefined, keySecret: string): ResolvedRateLimit | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (typeof option !== 'object' || option === null)) {
    throw new TypeError('rateLimit must be false or an object of rules ({ credentialsPerUser: { window, max }, … })');
  }
  const rules = Object.fromEntries(rateLimitRules.map((name) => [name, resolveRule(name, option?.[name])])) as ResolvedRateLimit['rules'];
  const sharedStore = adapter && typeof adapter.hitRateLimit === 'function' && typeof adapter.resetRateLimit === 'function' ? adapterStore(adapter) : undefined;
  return { rules, store: option?.store ?? sharedStore ?? MemoryRateLimitStore(), keySecret };
}

/** `rule:` and a keyed hash of the trimmed, lower-cased subject: equal subjects share a key, and no subject is stored. */
function storeKey(limiter: ResolvedRateLimit, rule: RateLimitRuleName, subject: string): string {
  const digest = createHmac('sha256', limiter.keySecret).update(`${rule}\u0000${subject.trim().toLowerCase()}`).digest('base64url');
  return `${rule}:${digest}`;
}

/**
 * Counts one attempt of `subject` under `rule`, and throws `RateLimited` (429, `Retry-After`) when it is over the
 * rule's `max`. Does nothing when rate limiting or the rule is switched off.
 */
export async function consumeRateLimit(limiter: ResolvedRateLimit | undefined, rule: RateLimitRuleName, subject: string): Promise<void> {
  const limits = limiter?.rules[rule];
  if (!limiter || !limits) return;
  const { count, resetAt } = await limiter.store.hit(storeKey(limiter, rule, subject), limits.window);
  if (count <= limits.max) return;
  const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 1000));
  throw new RateLimited(`Too many attempts. Try again in ${waitText(retryAfter)}.`, { retryAfter, rule, firstRefusal: count === limits.max + 1 });
}

/** Clears `subject`'s count under `rule` (after a correct password). */
export async function clearRateLimit(limiter: ResolvedRateLimit | undefined, rule: RateLimitRuleName, subject: string): Promise<void> {
  if (!limiter || !limiter.rules[rule]) return;
  await limiter.store.reset(storeKey(limiter, rule, subject));
}

function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * The client a request counts against: `req.ip` (Express applies `trust proxy` to `X-Forwarded-For`), else the
 * socket's address. An IPv4-mapped IPv6 address counts as its IPv4 address; other IPv6 addresses count per /64,
 * the smallest network an ISP hands out, so that one host cannot rotate through its own addresses.
 */
export function clientAddress(req: Request): string {
  const address = (req.ip ?? req.socket?.remoteAddress ?? '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (isIPv6(address)) return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
  return address || 'unknown';
}

/** The eight 16-bit groups of a valid IPv6 address, `::` expanded, without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const groupsOf = (part: string | undefined): string[] => (part ? part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])) : []);
  const first = groupsOf(head);
  const last = groupsOf(tail);
  const groups = tail === undefined ? first : [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  return groups.map((group) => parseInt(group, 16).toString(16));
}
