/**
 * Password hashing with argon2id (@node-rs/argon2) at OWASP's parameters: m = 19 MiB, t = 2, p = 1. A hash is stored
 * as its PHC string, `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`, with a 16-byte random salt and a 32-byte hash.
 * The library hashes on libuv's thread pool, so hashing never blocks the event loop, and at most one hash per core
 * but one runs at a time, so other requests keep their latency while sign-ins run. Why argon2id and this library: README, "Email and password".
 * The hashes waiting for a lane are few (`HASH_QUEUE_LIMIT`), and a hash whose client hung up is not made.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { availableParallelism } from 'node:os';
import { type Algorithm, hash as argon2Hash, parseOptions, verify as argon2Verify } from '@node-rs/argon2';
import { type ErrorResponse, type ErrorType, AuthError, clientSafe } from '../../errors.js';

/** argon2id's cost: memory in KiB, passes, lanes. */
export interface Argon2Parameters {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** The parameters new hashes use (OWASP Password Storage Cheat Sheet). A stored hash with others is replaced at the next sign-in. */
export const PASSWORD_HASH: Readonly<Argon2Parameters> = { memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 };

/** `Algorithm.Argon2id` (the library's enum is `const`, which isolated modules cannot read). */
const ARGON2ID = 2 as Algorithm;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

declare module '../../errors.js' {
  interface FeatureErrorTypes {
    HashQueueFull: true;
    RequestClosed: true;
  }
}

/** Seconds a client refused with `HashQueueFull` is asked to wait: a full queue drains in about two seconds. */
export const HASH_QUEUE_RETRY_AFTER = 3;

/**
 * Too many password hashes are waiting (`HASH_QUEUE_LIMIT`): answered 503 with `Retry-After` at once, so that a burst
 * of sign-ins cannot make every sign-in behind it wait for the whole burst. Of a burst of refusals, only the first is
 * logged as an error; the rest would flood the log.
 */
export class HashQueueFull extends AuthError {
  static type: ErrorType = 'HashQueueFull';
  static override response: ErrorResponse = clientSafe('HashQueueFull', 503, 'inline', 'The server is busy. Please try again in a few seconds.', 'Server busy');

