/**
 * The database adapter interface, method for method as Auth.js's `Adapter`, so that existing `@auth/*-adapter`
 * packages can be passed as `adapter`: the database feature declares its methods on the core's `Adapter` (contracts.ts), which a
 * project without an adapter keeps empty. Every method is optional; each feature checks for the ones it needs.
 */
import { AdapterError, MissingAdapterMethods } from '../../errors.js';
import { featuresOf } from '../../config.js';
import type { Adapter, Feature } from '../../contracts.js';
import type {
  Account,
  AdapterSession,
  AdapterUser,
  Awaitable,
  TokenSet,
} from '../../types.js';

export type { AdapterSession, AdapterUser };

/** An account as stored by an adapter: `userId` is set. */
export interface AdapterAccount extends Account {
  userId: string;
}

/** A single-use token for email sign-in, stored hashed by an adapter. */
export interface VerificationToken {
  identifier: string;
  expires: Date;
  token: string;
}

declare module '../../types.js' {
  interface AdapterSession {
    /**
     * Not part of Auth.js's session: when the session was created, when it was last used (written at most every
     * few minutes) and the browser's `User-Agent` at sign-in, for the list of sessions a user can end. Stored by
     * adapters that implement `listSessionsByUserId`; absent in rows made before they existed.
     */
    createdAt?: Date | null;
    lastSeenAt?: Date | null;
    userAgent?: string | null;
  }
}

/** Key of the adapter method that takes the app's features (`Adapter[storeFeatures]`, called by `useFeatures`). */
export const storeFeatures = Symbol.for('framework-auth.store-features');

declare module '../../contracts.js' {
  interface Feature {
    /** Its tables and adapter methods, which a built-in adapter adds to its own (users, accounts, sessions, tokens). */
    storage?: FeatureStorage;
    /**
     * The organizations in which the user may make API keys (features/organizations/: those where their role grants
     * `api-key:create`): the API-keys page offers them, and a key made for one acts there alone.
     */
    apiKeyOrganizations?(context: Pick<RequestContext, 'options' | 'req'>, userId: string): Promise<readonly { id: string; slug: string; name: string }[]>;
  }

