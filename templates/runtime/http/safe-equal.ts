/** A constant-time comparison of secrets (the CSRF token, the OAuth 1.0a request token, an API key's digest). */
import { timingSafeEqual } from 'node:crypto';

/** Compares two strings in constant time (for equal lengths; a length difference is not secret). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
