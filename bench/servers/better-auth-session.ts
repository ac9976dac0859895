/**
 * Better Auth's session endpoint, `GET /api/auth/get-session`, on the same kind of database as ours, mounted in
 * Express 5 with `toNodeHandler` as its docs show: SQLite through better-sqlite3 (a temp file, BENCH_SQLITE_FILE, in
 * WAL mode with `synchronous = NORMAL`, as our adapter opens its file), or PostgreSQL through a `pg` Pool (DATABASE_URL,
 * the bench's private cluster). BENCH_ADAPTER is `sqlite` or `postgres`. With BENCH_COOKIE_CACHE=1 its cookie cache is
 * on (`session: { cookieCache: { enabled: true, maxAge: 300 } }`): the session and user are then read from the signed
 * `session_data` cookie, not from the database, for 5 minutes. Its tables are created with its own migration API, the
 * user is signed up with `auth.api.signUpEmail`, and the cookies that sign-up sets are reported as `cookie` (the
 * session token, and `session_data` when the cache is on). Its rate limiter and telemetry are off.
 */
import express from 'express';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { Pool } from 'pg';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';
import { serve } from './child.js';
import { PASSWORD_USER } from './password-user.js';

const kind = process.env['BENCH_ADAPTER'];
const port = Number(process.env['BENCH_PORT']);
const cookieCache = process.env['BENCH_COOKIE_CACHE'] === '1';
if ((kind !== 'sqlite' && kind !== 'postgres') || !port) throw new Error('set BENCH_ADAPTER (sqlite or postgres) and BENCH_PORT');

function openDatabase(): Database.Database | Pool {
  if (kind === 'postgres') {
    const url = process.env['DATABASE_URL'];
    if (!url) throw new Error('set DATABASE_URL');
    return new Pool({ connectionString: url });
  }
  const file = process.env['BENCH_SQLITE_FILE'];
  if (!file) throw new Error('set BENCH_SQLITE_FILE');
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  return database;
}

const auth = betterAuth({
  database: openDatabase(),
  baseURL: `http://127.0.0.1:${port}`,
  secret: process.env['AUTH_SECRET'],
  emailAndPassword: { enabled: true },
  ...(cookieCache && { session: { cookieCache: { enabled: true, maxAge: 300 } } }),
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();
// Its own address per server: the two Better Auth servers share the PostgreSQL database.
const email = `${randomUUID()}@example.test`;
const signedUp = await auth.api.signUpEmail({ body: { name: PASSWORD_USER.name, email, password: PASSWORD_USER.password }, asResponse: true });
if (!signedUp.ok) throw new Error(`sign-up answered ${signedUp.status}`);
const cookie = signedUp.headers
  .getSetCookie()
  .map((line) => line.slice(0, line.indexOf(';')))
  .join('; ');

const app = express();
app.all('/api/auth/*splat', toNodeHandler(auth));

serve(app, { cookie, email });
