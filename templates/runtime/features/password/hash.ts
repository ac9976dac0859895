/**
 * Password hashing with scrypt (node:crypto), at an OWASP parameter set (`PASSWORD_HASH`). A hash is stored as a PHC string, `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>` (salt
 * and hash in unpadded base64, a 16-byte salt and a 32-byte hash). node:crypto's `scrypt` runs on libuv's thread
 * pool, so hashing never blocks the event loop: other requests keep their latency while hashes run.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt's cost: `ln` is log2 of N (CPU and memory), `r` the block size, `p` the parallelism. */
export interface ScryptParameters {
  ln: number;
  r: number;
  p: number;
}

/**
 * The parameters new hashes use: an OWASP Password Storage Cheat Sheet set (N = 2^14, r = 8, p = 5), 16 MiB per
 * hash. A stored hash with other parameters is replaced at the user's next sign-in.
 */
export const PASSWORD_HASH: Readonly<ScryptParameters> = { ln: 14, r: 8, p: 5 };

const SALT_BYTES = 16;
const HASH_BYTES = 32;

function derive(password: string, salt: Buffer, parameters: ScryptParameters): Promise<Buffer> {
  const N = 2 ** parameters.ln;
  return new Promise((resolve, reject) => {
    // maxmem: scrypt needs about 128 · N · r bytes; Node's default (32 MiB) would refuse the larger OWASP sets.
    scrypt(password.normalize('NFKC'), salt, HASH_BYTES, { N, r: parameters.r, p: parameters.p, maxmem: 256 * N * parameters.r }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

const base64 = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '');

/** Hashes a password (NFKC-normalised) with a fresh salt: the PHC string to store. */
export async function hashPassword(password: string, parameters: ScryptParameters = PASSWORD_HASH): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, parameters);
  return `$scrypt$ln=${parameters.ln},r=${parameters.r},p=${parameters.p}$${base64(salt)}$${base64(key)}`;
}

/** A stored PHC string, read; undefined when it is not a scrypt hash this file could have written. */
function parseHash(stored: string): { parameters: ScryptParameters; salt: Buffer; key: Buffer } | undefined {
  const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{16,})$/.exec(stored);
  if (!match) return undefined;
  const parameters = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  // Bounds that keep a tampered row from asking for gigabytes of memory.
  if (parameters.ln < 10 || parameters.ln > 20 || parameters.r < 1 || parameters.r > 32 || parameters.p < 1 || parameters.p > 16) return undefined;
  return { parameters, salt: Buffer.from(match[4]!, 'base64'), key: Buffer.from(match[5]!, 'base64') };
}

/** What checking a password against a stored hash found. */
export interface PasswordCheck {
  valid: boolean;
  /** The hash was made with other parameters than `PASSWORD_HASH`: store a new one (valid passwords only). */
  needsRehash: boolean;
}

/**
 * Checks a password against a stored PHC string, in constant time. An unreadable hash never matches. Pass
 * `undefined` for a user who has no password (or an unknown address): the password is then checked against a hash
 * of nothing, so that the answer takes as long as for a known user.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<PasswordCheck> {
  const parsed = stored ? parseHash(stored) : undefined;
  if (!parsed) {
    await derive(password, decoySalt, PASSWORD_HASH);
    return { valid: false, needsRehash: false };
  }
  const key = await derive(password, parsed.salt, parsed.parameters);
  const valid = key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
  const current = parsed.parameters;
  return { valid, needsRehash: valid && (current.ln !== PASSWORD_HASH.ln || current.r !== PASSWORD_HASH.r || current.p !== PASSWORD_HASH.p) };
}

/** The salt of the work done for a missing hash; its result is thrown away. */
const decoySalt = randomBytes(SALT_BYTES);
