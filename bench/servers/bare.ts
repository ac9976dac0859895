/**
 * Bare Express 5 with a trivial JSON route: the physical limit every other case is compared with. `/csrf` is the
 * floor of `GET <mount>/csrf` for a visitor without the cookie: the necessary work only (32 random bytes, one SHA-256
 * of the token and a secret, the cookie and the JSON), so that our route is compared with what it cannot avoid.
 */
import { createHash, randomBytes } from 'node:crypto';
import express from 'express';
import { serve } from './child.js';

const secret = randomBytes(32).toString('base64url');
const app = express();
app.get('/json', (_req, res) => {
  res.json({ hello: 'world' });
});
app.get('/csrf', (_req, res) => {
  const token = randomBytes(32).toString('hex');
  const hash = createHash('sha256').update(`${token}${secret}`).digest('hex');
  res.setHeader('Set-Cookie', `authjs.csrf-token=${token}%7C${hash}; Path=/; HttpOnly; SameSite=Lax`);
  res.setHeader('Cache-Control', 'private, no-cache, no-store');
  res.json({ csrfToken: token });
});
serve(app);
