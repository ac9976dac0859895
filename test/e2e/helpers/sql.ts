/**
 * One connection to a started scaffold's database beside its processes (the SQLite file, or PostgreSQL), for e2e tests
 * that read or set rows the app wrote.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { MailApp } from './mail-app.js';

export type Row = Record<string, unknown>;

/** One connection to the app's database (`?` parameters become `$n` for PostgreSQL). */
export interface Sql {
  all(sql: string, parameters?: unknown[]): Promise<Row[]>;
  /** A time as the database stores it (milliseconds in SQLite, a timestamptz in PostgreSQL). */
  time(ms: number): unknown;
  close(): Promise<void>;
}

export async function openSql(mail: MailApp): Promise<Sql> {
  if (!mail.postgres) {
    const database = new Database(join(mail.projectDir, 'data/auth.db'), { fileMustExist: true });
    // The apps write to the same file: wait for their locks rather than fail.
    database.pragma('busy_timeout = 5000');
    return {
      all: (sql, parameters = []) => {
        const statement = database.prepare(sql);
        return Promise.resolve(statement.reader ? (statement.all(...parameters) as Row[]) : (statement.run(...parameters), []));
      },
      time: (ms) => ms,
      close: () => Promise.resolve(void database.close()),
    };
  }
  const client = new pg.Client({ connectionString: mail.postgres.url });
  await client.connect();
  return {
    all: async (sql, parameters = []) => {
      let index = 0;
      return (await client.query(sql.replace(/\?/g, () => `$${(index += 1)}`), parameters)).rows as Row[];
    },
    time: (ms) => new Date(ms),
    close: () => client.end(),
  };
}
