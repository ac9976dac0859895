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
  /** The factory's named export in the runtime file, imported by that name in `src/auth/config.ts`. */
  readonly importName: string | null;
  /** The factory's module, relative to `src/auth/config.ts`. */
  readonly importPath: string | null;
  /** The value written as `adapter:` in the config. */
  readonly snippet: string | null;
  /** Env vars with their default values (written to `.env`; `.env.example` gets the same default). */
  readonly env: Readonly<Record<string, string>>;
  /** The `#` lines above the env vars in `.env` and `.env.example`. */
  readonly envComment: readonly string[];
  /**
   * Runtime dependencies, name → range. The range here is a fallback: generated projects get the range this repo
   * tests the runtime with (its package.json), see `testedRanges`.
   */
  readonly dependencies: Readonly<Record<string, string>>;
  /** Dev dependencies (the driver's types), name → fallback range as for {@link dependencies}. */
  readonly devDependencies: Readonly<Record<string, string>>;
  /**
   * Dependencies whose install script must run (a native build). npm 11 skips dependency install scripts unless
   * package.json `allowScripts` names them; pnpm wants `pnpm.onlyBuiltDependencies`, bun `trustedDependencies`.
   */
  readonly installScripts: readonly string[];
  /** `.gitignore` lines for files the adapter creates in the project (a database file). */
  readonly gitignore: readonly string[];
  /** Whether the runtime file exports `migrate()`, which `framework-auth migrate` runs. */
  readonly migrate: boolean;
  /** Why `framework-auth migrate` has nothing to do for a config with this adapter (adapters without `migrate`). */
  readonly noMigration?: string;
}

/** The URL form shown in `.env` and in messages for PostgreSQL. */
export const postgresUrlExample = 'postgres://user:password@127.0.0.1:5432/app';

/** Storage choices: one list for the prompt, `--adapter`, the config, `.env`, dependencies and `migrate`. */
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
    envComment: [],
    dependencies: {},
    devDependencies: {},
    installScripts: [],
    gitignore: [],
    migrate: false,
    noMigration: 'sets no adapter (JWT sessions in a cookie): there is no database to create tables in',
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
    envComment: [],
    dependencies: {},
    devDependencies: {},
    installScripts: [],
    gitignore: [],
    migrate: false,
    noMigration: 'uses the memory adapter, which keeps everything in memory: there are no tables to create',
  },
  {
    id: 'sqlite',
    name: 'SQLite',
    hint: 'database sessions in a local file',
    runtimeFile: 'adapters/sqlite.ts',
    importName: 'SqliteAdapter',
    importPath: './core/adapters/sqlite.js',
    snippet: 'SqliteAdapter()',
    env: { DATABASE_URL: 'file:./data/auth.db' },
    envComment: [
      'SQLite adapter: the database file (a file: URL or a path, relative to where the app starts).',
      'Its tables are created on first use, or now with `npx framework-auth migrate`.',
    ],
    dependencies: { 'better-sqlite3': '^12.11.1' },
    devDependencies: { '@types/better-sqlite3': '^9.6.0' },
    installScripts: ['better-sqlite3'],
    gitignore: ['data/'],
    migrate: true,
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
    envComment: [
      `PostgreSQL adapter: the connection URL, e.g. ${postgresUrlExample}`,
      'Then create the tables with `npx framework-auth migrate`.',
    ],
    dependencies: { pg: '^8.23.1' },
    devDependencies: { '@types/pg': '^8.23.1' },
    installScripts: [],
    gitignore: [],
    migrate: true,
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

/** The catalog entry whose factory lives in `module` (normalised: `core/adapters/sqlite`), or undefined. */
export function findAdapterByModule(module: string): (typeof adapterCatalog)[number] | undefined {
  return adapterCatalog.find((entry) => entry.importPath !== null && entry.importPath.replace(/^\.\//, '').replace(/\.js$/, '') === module);
}

/** The ids of the adapters `framework-auth migrate` works for. */
export const migratableAdapterIds: readonly AdapterId[] = adapterCatalog.filter((entry) => entry.migrate).map((entry) => entry.id);
