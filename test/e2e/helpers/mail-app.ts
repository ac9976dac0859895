/**
 * A compiled scaffold that sends mail, as the password and two-factor e2e tests start it: created with `flags`,
 * linked to the shared dependencies, compiled, given a real SMTP server on loopback (and PostgreSQL for that
 * adapter), migrated, and started `processes` times on one database. Also what its database stores, as text.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgres } from '../../support/postgres.js';
import type { RunningPostgres } from '../../support/postgres.js';
import { startSmtpServer } from '../../support/smtp-server.js';
import type { RunningSmtpServer } from '../../support/smtp-server.js';
import { compileProject, fillEnv, makeTempDir, runBuiltCli, startApp } from './project.js';
import type { RunningApp } from './project.js';
import { linkProjectDeps, prepareSharedDeps } from './shared-deps.js';

export interface MailApp {
  projectDir: string;
  compile: { exitCode: number; output: string };
  smtp: RunningSmtpServer;
  postgres: RunningPostgres | undefined;
  apps: RunningApp[];
  stop(): Promise<void>;
}

export async function startMailApp(adapter: 'sqlite' | 'postgres', flags: readonly string[], processes: number): Promise<MailApp> {
  await prepareSharedDeps();
  const root = await makeTempDir();
  const scaffold = await runBuiltCli('create', ['app', ...flags, '--adapter', adapter, '--yes', '--no-install'], { cwd: root });
  if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
  const projectDir = join(root, 'app');
  await linkProjectDeps(projectDir, adapter === 'sqlite' ? ['better-sqlite3'] : []);
  const compile = await compileProject(projectDir);
  const smtp = await startSmtpServer();
  const postgres = adapter === 'postgres' ? await startPostgres() : undefined;
  await fillEnv(projectDir, { AUTH_EMAIL_SERVER: smtp.url, AUTH_EMAIL_FROM: 'App <auth@app.example.test>', ...(postgres ? { DATABASE_URL: postgres.url } : {}) });
  const migrate = await runBuiltCli('frameworkAuth', ['migrate'], { cwd: projectDir });
  if (migrate.exitCode !== 0) throw new Error(`migrate failed: ${migrate.stdout}\n${migrate.stderr}`);
  const apps: RunningApp[] = [];
  for (let index = 0; index < processes; index += 1) apps.push(await startApp(projectDir));
  return {
    projectDir,
    compile,
    smtp,
    postgres,
    apps,
    async stop() {
      await Promise.all(apps.map((app) => app.stop()));
      await smtp.close();
      await postgres?.stop();
    },
  };
}

/** Everything the app's database holds, as text: the SQLite files (WAL included) or every PostgreSQL table's rows. */
export async function storedText(app: MailApp): Promise<string> {
  if (!app.postgres) {
    const dataDir = join(app.projectDir, 'data');
    return (await Promise.all((await readdir(dataDir)).map((file) => readFile(join(dataDir, file))))).map((bytes) => bytes.toString('latin1')).join('\n');
  }
  const client = new pg.Client({ connectionString: app.postgres.url });
  await client.connect();
  try {
    const tables = (await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).rows.map((row) => row.table_name);
    return (await Promise.all(tables.map(async (table) => JSON.stringify((await client.query(`SELECT * FROM "${table}"`)).rows)))).join('\n');
  } finally {
    await client.end();
  }
}