  /**
   * Storage for users, accounts, sessions and verification tokens (Auth.js's methods). A feature that keeps more
   * declares its own methods beside its storage (features/<name>/storage.ts).
   */
  interface Adapter {
    /**
     * Called at startup with every feature of the app: a built-in adapter adds the tables and methods of the
     * features that keep data (`Feature.storage`). An Auth.js adapter has none and brings its own methods.
     */
    [storeFeatures]?(features: readonly Feature[]): void;
    createUser?(user: AdapterUser): Awaitable<AdapterUser>;
    getUser?(id: string): Awaitable<AdapterUser | null>;
    getUserByEmail?(email: string): Awaitable<AdapterUser | null>;
    getUserByAccount?(providerAccountId: Pick<AdapterAccount, 'provider' | 'providerAccountId'>): Awaitable<AdapterUser | null>;
    updateUser?(user: Partial<AdapterUser> & Pick<AdapterUser, 'id'>): Awaitable<AdapterUser>;
    deleteUser?(userId: string): Promise<void> | Awaitable<AdapterUser | null | undefined>;
    linkAccount?(account: AdapterAccount): Promise<void> | Awaitable<AdapterAccount | null | undefined>;
    unlinkAccount?(providerAccountId: Pick<AdapterAccount, 'provider' | 'providerAccountId'>): Promise<void> | Awaitable<AdapterAccount | undefined>;
    createSession?(session: NewAdapterSession): Awaitable<AdapterSession>;
    getSessionAndUser?(sessionToken: string): Awaitable<{ session: AdapterSession; user: AdapterUser } | null>;
    updateSession?(session: Partial<AdapterSession> & Pick<AdapterSession, 'sessionToken'>): Awaitable<AdapterSession | null | undefined>;
    deleteSession?(sessionToken: string): Promise<void> | Awaitable<AdapterSession | null | undefined>;
    createVerificationToken?(verificationToken: VerificationToken): Awaitable<VerificationToken | null | undefined>;
    useVerificationToken?(params: { identifier: string; token: string }): Awaitable<VerificationToken | null>;
    /**
     * Not part of Auth.js's interface: deletes every verification token of an identifier (an email address), used
     * or not, expired or not. Email sign-in calls it before it stores the token of a new link, so that only the
     * newest link sent to an address works. Without it (an Auth.js adapter), earlier links stay valid until they are
     * used or expire.
     */
    deleteVerificationTokens?(identifier: VerificationToken['identifier']): Awaitable<void>;
    getAccount?(providerAccountId: AdapterAccount['providerAccountId'], provider: AdapterAccount['provider']): Awaitable<AdapterAccount | null>;
    /**
     * Not part of Auth.js's interface: creates a user and links its first account in one transaction, so that a
     * failure (the database going down between the two writes) leaves neither. Used when present; otherwise the
     * runtime calls `createUser` then `linkAccount`, and deletes the user again if linking fails.
     */
    createUserWithAccount?(user: AdapterUser, account: Account): Awaitable<AdapterUser>;
    /**
     * Not part of Auth.js's interface: every account of a user, in any order (none: an empty list). `getAccessToken`
     * finds the signed-in user's account with a provider through it, and database sessions show
     * `session.error` from it.
     */
    listAccountsByUserId?(userId: AdapterAccount['userId']): Awaitable<AdapterAccount[]>;
    /**
     * Not part of Auth.js's interface: `getSessionAndUser`, and in the same query whether one of the user's OAuth
     * accounts had its tokens withdrawn after a refused refresh (`isWithdrawnAccount` of access-token.ts), so that
     * reading a database session is one query. The session may leave out `userAgent`, which a read does not use.
     * Without it, a session read with OAuth providers configured calls `getSessionAndUser`, then `listAccountsByUserId`.
     */
    getSessionAndUserForRead?(sessionToken: string): Awaitable<{ session: AdapterSession; user: AdapterUser; withdrawnTokens: boolean } | null>;
    /**
     * Not part of Auth.js's interface: stores new tokens on an account (after a refresh, or a new sign-in) and
     * returns the account as stored, or null when no account matched. The six fields of `AccountTokens` are all
     * written: an absent one is cleared. With `expectedRefreshToken` the write is a compare-and-set: it happens only
     * while the stored refresh token is that one (null: none is stored), in the same statement, so that of two app
     * processes that refreshed one token, the second cannot overwrite what the first stored.
     */
    updateAccountTokens?(params: UpdateAccountTokensParams): Awaitable<AdapterAccount | null>;
    /**
     * Not part of Auth.js's interface: every session row of a user, expired ones included, in any order (none: an
     * empty list). With it, the runtime stores `createdAt`, `lastSeenAt` and `userAgent` on sessions and users can
     * list and end their sessions (session-management.ts); the sessions are ended with `deleteSession`.
     */
    listSessionsByUserId?(userId: AdapterSession['userId']): Awaitable<AdapterSession[]>;
  }
}

export type { Adapter } from '../../contracts.js';

/** A column's kind; each SQL adapter maps it to its own type (SQLite keeps dates as milliseconds, booleans as 0/1). */
export type ColumnType = 'text' | 'integer' | 'bigint' | 'date' | 'boolean';

/** What a column refers to: a row of another table (or its own), and what happens to the column when that row goes. */
export interface ColumnReference {
  table: string;
  /** @default 'id' */
  column?: string;
  /** `cascade`: the row goes with the row it refers to; `set null`: the column is cleared (it must be nullable). */
  onDelete: 'cascade' | 'set null';
}

/** Whether a reference is to a user (`users (id)`): deleting the user then deletes or clears the referring rows. */
export function refersToUser(reference: ColumnReference | null | undefined): reference is ColumnReference {
  return reference?.table === 'users' && (reference.column ?? 'id') === 'id';
}

/**
 * A table a feature keeps in the SQL adapters' database, written once for SQLite and PostgreSQL. Every column is
 * NOT NULL unless listed in `nullable`. A `user_id` column refers to `users (id)` and is deleted with its user unless
 * `references` says otherwise.
 */
