/**
 * Session tokens: encrypted JWTs (JWE, `alg: dir`, `enc: A256CBC-HS512`) made with jose. The key is derived from
 * the secret with HKDF-SHA256 exactly as Auth.js derives it (salt = the cookie name, info
 * `Auth.js Generated Encryption Key (<salt>)`), and the `kid` header is the key's JWK thumbprint so that the key of
 * a rotated secret is found. A token made by `@auth/core`'s `encode()` decodes here, and the reverse.
 * @see https://www.rfc-editor.org/rfc/rfc7516
 */
import { hkdfSync, randomUUID } from 'node:crypto';
import { EncryptJWT, base64url, calculateJwkThumbprint, jwtDecrypt } from 'jose';
import type { JWT } from './types.js';

/** Thirty days, in seconds: the default session lifetime. */
export const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60;

const ALGORITHM = 'dir';
const ENCRYPTION = 'A256CBC-HS512';

/** Parameters of `encode`. */
export interface JWTEncodeParams<Payload = JWT> {
  /** The claims to encrypt. */
  token?: Payload;
  /** Secret (or secrets, newest first: the first one encrypts). */
  secret: string | string[];
  /** The cookie name the token is stored under; part of the key derivation. */
  salt: string;
  /** Lifetime in seconds. @default 2592000 (30 days) */
  maxAge?: number;
}

/** Parameters of `decode`. */
export interface JWTDecodeParams {
  token: string | undefined;
  /** Secret (or secrets: each is tried, found by `kid`). */
  secret: string | string[];
  salt: string;
}

/** The `jwt` config option: lifetime and, for custom formats, your own encode/decode. */
export interface JWTOptions {
  /** @default session.maxAge */
  maxAge: number;
  encode: (params: JWTEncodeParams) => Promise<string>;
  decode: (params: JWTDecodeParams) => Promise<JWT | null>;
}

interface DerivedKey {
  key: Uint8Array;
  kid: string;
}

/** HKDF and thumbprints are deterministic and cost more than the decryption itself: derive each key once. */
const derivedKeys = new Map<string, Map<string, Promise<DerivedKey>>>();

function deriveKey(secret: string, salt: string, encryption: string): Promise<DerivedKey> {
  const cacheKey = `${encryption}:${salt}`;
  let bySalt = derivedKeys.get(secret);
  if (!bySalt) {
    bySalt = new Map();
    derivedKeys.set(secret, bySalt);
  }
  let derived = bySalt.get(cacheKey);
  if (!derived) {
    derived = computeKey(secret, salt, encryption);
    bySalt.set(cacheKey, derived);
  }
  return derived;
}

async function computeKey(secret: string, salt: string, encryption: string): Promise<DerivedKey> {
  const length = encryption === 'A256GCM' ? 32 : 64;
  const key = new Uint8Array(hkdfSync('sha256', secret, salt, `Auth.js Generated Encryption Key (${salt})`, length));
  const kid = await calculateJwkThumbprint({ kty: 'oct', k: base64url.encode(key) }, `sha${key.byteLength << 3}` as 'sha512');
  return { key, kid };
}

/**
 * Encrypts `token` into a JWE with the newest secret. Adds `iat`, `exp` (now + `maxAge`) and a random `jti`.
 */
export async function encode<Payload extends Record<string, unknown> = JWT>(params: JWTEncodeParams<Payload>): Promise<string> {
  const { token = {} as Payload, secret, salt, maxAge = DEFAULT_MAX_AGE } = params;
  const newest = Array.isArray(secret) ? secret[0] : secret;
  if (!newest) throw new TypeError('encode() needs a secret');
  const { key, kid } = await deriveKey(newest, salt, ENCRYPTION);
  const now = Math.floor(Date.now() / 1000);
  return new EncryptJWT(token as Record<string, unknown>)
    .setProtectedHeader({ alg: ALGORITHM, enc: ENCRYPTION, kid })
    .setIssuedAt(now)
    .setExpirationTime(now + maxAge)
    .setJti(randomUUID())
    .encrypt(key);
}

/**
 * Decrypts a token made by `encode` (or by Auth.js) with whichever secret its `kid` names. Throws on a tampered,
 * expired or foreign token; callers turn that into "no session".
 */
export async function decode<Payload = JWT>(params: JWTDecodeParams): Promise<Payload | null> {
  const { token, secret, salt } = params;
  if (!token) return null;
  const secrets = Array.isArray(secret) ? secret : [secret];
  const { payload } = await jwtDecrypt(
    token,
    async ({ kid, enc }) => {
      for (const candidate of secrets) {
        const derived = await deriveKey(candidate, salt, enc);
        if (kid === undefined || kid === derived.kid) return derived.key;
      }
      throw new Error('no secret matches the token key id');
    },
    { clockTolerance: 15, keyManagementAlgorithms: [ALGORITHM], contentEncryptionAlgorithms: [ENCRYPTION, 'A256GCM'] },
  );
  return payload as Payload;
}
