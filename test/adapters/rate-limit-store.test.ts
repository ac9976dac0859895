/**
 * Rate-limit counters in a shared database: two adapters (and two app processes) on one PostgreSQL database or one
 * SQLite file count together, atomically, and ended windows are deleted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Pool } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Adapter } from '../../templates/runtime/features/database/adapter.js';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { withAllFeatures } from '../support/all-features.js';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { createTestPool, startPostgres, type RunningPostgres } from '../support/postgres.js';
import { SECRET } from '../runtime/helpers.js';

let postgres: RunningPostgres;
let admin: Pool;
let folder: string;
let databases = 0;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  [postgres, folder] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), 'framework-auth-rate-limit-'))]);
  admin = createTestPool({ connectionString: postgres.url });
});
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await admin?.end();
  await postgres?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** A database no other test uses, as the URL the adapters and app processes get. */
interface SharedDatabase {
  url: string;
  /** A new adapter on it with every feature's tables and methods (the rate-limit ones among them), with its own
   * connection(s), closed after the test. */
  adapter(): Adapter;
  /** The keys of the rate_limits table. */
  keys(): Promise<string[]>;
}

async function postgresDatabase(): Promise<SharedDatabase> {
  const name = `rate_limits_${++databases}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(postgres.url);
  url.pathname = `/${name}`;
  const probe = createTestPool({ connectionString: url.href });
  cleanups.push(() => probe.end());
  return {
    url: url.href,
    adapter() {
      const pool = createTestPool({ connectionString: url.href });
      cleanups.push(() => pool.end());
      return withAllFeatures(PostgresAdapter({ pool }));
    },
    keys: async () => (await probe.query<{ key: string }>('SELECT key FROM rate_limits ORDER BY key')).rows.map((row) => row.key),
  };
}

async function sqliteDatabase(): Promise<SharedDatabase> {
  const path = join(folder, `shared-${++databases}.db`);
  const open = () => {
    const database = new Database(path);
    cleanups.push(() => void database.close());
    return database;
  };
  return {
    url: `file:${path}`,
    adapter: () => withAllFeatures(SqliteAdapter({ database: open() })),
    keys: async () => (open().prepare('SELECT key FROM rate_limits ORDER BY key').all() as { key: string }[]).map((row) => row.key),
  };
}

/** Starts test/support/rate-limit-app.ts on `database`; resolves with its URL. */
async function startProcess(adapter: 'postgres' | 'sqlite', database: SharedDatabase): Promise<string> {
  const child: ChildProcess = spawn(join(process.cwd(), 'node_modules/.bin/tsx'), ['test/support/rate-limit-app.ts'], {
    cwd: process.cwd(),
    env: { ...process.env, RATE_LIMIT_ADAPTER: adapter, DATABASE_URL: database.url, AUTH_SECRET: SECRET },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  cleanups.push(async () => {
    child.stdin?.end();
    if (child.exitCode === null) await once(child, 'exit');
  });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return chunk.toString().trim();
}

interface Browser {
  url: string;
  jar: CookieJar;
  csrfToken: string;
  ip: string;
}

/** A browser at `ip` talking to the app process at `url`. */
async function browser(url: string, ip: string): Promise<Browser> {
  const jar = createJar();
  const response = await jar.fetch(`${url}/auth/csrf`, { headers: { 'x-forwarded-for': ip } });
  const { csrfToken } = (await response.json()) as { csrfToken: string };
  return { url, jar, csrfToken, ip };
}

async function signIn(who: Browser, username: string, password: string): Promise<number> {
  const form = formBody({ csrfToken: who.csrfToken, username, password });
  const response = await who.jar.fetch(`${who.url}/auth/callback/credentials`, {
    method: 'POST',
    body: form.body,
    headers: { ...form.headers, 'x-forwarded-for': who.ip },
  });
  await response.arrayBuffer();
  // Every sign-in here fails or is refused: a 302 must be the wrong-password redirect, not an error page.
  if (response.status === 302) expect(response.headers.get('location')).toContain('error=CredentialsSignin');
  return response.status;
}

const adapters = [
  ['postgres', postgresDatabase],
  ['sqlite', sqliteDatabase],
] as const;

describe.each(adapters)('rate limits in a shared %s database', (name, createDatabase) => {
  it('gives concurrent hits from two adapters on one key distinct counts', async () => {
    const database = await createDatabase();
    const [first, second] = [database.adapter(), database.adapter()];
    const hits = await Promise.all(Array.from({ length: 40 }, async (_, index) => (index % 2 === 0 ? first : second).hitRateLimit!('shared-key', 60)));
    expect(hits.map((hit) => hit.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    expect(new Set(hits.map((hit) => hit.resetAt.getTime())).size).toBe(1);
  });

  it('starts a new window for a key whose window has ended, seen from the other adapter', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const database = await createDatabase();
    const [first, second] = [database.adapter(), database.adapter()];
    await first.hitRateLimit!('key', 60);
    await second.hitRateLimit!('key', 60);
    vi.setSystemTime(Date.now() + 61_000);
    expect((await second.hitRateLimit!('key', 60)).count).toBe(1);
    expect((await first.hitRateLimit!('key', 60)).count).toBe(2);
  });

  it('deletes ended windows (at most once a minute, on a hit)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const database = await createDatabase();
    const adapter = database.adapter();
    await adapter.hitRateLimit!('short', 10);
    await adapter.hitRateLimit!('long', 600);
    vi.setSystemTime(Date.now() + 30_000);
    await adapter.hitRateLimit!('later', 600);
    expect(await database.keys()).toEqual(['later', 'long', 'short']);
    vi.setSystemTime(Date.now() + 31_000);
    await adapter.hitRateLimit!('last', 600);
    expect(await database.keys()).toEqual(['last', 'later', 'long']);
  });

  it('resets a key for every adapter on the database', async () => {
    const database = await createDatabase();
    const [first, second] = [database.adapter(), database.adapter()];
    await first.hitRateLimit!('key', 60);
    await second.resetRateLimit!('key');
    expect((await first.hitRateLimit!('key', 60)).count).toBe(1);
  });

  describe('two app processes', () => {
    it('count failed sign-ins for one user name together: the sixth is refused on either', async () => {
      const database = await createDatabase();
      const [first, second] = await Promise.all([startProcess(name, database), startProcess(name, database)]);
      const pids = await Promise.all([first, second].map(async (url) => ((await (await fetch(`${url}/pid`)).json()) as { pid: number }).pid));
      expect(pids[0]).not.toBe(pids[1]);
      const browsers = [await browser(first, '203.0.113.1'), await browser(second, '203.0.113.2')] as const;
      const statuses = [];
      for (let attempt = 0; attempt < 5; attempt++) statuses.push(await signIn(browsers[attempt % 2]!, 'ada', 'wrong'));
      expect(statuses).toEqual([302, 302, 302, 302, 302]);
      expect(await signIn(browsers[1], 'ada', 'correct horse')).toBe(429);
      expect(await signIn(browsers[0], 'ada', 'correct horse')).toBe(429);
      // Stored as hashes: no user name, no address.
      const keys = await database.keys();
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.join(' ')).not.toMatch(/ada|203\.0\.113/);
    }, 60_000);

    it('let exactly five of twenty concurrent attempts on one user name through, split across both', async () => {
      const database = await createDatabase();
      const [first, second] = await Promise.all([startProcess(name, database), startProcess(name, database)]);
      const browsers = await Promise.all(Array.from({ length: 20 }, (_, index) => browser(index % 2 === 0 ? first : second, `198.51.100.${index + 1}`)));
      const statuses = await Promise.all(browsers.map((who) => signIn(who, 'ada', 'wrong')));
      expect(statuses.filter((status) => status === 302)).toHaveLength(5);
      expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    }, 60_000);

    it('count one client on both processes together: its 31st attempt is refused', async () => {
      const database = await createDatabase();
      const [first, second] = await Promise.all([startProcess(name, database), startProcess(name, database)]);
      const browsers = [await browser(first, '203.0.113.9'), await browser(second, '203.0.113.9')] as const;
      for (let attempt = 0; attempt < 30; attempt++) expect(await signIn(browsers[attempt % 2]!, `user-${attempt}`, 'wrong')).toBe(302);
      expect(await signIn(browsers[0], 'ada', 'correct horse')).toBe(429);
      expect(await signIn(browsers[1], 'ada', 'correct horse')).toBe(429);
    }, 60_000);
  });
});
