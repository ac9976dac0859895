/**
 * The API keys themselves: `fak_` and 43 base64url characters (256 random bits), so that secret scanners can find a
 * leaked one by its prefix. Only the key's SHA-256 digest is stored, with its first characters (`fak_AbCdEf`, not
 * secret) for the list; a key is looked up by its digest and the digests compared in constant time.
 */
import { hash, randomBytes } from 'node:crypto';

/** What every key starts with. */
export const API_KEY_PREFIX = 'fak_';

/** Random bytes behind the prefix: 256 bits. */
const KEY_BYTES = 32;

/** A key as sent: the prefix and exactly 43 base64url characters. */
const keyShape = /^fak_[A-Za-z0-9_-]{43}$/;

/** Characters of the key shown in the list (the prefix and 6 more): about 36 of its 256 bits, not enough to guess it. */
const START_LENGTH = API_KEY_PREFIX.length + 6;

/** A new key, its digest and its shown start. */
export function newApiKey(): { key: string; digest: string; start: string } {
  const key = `${API_KEY_PREFIX}${randomBytes(KEY_BYTES).toString('base64url')}`;
  return { key, digest: apiKeyDigest(key), start: key.slice(0, START_LENGTH) };
}

/** The SHA-256 digest of a key (hex): what is stored and looked up. One call, no `Hash` object: it runs on every request with a key. */
export function apiKeyDigest(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Whether a credential has the shape of a key; a malformed one is refused before any lookup. */
export function isApiKeyShaped(credential: string): boolean {
  return keyShape.test(credential);
}
