/**
 * There is always one admin left, also under two concurrent revocations from two app processes (SPEC §15, issue 49):
 * two processes (test/support/admin-last-admin-worker.ts) share one database; 50 times, the only two admins (by grant)
 * each revoke the other at the same moment, one from each process. Afterwards exactly one admin is left, and of each
 * pair one revocation was done and the other refused as the last admin's. On PostgreSQL the rule holds by the lock on
 * every grant taken before the conditional DELETE (storage.ts `revokeAdmin`): without it, both revocations count the
 * other admin as still there and both go through. On SQLite, by its single writer.
 *
 * And a disabled user's sessions end on every process at once: disabling through one adapter (its own pool or
 * connection) deletes the session rows another adapter on the same database reads.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Adapter, AdapterUser } from '../../templates/runtime/features/database/adapter.js';
import { adminStorageFeature } from '../support/all-features.js';
import { twoProcessRace } from '../support/two-process-race.js';

const rounds = 50;
const { postgresDatabase, postgresAdapter, sqliteDatabase, sqliteAdapter, startWorker } = twoProcessRace({
  name: 'admin-race',
  features: [adminStorageFeature],
  worker: 'test/support/admin-last-admin-worker.ts',
});

async function createUser(adapter: Required<Adapter>, label: string, emailVerified: Date | null = null): Promise<AdapterUser> {
  return adapter.createUser({ id: randomUUID(), name: label, email: `${label}-${randomUUID()}@example.com`, emailVerified });
}

/**
 * 50 rounds of two admins by grant revoking each other at once, one from each process. `configured` is the config's
 * list, whose one address belongs to a user who never proved it (no admin): the count goes through the `IN` list.
 */
async function adminsAfterConcurrentRevocations(database: { url: string; adapter: Required<Adapter> }): Promise<void> {
  const { adapter, url } = database;
  const unproven = await createUser(adapter, 'unproven');
  const configured = [unproven.email.toLowerCase()];
  const workers = await Promise.all([startWorker(url), startWorker(url)]);
  const outcomes: string[][] = [];
  const left: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const [first, second] = [await createUser(adapter, 'first'), await createUser(adapter, 'second')];
    expect(await adapter.grantAdmin({ userId: first.id, grantedBy: second.id, at: new Date() })).toBe(true);
    expect(await adapter.grantAdmin({ userId: second.id, grantedBy: first.id, at: new Date() })).toBe(true);
    // Both lines written before either answer is read: each admin revokes the other at once.
    workers[0].send({ userId: second.id, configured });
    workers[1].send({ userId: first.id, configured });
    const answers = await Promise.all(workers.map((worker) => worker.answer()));
    outcomes.push(answers.map((line) => (JSON.parse(line) as { outcome: string }).outcome).sort());
    left.push(await adapter.countAdmins(configured));
    // The next round starts with no admin: the one left goes with its user.
    for (const user of [first, second]) await adapter.deleteUser(user.id);
  }
  expect(left).toEqual(Array.from({ length: rounds }, () => 1));
  expect(outcomes).toEqual(Array.from({ length: rounds }, () => ['done', 'last-admin']));
}

/** Disabling through `other` ends the sessions `adapter` reads, of the user and of an admin acting as them. */
async function disabledOnOtherProcess(adapter: Required<Adapter>, other: Required<Adapter>): Promise<void> {
  const user = await createUser(adapter, 'disabled');
  const bystander = await createUser(adapter, 'bystander');
  const expires = new Date(Date.now() + 3_600_000);
  const [session, kept] = [randomUUID(), randomUUID()];
  await adapter.createSession({ sessionToken: session, userId: user.id, expires, createdAt: new Date(), lastSeenAt: new Date(), userAgent: null });
  await adapter.createSession({ sessionToken: kept, userId: bystander.id, expires });
  expect((await adapter.getSessionAndUser(session))?.user.id).toBe(user.id);
  expect((await adapter.getSessionAndUserForRead(session))?.user.id).toBe(user.id);
  expect(await other.disableUser(user.id, { at: new Date(), reason: 'Compromised' })).toBe(1);
  expect(await adapter.getSessionAndUser(session)).toBeNull();
  expect(await adapter.getSessionAndUserForRead(session)).toBeNull();
  expect((await adapter.getAdminState(user.id)).disabledReason).toBe('Compromised');
  expect((await adapter.getSessionAndUser(kept))?.user.id).toBe(bystander.id);
}

describe('the last admin under two app processes (SPEC §15)', () => {
  it('PostgreSQL: two processes revoking the last two admins, each the other, 50 times, leave one admin each time', async () => {
    await adminsAfterConcurrentRevocations(await postgresDatabase());
  }, 120_000);

  it('SQLite (one file): two processes revoking the last two admins, each the other, 50 times, leave one admin each time', async () => {
    await adminsAfterConcurrentRevocations(sqliteDatabase());
  }, 120_000);
});

describe('a disabled user on two app processes (SPEC §15)', () => {
  it("PostgreSQL: disabling through one pool ends the user's session as another pool reads it", async () => {
    const { url, adapter } = await postgresDatabase();
    await disabledOnOtherProcess(adapter, postgresAdapter(url));
  });

  it("SQLite (one file): disabling through one connection ends the user's session as another connection reads it", async () => {
    const { url, adapter } = sqliteDatabase();
    await disabledOnOtherProcess(adapter, sqliteAdapter(url));
  });
});
