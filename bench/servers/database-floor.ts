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
 *
 * `GET /orgs/:slug` is the floor of an organization's guard (the organizations group): the same session lookup, then
 * ONE indexed select of the user's membership of the organization the path names (by the organizations' unique slug
 * and the members' primary key), the role's permission checked in a set, and `{ organization: { id, slug, name,
 * role } }` as ours answers it, or 401 / 404 / 403. The organization (the user its owner, and the session's active
 * one, as in ours-organizations.ts) is written through our adapter with `Organizations()`'s tables.
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
import { Organizations } from '../../templates/runtime/features/organizations/index.js';
import { BENCH_USER } from './bench-user.js';
import { serve } from './child.js';
import { cookieOf } from './floor-parts.js';

const kind = process.env['BENCH_ADAPTER'];
const url = process.env['DATABASE_URL'];
if ((kind !== 'sqlite' && kind !== 'postgres') || !url) throw new Error('set BENCH_ADAPTER (sqlite or postgres) and DATABASE_URL');

// Our adapter creates the tables and writes the rows, exactly as in ours-database.ts and ours-organizations.ts.
const features = [Organizations()];
const adapter: Adapter = kind === 'sqlite' ? SqliteAdapter({ url, features }) : PostgresAdapter({ url, features });
const user = await adapter.createUser!({ id: randomUUID(), name: BENCH_USER.name, email: `${randomUUID()}@example.test`, emailVerified: null });
const sessionToken = randomUUID();
await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(Date.now() + 30 * 24 * 60 * 60 * 1000) });
const organization = { id: randomUUID(), slug: `bench-${randomUUID().slice(0, 8)}`, name: 'Bench', createdAt: new Date() };
if (!(await adapter.createOrganization!(organization, user.id))) throw new Error('the organization was not created');
await adapter.setActiveOrganization!(sessionToken, organization.id);

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

/** The membership the organization's route needs: the organization by its slug, the member by its primary key. */
const membershipSql = (first: string, second: string): string =>
  `SELECT o.id, o.slug, o.name, m.role
   FROM organizations o JOIN organization_members m ON m.organization_id = o.id
   WHERE o.slug = ${first} AND m.user_id = ${second}`;

interface MembershipRow {
  id: string;
  slug: string;
  name: string;
  role: string;
}

/** The roles that grant `organization:read` (every default role). */
const readers = new Set(['owner', 'admin', 'member']);

/** The lookup: synchronous with better-sqlite3 (as the route then is), one query on the pool with `pg`. */
let lookup: (token: string) => Row | undefined;
let lookupAsync: (token: string) => Promise<Row | undefined>;
let membership: (slug: string, userId: string) => MembershipRow | undefined;
let membershipAsync: (slug: string, userId: string) => Promise<MembershipRow | undefined>;
if (kind === 'sqlite') {
  const database = new Database(url.replace(/^file:/, ''));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  const statement = database.prepare<[string], Row>(lookupSql('?'));
  lookup = (token) => statement.get(token);
  const members = database.prepare<[string, string], MembershipRow>(membershipSql('?', '?'));
  membership = (slug, userId) => members.get(slug, userId);
} else {
  const pool = new Pool({ connectionString: url });
  const text = lookupSql('$1');
  lookupAsync = async (token) => (await pool.query<Row>(text, [token])).rows[0];
  const membersText = membershipSql('$1', '$2');
  membershipAsync = async (slug, userId) => (await pool.query<MembershipRow>(membersText, [slug, userId])).rows[0];
}

/** The value of the session cookie, found in the header without parsing the other cookies. */
const sessionTokenOf = (req: Request): string | undefined => cookieOf(req, 'authjs.session-token');

/** Whether the session row is there and not expired; else answers 401. */
function signedIn(res: Response, row: Row | undefined): row is Row {
  if (row && row.expires.valueOf() > Date.now()) return true;
  res.status(401).json({ error: 'Unauthorized' });
  return false;
}

function answer(res: Response, row: Row | undefined): void {
  if (signedIn(res, row)) res.json({ user: { id: row.id, name: row.name, email: row.email, image: row.image } });
}

function answerOrganization(res: Response, member: MembershipRow | undefined): void {
  if (!member) res.status(404).json({ error: 'not_found' });
  else if (!readers.has(member.role)) res.status(403).json({ error: 'forbidden', permission: 'organization:read' });
  else res.json({ organization: { id: member.id, slug: member.slug, name: member.name, role: member.role } });
}

const app = express();
if (kind === 'sqlite') {
  app.get('/protected', (req, res) => {
    const token = sessionTokenOf(req);
    answer(res, token ? lookup(token) : undefined);
  });
  app.get('/orgs/:slug', (req, res) => {
    const token = sessionTokenOf(req);
    const row = token ? lookup(token) : undefined;
    if (signedIn(res, row)) answerOrganization(res, membership(req.params.slug, row.id));
  });
} else {
  app.get('/protected', async (req, res) => {
    const token = sessionTokenOf(req);
    answer(res, token ? await lookupAsync(token) : undefined);
  });
  app.get('/orgs/:slug', async (req, res) => {
    const token = sessionTokenOf(req);
    const row = token ? await lookupAsync(token) : undefined;
    if (signedIn(res, row)) answerOrganization(res, await membershipAsync(req.params.slug, row.id));
  });
}

serve(app, { sessionToken, slug: organization.slug, organizationId: organization.id });
