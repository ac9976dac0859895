/**
 * The harness of a race between two app processes on one database (the last admin, the last owner): a PostgreSQL
 * server and a folder for SQLite files for the test file, a new database per test, and worker processes (a script under
 * test/support run with tsx) that each answer a line of stdin with a line of stdout. Call it at the top of a test file:
 * it registers the hooks that start and stop the server and end each test's pools and workers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Pool } from 'pg';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Feature } from '../../templates/runtime/contracts.js';
import type { Adapter } from '../../templates/runtime/features/database/adapter.js';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { createTestPool, startPostgres, type RunningPostgres } from './postgres.js';

/** A database no other test uses: its URL for the processes, and an adapter on it for the test's own writes and reads. */
export interface RaceDatabase {
  url: string;
  adapter: Required<Adapter>;
}

/** A worker process, once ready: `send` writes it one request as a JSON line, `answer` reads its next line. */
export interface RaceWorker {
  send(request: object): void;
  answer(): Promise<string>;
}

export interface TwoProcessRace {
  postgresDatabase(): Promise<RaceDatabase>;
  /** Another adapter on the PostgreSQL database at `url`, with its own pool: what another app process has. */
  postgresAdapter(url: string): Required<Adapter>;
  sqliteDatabase(): RaceDatabase;
  /** Another adapter on the SQLite file at `url`, with its own connection. */
  sqliteAdapter(url: string): Required<Adapter>;
  /** Starts the worker on the database at `url` and waits for its `ready` line. */
  startWorker(url: string): Promise<RaceWorker>;
}

/**
 * `name` names the databases and files (`admin-race`: PostgreSQL databases `admin_race_<n>`, SQLite files
 * `admin-race-<n>.db`); `features` are the adapters'; `worker` is the worker script's path from the repository's root.
 */
export function twoProcessRace(options: { name: string; features: readonly Feature[]; worker: string }): TwoProcessRace {
  const { name, features, worker } = options;
  let postgres: RunningPostgres;
  let admin: Pool;
  let folder: string;
  let databases = 0;
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    [postgres, folder] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), `framework-auth-${name}-`))]);
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

  const postgresAdapter = (url: string): Required<Adapter> => {
    const pool = createTestPool({ connectionString: url });
    cleanups.push(() => pool.end());
    return PostgresAdapter({ pool, features: [...features] }) as Required<Adapter>;
  };
  const sqliteAdapter = (url: string): Required<Adapter> => SqliteAdapter({ url, features: [...features] }) as Required<Adapter>;

  return {
    postgresAdapter,
    sqliteAdapter,
    async postgresDatabase() {
      const database = `${name.replaceAll('-', '_')}_${++databases}`;
      await admin.query(`CREATE DATABASE ${database}`);
      const url = new URL(postgres.url);
      url.pathname = `/${database}`;
      return { url: url.href, adapter: postgresAdapter(url.href) };
    },
    sqliteDatabase() {
      const url = `file:${join(folder, `${name}-${++databases}.db`)}`;
      return { url, adapter: sqliteAdapter(url) };
    },
    async startWorker(url) {
      const child: ChildProcess = spawn(join(process.cwd(), 'node_modules/.bin/tsx'), [worker], {
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
      return { send: (request) => void child.stdin!.write(`${JSON.stringify(request)}\n`), answer };
    },
  };
}
