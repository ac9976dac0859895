/**
 * Session tokens: encrypted JWTs (JWE, `alg: dir`, `enc: A256CBC-HS512`) made and read by jose. The key is derived
 * from the secret with HKDF-SHA256 exactly as Auth.js derives it (salt = the cookie name, info
 * `Auth.js Generated Encryption Key (<salt>)`), and the `kid` header is the key's JWK thumbprint so that the key of
 * a rotated secret is found. A token made by `@auth/core`'s `encode()` decodes here, and the reverse.
 * @see https://www.rfc-editor.org/rfc/rfc7516
 */
import { hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { EncryptJWT, base64url, calculateJwkThumbprint, errors, jwtDecrypt } from 'jose';
import { CLOCK_TOLERANCE, type DerivedKey, checkTimes, decryptOwnShape, keyOf } from './session-decrypt.js';
import type { JWTDecodeParams, JWTEncodeParams } from '../contracts.js';
import type { JWT, User } from '../types.js';

/** Thirty days, in seconds: the default session lifetime. */
export const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60;

/** The claims the default token carries of a user (`sub`, `name`, `email`, `picture`), as a sign-in writes them. */
export function userClaims(user: Pick<User, 'id' | 'name' | 'email' | 'image'>): JWT {
  const claims: JWT = {};
  if (user.name !== undefined) claims.name = user.name;
  if (user.email !== undefined) claims.email = user.email;
  if (user.image !== undefined) claims.picture = user.image;
  // Some Auth.js adapters return numeric ids (SERIAL keys): the JWT subject is always a string.
  if (user.id !== undefined && user.id !== null) claims.sub = String(user.id);
  return claims;
}

const ALGORITHM = 'dir';
const ENCRYPTION = 'A256CBC-HS512';

/** Content encryptions a session token may use (Auth.js also reads A256GCM) and their key sizes in bytes. */
const keyLengths = { 'A256CBC-HS512': 64, A256GCM: 32 } as const;
type Encryption = keyof typeof keyLengths;

function isEncryption(enc: string): enc is Encryption {
  return Object.hasOwn(keyLengths, enc);
}

/** A key being derived: the promise of it, and the key itself once its thumbprint is computed. */
type KeyEntry = { derived: Promise<DerivedKey>; ready: DerivedKey | undefined };

/**
 * HKDF and thumbprints are deterministic and cost more than the decryption itself: derive each key once. By secret,
 * then salt and encryption in `Map`s of the strings the config holds (a string made per call would be hashed per call).
 */
const derivedKeys = new Map<string, Map<string, Map<Encryption, KeyEntry>>>();

function keyEntry(secret: string, salt: string, encryption: Encryption): KeyEntry {
  let bySalt = derivedKeys.get(secret);
  if (!bySalt) derivedKeys.set(secret, (bySalt = new Map()));
  let byEncryption = bySalt.get(salt);
  if (!byEncryption) bySalt.set(salt, (byEncryption = new Map()));
  let entry = byEncryption.get(encryption);
  if (!entry) {
    const key = new Uint8Array(hkdfSync('sha256', secret, salt, `Auth.js Generated Encryption Key (${salt})`, keyLengths[encryption]));
    // Auth.js's kid: the RFC 7638 thumbprint of the key as an `oct` JWK, SHA-512 for the 64-byte key.
    const thumbprint = calculateJwkThumbprint({ kty: 'oct', k: base64url.encode(key) }, key.byteLength === 64 ? 'sha512' : 'sha256');
    const created: KeyEntry = { derived: thumbprint.then((kid) => (created.ready = { key, kid })), ready: undefined };
    byEncryption.set(encryption, (entry = created));
  }
  return entry;
}

export function deriveKey(secret: string, salt: string, encryption: Encryption): Promise<DerivedKey> {
  return keyEntry(secret, salt, encryption).derived;
}

/** Encrypts `token` into a JWE with the newest secret. Adds `iat`, `exp` (now + `maxAge`) and a random `jti`. */
export async function encode<Payload extends Record<string, unknown> = JWT>(params: JWTEncodeParams<Payload>): Promise<string> {
  const { token = {} as Payload, secret, salt, maxAge = DEFAULT_MAX_AGE } = params;
  const newest = Array.isArray(secret) ? secret[0] : secret;
  if (!newest) throw new TypeError('encode() needs a secret');
  if (!Number.isFinite(maxAge)) throw new TypeError('"exp" claim must be a finite number: maxAge must be a finite number of seconds');
  const { key, kid } = await deriveKey(newest, salt, ENCRYPTION);
  const now = Math.floor(Date.now() / 1000);
  return new EncryptJWT(token as Record<string, unknown>)
    .setProtectedHeader({ alg: ALGORITHM, enc: ENCRYPTION, kid })
    .setIssuedAt(now)
    .setExpirationTime(now + maxAge)
    .setJti(randomUUID())
    .encrypt(key);
}

/** A token verified: its text, with which secret and cookie name, and its claims. */
interface VerifiedToken {
  token: string;
  secret: string;
  salt: string;
  /** Tokens without `kid` are only ever read with the newest secret (Auth.js's rule), on a hit too. */
  hadKid: boolean;
  /** The claims as JSON text: a hit parses a copy. */
  claims: string;
  /** The claims parsed once, when every value is a string, number, boolean or null (the default token's): a hit copies them. */
  flat: JWT | undefined;
}

/**
 * Tokens verified recently (from their second verification on, see {@link seenOnce}), oldest first out: the same
 * session cookie comes with every request of a signed-in user, and decrypting it is most of what a protected route
 * costs. Found by {@link fingerprint} (a Map keyed by the token's text hashes all of it on every request, as each
 * request's cookie is a new string), then compared whole: a token differing anywhere else is not this one. A hit is
 * checked again (`rememberedClaims`): a secret rotated out stops working at once.
 */
const verifiedTokens = new Map<number, VerifiedToken>();
const MAX_VERIFIED_TOKENS = 1000;
/** A single cookie's worth; larger (chunked) tokens are decrypted each time rather than held in memory. */
const MAX_REMEMBERED_LENGTH = 4096;

/**
 * Tokens verified once, by {@link fingerprint}. A token is remembered the second time it is verified, so that sessions
 * each seen once (a crowd of users, or a client cycling through many cookies) do not churn the memory of
 * {@link verifiedTokens}; a user's later requests are hits. Two tokens sharing a fingerprint only make one remembered a
 * request early.
 */
const seenOnce = new Set<number>();
const MAX_SEEN_ONCE = 8192;

/** Random per process: which tokens share a fingerprint is not known outside (it only changes which one is remembered). */
const fingerprintSeed = randomBytes(4).readUInt32LE(0);

/** A 30-bit number (a small integer to V8: cheap as a Map key) from the token's last 16 characters, its tag's. */
function fingerprint(token: string): number {
  let print = fingerprintSeed;
  for (let index = Math.max(0, token.length - 16); index < token.length; index++) print = Math.imul(print ^ token.charCodeAt(index), 0x5bd1e995);
  return (print ^ (print >>> 15)) & 0x3fffffff;
}

/** Keeps a token verified for the second time (see {@link seenOnce}) with a copy of its claims, made before anyone changes them. */
function remember(token: string, salt: string, { secret, hadKid, payload, claims }: Pick<VerifiedToken, 'secret' | 'hadKid'> & { payload: JWT; claims?: string }): void {
  if (token.length > MAX_REMEMBERED_LENGTH) return;
  const print = fingerprint(token);
  if (!seenOnce.delete(print)) {
    if (seenOnce.size >= MAX_SEEN_ONCE) seenOnce.clear();
    seenOnce.add(print);
    return;
  }
  if (verifiedTokens.size >= MAX_VERIFIED_TOKENS) {
    const oldest = verifiedTokens.keys().next();
    if (!oldest.done) verifiedTokens.delete(oldest.value);
  }
  // A `__proto__` claim would set the copy's prototype through Object.assign: such claims are parsed on each hit.
  const flat = !Object.hasOwn(payload, '__proto__') && Object.values(payload).every((value) => value === null || typeof value !== 'object');
  verifiedTokens.set(print, { token, secret, salt, hadKid, claims: claims ?? JSON.stringify(payload), flat: flat ? Object.assign({}, payload) : undefined });
}

/**
 * jose's `jwtDecrypt`, with the secret found by `kid` (Auth.js's rule: a token without `kid` gets the newest): the
 * claims, the secret whose key opened the token, and whether the token named that key.
 */
async function decryptWithJose(token: string, secrets: readonly string[], salt: string): Promise<{ payload: JWT; secret: string; hadKid: boolean }> {
  let usedSecret: string | undefined;
  let hadKid = false;
  const { payload } = await jwtDecrypt(
    token,
    async ({ kid, enc }) => {
      hadKid = kid !== undefined;
      if (!isEncryption(enc)) throw new errors.JOSEAlgNotAllowed('"enc" (Encryption Algorithm) Header Parameter value not allowed');
      await Promise.all(secrets.map((candidate) => deriveKey(candidate, salt, enc)));
      const found = keyOf(kid, secrets, (candidate) => keyEntry(candidate, salt, enc).ready);
      if (!found) throw new errors.JWEDecryptionFailed('the session key is not derived');
      usedSecret = found.secret;
      return found.key.key;
    },
    { clockTolerance: CLOCK_TOLERANCE, keyManagementAlgorithms: [ALGORITHM], contentEncryptionAlgorithms: ['A256CBC-HS512', 'A256GCM'] },
  );
  if (usedSecret === undefined) throw new errors.JWEDecryptionFailed('no secret matches the token key id');
  return { payload: payload as JWT, secret: usedSecret, hadKid };
}

/**
 * The claims of `token` when it is remembered (verified before with one of `secrets`, under this cookie name): a copy,
 * at once, with no decryption. Undefined when it is not remembered; throws as `decode` does when it has expired.
 */
function rememberedClaims(token: string, secrets: readonly string[], salt: string): JWT | undefined {
  const print = fingerprint(token);
  const remembered = verifiedTokens.get(print);
  if (!remembered || remembered.token !== token || remembered.salt !== salt || !(remembered.hadKid ? secrets.includes(remembered.secret) : secrets[0] === remembered.secret)) return undefined;
  // Object.assign onto `{}`, not a spread: a spread's copy takes a map of its own, and a claim added to it (the
  // session clock's) builds another on every request: 2 µs against 0.26 µs.
  const payload = remembered.flat ? Object.assign({}, remembered.flat) : (JSON.parse(remembered.claims) as JWT);
  try {
    checkTimes(payload);
  } catch (error) {
    verifiedTokens.delete(print);
    throw error;
  }
  return payload;
}

/**
 * `decode`'s answer when it needs no waiting (a remembered token, or ours once its key is derived), else undefined.
 * Throws as `decode` does.
 */
export function decodeAtOnce(token: string, secrets: readonly string[], salt: string): JWT | undefined {
  const remembered = rememberedClaims(token, secrets, salt);
  if (remembered) return remembered;
  const opened = decryptOwnShape(token, secrets, (secret) => keyEntry(secret, salt, ENCRYPTION).ready);
  if (opened) remember(token, salt, opened);
  return opened?.payload;
}

/**
 * Decrypts a token made by `encode` (or by Auth.js) with whichever secret its `kid` names. Throws on a tampered,
 * expired or foreign token; callers turn that into "no session". Tokens of our own shape are opened with
 * node:crypto once their key is derived (`decodeAtOnce`), every other token with jose.
 */
export async function decode<Payload = JWT>(params: JWTDecodeParams): Promise<Payload | null> {
  const { token, secret, salt } = params;
  if (!token) return null;
  const secrets = Array.isArray(secret) ? secret : [secret];
  const atOnce = decodeAtOnce(token, secrets, salt);
  if (atOnce) return atOnce as Payload;
  // Another shape, or the process's first tokens (their key still being derived): jose.
  const decrypted = await decryptWithJose(token, secrets, salt);
  remember(token, salt, decrypted);
  return decrypted.payload as Payload;
}
