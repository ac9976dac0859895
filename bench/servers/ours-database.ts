/**
 * Database sessions: our runtime (templates/runtime, the code the CLI copies into `src/auth/core/`) with the SQLite
 * or PostgreSQL adapter, wired as the scaffolded `src/auth/index.ts` wires it. At start it creates the bench user
 * and one session row, and reports the session token. BENCH_ADAPTER is `sqlite` or `postgres`; DATABASE_URL says
 * where.
 */
import express from 'express';
import { randomUUID } from 'node:crypto';
import type { Adapter } from '../../templates/runtime/features/database/adapter.js';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { FrameworkAuth, createRequireAuth, createSessionLocals } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { BENCH_USER } from './bench-user.js';
import { serve } from './child.js';

const kind = process.env['BENCH_ADAPTER'];
const url = process.env['DATABASE_URL'];
if ((kind !== 'sqlite' && kind !== 'postgres') || !url) throw new Error('set BENCH_ADAPTER (sqlite or postgres) and DATABASE_URL');
const adapter: Adapter = kind === 'sqlite' ? SqliteAdapter({ url }) : PostgresAdapter({ url });

const authConfig: FrameworkAuthConfig = {
  basePath: '/auth',
  adapter,
  providers: [OIDC({ issuer: 'http://127.0.0.1:9/unused', clientId: 'unused', clientSecret: 'unused' })],
};

const user = await adapter.createUser!({ id: randomUUID(), name: BENCH_USER.name, email: `${randomUUID()}@example.test`, emailVerified: null });
const sessionToken = randomUUID();
await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(Date.now() + 30 * 24 * 60 * 60 * 1000) });

const app = express();
app.set('trust proxy', true);
app.use('/auth/*splat', FrameworkAuth(authConfig));
app.get('/protected', createRequireAuth(authConfig), (_req, res) => {
  res.json({ user: (res.locals['session'] as { user: unknown }).user });
});
app.get('/public', createSessionLocals(authConfig), (_req, res) => {
  res.json({ hello: 'world' });
});

serve(app, { sessionToken });
