/**
 * Opening our own session cookie with node:crypto: one HMAC-SHA-512 and one AES-256 call, where jose's `jwtDecrypt`
 * makes four WebCrypto calls (two key imports, a verify and a decrypt), most of the cost of a request that brings a
 * session the process has not seen yet. Only the exact shape `encode` (and Auth.js) writes is opened here: five
 * base64url parts, an empty encrypted key, and a protected header of exactly `alg: "dir"`, `enc: "A256CBC-HS512"` and
 * an optional string `kid`; jose decides every other token, and encrypts.
 * test/runtime/session-decrypt-differential.test.ts holds both paths to the same accept/reject and the same claims over
 * many thousands of valid, expired, truncated, bit-flipped, re-headered, badly padded and foreign tokens.
 * @see https://www.rfc-editor.org/rfc/rfc7518#section-5.2 (AES_CBC_HMAC_SHA2)
 */
import { type Decipher, createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { errors } from 'jose';
import type { JWT } from '../types.js';

/** A session key derived from a secret (jwt.ts's `deriveKey`), and its JWK thumbprint. */
export interface DerivedKey {
  key: Uint8Array;
  kid: string;
  /** Its MAC half, and its AES half as one CBC decipher: made at the key's first token (openingOf). */
  opening?: { macKey: Uint8Array; blocks: Decipher };
}

/** AES's block size in bytes: the IV's length, and what a CBC ciphertext is a multiple of. */
const BLOCK = 16;

/**
 * One AES-256-CBC decipher (no padding) per key for the life of the process, fed whole blocks only (decryptCbc): one
 * made per token costs an OpenSSL cipher fetch, a key schedule and a native object the garbage collector finalises,
 * about 14 k instructions, more than the decryption itself.
 */
function openingOf(derived: DerivedKey): NonNullable<DerivedKey['opening']> {
  if (derived.opening) return derived.opening;
  const blocks = createDecipheriv('aes-256-cbc', derived.key.subarray(32, 64), Buffer.alloc(BLOCK));
  blocks.setAutoPadding(false);
  return (derived.opening = { macKey: derived.key.subarray(0, 32), blocks });
}

/**
 * CBC decryption and PKCS #7 padding (RFC 5652 §6.3) by a key's one decipher, which XORs each block with the ciphertext
 * block before it, carried over from its last call: the IV goes first as a block and its output is dropped. Padding is
 * refused as OpenSSL refuses it; only proven ciphertexts get here (no oracle). Undefined for a bad length or padding.
 */
function decryptCbc(blocks: Decipher, ivAndCiphertext: Buffer): Buffer | undefined {
  const length = ivAndCiphertext.length;
  if (length === BLOCK || length % BLOCK !== 0) return undefined;
  const decrypted = blocks.update(ivAndCiphertext);
  if (decrypted.length !== length) return undefined;
  const padding = decrypted[length - 1]!;
  if (padding < 1 || padding > BLOCK) return undefined;
  for (let index = length - padding; index < length - 1; index++) if (decrypted[index] !== padding) return undefined;
  return decrypted.subarray(BLOCK, length - padding);
}

/** Seconds of leeway for `exp` and `nbf`, as Auth.js allows. */
export const CLOCK_TOLERANCE = 15;

const base64urlPart = /^[A-Za-z0-9_-]*$/;

/** A part jose's decoder reads the same way as Buffer's: the base64url alphabet only, and a length that is not 4n+1. */
function isPlainPart(part: string): boolean {
  return base64urlPart.test(part) && part.length % 4 !== 1;
}

/** Our protected header, read once per distinct header text: its `kid`, and the AAD the MAC covers (RFC 7516 §5.2). */
interface OwnHeader {
  kid: string | undefined;
  aad: Buffer;
  /** The AAD's length in bits, as the 64-bit big-endian number AES_CBC_HMAC_SHA2 appends. */
  aadBits: Buffer;
}

/**
 * Headers of our shape already read, with their encoded text. Every token made with one key has the same header, so a
 * request with a session the process has not seen yet skips its base64 and JSON. A list compared by text, not a Map:
 * a Map hashes each request's header string anew. At most {@link MAX_OWN_HEADERS} (a few per secret); past that a
 * header is read each time, so made-up headers cannot grow it.
 */
const ownHeaders: (OwnHeader & { encoded: string })[] = [];
const MAX_OWN_HEADERS = 32;

/** The protected header when it is exactly our shape, else undefined. */
function ownHeader(encoded: string): OwnHeader | undefined {
  for (const known of ownHeaders) if (known.encoded === encoded) return known;
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return undefined;
  const { alg, enc, kid, ...rest } = header as Record<string, unknown>;
  if (alg !== 'dir' || enc !== 'A256CBC-HS512' || Object.keys(rest).length > 0) return undefined;
  if (kid !== undefined && typeof kid !== 'string') return undefined;
  const aad = Buffer.from(encoded, 'ascii');
  const aadBits = Buffer.alloc(8);
  aadBits.writeBigUInt64BE(BigInt(aad.length * 8));
  const own = { kid, aad, aadBits, encoded };
  if (ownHeaders.length < MAX_OWN_HEADERS) ownHeaders.push(own);
  return own;
}

/** jose's decoding of the plaintext: UTF-8 with replacement characters, a leading BOM dropped. One decoder serves every call. */
const utf8 = new TextDecoder();

/** jose's checks of a JWT claims set, with its messages: a JSON object; `iat`, `nbf`, `exp` numbers; times with leeway. */
function checkClaims(text: string): JWT {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new errors.JWTInvalid('JWT Claims Set must be a top-level JSON object');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new errors.JWTInvalid('JWT Claims Set must be a top-level JSON object');
  const claims = payload as Record<string, unknown>;
  if (claims['iat'] !== undefined && typeof claims['iat'] !== 'number') throw new errors.JWTClaimValidationFailed('"iat" claim must be a number', claims, 'iat', 'invalid');
  checkTimes(claims);
  return claims as JWT;
}

/** jose's checks of `nbf` and `exp`, with its messages: numbers, and the clock with leeway (jwt.ts's remembered tokens too). */
export function checkTimes(claims: Record<string, unknown>): void {
  const now = Math.floor(Date.now() / 1000);
  if (claims['nbf'] !== undefined) {
    if (typeof claims['nbf'] !== 'number') throw new errors.JWTClaimValidationFailed('"nbf" claim must be a number', claims, 'nbf', 'invalid');
    if (claims['nbf'] > now + CLOCK_TOLERANCE) throw new errors.JWTClaimValidationFailed('"nbf" claim timestamp check failed', claims, 'nbf', 'check_failed');
  }
  if (claims['exp'] !== undefined) {
    if (typeof claims['exp'] !== 'number') throw new errors.JWTClaimValidationFailed('"exp" claim must be a number', claims, 'exp', 'invalid');
    if (claims['exp'] <= now - CLOCK_TOLERANCE) throw new errors.JWTExpired('"exp" claim timestamp check failed', claims, 'exp', 'check_failed');
  }
}

/**
 * The key of the secret that `kid` names, and that secret; a token without `kid` gets the newest only (Auth.js's rule).
 * Undefined when a key it needs is still being derived (`derived` gives undefined); throws when no secret matches.
 */
export function keyOf(kid: string | undefined, secrets: readonly string[], derived: (secret: string) => DerivedKey | undefined): { key: DerivedKey; secret: string } | undefined {
  for (const secret of kid === undefined ? secrets.slice(0, 1) : secrets) {
    const key = derived(secret);
    if (!key) return undefined;
    if (kid === undefined || kid === key.kid) return { key, secret };
  }
  throw new errors.JWEDecryptionFailed('no secret matches the token key id');
}

/**
 * Opens a token of our own shape with the secret its `kid` names (`keyOf`): its claims, their JSON text as decrypted,
 * and which secret opened it. Undefined for any other shape, and while a key it needs is still being derived. Throws
 * jose's errors for ours tampered with, made with another key, expired or not yet valid.
 */
export function decryptOwnShape(
  token: string,
  secrets: readonly string[],
  derived: (secret: string) => DerivedKey | undefined,
): { payload: JWT; claims: string; secret: string; hadKid: boolean } | undefined {
  const parts = token.split('.');
  if (parts.length !== 5 || parts[1] !== '' || !parts.every(isPlainPart)) return undefined;
  const [protectedHeader = '', , ivPart = '', ciphertextPart = '', tagPart = ''] = parts;
  const header = ownHeader(protectedHeader);
  if (!header) return undefined;
  const found = keyOf(header.kid, secrets, derived);
  if (!found) return undefined;

  // A part's length gives its bytes (isPlainPart). The IV and the ciphertext in one buffer, as the MAC and decryptCbc read them.
  if ((ivPart.length * 3) >>> 2 !== BLOCK) throw new errors.JWEInvalid('Invalid Initialization Vector length');
  const ivAndCiphertext = Buffer.allocUnsafe(BLOCK + ((ciphertextPart.length * 3) >>> 2));
  if (ivAndCiphertext.write(ivPart, 0, 'base64url') + ivAndCiphertext.write(ciphertextPart, BLOCK, 'base64url') !== ivAndCiphertext.length) return undefined;
  const tag = Buffer.from(tagPart, 'base64url');
  const { aad, aadBits } = header;
  const { macKey, blocks } = openingOf(found.key);
  const expected = createHmac('sha512', macKey).update(aad).update(ivAndCiphertext).update(aadBits).digest().subarray(0, 32);
  if (tag.length !== expected.length || !timingSafeEqual(tag, expected)) throw new errors.JWEDecryptionFailed();
  const plaintext = decryptCbc(blocks, ivAndCiphertext);
  if (!plaintext) throw new errors.JWEDecryptionFailed();
  const claims = utf8.decode(plaintext);
  return { payload: checkClaims(claims), claims, secret: found.secret, hadKid: header.kid !== undefined };
}
