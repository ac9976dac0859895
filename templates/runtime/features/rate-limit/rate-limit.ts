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
import { isIPv6 } from 'node:net';
import type { Request } from 'express';
import { networkOf, requestAddress } from '../../http/client-address.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import type { LoggerInstance, ResolvedConfig, RequestContext, Feature } from '../../contracts.js';
import { type ErrorResponse, type ErrorType, AuthError, clientSafe } from '../../errors.js';
import { type RateLimitStore, MemoryRateLimitStore, watchMemoryCounter } from './storage.js';

export { MemoryRateLimitStore } from './storage.js';
export type { MemoryRateLimitStoreOptions, RateLimitHit, RateLimitStore } from './storage.js';

// A feature's option: the config has `rateLimit` when the flows that are limited (and so this file) are in the project.
declare module '../../errors.js' {
  interface FeatureErrorTypes {
    RateLimited: true;
  }
}

declare module '../../contracts.js' {
  interface FeatureWarningCodes {
    'untrusted-proxy': true;
    'rate-limit-store-full': true;
    'rate-limit-counters-in-memory': true;
  }

  interface FrameworkAuthConfig {
    /**
     * Rate limits on what the app's features let a client try: each feature brings its rules (credentials and
     * password sign-in per user name and per client; email sign-in per address and per client; passkey options per
     * client; the password provider's messages per address and per client; messages with a link per recipient, in 15
     * minutes and in a day; two-factor codes per pending sign-in and per user), and a refused request is answered 429
     * with `Retry-After`. Each rule takes `{ window, max }` (seconds, attempts) or `false`; `store` decides where the
     * counters live. `false` switches every rule off (for load tests, or when a proxy in front already limits these
     * routes).
     * @default every rule of the app's features on with its default (`RateLimitOptions`); counted in the adapter's
     * database when it has `hitRateLimit` (SqliteAdapter, PostgresAdapter), otherwise in memory
     * @example
     * rateLimit: { credentialsPerUser: { window: 600, max: 10 } }
     */
    rateLimit?: RateLimitOptions | false;
  }

  interface Feature {
    /** The rate-limit rules the feature counts under, with their defaults (`rateLimit` changes or switches them off). */
    rateLimits?: { readonly [Name in RateLimitRuleName]?: Readonly<RateLimitRule> };
  }
}

/**
 * Too many attempts under one of the `rateLimit` rules: answered 429 with `Retry-After` where it happens (never a
 * redirect). The message says only how long to wait, the same whether or not the user name or address exists. Of a
 * burst of refusals, only the first is logged as an error; the rest would flood the log.
 */
export class RateLimited extends AuthError {
  static type: ErrorType = 'RateLimited';
  static override response: ErrorResponse = clientSafe('RateLimited', 429, 'inline', 'Too many attempts. Please wait a few minutes and try again.', 'Too many attempts');
  /** Seconds until the window ends: the `Retry-After` header. */
  retryAfter: number;
  /** The rule that refused the request (`credentialsPerUser`, …), for logs. */
  rule: string;

  constructor(message: string, details: { retryAfter: number; rule: string; firstRefusal: boolean }) {
    super(message);
    this.retryAfter = details.retryAfter;
    this.rule = details.rule;
    this.headers = { 'Retry-After': String(details.retryAfter) };
    this.quiet = !details.firstRefusal;
  }
}

/**
 * The rules, by name: each feature that counts declares its own (`declare module … { interface RateLimitRules { … } }`,
 * the rule's documentation on its name) and their defaults (`Feature.rateLimits`). The two below are the
 * rate-limit feature's own: sign-ins with a secret, of credentials and password providers alike.
 */
export interface RateLimitRules {
  /**
   * Failed credentials sign-ins (POST `<mount>/callback/<id>` or `<mount>/signin/<id>`) per user name: the
   * provider's first credential field that is not a password (or `username`, `email`), trimmed and lower-cased.
   * A correct password clears the count.
   * @default { window: 900, max: 5 }
   */
  credentialsPerUser: true;
  /**
   * Credentials sign-in attempts, successful or not, per client.
   * @default { window: 900, max: 30 }
   */
  credentialsPerClient: true;
}

export type RateLimitRuleName = keyof RateLimitRules;

