/**
 * An organization always keeps an owner, also under two concurrent changes from two app processes (SPEC §14, issue
 * 48): two processes (test/support/organization-owners-worker.ts) share one database; for each of 50 organizations
 * with exactly two owners, each process at the same moment removes or demotes one of them. Afterwards every
 * organization has an owner, and of each pair of changes exactly one was done and the other refused as the last
 * owner's. On PostgreSQL the rule holds by the lock on the organization's row taken before the conditional write
 * (storage.ts `lockOrganization`): without it, both changes read the other owner as still there and both go through.
 * On SQLite, by its single writer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Pool } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter, AdapterUser } from '../../templates/runtime/features/database/adapter.js';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { Organizations } from '../../templates/runtime/features/organizations/index.js';
import { createTestPool, startPostgres, type RunningPostgres } from '../support/postgres.js';

const organizations = 50;

let postgres: RunningPostgres;
let admin: Pool;
let folder: string;
let databases = 0;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  [postgres, folder] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), 'framework-auth-owners-race-'))]);
  admin = createTestPool({ connectionString: postgres.url });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await admin?.end();
  await postgres?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** A database no other test uses: its URL for the processes, and an adapter on it for the test's own writes and reads. */
async function postgresDatabase(): Promise<{ url: string; adapter: Required<Adapter> }> {
  const name = `owners_race_${++databases}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(postgres.url);
  url.pathname = `/${name}`;
  const pool = createTestPool({ connectionString: url.href });
  cleanups.push(() => pool.end());
  return { url: url.href, adapter: PostgresAdapter({ pool, features: [Organizations()] }) as Required<Adapter> };
}

async function sqliteDatabase(): Promise<{ url: string; adapter: Required<Adapter> }> {
  const url = `file:${join(folder, `owners-race-${++databases}.db`)}`;
  return { url, adapter: SqliteAdapter({ url, features: [Organizations()] }) as Required<Adapter> };
}

/** A worker process, once ready: `send` writes it one change, `answer` reads its next outcome's line. */
async function startWorker(url: string): Promise<{ send(change: object): void; answer(): Promise<string> }> {
  const child: ChildProcess = spawn(join(process.cwd(), 'node_modules/.bin/tsx'), ['test/support/organization-owners-worker.ts'], {
    cwd: process.cwd(),
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  cleanups.push(() => {
    child.stdin?.end();
    child.kill();
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const answer = async (): Promise<string> => {
    const next = await lines.next();
    if (next.done) throw new Error(`the worker ${child.pid} exited`);
    return next.value;
  };
  expect(await answer()).toBe('ready');
  return { send: (change) => void child.stdin!.write(`${JSON.stringify(change)}\n`), answer };
}

async function ownersAfterConcurrentChanges(database: { url: string; adapter: Required<Adapter> }, actions: readonly ['remove' | 'demote', 'remove' | 'demote']): Promise<void> {
  const { adapter, url } = database;
  const [first, second] = (await Promise.all([1, 2].map((n) => adapter.createUser({ id: randomUUID(), name: `Owner ${n}`, email: `owner-${n}-${randomUUID()}@example.com`, emailVerified: null })))) as [AdapterUser, AdapterUser];
  const created = [];
  for (let index = 0; index < organizations; index++) {
    const organization = { id: randomUUID(), slug: `race-${index}-${randomUUID().slice(0, 8)}`, name: `Race ${index}`, createdAt: new Date() };
    expect(await adapter.createOrganization(organization, first.id)).toBe(true);
    const digest = createHash('sha256').update(randomUUID()).digest('hex');
    await adapter.createInvitation({ id: randomUUID(), organizationId: organization.id, email: second.email, role: 'owner', inviterId: first.id, digest, createdAt: new Date(), expiresAt: new Date(Date.now() + 86_400_000) }, 10);
    expect(await adapter.acceptInvitation(digest, second.id, new Date())).toBe(true);
    created.push(organization);
  }
  const workers = await Promise.all([startWorker(url), startWorker(url)]);
  const outcomes: string[][] = [];
  for (const organization of created) {
    // Both lines written before either answer is read: the two processes change the organization at once.
    workers[0].send({ action: actions[0], organizationId: organization.id, userId: first.id });
    workers[1].send({ action: actions[1], organizationId: organization.id, userId: second.id });
    const answers = await Promise.all(workers.map((worker) => worker.answer()));
    outcomes.push(answers.map((line) => (JSON.parse(line) as { outcome: string }).outcome).sort());
  }
  const ownerless = [];
  for (const organization of created) {
    const owners = (await adapter.listMembers(organization.id)).filter((member) => member.role === 'owner');
    if (owners.length === 0) ownerless.push(organization.slug);
  }
  expect(ownerless).toEqual([]);
  expect(outcomes).toEqual(created.map(() => ['done', 'last-owner']));
}

describe('the last owner under two app processes (SPEC §14)', () => {
  describe('PostgreSQL', () => {
    it('two processes removing the two owners of 50 organizations at once leave each an owner', async () => {
      await ownersAfterConcurrentChanges(await postgresDatabase(), ['remove', 'remove']);
    }, 120_000);

    it('two processes demoting the two owners of 50 organizations at once leave each an owner', async () => {
      await ownersAfterConcurrentChanges(await postgresDatabase(), ['demote', 'demote']);
    }, 120_000);

    it('one process removing and the other demoting at once leave each of 50 organizations an owner', async () => {
      await ownersAfterConcurrentChanges(await postgresDatabase(), ['remove', 'demote']);
    }, 120_000);
  });

  describe('SQLite (one file)', () => {
    it('two processes removing, or demoting, the two owners of 50 organizations at once leave each an owner', async () => {
      await ownersAfterConcurrentChanges(await sqliteDatabase(), ['remove', 'remove']);
      await ownersAfterConcurrentChanges(await sqliteDatabase(), ['demote', 'demote']);
    }, 120_000);
  });
});
