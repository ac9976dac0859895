/**
 * The single-use tokens of the links the runtime emails (email sign-in, address confirmation, password reset),
 * stored as verification tokens: only the SHA-256 of `token + secret` is kept, as Auth.js stores them, so that a
 * database leak yields no working link; a newer link for an identifier voids the older ones when the adapter has
 * `deleteVerificationTokens`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type Adapter, type VerificationToken, callAdapter } from '../database/adapter.js';

/** The stored form of a token: `sha256hex(token + secret)`. */
export function hashVerificationToken(token: string, secret: string): string {
  return createHash('sha256').update(`${token}${secret}`).digest('hex');
}

/** A new link token: 32 random bytes, hex. */
export function newLinkToken(): string {
  return randomBytes(32).toString('hex');
}

/**
 * Stores a token for `identifier` valid `maxAge` seconds, after deleting the identifier's earlier ones (when the
 * adapter can): only the newest link works. Returns the row as stored (hashed).
 */
export async function storeLinkToken(adapter: Adapter, params: { identifier: string; token: string; secret: string; maxAge: number }): Promise<VerificationToken> {
  const row = { identifier: params.identifier, token: hashVerificationToken(params.token, params.secret), expires: new Date(Date.now() + params.maxAge * 1000) };
  if (typeof adapter.deleteVerificationTokens === 'function') await callAdapter(adapter, 'deleteVerificationTokens', params.identifier);
  await callAdapter(adapter, 'createVerificationToken', row);
  return row;
}

/**
 * Uses a link's token once: the stored row when it is found for `identifier` (hashed with any of `secrets`, so links
 * made before an `AUTH_SECRET` rotation still work) and unexpired, otherwise null. A found row is deleted either way.
 */
export async function useLinkToken(adapter: Adapter, identifier: string, token: string, secrets: readonly string[]): Promise<VerificationToken | null> {
  for (const secret of secrets) {
    const row = await callAdapter(adapter, 'useVerificationToken', { identifier, token: hashVerificationToken(token, secret) });
    if (!row) continue;
    return new Date(row.expires).valueOf() >= Date.now() && row.identifier === identifier ? row : null;
  }
  return null;
}
