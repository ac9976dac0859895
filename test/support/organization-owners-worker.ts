/**
 * One app process of the last-owner race (test/adapters/organization-owners-race.test.ts): our adapter with
 * Organizations() on the shared database (DATABASE_URL: PostgreSQL, or `file:` for SQLite). It prints `ready` once
 * its adapter has made its first query, then answers each line of stdin, `{ action, organizationId, userId }`, with
 * one line, `{ outcome }`: what removeMember or changeMemberRole (to `member`) said. It exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import type { Adapter } from '../../templates/runtime/contracts.js';
import { Organizations } from '../../templates/runtime/features/organizations/index.js';

const url = process.env['DATABASE_URL']!;
const features = [Organizations()];
const adapter = (url.startsWith('file:') ? SqliteAdapter({ url, features }) : PostgresAdapter({ url, features })) as Required<Adapter>;
await adapter.getOrganization('warm-up');
process.stdout.write('ready\n');

for await (const line of createInterface({ input: process.stdin })) {
  const { action, organizationId, userId } = JSON.parse(line) as { action: 'remove' | 'demote'; organizationId: string; userId: string };
  const outcome = action === 'remove' ? await adapter.removeMember(organizationId, userId) : await adapter.changeMemberRole(organizationId, userId, 'member');
  process.stdout.write(`${JSON.stringify({ outcome })}\n`);
}
process.exit(0);
