// Review 5, A5: what a deleted account leaves in PostgreSQL's files, and the erasure that SECURITY.md gives operators
// ("Erasing a deleted account"), run as written. The files are read through the server (`pg_read_binary_file`, as the
// superuser the test server runs as), after a CHECKPOINT has written the pages out.
import { readFileSync } from 'node:fs';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { withAllFeatures } from '../support/all-features.js';
import { createTestPool, startPostgres } from '../support/postgres.js';
import type { RunningPostgres } from '../support/postgres.js';

let server: RunningPostgres;
let pool: Pool;

beforeAll(async () => {
  server = await startPostgres();
  pool = createTestPool({ connectionString: server.url });
});

afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

/** The statements of the SQL block in SECURITY.md's "Erasing a deleted account". */
function erasureStatements(): string[] {
  const security = readFileSync(new URL('../../SECURITY.md', import.meta.url), 'utf8');
  const section = security.slice(security.indexOf('## Erasing a deleted account'));
  const block = /```sql\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split(';').map((statement) => statement.trim()).filter(Boolean);
}

/** The tables SECURITY.md's `VACUUM (FULL)` names. */
function vacuumedTables(): string[] {
  const vacuum = erasureStatements().find((statement) => statement.startsWith('VACUUM (FULL) ')) ?? '';
  return vacuum.slice('VACUUM (FULL) '.length).split(',').map((table) => table.trim());
}

/**
 * A user with `email` among 200 others, a link token for the address, then deleted as `POST /auth/account/delete`
 * deletes it (the user, then the address's tokens), and a CHECKPOINT.
 */
async function deleteUserWithAddress(email: string): Promise<void> {
  const adapter = withAllFeatures(PostgresAdapter({ pool }));
  await adapter.getUser!('nobody');
  await pool.query("INSERT INTO users (id, name, email) SELECT gen_random_uuid(), 'Other', 'other-' || gen_random_uuid() || '@example.test' FROM generate_series(1, 200)");
  const user = await adapter.createUser!({ id: crypto.randomUUID(), name: 'Erin', email, emailVerified: new Date() });
  await adapter.createVerificationToken!({ identifier: email, token: 'digest-of-a-link', expires: new Date(Date.now() + 3_600_000) });
  await adapter.deleteUser!(user.id);
  await adapter.deleteVerificationTokens!(email);
  expect((await pool.query('SELECT 1 FROM users WHERE email = $1', [email])).rows).toEqual([]);
  await pool.query('CHECKPOINT');
}

/** The relations of `table` whose files hold `text`: the table itself and its indexes, by name. */
async function relationsHolding(table: string, text: string): Promise<string[]> {
  const { rows } = await pool.query<{ name: string; bytes: Buffer }>(
    `SELECT relation.relname AS name, pg_read_binary_file(pg_relation_filepath(relation.oid)) AS bytes
       FROM pg_class relation
      WHERE relation.oid = $1::regclass OR relation.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = $1::regclass)`,
    [table],
  );
  return rows.filter((row) => row.bytes.includes(text)).map((row) => row.name);
}

/** Whether any segment in pg_wal holds `text`. */
async function walHolds(text: string): Promise<boolean> {
  const { rows } = await pool.query<{ name: string }>("SELECT name FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}$'");
  for (const { name } of rows) {
    const { rows: [segment] } = await pool.query<{ bytes: Buffer }>('SELECT pg_read_binary_file($1) AS bytes', [`pg_wal/${name}`]);
    if (segment!.bytes.includes(text)) return true;
  }
  return false;
}

describe('a deleted account on PostgreSQL (review 5, A5)', () => {
  it("keeps the address in the users table's file and in users_email_key after the delete", async () => {
    await deleteUserWithAddress('erin.kept@example.test');
    expect(await relationsHolding('users', 'erin.kept@example.test')).toEqual(expect.arrayContaining(['users', 'users_email_key']));
  });

  it("leaves it in no table's or index's file after the VACUUM (FULL) and CHECKPOINT of SECURITY.md", async () => {
    await deleteUserWithAddress('erin.erased@example.test');
    expect(await relationsHolding('users', 'erin.erased@example.test')).not.toEqual([]);
    for (const statement of erasureStatements()) await pool.query(statement);
    const holding = await Promise.all(vacuumedTables().map((table) => relationsHolding(table, 'erin.erased@example.test')));
    expect(holding.flat()).toEqual([]);
  });

  it('names in that VACUUM (FULL) every table the features create but rate_limits, whose keys are keyed hashes', async () => {
    await deleteUserWithAddress('erin.tables@example.test');
    // auth_migrations is the adapter's ledger of schema steps (their ids), not a feature's: it holds nothing of a user.
    const { rows } = await pool.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('rate_limits', 'auth_migrations')");
    expect(vacuumedTables().sort()).toEqual(rows.map((row) => row.tablename).sort());
  });

  it('still finds the address in the WAL after them, until its segments are reused', async () => {
    await deleteUserWithAddress('erin.logged@example.test');
    for (const statement of erasureStatements()) await pool.query(statement);
    expect(await walHolds('erin.logged@example.test')).toBe(true);
  });
});
