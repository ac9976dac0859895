/**
 * The tables of the features a project has (`Feature.storage`), as each SQL adapter creates them: one `TableSpec`
 * becomes SQLite's or PostgreSQL's `CREATE TABLE IF NOT EXISTS`. Copied with either SQL adapter.
 */
import type { Feature } from '../contracts.js';
import { featuresOf } from '../config.js';
import type { ColumnType, TableSpec } from '../features/database/adapter.js';

const columnTypes: Readonly<Record<'sqlite' | 'postgres', Readonly<Record<ColumnType, string>>>> = {
  // SQLite keeps dates as milliseconds since the epoch and booleans as 0/1.
  sqlite: { text: 'TEXT', integer: 'INTEGER', bigint: 'INTEGER', date: 'INTEGER', boolean: 'INTEGER' },
  postgres: { text: 'text', integer: 'integer', bigint: 'bigint', date: 'timestamptz', boolean: 'boolean' },
};

/** The statements that create a table and its indexes when they are missing. */
export function createTableSql(dialect: 'sqlite' | 'postgres', table: TableSpec): string {
  const columns = Object.entries(table.columns).map(([name, type]) => {
    const constraints = [
      table.nullable?.includes(name) ? '' : ' NOT NULL',
      table.unique?.includes(name) ? ' UNIQUE' : '',
      // A feature's rows belong to a user, and go with it.
      name === 'user_id' ? ' REFERENCES users (id) ON DELETE CASCADE' : '',
    ];
    return `  ${name} ${columnTypes[dialect][type]}${constraints.join('')}`;
  });
  const indexes = (table.indexes ?? []).map((column) => `CREATE INDEX IF NOT EXISTS ${table.name}_${column}_index ON ${table.name} (${column});`);
  return [`CREATE TABLE IF NOT EXISTS ${table.name} (\n${[...columns, `  PRIMARY KEY (${table.primaryKey.join(', ')})`].join(',\n')}\n);`, ...indexes].join('\n');
}

/** The tables of these features and of those each brings beside it (`featuresOf`), each once, in list order. */
export function featureTables(features: readonly Feature[]): TableSpec[] {
  const byName = new Map<string, TableSpec>();
  for (const table of featuresOf({ features }).flatMap((feature) => feature.storage?.tables ?? [])) if (!byName.has(table.name)) byName.set(table.name, table);
  return [...byName.values()];
}
