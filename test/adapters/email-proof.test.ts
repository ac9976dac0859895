// Issue #14, item 2 ("an email links identities only once proven") on a real PostgreSQL: the same flows as on the
// memory adapter and SQLite (test/runtime/email-proof-suite.ts), each app with its own schema.
import type { Pool } from 'pg';
import { afterAll, beforeAll } from 'vitest';

import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { runEmailProofSuite } from '../runtime/email-proof-suite.js';
import { createTestPool, startPostgres, type RunningPostgres } from '../support/postgres.js';

let postgres: RunningPostgres;
const pools: Pool[] = [];
let schemas = 0;

beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
  await postgres?.stop();
});

runEmailProofSuite('the PostgreSQL adapter', async () => {
  const schema = `email_proof_${++schemas}`;
  const admin = createTestPool({ connectionString: postgres.url });
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const pool = createTestPool({ connectionString: postgres.url, options: `-c search_path=${schema}` });
  // The server stops at the end while ended clients may still be closing: their last 'error' is expected then.
  pool.on('connect', (client) => void client.on('error', () => {}));
  pools.push(pool);
  return PostgresAdapter({ pool });
});