/** The defaults of the rate-limit feature's own rules (`RateLimitRules`). */
export const signInRateLimits = { credentialsPerUser: { window: 15 * 60, max: 5 }, credentialsPerClient: { window: 15 * 60, max: 30 } } as const;

/** At most `max` attempts per `window` seconds; the next one is answered 429 until the window ends. */
export interface RateLimitRule {
  /** The window's length in seconds. */
  window: number;
  /** Attempts allowed in one window. */
  max: number;
}

/**
 * The `rateLimit` option: each rule of the app's features can be changed (`{ window, max }`, either part alone) or
 * switched off (`false`); a rule of a feature the app does not have is ignored. A client is the request's address as
 * Express sees it (`req.ip`, which follows `X-Forwarded-For` only as far as `trust proxy` allows); IPv6 clients are
 * counted per /64 network.
 * @example
 * rateLimit: { credentialsPerUser: { max: 10 }, credentialsPerClient: false }
 */
export type RateLimitOptions = { [Name in keyof RateLimitRules]?: Partial<RateLimitRule> | false } & {
  /**
   * Where the counters live. Several app processes count together only if they share it.
   * @default the adapter's database when it has `hitRateLimit` and `resetRateLimit` (SqliteAdapter,
   * PostgresAdapter), otherwise `MemoryRateLimitStore()` (this process only)
   */
  store?: RateLimitStore;
};

/** The `rateLimit` option after checks: every rule filled in, the store chosen. */
export interface ResolvedRateLimit {
  rules: { [Name in RateLimitRuleName]?: RateLimitRule | false };
  store: RateLimitStore;
  /** The counters live in this process's memory (`MemoryRateLimitStore`, or the MemoryAdapter's). */
  inMemory: boolean;
  /** Keys the hashes of subjects (the first secret), so the store holds no address or user name. */
  keySecret: string;
}

/** The adapter's database as the store, through `callAdapter` (a database failure is an `AdapterError`, 503). */
function adapterStore(adapter: Adapter): RateLimitStore {
  return {
    hit: (key, windowSeconds, max) => callAdapter(adapter, 'hitRateLimit', key, windowSeconds, max),
    reset: async (key) => {
      await callAdapter(adapter, 'resetRateLimit', key);
    },
  };
}

function resolveRule(name: string, defaults: Readonly<RateLimitRule>, value: Partial<RateLimitRule> | false | undefined): RateLimitRule | false {
  if (value === false) return false;
  const rule = { ...defaults, ...value };
  for (const field of ['window', 'max'] as const) {
    if (!Number.isInteger(rule[field]) || rule[field] < 1) {
      throw new TypeError(`rateLimit.${name}.${field} must be a positive whole number (got ${String(rule[field])})`);
    }
  }
  return rule;
}

/**
 * Checks the `rateLimit` option and fills in every rule of `features`: `false` switches every rule off; a rule's bad
 * `window` or `max` throws. The rate-limit feature's startup check resolves it (`rateLimiterOf`), once per config.
 * `logger` warns `rate-limit-store-full` the first time counters in memory fill up.
 */
export function resolveRateLimit(
  option: RateLimitOptions | false | undefined,
  features: readonly Feature[],
  adapter: Adapter | undefined,
  keySecret: string,
  logger?: Pick<LoggerInstance, 'warn'>,
): ResolvedRateLimit | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (typeof option !== 'object' || option === null)) {
    throw new TypeError('rateLimit must be false or an object of rules ({ credentialsPerUser: { window, max }, … })');
  }
  const defaults = Object.entries(Object.assign({}, ...features.map((feature) => feature.rateLimits)) as Record<string, Readonly<RateLimitRule>>);
  const rules = Object.fromEntries(defaults.map(([name, rule]) => [name, resolveRule(name, rule, option?.[name as RateLimitRuleName])])) as ResolvedRateLimit['rules'];
  const sharedStore = adapter && typeof adapter.hitRateLimit === 'function' && typeof adapter.resetRateLimit === 'function' ? adapterStore(adapter) : undefined;
  const store = option?.store ?? sharedStore ?? MemoryRateLimitStore();
  const inMemory = watchMemoryCounter(store === sharedStore ? adapter!.hitRateLimit! : store, () => logger?.warn('rate-limit-store-full'));
  return { rules, store, inMemory, keySecret };
}

