/**
 * API keys with our runtime (templates/runtime): `ApiKeys()` with the SQLite adapter (a temp file, DATABASE_URL),
 * wired as ours-database.ts wires the runtime. At start it creates the bench user through the adapter and one key
 * through `createApiKey` (scope `read`), and reports the key. `GET /api/me` is `requireAuth()` and
 * `res.json({ user: session.user })`, as the runtime's docs guard a route: with `Authorization: Bearer <key>` the
 * guard looks the key up by its SHA-256 digest, with its user, in one statement, and records its use at most once a
 * minute. Rate limits are off, as in Better Auth's server (a wrong key is never counted).
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { ApiKeys, createApiKey } from '../../templates/runtime/features/api-keys/index.js';
import { FrameworkAuth, createRequireAuth } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Credentials from '../../templates/runtime/providers/credentials.js';
import { BENCH_USER } from './bench-user.js';
import { serve } from './child.js';

const url = process.env['DATABASE_URL'];
if (!url) throw new Error('set DATABASE_URL (file:/…/api-keys.db)');
const adapter = SqliteAdapter({ url });

const authConfig: FrameworkAuthConfig = {
  basePath: '/auth',
  adapter,
  trustHost: ['127.0.0.1'],
  rateLimit: false,
  providers: [Credentials({ credentials: { username: {} }, authorize: async () => null })],
  features: [ApiKeys({ scopes: ['read', 'write'] })],
};

const app = express();
app.set('trust proxy', true);
// Mounting the handler resolves the config (and creates the tables) before the user and the key are written.
app.use('/auth/*splat', FrameworkAuth(authConfig));
const user = await adapter.createUser!({ id: randomUUID(), name: BENCH_USER.name, email: `${randomUUID()}@example.test`, emailVerified: null });
const { key } = await createApiKey(authConfig, { userId: user.id, name: 'bench', scopes: ['read'] });

app.get('/api/me', createRequireAuth(authConfig), (_req, res) => {
  res.json({ user: (res.locals['session'] as { user: unknown }).user });
});

serve(app, { key, userId: user.id });
