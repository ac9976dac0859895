/**
 * The built-in adapters' `features` option (issue 46): features own their storage, so a bare adapter has the core's
 * tables and methods only, and an app that uses it without a config of ours (as `@auth/express`'s adapter, see
 * test/compat/authjs-passkey.test.ts) gives it the features it needs when it makes it. A config that has the same
 * features later adds nothing twice. Run on each adapter: in memory, on a SQLite file, on PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter, migrate } from '../../templates/runtime/adapters/sqlite.js';
import { resolveConfig } from '../../templates/runtime/config.js';
import type { Feature } from '../../templates/runtime/contracts.js';
import type { Adapter, AdapterFeaturesOption } from '../../templates/runtime/features/database/adapter.js';
import { Account } from '../../templates/runtime/features/account/index.js';
import { passkeys } from '../../templates/runtime/features/passkey/index.js';
import type { AdapterAuthenticator } from '../../templates/runtime/features/passkey/storage.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import { createTestPool, startPostgres, type RunningPostgres } from '../support/postgres.js';
import { SECRET } from '../runtime/helpers.js';

const authenticatorMethods = ['createAuthenticator', 'getAuthenticator', 'listAuthenticatorsByUserId', 'updateAuthenticatorCounter', 'deleteAuthenticator'] as const;

/** A new user with a passkey, written through the adapter. */
async function userWithPasskey(adapter: Adapter): Promise<AdapterAuthenticator> {
  const user = await adapter.createUser!({ id: randomUUID(), email: `${randomUUID()}@example.test`, emailVerified: null });
  const credentialID = randomUUID();
  await adapter.linkAccount!({ provider: 'passkey', providerAccountId: credentialID, type: 'webauthn', userId: user.id });
  return adapter.createAuthenticator!({
    credentialID,
    providerAccountId: credentialID,
    userId: user.id,
    credentialPublicKey: 'public-key',
    counter: 0,
    credentialDeviceType: 'multiDevice',
    credentialBackedUp: true,
    transports: 'internal',
  });
}

/** Makes an adapter of one kind on a store of its own. */
type MakeAdapter = (option: AdapterFeaturesOption) => Promise<Adapter>;

function runFeaturesOption(name: string, make: MakeAdapter): void {
  describe(`${name}'s features option`, () => {
    it('has none of the authenticator methods when made bare', async () => {
      const adapter = await make({});
      for (const method of authenticatorMethods) expect(adapter[method], method).toBeUndefined();
    });

    it('has the authenticators table and methods from its creation with features: [passkeys]', async () => {
      const adapter = await make({ features: [passkeys] });
      const created = await userWithPasskey(adapter);
      expect(await adapter.getAuthenticator!(created.credentialID)).toEqual(created);
      expect(await adapter.listAuthenticatorsByUserId!(created.userId)).toEqual([created]);
    });

    it('keeps its methods and its authenticators when a config with Passkey() hands it the same feature', async () => {
      const adapter = await make({ features: [passkeys] });
      const created = await userWithPasskey(adapter);
      const methods = authenticatorMethods.map((method) => adapter[method]);
      resolveConfig({ adapter, providers: [Passkey()], secret: SECRET }, {});
      expect(authenticatorMethods.map((method) => adapter[method])).toEqual(methods);
      expect(await adapter.updateAuthenticatorCounter!(created.credentialID, 7)).toEqual({ ...created, counter: 7 });
      expect(await adapter.listAuthenticatorsByUserId!(created.userId)).toEqual([{ ...created, counter: 7 }]);
    });

    it('takes the features a feature brings beside it: Account() brings the security events', async () => {
      const adapter = await make({ features: [Account({ sendMessage: () => {} })] });
      expect(typeof adapter.setEmailChange).toBe('function');
      expect(typeof adapter.createSecurityEvent).toBe('function');
    });

    it('refuses something that is not a feature, naming the option', async () => {
      await expect(make({ features: [undefined as unknown as Feature] })).rejects.toThrow(new TypeError("The adapter's `features` holds something that is not a feature (see `Feature` in contracts.ts)"));
    });
  });
}

runFeaturesOption('MemoryAdapter', async (option) => MemoryAdapter(option));

let folder: string;
const files: Database.Database[] = [];
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'framework-auth-adapter-features-'));
});
afterAll(async () => {
  for (const file of files.splice(0)) file.close();
  await rm(folder, { recursive: true, force: true });
});
runFeaturesOption('SqliteAdapter', async (option) => {
  const database = new Database(join(folder, `${randomUUID()}.db`));
  files.push(database);
  return SqliteAdapter({ database, ...option });
});

describe("SQLite's migrate()", () => {
  it('takes the same features as the adapter: Account() creates its table and that of the security events it brings', () => {
    const database = new Database(':memory:');
    try {
      expect(migrate({ database, features: [Account({ sendMessage: () => {} })] })).toEqual(expect.arrayContaining(['email_changes', 'security_events', 'rate_limits']));
    } finally {
      database.close();
    }
  });
});

let postgres: RunningPostgres | undefined;
const pools: Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
  await postgres?.stop();
});
// Each adapter on a schema of its own, so that every one starts without tables.
runFeaturesOption('PostgresAdapter', async (option) => {
  postgres ??= await startPostgres();
  const schema = `features_${randomUUID().replaceAll('-', '')}`;
  const admin = createTestPool({ connectionString: postgres.url });
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const pool = createTestPool({ connectionString: postgres.url, options: `-c search_path=${schema}` });
  pools.push(pool);
  return PostgresAdapter({ pool, ...option });
});
