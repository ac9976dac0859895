/**
 * Session tokens: encrypted JWTs (JWE, `alg: dir`, `enc: A256CBC-HS512`) made with jose. The key is derived from
 * the secret with HKDF-SHA256 exactly as Auth.js derives it (salt = the cookie name, info
 * `Auth.js Generated Encryption Key (<salt>)`), and the `kid` header is the key's JWK thumbprint so that the key of
 * a rotated secret is found. A token made by `@auth/core`'s `encode()` decodes here, and the reverse. Decoding, which
 * runs on every request with a session, uses node:crypto directly and remembers recently verified tokens.
 * @see https://www.rfc-editor.org/rfc/rfc7516
 */
import { createDecipheriv, createHash, createHmac, hkdfSync, randomUUID, timingSafeEqual } from 'node:crypto';
import { EncryptJWT, errors } from 'jose';
import type { JWT } from './types.js';

/** Thirty days, in seconds: the default session lifetime. */
export const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60;

const ALGORITHM = 'dir';
const ENCRYPTION = 'A256CBC-HS512' satisfies Encryption;

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
const derivedKeys = new Map<string, Map<string, DerivedKey>>();

function deriveKey(secret: string, salt: string, encryption: Encryption): DerivedKey {
  let bySalt = derivedKeys.get(secret);
  if (!bySalt) {
    bySalt = new Map();
    derivedKeys.set(secret, bySalt);
  }
  const cacheKey = `${encryption}:${salt}`;
  let derived = bySalt.get(cacheKey);
  if (!derived) {
    const key = new Uint8Array(hkdfSync('sha256', secret, salt, `Auth.js Generated Encryption Key (${salt})`, contentEncryptions[encryption].keyLength));
    // The RFC 7638 thumbprint of the key as an `oct` JWK, hashed with SHA-512 (64-byte key) or SHA-256 (32-byte), as
    // Auth.js computes it with jose's calculateJwkThumbprint.
    const members = `{"k":"${Buffer.from(key).toString('base64url')}","kty":"oct"}`;
    const kid = createHash(key.byteLength === 64 ? 'sha512' : 'sha256').update(members).digest('base64url');
    derived = { key, kid };
    bySalt.set(cacheKey, derived);
  }
  return derived;
}

/**
 * Encrypts `token` into a JWE with the newest secret. Adds `iat`, `exp` (now + `maxAge`) and a random `jti`.
 */
export async function encode<Payload extends Record<string, unknown> = JWT>(params: JWTEncodeParams<Payload>): Promise<string> {
  const { token = {} as Payload, secret, salt, maxAge = DEFAULT_MAX_AGE } = params;
  const newest = Array.isArray(secret) ? secret[0] : secret;
  if (!newest) throw new TypeError('encode() needs a secret');
  const { key, kid } = deriveKey(newest, salt, ENCRYPTION);
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
  const remembered = verifiedTokens.get(token);
  if (remembered && selectKey(secrets, salt, remembered.enc, remembered.kid) === remembered.key) {
    const payload = JSON.parse(remembered.claims) as JWT;
    try {
      checkTimes(payload);
    } catch (error) {
      verifiedTokens.delete(token);
      throw error;
    }
    return payload as Payload;
  }
  const { payload, ...verified } = decryptToken(token, secrets, salt);
  remember(token, verified);
  return payload as Payload;
}

/** The content encryptions a session token may use, with their key, IV and tag sizes in bytes. */
const contentEncryptions = {
  'A256CBC-HS512': { keyLength: 64, ivLength: 16, tagLength: 32 },
  A256GCM: { keyLength: 32, ivLength: 12, tagLength: 16 },
} as const;

type Encryption = keyof typeof contentEncryptions;

/** A token whose tag checked out, and what it decrypted to. */
interface VerifiedToken {
  /** The key that verified it. */
  key: DerivedKey;
  enc: Encryption;
  kid: string | undefined;
  /** The claims as JSON text: every hit parses its own copy, so that a caller changing its token changes no other. */
  claims: string;
}