const limiters = new WeakMap<ResolvedConfig, ResolvedRateLimit | undefined>();

/**
 * The app's limiter (its rules and one store), made at startup by the feature's check and kept with the resolved
 * config. In production, counters in memory make the logger warn `rate-limit-counters-in-memory`.
 */
export function rateLimiterOf(options: ResolvedConfig): ResolvedRateLimit | undefined {
  if (!limiters.has(options)) {
    const limiter = resolveRateLimit(options.source.rateLimit, options.features, options.adapter, options.secrets[0]!, options.logger);
    limiters.set(options, limiter);
    // Each process counts alone and a restart forgets every count: fine for development, weak for production.
    if (limiter?.inMemory && process.env['NODE_ENV'] === 'production') options.logger.warn('rate-limit-counters-in-memory');
  }
  return limiters.get(options);
}

/**
 * `rule:` and a keyed hash of the subject, trimmed, NFKC-normalised and lower-cased (full-width `ＡＤＡ` is `ada`):
 * equal subjects share a key, and no subject is stored.
 */
function storeKey(limiter: ResolvedRateLimit, rule: RateLimitRuleName, subject: string): string {
  const normalised = subject.normalize('NFKC').trim().toLowerCase();
  const digest = createHmac('sha256', limiter.keySecret).update(`${rule}\u0000${normalised}`).digest('base64url');
  return `${rule}:${digest}`;
}

/**
 * Counts one attempt of `subject` under `rule`, and throws `RateLimited` (429, `Retry-After`) when it is over the
 * rule's `max`. Does nothing when rate limiting or the rule is switched off.
 */
export async function consumeRateLimit(options: ResolvedConfig, rule: RateLimitRuleName, subject: string): Promise<void> {
  const limiter = rateLimiterOf(options);
  const limits = limiter?.rules[rule];
  if (!limiter || !limits) return;
  const { count, resetAt } = await limiter.store.hit(storeKey(limiter, rule, subject), limits.window, limits.max);
  if (count <= limits.max) return;
  const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - Date.now()) / 1000));
  throw new RateLimited(`Too many attempts. Try again in ${waitText(retryAfter)}.`, { retryAfter, rule, firstRefusal: count === limits.max + 1 });
}

/** Counts one attempt of the request's client (`clientAddress`) under `rule`, as `consumeRateLimit` does. */
export async function consumeClientRateLimit(context: Pick<RequestContext, 'req' | 'options'>, rule: RateLimitRuleName): Promise<void> {
  await consumeRateLimit(context.options, rule, clientAddress(context.req, context.options.logger));
}

/** Clears `subject`'s count under `rule` (after a correct password). */
export async function clearRateLimit(options: ResolvedConfig, rule: RateLimitRuleName, subject: string): Promise<void> {
  const limiter = rateLimiterOf(options);
  if (!limiter || !limiter.rules[rule]) return;
  await limiter.store.reset(storeKey(limiter, rule, subject));
}

function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

const warnedLoggers = new WeakSet<object>();

/**
 * The client a request counts against: `req.ip` (Express applies `trust proxy` to `X-Forwarded-For`), else the
 * socket's address. An IPv4-mapped IPv6 address counts as its IPv4 address; other IPv6 addresses count per /64,
 * the smallest network an ISP hands out, so that one host cannot rotate through its own addresses. A request that
 * carries `X-Forwarded-For` from a peer `trust proxy` does not trust makes every client that proxy: the logger
 * warns once (`untrusted-proxy`, naming TRUST_PROXY).
 */
export function clientAddress(req: Request, logger?: Pick<LoggerInstance, 'warn'>): string {
  const peer = req.socket?.remoteAddress;
  if (logger && req.headers['x-forwarded-for'] !== undefined && peer !== undefined && (req.ip ?? peer) === peer && !warnedLoggers.has(logger)) {
    warnedLoggers.add(logger);
    logger.warn('untrusted-proxy');
  }
  const address = requestAddress(req);
  if (isIPv6(address)) return networkOf(address, { ipv4Octets: 4, ipv6Groups: 4 });
  return address || 'unknown';
}
