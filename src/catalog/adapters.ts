/** One session/user storage choice. */
export interface AdapterEntry {
  /** Value of `--adapter`. */
  readonly id: string;
  readonly name: string;
  readonly hint: string;
  /**
   * The runtime file this adapter needs under templates/runtime/, or null when it needs none. Until that file
   * exists the adapter is refused with exit 2: the CLI never writes code that cannot run.
   */
  readonly runtimeFile: string | null;
  /** Local name of the factory import in `src/auth/config.ts`. */
  readonly importName: string | null;
  /** The factory's module, relative to `src/auth/config.ts`. */
  readonly importPath: string | null;
  /** The value written as `adapter:` in the config. */
  readonly snippet: string | null;
  /** Env vars with their default values (written to `.env`; `.env.example` gets the same default). */
  readonly env: Readonly<Record<string, string>>;
  readonly dependencies: Readonly<Record<string, string>>;
}

/**
 * Storage choices. `none` works today; the others are completed by the adapters issue, which fixes their import
 * names and snippets together with the runtime files.
 */
export const adapterCatalog = [
  {
    id: 'none',
    name: 'None',
    hint: 'JWT sessions in an encrypted cookie, no database',
    runtimeFile: null,
    importName: null,
    importPath: null,
    snippet: null,
    env: {},
    dependencies: {},
  },
  {
    id: 'memory',
    name: 'Memory',
    hint: 'database sessions kept in memory: tests and demos',
    runtimeFile: 'adapters/memory.ts',
    importName: 'MemoryAdapter',
    importPath: './core/adapters/memory.js',
    snippet: 'MemoryAdapter()',
    env: {},
    dependencies: {},
  },
  {
    id: 'sqlite',
    name: 'SQLite',
    hint: 'database sessions in a local file',
    runtimeFile: 'adapters/sqlite.ts',
    importName: 'SQLiteAdapter',
    importPath: './core/adapters/sqlite.js',
    snippet: 'SQLiteAdapter()',
    env: { DATABASE_URL: 'file:./data/auth.db' },
    dependencies: {},
  },
  {
    id: 'postgres',
    name: 'PostgreSQL',
    hint: 'database sessions in PostgreSQL (pg)',
    runtimeFile: 'adapters/postgres.ts',
    importName: 'PostgresAdapter',
    importPath: './core/adapters/postgres.js',
    snippet: 'PostgresAdapter()',
    env: { DATABASE_URL: '' },
    dependencies: { pg: '^8.16.3' },
  },
] as const satisfies readonly AdapterEntry[];

/** A catalog adapter id. */
export type AdapterId = (typeof adapterCatalog)[number]['id'];

/** Every adapter id, in catalog order. */
export const adapterIds: readonly AdapterId[] = adapterCatalog.map((entry) => entry.id);

/** The adapter chosen when the user accepts the defaults. */
export const defaultAdapterId: AdapterId = 'none';

/** The catalog entry of an adapter id (case-insensitive), or undefined. */
export function findAdapter(id: string): (typeof adapterCatalog)[number] | undefined {
  const wanted = id.trim().toLowerCase();
  return adapterCatalog.find((entry) => entry.id === wanted);
}
