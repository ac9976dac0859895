/**
 * What the floor servers share (bare.ts, database-floor.ts, oidc-floor.ts): a cookie's value found without parsing
 * the others, and the CSRF route's necessary work.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';

/** The value of cookie `name` in the Cookie header, as sent (not decoded), found without parsing the others. */
export function cookieOf(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const at = header.startsWith(`${name}=`) ? 0 : header.indexOf(`; ${name}=`) + 2;
  if (at === 1) return undefined;
  const end = header.indexOf(';', at);
  return header.slice(at + name.length + 1, end === -1 ? undefined : end);
}

/** The hash the CSRF cookie carries beside its token: SHA-256 of the token and the secret, hex (Auth.js's). */
export function csrfHash(token: string, secret: string): string {
  return createHash('sha256').update(`${token}${secret}`).digest('hex');
}

/**
 * The floor of `GET <mount>/csrf` for a visitor without the cookie: 32 random bytes, one SHA-256, the cookie
 * (`token%7Chash`, as Auth.js writes it) and the JSON.
 */
export function sendCsrfToken(res: Response, secret: string): void {
  const token = randomBytes(32).toString('hex');
  res.setHeader('Set-Cookie', `authjs.csrf-token=${token}%7C${csrfHash(token, secret)}; Path=/; HttpOnly; SameSite=Lax`);
  res.setHeader('Cache-Control', 'private, no-cache, no-store');
  res.json({ csrfToken: token });
}
