/**
 * One app process of the last-admin race (test/adapters/admin-last-admin-race.test.ts): our adapter with
 * administration's storage on the shared database (DATABASE_URL: PostgreSQL, or `file:` for SQLite). It prints `ready`
 * once its adapter has made its first query, then answers each line of stdin, `{ userId, configured }`, with one line,
 * `{ outcome }`: what revokeAdmin said. It exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import type { Adapter } from '../../templates/runtime/contracts.js';
import { adminStorageFeature } from './all-features.js';

const url = process.env['DATABASE_URL']!;
const features = [adminStorageFeature];
const adapter = (url.startsWith('file:') ? SqliteAdapter({ url, features }) : PostgresAdapter({ url, features })) as Required<Adapter>;
await adapter.countAdmins([]);
process.stdout.write('ready\n');

for await (const line of createInterface({ input: process.stdin })) {
  const { userId, configured } = JSON.parse(line) as { userId: string; configured: string[] };
  const outcome = await adapter.revokeAdmin(userId, configured);
  process.stdout.write(`${JSON.stringify({ outcome })}\n`);
}
process.exit(0);
