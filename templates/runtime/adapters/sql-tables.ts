/**
 * The schema of the SQL adapters as migration steps, and the ledger of the steps a database has. Each feature's
 * tables and the columns it adds to other tables (`Feature.storage`) become steps with stable ids, after the core's
 * (written out in each adapter): `table:<name>`, `index:<name>`, `column:<table>.<column>`. A database records the
 * steps it has in `auth_migrations`; each adapter's runner applies the missing ones in order in one transaction, and
 * first checks whether a step's table, index or column is already there (a database made before the ledger existed
 * has them), in which case the step is only recorded. Copied with either SQL adapter.
 */
import type { Feature } from '../contracts.js';
import { featuresOf } from '../config.js';
import { type AddedColumn, type ColumnReference, type ColumnType, type TableSpec, refersToUser } from '../features/database/adapter.js';

type Dialect = 'sqlite' | 'postgres';

/** One step of the schema: what it creates (checked before it runs) and the statement that creates it. */
export interface MigrationStep {
  id: string;
  creates: { table: string; column?: string } | { index: string };
  sql: string;
  /** The columns it creates that refer to a user (`users (id)`), and what deleting the user does to their rows. */
  userColumns?: readonly { column: string; onDelete: ColumnReference['onDelete'] }[];
}

/** A step a migration ran or recorded: its SQL is empty when what it creates was already there. */
export interface AppliedStep {
  id: string;
  sql: string;
}

/** What an adapter's `migrate()` takes beside the adapter's options. */
export interface MigrateOptions {
  /** Changes nothing: `onStep` is called with each step that would run, and the SQL it would run. */
  dryRun?: boolean;
  /** Called with each step the migration ran, or recorded only (its SQL empty: what it creates was there). */
  onStep?: (step: AppliedStep) => void;
}

/** The ledger: one row per step the database has. */
export const ledgerTable = 'auth_migrations';

export const ledgerSql: Readonly<Record<Dialect, string>> = {
  sqlite: `CREATE TABLE IF NOT EXISTS ${ledgerTable} (\n  id TEXT NOT NULL PRIMARY KEY,\n  applied_at INTEGER NOT NULL\n);`,
  postgres: `CREATE TABLE IF NOT EXISTS ${ledgerTable} (\n  id text PRIMARY KEY,\n  applied_at timestamptz NOT NULL\n);`,
};

const columnTypes: Readonly<Record<Dialect, Readonly<Record<ColumnType, string>>>> = {
  // SQLite keeps dates as milliseconds since the epoch and booleans as 0/1.
  sqlite: { text: 'TEXT', integer: 'INTEGER', bigint: 'INTEGER', date: 'INTEGER', boolean: 'INTEGER' },
  postgres: { text: 'text', integer: 'integer', bigint: 'bigint', date: 'timestamptz', boolean: 'boolean' },
};

/** A `user_id` column refers to its user unless the table says otherwise. */
const userReference: ColumnReference = { table: 'users', onDelete: 'cascade' };

function referenceOf(table: TableSpec, column: string): ColumnReference | null {
  const declared = table.references?.[column];
  if (declared !== undefined) return declared;
  return column === 'user_id' ? userReference : null;
}

function referenceSql(reference: ColumnReference | null | undefined): string {
  return reference ? ` REFERENCES ${reference.table} (${reference.column ?? 'id'}) ON DELETE ${reference.onDelete.toUpperCase()}` : '';
}

/** The statement that creates a table when it is missing (its single-column unique constraints inline). */
function createTableSql(dialect: Dialect, table: TableSpec): string {
  const columns = Object.entries(table.columns).map(([name, type]) => {
    const constraints = [
      table.nullable?.includes(name) ? '' : ' NOT NULL',
      table.unique?.includes(name) ? ' UNIQUE' : '',
      referenceSql(referenceOf(table, name)),
    ];
    return `  ${name} ${columnTypes[dialect][type]}${constraints.join('')}`;
  });
  return `CREATE TABLE IF NOT EXISTS ${table.name} (\n${[...columns, `  PRIMARY KEY (${table.primaryKey.join(', ')})`].join(',\n')}\n);`;
}

function indexStep(table: string, columns: readonly string[], unique: boolean): MigrationStep {
  const name = `${table}_${columns.join('_')}_${unique ? 'unique' : 'index'}`;
  return { id: `index:${name}`, creates: { index: name }, sql: `CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${name} ON ${table} (${columns.join(', ')});` };
}

