/**
 * An organization always keeps an owner, also under two concurrent changes from two app processes (SPEC §14, issue
 * 48): two processes (test/support/organization-owners-worker.ts) share one database; for each of 50 organizations
 * with exactly two owners, each process at the same moment removes or demotes one of them. Afterwards every
 * organization has an owner, and of each pair of changes exactly one was done and the other refused as the last
 * owner's. On PostgreSQL the rule holds by the lock on the organization's row taken before the conditional write
 * (storage.ts `lockOrganization`): without it, both changes read the other owner as still there and both go through.
 * On SQLite, by its single writer.
 */
import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Adapter, AdapterUser } from '../../templates/runtime/features/database/adapter.js';
import { Organizations } from '../../templates/runtime/features/organizations/index.js';
import { twoProcessRace } from '../support/two-process-race.js';

const organizations = 50;
const { postgresDatabase, sqliteDatabase, startWorker } = twoProcessRace({
  name: 'owners-race',
  features: [Organizations()],
  worker: 'test/support/organization-owners-worker.ts',
});

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
      await ownersAfterConcurrentChanges(sqliteDatabase(), ['remove', 'remove']);
      await ownersAfterConcurrentChanges(sqliteDatabase(), ['demote', 'demote']);
    }, 120_000);
  });
});
