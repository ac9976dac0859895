/**
 * What two-factor keeps secret at rest: the TOTP secret, encrypted with jose (JWE, `dir` + `A256GCM`) under a key
 * derived from `AUTH_SECRET` with HKDF (any of the rotated secrets decrypts; the newest encrypts), and the recovery
 * codes (each about 50 random bits, used once), stored as HMAC-SHA-256 under another key derived from `AUTH_SECRET`:
 * a copy of the database alone cannot test guesses against them. Codes stored before, as plain SHA-256 digests,
 * are still recognised (`recoveryCodeHashes`).
 */
import { createHash, createHmac, hkdfSync, randomInt } from 'node:crypto';
import { CompactEncrypt, compactDecrypt } from 'jose';

const INFO = 'framework-auth two-factor secret v1';
/** The HKDF info of the recovery codes' key: a key of its own, apart from the TOTP secret's. */
const RECOVERY_CODE_INFO = 'framework-auth recovery code v1';

function keyOf(secret: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, '', INFO, 32));
}

/** Encrypts a TOTP secret (base32) with the newest `AUTH_SECRET`. */
export function sealTotpSecret(totpSecret: string, secrets: readonly string[]): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(totpSecret)).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(keyOf(secrets[0]!));
}

/** Decrypts a stored TOTP secret with any of `secrets`; undefined when none opens it. */
export async function openTotpSecret(sealed: string, secrets: readonly string[]): Promise<string | undefined> {
  for (const secret of secrets) {
    try {
      const { plaintext } = await compactDecrypt(sealed, keyOf(secret), { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
      return new TextDecoder().decode(plaintext);
    } catch {
      // another secret, or not ours
    }
  }
  return undefined;
}

/** Recovery codes a user gets at once. */
export const RECOVERY_CODE_COUNT = 10;
/** Letters and digits that cannot be mistaken for one another. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten new recovery codes, `xxxxx-xxxxx`. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const characters = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return `${characters.slice(0, 5)}-${characters.slice(5)}`;
  });
}

/** A typed recovery code as compared: lower-case, without the dash and spaces; undefined when it cannot be one. */
export function normalizeRecoveryCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toLowerCase();
  return /^[a-z0-9]{10}$/.test(code) ? code : undefined;
}

/** HMAC-SHA-256 of a recovery code (as compared) under the recovery codes' key derived from `secret`, hex. */
function hmacWith(code: string, secret: string): string {
  const key = new Uint8Array(hkdfSync('sha256', secret, '', RECOVERY_CODE_INFO, 32));
  return createHmac('sha256', key).update(normalizeRecoveryCode(code) ?? code).digest('hex');
}

/** The stored form of a new recovery code: HMAC-SHA-256 under a key derived from the newest `AUTH_SECRET`. */
export function hmacRecoveryCode(code: string, secrets: readonly string[]): string {
  return hmacWith(code, secrets[0]!);
}

/**
 * The form recovery codes were stored in before they were keyed: the plain SHA-256 of the code (as compared), hex.
 * Only for looking up such codes (`recoveryCodeHashes`); new codes are stored with `hmacRecoveryCode`.
 */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(normalizeRecoveryCode(code) ?? code).digest('hex');
}

/**
 * The forms a typed recovery code may be stored in, to try in turn: its HMAC under each of `secrets`, newest first
 * (codes stored before an `AUTH_SECRET` rotation still work), then its plain SHA-256 (codes stored before the HMAC).
 */
export function recoveryCodeHashes(code: string, secrets: readonly string[]): string[] {
  return [...secrets.map((secret) => hmacWith(code, secret)), hashRecoveryCode(code)];
}
