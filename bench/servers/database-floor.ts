/**
 * The floor of a database-session guard on Express, not an auth library: bare Express 5 and the driver our adapter
 * uses (better-sqlite3 for SQLite, `pg` for PostgreSQL), on the tables our adapter creates. The user and its session
 * row are written through our adapter at start, so that the row read is the one ours reads; the lookup then runs on
 * its own connection (SQLite: its own file handle in WAL mode with `synchronous = NORMAL`, as our adapter opens it;
 * PostgreSQL: its own `pg` Pool, which runs unnamed queries as our adapter does).
 *
 * `GET /protected` takes the session cookie's value from the Cookie header (no cookie parser: only the one value is
 * found), runs ONE lookup of the session and its user by the session table's primary key (a join, the statement
 * prepared once for SQLite), checks the expiry, and answers `res.json({ user })` as ours does, or 401. No absolute
 * lifetime, no rolling expiry, no "last seen" write, no callbacks: what any database-session check costs at least.
 * BENCH_ADAPTER is `sqlite` or `postgres`; DATABASE_URL says where (for SQLite a `file:` path).
 */
import express from 'express';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { Pool } from 'pg';
import type { Adapter } from '../../templates/runtime/features/database/adapter.js';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { BENCH_USER } from './bench-user.js';
import { serve } from './child.js';

const kind = process.env['BENCH_ADAPTER'];
const url = process.env['DATABASE_URL'];
if ((kind !== 'sqlite' && kind !== 'postgres') || !url) throw new Error('set BENCH_ADAPTER (sqlite or postgres) and DATABASE_URL');

// Our adapter creates the tables and writes the rows, exactly as in ours-database.ts.
const adapter: Adapter = kind === 'sqlite' ? SqliteAdapter({ url }) : PostgresAdapter({ url });
const user = await adapter.createUser!({ id: randomUUID(), name: BENCH_USER.name, email: `${randomUUID()}@example.test`, emailVerified: null });
const sessionToken = randomUUID();
await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(Date.now() + 30 * 24 * 60 * 60 * 1000) });

/** The columns the route needs: the session's expiry and what `session.user` shows. */
const lookupSql = (placeholder: string): string =>
  `SELECT sessions.expires, users.id, users.name, users.email, users.image
   FROM sessions JOIN users ON users.id = sessions.user_id
   WHERE sessions.session_token = ${placeholder}`;

interface Row {
  expires: number | Date;
  id: string;
  name: string | null;
  email: string | null;
  image: string | null;
}

/** The lookup: synchronous with better-sqlite3 (as the route then is), one query on the pool with `pg`. */
let lookup: (token: string) => Row | undefined;
let lookupAsync: (token: string) => Promise<Row | undefined>;
if (kind === 'sqlite') {
  const database = new Database(url.replace(/^file:/, ''));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  const statement = database.prepare<[string], Row>(lookupSql('?'));
  lookup = (token) => statement.get(token);
} else {
  const pool = new Pool({ connectionString: url });
  const text = lookupSql('$1');
  lookupAsync = async (token) => (await pool.query<Row>(text, [token])).rows[0];
}

const cookieName = 'authjs.session-token=';

/** The value of the session cookie, found in the header without parsing the other cookies. */
function sessionTokenOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const at = header.startsWith(cookieName) ? 0 : header.indexOf(`; ${cookieName}`) + 2;
  if (at === 1) return undefined;
  const end = header.indexOf(';', at);
  return header.slice(at + cookieName.length, end === -1 ? undefined : end);
}

function answer(res: Response, row: Row | undefined): void {
  if (!row || row.expires.valueOf() <= Date.now()) {
    res.status(401).json({ error: 'Unauthorized' });
    return;
  }
  res.json({ user: { id: row.id, name: row.name, email: row.email, image: row.image } });
}

const app = express();
if (kind === 'sqlite') {
  app.get('/protected', (req, res) => {
    const token = sessionTokenOf(req);
    answer(res, token ? lookup(token) : undefined);
  });
} else {
  app.get('/protected', async (req, res) => {
    const token = sessionTokenOf(req);
    answer(res, token ? await lookupAsync(token) : undefined);
  });
}

serve(app, { sessionToken });
