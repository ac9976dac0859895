/**
 * An invitation's link token: 32 random bytes (256 bits), base64url, mailed to the invited address and nowhere
 * else. Only its SHA-256 digest is stored (a database leak yields no working link); the token is unguessable, so an
 * unsalted digest is enough, and a lookup by digest is one indexed query.
 */
import { createHash, randomBytes } from 'node:crypto';

/** What a token looks like: 43 base64url characters. Anything else is looked up nowhere. */
const tokenShape = /^[A-Za-z0-9_-]{43}$/;

/** A new token and the digest stored for it. */
export function newInvitationToken(): { token: string; digest: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, digest: invitationDigest(token)! };
}

/** The stored digest of a token (SHA-256, hex), or undefined for a value that is not a token. */
export function invitationDigest(token: string): string | undefined {
  return tokenShape.test(token) ? createHash('sha256').update(token).digest('hex') : undefined;
}
