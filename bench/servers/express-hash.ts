/**
 * The floor of a password sign-in on Express: one POST route that reads the form, checks the password against the
 * bench user's stored hash with the same function and queue as `Password()` (templates/runtime/features/password/
 * hash.ts), sets a session cookie and redirects. No CSRF check, no database, no session row: what any Express
 * sign-in with this hash costs at least, measured beside ours so that the overhead targets can be read against it.
 * IPC `timeHash(count, concurrency)` times the hash check alone, in this process.
 */
import { randomBytes } from 'node:crypto';
import express from 'express';
import { verifyPassword } from '../../templates/runtime/features/password/hash.js';
import { serve } from './child.js';
import { ourPasswordHash } from './our-password-hash.js';
import { PASSWORD_USER } from './password-user.js';

const { stored, info, calls } = await ourPasswordHash();

const app = express();
app.post('/auth/callback/password', express.urlencoded({ extended: false, limit: '8kb' }), async (req, res) => {
  const body = req.body as Record<string, unknown>;
  const password = typeof body['password'] === 'string' ? body['password'] : '';
  const { valid } = await verifyPassword(password, body['email'] === PASSWORD_USER.email ? stored : null);
  if (!valid) {
    res.redirect(302, '/auth/signin?error=CredentialsSignin');
    return;
  }
  res.cookie('authjs.session-token', randomBytes(32).toString('base64url'), { httpOnly: true, sameSite: 'lax', path: '/' });
  res.redirect(302, '/');
});

serve(app, info, calls);
