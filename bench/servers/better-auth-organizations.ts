/**
 * Better Auth's organization plugin (`organization()` from `better-auth/plugins`, its defaults), on the same kind of
 * database as ours: SQLite through better-sqlite3 (a temp file, BENCH_SQLITE_FILE, in WAL mode with `synchronous =
 * NORMAL`, as our adapter opens its file), or PostgreSQL through a `pg` Pool (DATABASE_URL). BENCH_ADAPTER is `sqlite`
 * or `postgres`. Its tables are created with its own migration API; the bench user is signed up with
 * `auth.api.signUpEmail` and creates its organization with `auth.api.createOrganization` (which makes it the owner
 * and the session's active organization); the session cookies sign-up set are reported as `cookie`. Its cookie cache
 * is off (its default): the session is read from the database, as ours reads it. Rate limiter and telemetry off.
 *
 * `GET /orgs/:id` is guarded the way its docs check a member's permission on the server:
 * `auth.api.hasPermission({ headers, body: { permissions: { organization: ['update'] }, organizationId } })` (its
 * default statements have no read permission; `update` is granted to owners and admins as `organization:read` is to
 * ours), then `{ organization: { id }, success }`, or its error's status. The path carries the organization's id, not
 * its slug: `hasPermission` takes only an id, and looking the slug up first would add a query ours does not make.
 */
import express from 'express';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { Pool } from 'pg';
import { betterAuth } from 'better-auth';
import { APIError } from 'better-auth/api';
import { getMigrations } from 'better-auth/db/migration';
import { fromNodeHeaders } from 'better-auth/node';
import { organization } from 'better-auth/plugins';
import { serve } from './child.js';
import { PASSWORD_USER } from './password-user.js';

const kind = process.env['BENCH_ADAPTER'];
const port = Number(process.env['BENCH_PORT']);
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
  plugins: [organization()],
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();
// Its own address and slug per server: the PostgreSQL database is shared with the other groups' Better Auth servers.
const email = `${randomUUID()}@example.test`;
const signedUp = await auth.api.signUpEmail({ body: { name: PASSWORD_USER.name, email, password: PASSWORD_USER.password }, asResponse: true });
if (!signedUp.ok) throw new Error(`sign-up answered ${signedUp.status}`);
const cookie = signedUp.headers
  .getSetCookie()
  .map((line) => line.slice(0, line.indexOf(';')))
  .join('; ');
const created = await auth.api.createOrganization({ headers: new Headers({ cookie }), body: { name: 'Bench', slug: `bench-${randomUUID().slice(0, 8)}` } });
if (!created) throw new Error('the organization was not created');

const app = express();
app.get('/orgs/:id', async (req, res) => {
  try {
    const result = await auth.api.hasPermission({ headers: fromNodeHeaders(req.headers), body: { permissions: { organization: ['update'] }, organizationId: req.params.id } });
    if (!result.success) {
      res.status(403).json({ error: 'forbidden' });
      return;
    }
    res.json({ organization: { id: req.params.id }, success: true });
  } catch (error) {
    if (!(error instanceof APIError)) throw error;
    res.status(error.statusCode).json({ error: error.message });
  }
});

serve(app, { cookie, email, organizationId: created.id, slug: created.slug });