/**
 * Tokens recently verified, by their exact text. The same session cookie comes with every request of a signed-in
 * user, and decrypting it is most of what a protected route costs. A hit still requires that the secrets passed now
 * select the key that verified the token (so a secret rotated out stops working at once), and still checks `exp`
 * and `nbf`; the `jwt` and `session` callbacks run on every request as before. At most
 * {@link MAX_VERIFIED_TOKENS} tokens of at most {@link MAX_REMEMBERED_LENGTH} characters are kept, the oldest
 * forgotten first.
 */
const verifiedTokens = new Map<string, VerifiedToken>();
const MAX_VERIFIED_TOKENS = 1000;
/** A single cookie's worth; larger (chunked) tokens are decrypted each time rather than held in memory. */
const MAX_REMEMBERED_LENGTH = 4096;

function remember(token: string, verified: VerifiedToken): void {
  if (token.length > MAX_REMEMBERED_LENGTH) return;
  if (verifiedTokens.size >= MAX_VERIFIED_TOKENS) {
    const oldest = verifiedTokens.keys().next();
    if (!oldest.done) verifiedTokens.delete(oldest.value);
  }
  verifiedTokens.set(token, verified);
}

/** The key a token with this `kid` is decrypted with: the secret whose key it names, or the newest without one. */
function selectKey(secrets: readonly string[], salt: string, enc: Encryption, kid: string | undefined): DerivedKey | undefined {
  for (const secret of secrets) {
    const derived = deriveKey(secret, salt, enc);
    // Auth.js's rule: a token without `kid` is tried with the newest secret only.
    if (kid === undefined || kid === derived.kid) return derived;
  }
  return undefined;
}

/** Seconds of leeway for `exp` and `nbf`, as Auth.js allows. */
const CLOCK_TOLERANCE = 15;

const base64urlPattern = /^[A-Za-z0-9_-]*$/;

function base64urlSegment(segment: string, what: string): Buffer {
  if (!base64urlPattern.test(segment)) throw new errors.JWEInvalid(`The JWE ${what} is not base64url`);
  return Buffer.from(segment, 'base64url');
}

/**
 * Compact JWE decryption for `alg: dir` (RFC 7516 §5.2, RFC 7518 §5.2 and §5.3) with node:crypto. jose's
 * jwtDecrypt does the same through WebCrypto, whose four asynchronous calls per token (two key imports, HMAC,
 * AES) cost about forty times more CPU than these synchronous ones; this runs on every request of a protected route.
 * The tag is checked, in constant time, before anything is decrypted. Errors are jose's own classes.
 */
