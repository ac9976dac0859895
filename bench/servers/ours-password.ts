/**
 * Email and password sign-in with our runtime (templates/runtime): `Password()` with the SQLite adapter (a temp file,
 * DATABASE_URL) and database sessions, mounted as the scaffolded `src/server.ts` mounts it. The bench user and its
 * argon2id hash are written through the adapter at start. Rate limits are off: one user signs in many times a second.
 * IPC `timeHash(count, concurrency)` times the hash check a sign-in does, alone, in this process.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { FrameworkAuth, createRequireAuth } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Password from '../../templates/runtime/providers/password.js';
import { serve } from './child.js';
import { ourPasswordHash } from './our-password-hash.js';
import { PASSWORD_USER } from './password-user.js';

const url = process.env['DATABASE_URL'];
if (!url) throw new Error('set DATABASE_URL (file:/…/auth.db)');
const adapter = SqliteAdapter({ url });

const authConfig: FrameworkAuthConfig = {
  basePath: '/auth',
  adapter,
  session: { strategy: 'database' },
  trustHost: ['127.0.0.1'],
  rateLimit: false,
  providers: [Password({ sendMessage: () => {} })],
};

const user = await adapter.createUser!({ id: randomUUID(), email: PASSWORD_USER.email, emailVerified: new Date(), name: PASSWORD_USER.name });
const { stored, info, calls } = await ourPasswordHash();
await adapter.setPasswordHash!(user.id, stored);

const app = express();
app.set('trust proxy', true);
app.use('/auth/*splat', FrameworkAuth(authConfig));
app.get('/protected', createRequireAuth(authConfig), (_req, res) => {
  res.json({ user: (res.locals['session'] as { user: unknown }).user });
});

serve(app, info, calls);
