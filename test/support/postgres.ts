/**
 * A private PostgreSQL server for tests: its own cluster in a temp folder, listening on 127.0.0.1 on a free port
 * (never 5432, so a cluster the Debian package started is left alone), with its unix socket in the same folder.
 * Needs the server binaries (Debian package `postgresql`; scripts/test-all.sh installs it when missing).
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Pool } from 'pg';
import type { PoolConfig } from 'pg';
import { freePort } from './listen.js';

const run = promisify(execFile);

/** A running private PostgreSQL server. */
export interface RunningPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/test`: trust authentication, so no password. */
  url: string;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** The folder with `initdb` and `pg_ctl`: the newest version under /usr/lib/postgresql, or else the PATH. */
function findBinaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0]) return join(root, versions[0], 'bin');
  for (const folder of (process.env.PATH ?? '').split(':')) {
    if (folder && existsSync(join(folder, 'initdb')) && existsSync(join(folder, 'pg_ctl'))) return folder;
  }
  throw new Error(
    'PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin or on the PATH. ' +
      'Install them: apt-get install -y postgresql (scripts/test-all.sh does this on Debian).',
  );
}

/**
 * initdb refuses to run as root, so as root the cluster belongs to the `postgres` OS user (created when missing,
 * as the Debian package would) and every server command runs through runuser.
 */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** Starts a fresh cluster with one database, `test`. About a second; call it in `beforeAll`. */
export async function startPostgres(): Promise<RunningPostgres> {
  const binaries = findBinaries();
  const owner = serverUser();
  const folder = await mkdtemp(join(tmpdir(), 'framework-auth-pg-'));
  const dataDir = join(folder, 'data');
  const logFile = join(folder, 'server.log');
  if (owner) {
    chownSync(folder, owner.uid, owner.gid);
    chmodSync(folder, 0o700);
  }
  const asServerUser = (command: string, args: string[]): Promise<unknown> =>
    owner ? run('runuser', ['-u', 'postgres', '--', join(binaries, command), ...args]) : run(join(binaries, command), args);

  let started = false;
  const stopSync = (): void => {
    if (started) {
      try {
        const args = ['-D', dataDir, '-m', 'immediate', '-w', 'stop'];
        if (owner) execFileSync('runuser', ['-u', 'postgres', '--', join(binaries, 'pg_ctl'), ...args], { stdio: 'ignore' });
        else execFileSync(join(binaries, 'pg_ctl'), args, { stdio: 'ignore' });
      } catch {
        // Already stopped.
      }
      started = false;
    }
    rmSync(folder, { recursive: true, force: true });
  };
  // A test run that ends without stop() (a failed beforeAll, Ctrl-C) must not leave a server behind.
  process.once('exit', stopSync);

  try {
    // Test data only: no fsync, trust authentication for the local user, a fixed locale.
    await asServerUser('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync']);
    let port = 0;
    for (let attempt = 1; !started; attempt += 1) {
      port = await freePort();
      const serverOptions = `-h 127.0.0.1 -p ${port} -k ${folder} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
      try {
        await asServerUser('pg_ctl', ['-D', dataDir, '-l', logFile, '-o', serverOptions, '-w', '-t', '30', 'start']);
        started = true;
      } catch (error) {
        // Another process took the port between freePort() and the server's bind: try another one.
        if (attempt >= 3) throw error;
      }
    }
    const admin = new Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    try {
      await admin.query('CREATE DATABASE test');
    } finally {
      await admin.end();
    }
    return {
      url: `postgres://postgres@127.0.0.1:${port}/test`,
      async stop() {
        process.removeListener('exit', stopSync);
        if (started) {
          await asServerUser('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
          started = false;
        }
        rmSync(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    const log = await readFile(logFile, 'utf8').catch(() => '');
    stopSync();
    process.removeListener('exit', stopSync);
    throw new Error(`Could not start a private PostgreSQL server${log ? `:\n${log}` : ''}`, { cause: error });
  }
}

/**
 * A pg Pool for a test's own queries. `pool.end()` resolves before its connections have finished closing, so a
 * server stopped right after can still terminate one ("terminating connection due to administrator command"): pg
 * reports that as an 'error' on the pool, which without a listener ends the test process. Only that is ignored.
 */
export function createTestPool(config: PoolConfig): Pool {
  const pool = new Pool(config);
  pool.on('error', (error: Error & { code?: string }) => {
    if (error.code !== '57P01') throw error;
  });
  return pool;
}
