/**
 * Better Auth's email and password sign-in, with its defaults (scrypt hashes, database sessions), on the same kind of
 * database as ours: SQLite through better-sqlite3 (a temp file, BENCH_SQLITE_FILE, in WAL mode as our adapter
 * opens its file), mounted in Express 5 with `toNodeHandler` as its docs show. Its tables are created with its own
 * migration API (what `npx @better-auth/cli migrate` runs) and the bench user is signed up with `auth.api.signUpEmail`.
 * Its rate limiter (on by default in production) is off, as ours is, and so is its telemetry.
 * IPC `timeHash(count, concurrency)` times its password check (`verifyPassword` of better-auth/crypto) alone.
 */
import express from 'express';
import Database from 'better-sqlite3';
import { betterAuth } from 'better-auth';
import { verifyPassword } from 'better-auth/crypto';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';
import { serve } from './child.js';
import { timeHashes } from './hash-timing.js';
import { PASSWORD_USER } from './password-user.js';

const file = process.env['BENCH_SQLITE_FILE'];
const port = Number(process.env['BENCH_PORT']);
if (!file || !port) throw new Error('set BENCH_SQLITE_FILE and BENCH_PORT');
const database = new Database(file);
database.pragma('journal_mode = WAL');

const auth = betterAuth({
  database,
  baseURL: `http://127.0.0.1:${port}`,
  secret: process.env['AUTH_SECRET'],
  emailAndPassword: { enabled: true },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();
await auth.api.signUpEmail({ body: { name: PASSWORD_USER.name, email: PASSWORD_USER.email, password: PASSWORD_USER.password } });
const { password: stored } = database.prepare(`SELECT password FROM account WHERE providerId = 'credential'`).get() as { password: string };

const app = express();
app.all('/api/auth/*splat', toNodeHandler(auth));

serve(
  app,
  { hash: `scrypt (salt:key, ${stored.length} characters)` },
  {
    timeHash: (count: number, concurrency: number) =>
      timeHashes(async () => {
        if (!(await verifyPassword({ hash: stored, password: PASSWORD_USER.password }))) throw new Error('the stored hash did not verify');
      }, count, concurrency),
  },
);
