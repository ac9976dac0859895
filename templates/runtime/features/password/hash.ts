/**
 * Password hashing with argon2id (@node-rs/argon2) at OWASP's parameters: m = 19 MiB, t = 2, p = 1. A hash is stored
 * as its PHC string, `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`, with a 16-byte random salt and a 32-byte hash.
 * The library hashes on libuv's thread pool, so hashing never blocks the event loop, and at most one hash per core
 * but one runs at a time, so other requests keep their latency while sign-ins run. Why argon2id and this library: README, "Email and password".
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { type Algorithm, hash as argon2Hash, parseOptions, verify as argon2Verify } from '@node-rs/argon2';

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

/**
 * At most this many hashes run at once, one core left to the event loop (on one core, one hash): a burst of sign-ins
 * waits in a queue instead of crowding out the requests beside it and libuv's other work (file system, DNS).
 */
const MAX_CONCURRENT_HASHES = Math.max(1, availableParallelism() - 1);
let running = 0;
const waiting: (() => void)[] = [];

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

const hash: typeof argon2Hash = (...args) => limited(() => argon2Hash(...args));
const verify: typeof argon2Verify = (...args) => limited(() => argon2Verify(...args));

/** Hashes a password (NFKC-normalised) with a fresh salt: the PHC string to store. */
export function hashPassword(password: string, parameters: Argon2Parameters = PASSWORD_HASH): Promise<string> {
  return hash(password.normalize('NFKC'), { algorithm: ARGON2ID, ...parameters, outputLen: HASH_BYTES, salt: randomBytes(SALT_BYTES) });
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
 * a decoy hash, so that the answer takes as long as for a known user.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<PasswordCheck> {
  const parameters = stored ? storedParameters(stored) : undefined;
  if (!stored || !parameters) {
    decoy ??= hashPassword(randomBytes(32).toString('base64'));
    await verify(await decoy, password.normalize('NFKC'));
    return { valid: false, needsRehash: false };
  }
  const valid = await verify(stored, password.normalize('NFKC'));
  const current = parameters.memoryCost === PASSWORD_HASH.memoryCost && parameters.timeCost === PASSWORD_HASH.timeCost && parameters.parallelism === PASSWORD_HASH.parallelism;
  return { valid, needsRehash: valid && (!current || parameters.outputLen !== HASH_BYTES) };
}