export interface TableSpec {
  name: string;
  columns: Readonly<Record<string, ColumnType>>;
  nullable?: readonly string[];
  primaryKey: readonly string[];
  /**
   * Unique columns: a name is unique on its own (in the table's `CREATE TABLE`); a list of names is unique together
   * (a unique index `<table>_<columns>_unique`, which a later version can add to an existing table).
   */
  unique?: readonly (string | readonly string[])[];
  /** Indexes: a name is indexed on its own (`<table>_<column>_index`), a list of names together (`<table>_<columns>_index`). */
  indexes?: readonly (string | readonly string[])[];
  /** Foreign keys by column; `null` for a `user_id` that refers to no user. */
  references?: Readonly<Record<string, ColumnReference | null>>;
}

/**
 * A column a feature adds to a table it does not own: a core table (`users`, `sessions`, `accounts`) or another
 * feature's (`api_keys`). Added by `ALTER TABLE … ADD COLUMN` to an existing table, so it is nullable or has a default.
 * The memory adapter keeps it on its users, sessions and accounts as the camelCase field (`disabled_at`: `disabledAt`).
 */
export type AddedColumn = {
  table: string;
  name: string;
  type: ColumnType;
  /** A nullable column may refer to another row (SQLite adds a reference only to a column without a default). */
  references?: ColumnReference;
  /** Indexed on its own (`<table>_<column>_index`). */
  indexed?: boolean;
} & ({ nullable: true; default?: undefined } | { nullable?: false; default: string | number | boolean; references?: undefined });

/**
 * One SQL database as features see it (the SQLite and PostgreSQL adapters each implement it). Statements use `?`
 * placeholders and SQL both databases understand; a Date parameter is stored as the table's date, a boolean as its
 * boolean. Rows come back as the driver returns them: a date as milliseconds (SQLite) or a Date (PostgreSQL), a
 * `bigint` as a number or a string, a boolean as 0/1 or true/false.
 */
export interface SqlDatabase {
  dialect: 'sqlite' | 'postgres';
  /** The rows of one statement. */
  all<Row>(sql: string, parameters: readonly unknown[]): Promise<Row[]>;
  /**
   * The first row of one statement, or undefined: the row itself, not a promise, where the driver answers at once
   * (better-sqlite3), so that a lookup made on every request (an API key's) need not wait for a turn of the event loop.
   */
  first<Row>(sql: string, parameters: readonly unknown[]): Awaitable<Row | undefined>;
  /** Runs one statement; resolves how many rows it changed. */
  run(sql: string, parameters: readonly unknown[]): Promise<number>;
  /** Runs the statements in order in one transaction, all or none; resolves how many rows each one changed. */
  batch(statements: readonly (readonly [sql: string, parameters: readonly unknown[]])[]): Promise<number[]>;
}

/** What a feature keeps in the database: its tables and the adapter methods over them, for each built-in adapter. */
export interface FeatureStorage {
  /** Its tables in the SQL adapters' database, created by the adapter and by `npx framework-auth migrate`. */
  tables: readonly TableSpec[];
  /** Its columns on other tables, added in the same migration after every table. */
  columns?: readonly AddedColumn[];
  /** Its adapter methods on a SQL database. */
  sql(database: SqlDatabase): Partial<Adapter>;
  /**
   * Its adapter methods in memory (MemoryAdapter), which refuse a user that `users` does not have; `forgetUser`
   * drops a deleted user's data. `adapter` is the MemoryAdapter itself, for what the feature reaches through its
   * methods (the sessions it ends or creates, another feature's data).
   */
  memory(users: ReadonlyMap<string, AdapterUser>, adapter: Adapter): { methods: Partial<Adapter>; forgetUser?(userId: string): void };
}


/**
 * What `createSession` receives. The fields after `expires` are sent only to adapters that implement
 * `listSessionsByUserId` (an Auth.js adapter may write every field it is given to its table).
 */
export type NewAdapterSession = Pick<AdapterSession, 'sessionToken' | 'userId' | 'expires'> &
  Partial<Pick<AdapterSession, 'createdAt' | 'lastSeenAt' | 'userAgent'>>;

/** The token fields `updateAccountTokens` writes. */
export type AccountTokens = Pick<TokenSet, 'access_token' | 'refresh_token' | 'expires_at' | 'id_token' | 'scope' | 'token_type'>;

