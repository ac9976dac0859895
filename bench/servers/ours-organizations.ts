/**
 * An organization's route with our runtime (templates/runtime): `Organizations()` with the SQLite or PostgreSQL
 * adapter and database sessions, wired as ours-database.ts wires the runtime. At start it writes, through the adapter,
 * the bench user, one session row, an organization the user owns, and makes it the session's active organization (as
 * a member who works in one organization has it); it reports the session token and the organization's slug.
 * `GET /orgs/:slug` is `requirePermission('organization:read', { organization: (req) => req.params.slug })` and
 * `res.json({ organization })` (`res.locals.organization`: id, slug, name, role), as SPEC §14 guards an app's routes:
 * the session is read (one query), then the session's `organization` field and the guard share one query of the
 * memberships. BENCH_ADAPTER is `sqlite` or `postgres`; DATABASE_URL says where.
 */
import express from 'express';
import { randomUUID } from 'node:crypto';
import type { Adapter } from '../../templates/runtime/features/database/adapter.js';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { Organizations, createRequirePermission } from '../../templates/runtime/features/organizations/index.js';
import { FrameworkAuth } from '../../templates/runtime/index.js';
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
  features: [Organizations()],
};

const app = express();
app.set('trust proxy', true);
// Mounting the handler resolves the config (and creates the tables) before the rows are written.
app.use('/auth/*splat', FrameworkAuth(authConfig));
const user = await adapter.createUser!({ id: randomUUID(), name: BENCH_USER.name, email: `${randomUUID()}@example.test`, emailVerified: null });
const sessionToken = randomUUID();
await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(Date.now() + 30 * 24 * 60 * 60 * 1000) });
// Its own slug per server: ours and the floor share the PostgreSQL database.
const organization = { id: randomUUID(), slug: `bench-${randomUUID().slice(0, 8)}`, name: 'Bench', createdAt: new Date() };
if (!(await adapter.createOrganization!(organization, user.id))) throw new Error('the organization was not created');
await adapter.setActiveOrganization!(sessionToken, organization.id);

// Express 5's types give a path parameter as `string | string[]` (a `*splat` is an array); `:slug` is a string.
const slugOf = (req: express.Request): string => req.params['slug'] as string;
app.get('/orgs/:slug', createRequirePermission(authConfig, 'organization:read', { organization: slugOf }), (_req, res) => {
  res.json({ organization: res.locals['organization'] as unknown });
});

serve(app, { sessionToken, slug: organization.slug, organizationId: organization.id });
