/**
 * Better Auth with its API-key plugin (`@better-auth/api-key`, its defaults: keys kept in the database, SHA-256
 * digests), on the same kind of database as ours: SQLite through better-sqlite3 (a temp file, BENCH_SQLITE_FILE, in
 * WAL mode with `synchronous = NORMAL`, as our adapter opens its file), in Express 5. Its tables are created with its
 * own migration API (what `npx auth migrate` runs); the bench user (a new address each start: the bench restarts it to
 * count its instructions) is signed up with `auth.api.signUpEmail` and its
 * key created with `auth.api.createApiKey`. Better Auth's rate limiter and the plugin's per-key rate limit (on by
 * default: 10 requests a day) are off, and so is its telemetry.
 *
 * `GET /api/me` is guarded the way the plugin's docs verify a key on the server: `auth.api.verifyApiKey({ body: { key }
 * })` with the bearer token, 401 unless `valid`. It answers `{ user: { id } }` from the key's `referenceId`: the user
 * row is not read (ours answers with it). The plugin's other way, `enableSessionForAPIKeys` with `getSession`, which
 * also reads the user, is marked "not recommended for production use" in its options.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import Database from 'better-sqlite3';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { apiKey } from '@better-auth/api-key';
import { serve } from './child.js';
import { PASSWORD_USER } from './password-user.js';

const file = process.env['BENCH_SQLITE_FILE'];
const port = Number(process.env['BENCH_PORT']);
if (!file || !port) throw new Error('set BENCH_SQLITE_FILE and BENCH_PORT');
const database = new Database(file);
database.pragma('journal_mode = WAL');
database.pragma('synchronous = NORMAL');

const auth = betterAuth({
  database,
  baseURL: `http://127.0.0.1:${port}`,
  secret: process.env['AUTH_SECRET'],
  emailAndPassword: { enabled: true },
  plugins: [apiKey({ rateLimit: { enabled: false } })],
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();
const { user } = await auth.api.signUpEmail({ body: { name: PASSWORD_USER.name, email: `${randomUUID()}@example.test`, password: PASSWORD_USER.password } });
const created = await auth.api.createApiKey({ body: { name: 'bench', userId: user.id } });

const app = express();
app.get('/api/me', async (req, res) => {
  const header = req.headers.authorization;
  const result = header?.startsWith('Bearer ') ? await auth.api.verifyApiKey({ body: { key: header.slice(7) } }) : undefined;
  if (!result?.valid || !result.key) {
    res.status(401).json({ error: 'invalid_token' });
    return;
  }
  res.json({ user: { id: result.key.referenceId } });
});

serve(app, { key: created.key, userId: user.id });