function decryptToken(token: string, secrets: readonly string[], salt: string): VerifiedToken & { payload: JWT } {
  const parts = token.split('.');
  if (parts.length !== 5) throw new errors.JWEInvalid('Invalid Compact JWE');
  const [encodedHeader, encryptedKey, encodedIv, encodedCiphertext, encodedTag] = parts as [string, string, string, string, string];
  let header: unknown;
  try {
    header = JSON.parse(base64urlSegment(encodedHeader, 'Protected Header').toString('utf8'));
  } catch (error) {
    if (error instanceof errors.JOSEError) throw error;
    throw new errors.JWEInvalid('JWE Protected Header is invalid');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new errors.JWEInvalid('JWE Protected Header is invalid');
  const { alg, enc, kid, crit, zip } = header as Record<string, unknown>;
  if (alg !== ALGORITHM) throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
  if (enc !== 'A256CBC-HS512' && enc !== 'A256GCM') throw new errors.JOSEAlgNotAllowed('"enc" (Encryption Algorithm) Header Parameter value not allowed');
  if (kid !== undefined && typeof kid !== 'string') throw new errors.JWEInvalid('"kid" (Key ID) Header Parameter must be a string');
  // No extension is understood, so none may be critical (RFC 7516 §4.1.13); compressed tokens are not made by Auth.js.
  if (crit !== undefined) throw new errors.JWEInvalid('"crit" (Critical) Header Parameter is not supported');
  if (zip !== undefined) throw new errors.JOSENotSupported('JWE "zip" (Compression Algorithm) Header Parameter is not supported');
  if (encryptedKey !== '') throw new errors.JWEInvalid('Encountered unexpected JWE Encrypted Key');
  const sizes = contentEncryptions[enc];
  const iv = base64urlSegment(encodedIv, 'Initialization Vector');
  const ciphertext = base64urlSegment(encodedCiphertext, 'Ciphertext');
  const tag = base64urlSegment(encodedTag, 'Authentication Tag');
  if (iv.length !== sizes.ivLength || tag.length !== sizes.tagLength) throw new errors.JWEDecryptionFailed();

  const derived = selectKey(secrets, salt, enc, kid);
  if (!derived) throw new errors.JWEDecryptionFailed('no secret matches the token key id');
  const { key } = derived;
  const aad = Buffer.from(encodedHeader, 'ascii');
  let plaintext: Buffer;
  if (enc === 'A256CBC-HS512') {
    if (ciphertext.length === 0 || ciphertext.length % 16 !== 0) throw new errors.JWEDecryptionFailed();
    // The MAC covers AAD, IV, ciphertext and the AAD's length in bits as a 64-bit big-endian number (§5.2.2.1).
    const aadBits = Buffer.alloc(8);
    aadBits.writeBigUInt64BE(BigInt(aad.length) << 3n);
    const mac = createHmac('sha512', key.subarray(0, 32)).update(aad).update(iv).update(ciphertext).update(aadBits).digest();
    if (!timingSafeEqual(mac.subarray(0, 32), tag)) throw new errors.JWEDecryptionFailed();
    try {
      const decipher = createDecipheriv('aes-256-cbc', key.subarray(32), iv);
      plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch {
      throw new errors.JWEDecryptionFailed();
    }
  } else {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
      decipher.setAAD(aad);
      decipher.setAuthTag(tag);
      plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch {
      throw new errors.JWEDecryptionFailed();
    }
  }
  const claims = plaintext.toString('utf8');
  const payload = parseClaims(header as Record<string, unknown>, claims);
  checkTimes(payload);
  return { payload, key: derived, enc, kid, claims };
}

/** The checks of jose's jwtDecrypt on the claims: a JSON object, numeric dates, replicated header claims equal. */
function parseClaims(header: Record<string, unknown>, text: string): JWT {
  let claims: unknown;
  try {
    claims = JSON.parse(text);
  } catch {
    throw new errors.JWTInvalid('JWT Claims Set must be a top-level JSON object');
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) throw new errors.JWTInvalid('JWT Claims Set must be a top-level JSON object');
  const payload = claims as Record<string, unknown>;
  for (const claim of ['iat', 'nbf', 'exp']) {
    if (payload[claim] !== undefined && typeof payload[claim] !== 'number') {
      throw new errors.JWTClaimValidationFailed(`"${claim}" claim must be a number`, payload, claim, 'invalid');
    }
  }
  // RFC 7519 §5.3: claims replicated as header parameters must match.
  for (const claim of ['iss', 'sub', 'aud']) {
    if (header[claim] !== undefined && JSON.stringify(header[claim]) !== JSON.stringify(payload[claim])) {
      throw new errors.JWTClaimValidationFailed(`replicated "${claim}" claim header parameter mismatch`, payload, claim, 'mismatch');
    }
  }
  return payload as JWT;
}

/** `nbf` and `exp` against the clock, with {@link CLOCK_TOLERANCE}: checked at every decode, remembered or not. */
function checkTimes(payload: JWT): void {
  const now = Math.floor(Date.now() / 1000);
  const { nbf, exp } = payload as { nbf?: number; exp?: number };
  if (nbf !== undefined && nbf > now + CLOCK_TOLERANCE) {
    throw new errors.JWTClaimValidationFailed('"nbf" claim timestamp check failed', payload, 'nbf', 'check_failed');
  }
  if (exp !== undefined && exp <= now - CLOCK_TOLERANCE) {
    throw new errors.JWTExpired('"exp" claim timestamp check failed', payload, 'exp', 'check_failed');
  }
}
