// Issue #14, item 2 ("an email links identities only once proven") on the memory adapter and a real SQLite file;
// the suite itself is in email-proof-suite.ts (test/adapters runs it on PostgreSQL).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll } from 'vitest';

import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';

import { runEmailProofSuite } from './email-proof-suite.js';

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

runEmailProofSuite('the memory adapter', async () => MemoryAdapter());
runEmailProofSuite('the SQLite adapter', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'framework-auth-email-proof-'));
  folders.push(folder);
  return SqliteAdapter({ url: `file:${join(folder, 'auth.db')}` });
});