/** What `updateAccountTokens` receives. */
export interface UpdateAccountTokensParams extends Pick<AdapterAccount, 'provider' | 'providerAccountId'> {
  tokens: AccountTokens;
  /** Write only while the stored refresh token is this one (null: while none is stored); absent: always write. */
  expectedRefreshToken?: string | null;
}

/** The option every built-in adapter takes beside where its data is. */
export interface AdapterFeaturesOption {
  /**
   * Features whose tables and methods the adapter has from its creation, for an app that uses it without a config of
   * ours: `@auth/express` with its Passkey provider calls the authenticator methods of `passkeys`
   * (features/passkey/index.ts), which a bare adapter lacks. Only their storage: routes, checks and limits come with a
   * config's `features` and `providers`, and a config that has the same features adds no table or method twice. The
   * features each one brings beside it (`Feature.features`) come too.
   * @default [] (the core's tables and methods; a config adds those of its features)
   * @example SqliteAdapter({ features: [passkeys] })
   */
  features?: readonly Feature[];
}

/** Gives a built-in adapter the features of its `features` option (`AdapterFeaturesOption`), once, as it is created. */
export function storeOptionFeatures(adapter: Adapter, option: AdapterFeaturesOption): void {
  adapter[storeFeatures]?.(featuresOf({ features: option.features }, "The adapter's `features`"));
}

/**
 * Adds the methods a feature brings (`FeatureStorage`) to each of `adapters` (a built-in adapter, and the object an
 * app wraps it in), each unless that one has it: a method an app set itself stays.
 */
export function addMissing(adapters: readonly Adapter[], methods: Partial<Adapter>): void {
  for (const adapter of adapters) {
    const target = adapter as Record<string, unknown>;
    for (const [name, method] of Object.entries(methods)) target[name] ??= method;
  }
}

/** The name of an adapter method. */
export type AdapterMethod = Exclude<keyof Adapter, symbol>;

/** Calls an adapter method, turning its failure into `AdapterError` (the original kept as cause). */
export async function callAdapter<Method extends AdapterMethod>(
  adapter: Adapter,
  method: Method,
  ...args: Parameters<NonNullable<Adapter[Method]>>
): Promise<Awaited<ReturnType<NonNullable<Adapter[Method]>>>> {
  const implementation = adapter[method] as ((...params: unknown[]) => unknown) | undefined;
  if (typeof implementation !== 'function') throw new MissingAdapterMethods(`The adapter has no ${method}() method`);
  try {
    return (await implementation.apply(adapter, args)) as Awaited<ReturnType<NonNullable<Adapter[Method]>>>;
  } catch (error) {
    throw adapterFailure(method, error);
  }
}

/**
 * {@link callAdapter} for a method an adapter may answer at once (better-sqlite3): that answer itself, else a
 * promise; a failure, thrown or rejected, as `AdapterError`. For reads on every request, which then need not wait.
 */
export function callAdapterAtOnce<Method extends AdapterMethod>(
  adapter: Adapter,
  method: Method,
  ...args: Parameters<NonNullable<Adapter[Method]>>
): Awaitable<Awaited<ReturnType<NonNullable<Adapter[Method]>>>> {
  const implementation = adapter[method] as ((...params: unknown[]) => Awaitable<Awaited<ReturnType<NonNullable<Adapter[Method]>>>>) | undefined;
  if (typeof implementation !== 'function') throw new MissingAdapterMethods(`The adapter has no ${method}() method`);
  let answer: Awaitable<Awaited<ReturnType<NonNullable<Adapter[Method]>>>>;
  try {
    answer = implementation.apply(adapter, args);
  } catch (error) {
    throw adapterFailure(method, error);
  }
  if (!isPromiseLike(answer)) return answer;
  return Promise.resolve(answer).catch((error: unknown) => {
    throw adapterFailure(method, error);
  });
}

/** Whether an adapter's answer is a promise (a driver that answers later), not the value itself. */
export function isPromiseLike<T>(value: Awaitable<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}

/** The error of a failed adapter call, as `callAdapter` throws it (the original kept as cause). */
function adapterFailure(method: AdapterMethod, error: unknown): AdapterError {
  return new AdapterError(`adapter.${method}() failed`, { cause: error instanceof Error ? error : undefined });
}

