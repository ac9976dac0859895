import { randomBytes } from 'node:crypto';

/** Bytes of CSPRNG output in a generated secret (43 base64url characters, above the 32 the runtime requires). */
export const secretBytes = 32;

/** A fresh `AUTH_SECRET`: base64url of 32 random bytes from the OS CSPRNG. */
export function generateSecret(): string {
  return randomBytes(secretBytes).toString('base64url');
}