/** A table's steps: the table, then its composite unique constraints, then its indexes. */
function tableSteps(dialect: Dialect, table: TableSpec): MigrationStep[] {
  return [
    {
      id: `table:${table.name}`,
      creates: { table: table.name },
      sql: createTableSql(dialect, table),
      userColumns: Object.keys(table.columns).flatMap((column) => {
        const reference = referenceOf(table, column);
        return refersToUser(reference) ? [{ column, onDelete: reference.onDelete }] : [];
      }),
    },
    ...(table.unique ?? []).filter((entry) => typeof entry !== 'string').map((columns) => indexStep(table.name, columns, true)),
    ...(table.indexes ?? []).map((entry) => indexStep(table.name, typeof entry === 'string' ? [entry] : entry, false)),
  ];
}

function literal(dialect: Dialect, value: string | number | boolean): string {
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  if (typeof value === 'boolean') return dialect === 'sqlite' ? String(Number(value)) : String(value);
  return String(value);
}

/** The steps of a column added to an existing table: the column, then its index. */
export function columnSteps(dialect: Dialect, column: AddedColumn): MigrationStep[] {
  const { table, name } = column;
  // Checked here too for JavaScript projects, which no compiler holds to the type.
  if (!column.nullable && column.default === undefined) throw new TypeError(`The column ${table}.${name} is added to an existing table: it must be nullable or have a default`);
  const definition = `${column.name} ${columnTypes[dialect][column.type]}${column.nullable ? '' : ` NOT NULL DEFAULT ${literal(dialect, column.default)}`}${referenceSql(column.references)}`;
  // PostgreSQL checks in the statement; SQLite has no IF NOT EXISTS for columns: the runner looks first.
  const add = dialect === 'postgres' ? 'ADD COLUMN IF NOT EXISTS' : 'ADD COLUMN';
  return [
    {
      id: `column:${table}.${name}`,
      creates: { table, column: name },
      sql: `ALTER TABLE ${table} ${add} ${definition};`,
      userColumns: refersToUser(column.references) ? [{ column: name, onDelete: column.references.onDelete }] : [],
    },
    ...(column.indexed ? [indexStep(column.table, [column.name], false)] : []),
  ];
}

/** The first of the items with each key, in list order. */
function firstByKey<Item>(items: readonly Item[], key: (item: Item) => string): Item[] {
  const byKey = new Map<string, Item>();
  for (const item of items) if (!byKey.has(key(item))) byKey.set(key(item), item);
  return [...byKey.values()];
}

/**
 * Every step of a database with these features, in order: the core's, then each feature's tables (a table after
 * those it refers to), then the columns the features add to other tables.
 */
export function migrationSteps(dialect: Dialect, core: readonly MigrationStep[], features: readonly Feature[]): MigrationStep[] {
  // The features and those each brings beside it (`featuresOf`); a table or column two of them declare counts once.
  const storages = featuresOf({ features }).flatMap((feature) => feature.storage ?? []);
  const pending = firstByKey(storages.flatMap((storage) => storage.tables), (table) => table.name);
  const columns = firstByKey(storages.flatMap((storage) => storage.columns ?? []), (column) => `${column.table}.${column.name}`);
  const created = new Set(core.flatMap((step) => ('table' in step.creates ? [step.creates.table] : [])));
  const ordered: TableSpec[] = [];
  while (pending.length > 0) {
    const ready = pending.findIndex((table) => Object.keys(table.columns).every((column) => {
      const target = referenceOf(table, column)?.table;
      return target === undefined || target === table.name || created.has(target) || !pending.some((other) => other.name === target);
    }));
    // A cycle of references: the rest in list order (SQLite does not mind; PostgreSQL names the table it misses).
    const [table] = pending.splice(ready === -1 ? 0 : ready, 1);
    ordered.push(table!);
    created.add(table!.name);
  }
  return [...core, ...ordered.flatMap((table) => tableSteps(dialect, table)), ...columns.flatMap((column) => columnSteps(dialect, column))];
}

/** The query that finds what a step creates: a row when it is there (`?` placeholders). */
export function presenceSql(dialect: Dialect, step: MigrationStep): [sql: string, parameters: string[]] {
  const what = step.creates;
  if ('index' in what) {
    return dialect === 'sqlite'
      ? ["SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", [what.index]]
      : ['SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ?', [what.index]];
  }
  if (what.column !== undefined) {
    return dialect === 'sqlite'
      ? ['SELECT 1 FROM pragma_table_info(?) WHERE name = ?', [what.table, what.column]]
      : ['SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?', [what.table, what.column]];
  }
  return dialect === 'sqlite'
    ? ["SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [what.table]]
    : ['SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?', [what.table]];
}

/** The tables a migration with these steps has: the core's and the features', then the ledger. */
export function tableNames(steps: readonly MigrationStep[]): string[] {
  return [...steps.flatMap((step) => ('table' in step.creates && step.creates.column === undefined ? [step.creates.table] : [])), ledgerTable];
}
