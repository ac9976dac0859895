/**
 * The floor of an API-key guard on Express: bare Express 5 and better-sqlite3 (a temp file, BENCH_SQLITE_FILE, in WAL
 * mode with `synchronous = NORMAL`, as our SQLite adapter opens its file). `GET /api/me` takes the bearer token,
 * computes one SHA-256 of it (node:crypto) and does one indexed lookup by that digest, joined with the key's user by
 * its primary key (a prepared statement; the keys' table has a unique index on `digest`); it answers 401 when no row
 * is found or the key has expired, else `res.json({ user })` with the user's public fields (`id`, `name`, `email`,
 * `image`), the answer ours gives. No scopes, no touch of the row, no rate limit, no callbacks: what any key check
 * that names its user costs at least. The bench user and its key are written at start; the key is reported as `key`.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import express from 'express';
import { BENCH_USER } from './bench-user.js';
import { serve } from './child.js';

const file = process.env['BENCH_SQLITE_FILE'];
if (!file) throw new Error('set BENCH_SQLITE_FILE');
const database = new Database(file);
database.pragma('journal_mode = WAL');
database.pragma('synchronous = NORMAL');
database.exec(`
CREATE TABLE IF NOT EXISTS users (
  id TEXT NOT NULL PRIMARY KEY,
  name TEXT,
  email TEXT,
  image TEXT
);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT NOT NULL PRIMARY KEY,
  user_id TEXT NOT NULL,
  digest TEXT NOT NULL,
  expires_at INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS api_keys_digest ON api_keys (digest);
`);

const digestOf = (key: string): string => createHash('sha256').update(key).digest('base64url');
const userId = randomUUID();
const key = randomBytes(32).toString('base64url');
database.prepare('INSERT INTO users (id, name, email, image) VALUES (?, ?, ?, NULL)').run(userId, BENCH_USER.name, `${randomUUID()}@example.test`);
database.prepare('INSERT INTO api_keys (id, user_id, digest, expires_at) VALUES (?, ?, ?, NULL)').run(randomUUID(), userId, digestOf(key));

interface Row {
  expires_at: number | null;
  id: string;
  name: string | null;
  email: string | null;
  image: string | null;
}
const lookup = database.prepare<[string], Row>(
  'SELECT k.expires_at, u.id, u.name, u.email, u.image FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.digest = ?',
);

const app = express();
app.get('/api/me', (req, res) => {
  const header = req.headers.authorization;
  const row = header?.startsWith('Bearer ') ? lookup.get(digestOf(header.slice(7))) : undefined;
  if (!row || (row.expires_at !== null && row.expires_at <= Date.now())) {
    res.status(401).json({ error: 'invalid_token' });
    return;
  }
  res.json({ user: { id: row.id, name: row.name, email: row.email, image: row.image } });
});

serve(app, { key, userId });