  constructor(details: { firstRefusal: boolean }) {
    super('The server is busy. Please try again in a few seconds.');
    this.headers = { 'Retry-After': String(HASH_QUEUE_RETRY_AFTER) };
    this.quiet = !details.firstRefusal;
  }
}

/**
 * The client hung up while its password hash waited its turn: the hash is not made. Nobody reads the answer, and it
 * is logged at debug level only. The status is nginx's "client closed request", for access logs.
 */
export class RequestClosed extends AuthError {
  static type: ErrorType = 'RequestClosed';
  static override response: ErrorResponse = { status: 499, page: 'inline', shownAs: 'RequestClosed' };
  override quiet = true;
}

/** The request a hash is made for: when its client hangs up while the hash waits for a lane, the hash is dropped. */
export interface HashQueueOptions {
  /** The request being answered (Express's `req`). */
  request?: IncomingMessage | undefined;
}

/**
 * At most this many hashes run at once, one core left to the event loop (on one core, one hash): a burst of sign-ins
 * waits in a queue instead of crowding out the requests beside it and libuv's other work (file system, DNS).
 */
const MAX_CONCURRENT_HASHES = Math.max(1, availableParallelism() - 1);

/**
 * At most this many hashes wait for a lane: about two seconds of work, 128 per lane (one hash at `PASSWORD_HASH`
 * took 15-17 ms on a 2-core development machine). Beyond it a hash is refused at once with `HashQueueFull` (security
 * review 4, F5: 5,000 queued sign-ins made a real one wait 34-46 s). Hashing is already capped globally by the lanes;
 * the limit caps how long anyone waits for one.
 */
export const HASH_QUEUE_LIMIT = 128 * MAX_CONCURRENT_HASHES;

/** A hash waiting for a lane: started when it gets one, or dropped when its client hung up. */
interface Waiting {
  request: IncomingMessage | undefined;
  start(): void;
  drop(): void;
}

let running = 0;
const waiting: Waiting[] = [];
/** A refusal was logged and the queue has not run empty since: the burst's later refusals are quiet. */
let refusing = false;

/**
 * The client hung up. `request.destroyed` tells nothing here: Node destroys a request once its body has been read,
 * while its socket stays open for the answer.
 */
function hungUp(request: IncomingMessage | undefined): boolean {
  return request?.socket?.destroyed === true;
}

/** Gives the lane just freed to the first waiting hash whose client is still there; the others are dropped. */
function passLane(): void {
  for (let next = waiting.shift(); next; next = waiting.shift()) {
    if (!hungUp(next.request)) return next.start();
    next.drop();
  }
  running -= 1;
  refusing = false;
}

/** Drops every waiting hash whose client hung up (when the queue is full, before refusing anyone). */
function dropHungUp(): void {
  for (let index = waiting.length - 1; index >= 0; index -= 1) {
    if (hungUp(waiting[index]!.request)) waiting.splice(index, 1)[0]!.drop();
  }
}

async function limited<T>(work: () => Promise<T>, request: IncomingMessage | undefined): Promise<T> {
  if (hungUp(request)) throw new RequestClosed('The client closed the request before its password hash');
  if (running < MAX_CONCURRENT_HASHES) {
    running += 1;
  } else {
    if (waiting.length >= HASH_QUEUE_LIMIT) dropHungUp();
    if (waiting.length >= HASH_QUEUE_LIMIT) {
      const firstRefusal = !refusing;
      refusing = true;
      throw new HashQueueFull({ firstRefusal });
    }
    await new Promise<void>((resolve, reject) => {
      waiting.push({ request, start: resolve, drop: () => reject(new RequestClosed('The client closed the request while its password hash waited')) });
    });
  }
  try {
    return await work();
  } finally {
    passLane();
  }
}

const hash = (password: string, options: Parameters<typeof argon2Hash>[1], request: IncomingMessage | undefined): Promise<string> => limited(() => argon2Hash(password, options), request);
const verify = (stored: string, password: string, request: IncomingMessage | undefined): Promise<boolean> => limited(() => argon2Verify(stored, password), request);

/**
 * Hashes a password (NFKC-normalised) with a fresh salt: the PHC string to store. Rejects with `HashQueueFull` when
 * too many hashes wait, and with `RequestClosed` when `options.request`'s client hung up before the hash's turn.
 * @example
 * const hash = await hashPassword(password, undefined, { request: context.req });
 */
export function hashPassword(password: string, parameters: Argon2Parameters = PASSWORD_HASH, options: HashQueueOptions = {}): Promise<string> {
  return hash(password.normalize('NFKC'), { algorithm: ARGON2ID, ...parameters, outputLen: HASH_BYTES, salt: randomBytes(SALT_BYTES) }, options.request);
}

/** What checking a password against a stored hash found. */
export interface PasswordCheck {
  valid: boolean;
  /** The hash was made with other parameters than `PASSWORD_HASH`: store a new one (valid passwords only). */
  needsRehash: boolean;
}

/** The parameters of a stored argon2id hash, or undefined when it is not one. */
function storedParameters(stored: string): (Argon2Parameters & { outputLen: number }) | undefined {
  if (!stored.startsWith('$argon2id$')) return undefined;
  try {
    return parseOptions(stored);
  } catch {
    return undefined;
  }
}

/** A hash of nothing anyone knows, checked against when there is no stored hash, so that the answer takes as long. */
let decoy: Promise<string> | undefined;

/**
 * Checks a password against a stored PHC string (the library compares in constant time). An unreadable hash never
 * matches. Pass `null` for a user who has no password (or an unknown address): the password is then checked against
 * a decoy hash, so that the answer takes as long as for a known user. Rejects as `hashPassword` does.
 * @example
 * const check = await verifyPassword(password, stored, { request: context.req });
 */
export async function verifyPassword(password: string, stored: string | null | undefined, options: HashQueueOptions = {}): Promise<PasswordCheck> {
  const parameters = stored ? storedParameters(stored) : undefined;
  if (!stored || !parameters) {
    // The decoy belongs to no request (one client hanging up must not drop it for all), and a refused one (a full
    // queue) is forgotten, to be made again by a later check.
    decoy ??= hashPassword(randomBytes(32).toString('base64')).catch((error: unknown) => {
      decoy = undefined;
      throw error;
    });
    await verify(await decoy, password.normalize('NFKC'), options.request);
    return { valid: false, needsRehash: false };
  }
  const valid = await verify(stored, password.normalize('NFKC'), options.request);
  const current = parameters.memoryCost === PASSWORD_HASH.memoryCost && parameters.timeCost === PASSWORD_HASH.timeCost && parameters.parallelism === PASSWORD_HASH.parallelism;
  return { valid, needsRehash: valid && (!current || parameters.outputLen !== HASH_BYTES) };
}
