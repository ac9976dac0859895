/**
 * The floor of an API-key guard on Express: bare Express 5 and better-sqlite3 (a temp file, BENCH_SQLITE_FILE, in WAL
 * mode with `synchronous = NORMAL`, as our SQLite adapter opens its file). `GET /api/me` takes the bearer token,
 * computes one SHA-256 of it (node:crypto) and does one indexed lookup by that digest (a prepared statement; the
 * table has a unique index on `digest`); it answers 401 when no row is found or the row has expired, else
 * `res.json({ user })`. No scopes, no touch of the row, no user row, no rate limit: what any key check costs at least.
 * The bench user's key is written at start and reported as `key`.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import express from 'express';
import { serve } from './child.js';

const file = process.env['BENCH_SQLITE_FILE'];
if (!file) throw new Error('set BENCH_SQLITE_FILE');
const database = new Database(file);
database.pragma('journal_mode = WAL');
database.pragma('synchronous = NORMAL');
database.exec(`
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
database.prepare('INSERT INTO api_keys (id, user_id, digest, expires_at) VALUES (?, ?, ?, NULL)').run(randomUUID(), userId, digestOf(key));

const lookup = database.prepare<[string], { user_id: string; expires_at: number | null }>('SELECT user_id, expires_at FROM api_keys WHERE digest = ?');

const app = express();
app.get('/api/me', (req, res) => {
  const header = req.headers.authorization;
  const row = header?.startsWith('Bearer ') ? lookup.get(digestOf(header.slice(7))) : undefined;
  if (!row || (row.expires_at !== null && row.expires_at <= Date.now())) {
    res.status(401).json({ error: 'invalid_token' });
    return;
  }
  res.json({ user: { id: row.user_id } });
});

serve(app, { key, userId });
