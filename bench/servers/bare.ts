/**
 * Bare Express 5 with a trivial JSON route: the physical limit every other case is compared with. `/csrf` is the
 * floor of `GET <mount>/csrf` for a visitor without the cookie: the necessary work only (32 random bytes, one SHA-256
 * of the token and a secret, the cookie and the JSON), so that our route is compared with what it cannot avoid.
 * `/session-floor` is the floor of a route that reads a JWT session it has not seen before (a different cookie every
 * request): the cookie's value found in the header, its five parts, one HMAC-SHA-512 checked in constant time, one
 * AES-256-CBC decryption with node:crypto, the claims parsed and `exp` checked, `{ user }` answered or 401. The key is
 * derived once from AUTH_SECRET as Auth.js derives it. No `kid`, no remembered tokens, no callbacks.
 */
import { createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { serve } from './child.js';
import { sendCsrfToken } from './floor-parts.js';

const secret = randomBytes(32).toString('base64url');
const app = express();
app.get('/json', (_req, res) => {
  res.json({ hello: 'world' });
});
app.get('/csrf', (_req, res) => {
  sendCsrfToken(res, secret);
});

const cookieName = 'authjs.session-token';
const sessionKey = Buffer.from(hkdfSync('sha256', process.env['AUTH_SECRET'] ?? secret, cookieName, `Auth.js Generated Encryption Key (${cookieName})`, 64));
const aadBits = (header: string): Buffer => {
  const bits = Buffer.alloc(8);
  bits.writeBigUInt64BE(BigInt(header.length * 8));
  return bits;
};
app.get('/session-floor', (req, res) => {
  const header = req.headers.cookie ?? '';
  const start = header.indexOf(`${cookieName}=`);
  const end = start < 0 ? -1 : header.indexOf(';', start);
  const [protectedHeader = '', , ivPart = '', ciphertextPart = '', tagPart = ''] = (start < 0 ? '' : header.slice(start + cookieName.length + 1, end < 0 ? undefined : end)).split('.');
  const iv = Buffer.from(ivPart, 'base64url');
  const ciphertext = Buffer.from(ciphertextPart, 'base64url');
  const tag = Buffer.from(tagPart, 'base64url');
  const mac = createHmac('sha512', sessionKey.subarray(0, 32)).update(protectedHeader).update(iv).update(ciphertext).update(aadBits(protectedHeader)).digest().subarray(0, 32);
  let claims: { sub?: string; name?: string; email?: string; exp?: number } | undefined;
  if (iv.length === 16 && tag.length === 32 && timingSafeEqual(tag, mac)) {
    const decipher = createDecipheriv('aes-256-cbc', sessionKey.subarray(32), iv);
    claims = JSON.parse(Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8')) as typeof claims;
  }
  if (!claims || (claims.exp ?? 0) * 1000 <= Date.now()) {
    res.status(401).json({ error: 'Unauthorized' });
    return;
  }
  res.json({ user: { id: claims.sub, name: claims.name, email: claims.email } });
});
serve(app);
