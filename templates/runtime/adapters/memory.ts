/**
 * An adapter that keeps everything in this process's memory: for tests and demos. Every restart forgets all users
 * and signs everyone out, and two app processes do not share anything; use the SQLite or PostgreSQL adapter for
 * real sessions.
 */
import { randomUUID } from 'node:crypto';
import {
  type Adapter,
  type AdapterAccount,
  type AddedColumn,
  type AdapterFeaturesOption,
  type AdapterSession,
  type AdapterUser,
  type FeatureStorage,
  type VerificationToken,
  addMissing,
  refersToUser,
  storeFeatures,
  storeOptionFeatures,
} from '../features/database/adapter.js';
import { carriedFeatures } from '../contracts.js';
import { isWithdrawnAccount } from '../features/database/access-token.js';
import { database } from '../features/database/index.js';

/** Accounts are found by provider and the provider's id for the user: one key for the pair. */
function accountKey(provider: string, providerAccountId: string): string {
  return JSON.stringify([provider, providerAccountId]);
}

function verificationKey(identifier: string, token: string): string {
  return JSON.stringify([identifier, token]);
}

/**
 * Callers get copies, so changing a returned object never changes what is stored (as with a real database).
 * `structuredClone` keeps `Date` values as dates.
 */
function copy<T>(value: T): T {
  return structuredClone(value);
}

/** The fields that have a value: in an update, `undefined` leaves a field as it is (and `null` clears it). */
function definedFields<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** The field of an added column on the memory adapter's rows: `disabled_at` is `disabledAt`. */
function camelCase(column: string): string {
  return column.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/**
 * Creates an empty in-memory adapter. Each call has its own storage; its features' methods come from the config or
 * from `features`, as with the SQL adapters.
 *
 * @example
 * ```ts
 * const authConfig: FrameworkAuthConfig = { adapter: MemoryAdapter(), providers: [GitHub] };
 * const forAuthJs = MemoryAdapter({ features: [passkeys] }); // passkeys from features/passkey/index.ts
 * ```
 */
export function MemoryAdapter(options: AdapterFeaturesOption = {}): Adapter {
  const users = new Map<string, AdapterUser>();
  const accounts = new Map<string, AdapterAccount>();
  const sessions = new Map<string, AdapterSession>();
  const verificationTokens = new Map<string, VerificationToken>();
  // What the features keep, by their storage (two features may share one): the methods, and `forgetUser`, which
  // runs when a user is deleted.
  const featureStores = new Map<FeatureStorage, ReturnType<FeatureStorage['memory']>>();
  // The columns features add to users, sessions and accounts (`FeatureStorage.columns`), kept as camelCase fields.
  const addedColumns: AddedColumn[] = [];

  // The same rule as the SQL adapters' unique index: at most one user per email (users without email are many).
  function assertEmailFree(email: string | null | undefined, exceptUserId?: string): void {
    if (email === null || email === undefined) return;
    for (const user of users.values()) {
      if (user.email === email && user.id !== exceptUserId) {
        throw new Error(`Another user already has the email ${JSON.stringify(email)}`);
      }
    }
  }

  function findUser(id: string): AdapterUser | null {
    const user = users.get(id);
    return user ? copy(user) : null;
  }

  const adapter: Adapter = {
    [carriedFeatures]: [database],
    async createUser(user) {
      // Auth.js passes a fresh random id; keep it, and make one when it is missing.
      const id = user.id || randomUUID();
      if (users.has(id)) throw new Error(`A user with id ${JSON.stringify(id)} already exists`);
      assertEmailFree(user.email);
      const stored: AdapterUser = { ...copy(user), id, emailVerified: user.emailVerified ?? null };
      users.set(id, stored);
      return copy(stored);
    },

    async getUser(id) {
      return findUser(id);
    },

    async getUserByEmail(email) {
      for (const user of users.values()) {
        if (user.email === email) return copy(user);
      }
      return null;
    },

    async getUserByAccount({ provider, providerAccountId }) {
      const account = accounts.get(accountKey(provider, providerAccountId));
      return account ? findUser(account.userId) : null;
    },

    async updateUser(user) {
      const stored = users.get(user.id);
      if (!stored) throw new Error(`updateUser: no user has the id ${JSON.stringify(user.id)}`);
      assertEmailFree(user.email, user.id);
      const updated: AdapterUser = { ...stored, ...definedFields(copy(user)) };
      users.set(user.id, updated);
      return copy(updated);
    },

    async deleteUser(userId) {
      const user = users.get(userId);
      if (!user) return null;
      users.delete(userId);
      // What ON DELETE CASCADE does in the SQL adapters.
      for (const [key, account] of accounts) if (account.userId === userId) accounts.delete(key);
      for (const [key, session] of sessions) if (session.userId === userId) sessions.delete(key);
      for (const store of featureStores.values()) store.forgetUser?.(userId);
      // And what the references of the added columns to users say (`ON DELETE CASCADE` or `SET NULL`).
      const rows: Readonly<Record<string, Map<string, object>>> = { users, sessions, accounts };
      for (const column of addedColumns) {
        const table = rows[column.table];
        if (!table || !refersToUser(column.references)) continue;
        const field = camelCase(column.name);
        for (const [key, row] of [...table]) {
          if ((row as Record<string, unknown>)[field] !== userId) continue;
          if (column.references.onDelete === 'set null') (row as Record<string, unknown>)[field] = null;
          else if (column.table === 'users') await adapter.deleteUser!(key);
          else table.delete(key);
        }
      }
      return user;
    },

    async createUserWithAccount(user, account) {
      // Both checks first, so that a refusal writes nothing: the in-memory form of a transaction.
      const id = user.id || randomUUID();
      if (users.has(id)) throw new Error(`A user with id ${JSON.stringify(id)} already exists`);
      assertEmailFree(user.email);
      const key = accountKey(account.provider, account.providerAccountId);
      if (accounts.has(key)) throw new Error(`The ${account.provider} account is already linked to a user`);
      const stored: AdapterUser = { ...copy(user), id, emailVerified: user.emailVerified ?? null };
      users.set(id, stored);
      accounts.set(key, { ...copy(account), userId: id });
      return copy(stored);
    },

    async linkAccount(account) {
      if (!users.has(account.userId)) throw new Error(`linkAccount: no user has the id ${JSON.stringify(account.userId)}`);
      const key = accountKey(account.provider, account.providerAccountId);
      if (accounts.has(key)) throw new Error(`The ${account.provider} account is already linked to a user`);
      accounts.set(key, copy(account));
      return copy(account);
    },

    async unlinkAccount({ provider, providerAccountId }) {
      const key = accountKey(provider, providerAccountId);
      const account = accounts.get(key);
      accounts.delete(key);
      return account;
    },

    async getAccount(providerAccountId, provider) {
      const account = accounts.get(accountKey(provider, providerAccountId));
      return account ? copy(account) : null;
    },

    async listAccountsByUserId(userId) {
      return [...accounts.values()].filter((account) => account.userId === userId).map(copy);
    },

    async updateAccountTokens({ provider, providerAccountId, tokens, expectedRefreshToken }) {
      const key = accountKey(provider, providerAccountId);
      const stored = accounts.get(key);
      if (!stored) return null;
      if (expectedRefreshToken !== undefined && (stored.refresh_token ?? null) !== expectedRefreshToken) return null;
      const { access_token: _access, refresh_token: _refresh, expires_at: _expires, id_token: _id, scope: _scope, token_type: _type, ...rest } = stored;
      const updated = { ...rest, ...definedFields(copy(tokens)) } as AdapterAccount;
      accounts.set(key, updated);
      return copy(updated);
    },

    async createSession(session) {
      if (!users.has(session.userId)) throw new Error(`createSession: no user has the id ${JSON.stringify(session.userId)}`);
      if (sessions.has(session.sessionToken)) throw new Error('createSession: the session token is already in use');
      // Absent details stay absent: a session made without them is exactly Auth.js's three fields.
      const stored: AdapterSession = { sessionToken: session.sessionToken, userId: session.userId, expires: new Date(session.expires) };
      if (session.createdAt) stored.createdAt = new Date(session.createdAt);
      if (session.lastSeenAt) stored.lastSeenAt = new Date(session.lastSeenAt);
      if (session.userAgent) stored.userAgent = session.userAgent;
      // The fields of the columns features add to sessions.
      for (const column of addedColumns) {
        const field = camelCase(column.name);
        if (column.table === 'sessions' && field in session) (stored as unknown as Record<string, unknown>)[field] = copy((session as Record<string, unknown>)[field]);
      }
      sessions.set(stored.sessionToken, stored);
      return copy(stored);
    },

    async getSessionAndUser(sessionToken) {
      // Expired sessions are returned as they are: the runtime compares `expires` and deletes them.
      const session = sessions.get(sessionToken);
      const user = session ? users.get(session.userId) : undefined;
      if (!session || !user) return null;
      return { session: copy(session), user: copy(user) };
    },

    async getSessionAndUserForRead(sessionToken) {
      const session = sessions.get(sessionToken);
      const user = session ? users.get(session.userId) : undefined;
      if (!session || !user) return null;
      const withdrawnTokens = [...accounts.values()].some((account) => account.userId === user.id && isWithdrawnAccount(account));
      return { session: copy(session), user: copy(user), withdrawnTokens };
    },

    async updateSession(session) {
      const stored = sessions.get(session.sessionToken);
      if (!stored) return null;
      const updated: AdapterSession = { ...stored, ...definedFields(copy(session)) };
      sessions.set(updated.sessionToken, updated);
      return copy(updated);
    },

    async listSessionsByUserId(userId) {
      return [...sessions.values()].filter((session) => session.userId === userId).map(copy);
    },

    async deleteSession(sessionToken) {
      const session = sessions.get(sessionToken);
      sessions.delete(sessionToken);
      return session ?? null;
    },

    async createVerificationToken(verificationToken) {
      verificationTokens.set(verificationKey(verificationToken.identifier, verificationToken.token), copy(verificationToken));
      return copy(verificationToken);
    },

    async useVerificationToken({ identifier, token }) {
      // Single use: the token is gone once read.
      const key = verificationKey(identifier, token);
      const stored = verificationTokens.get(key);
      verificationTokens.delete(key);
      return stored ?? null;
    },

    async deleteVerificationTokens(identifier) {
      for (const [key, verificationToken] of verificationTokens) {
        if (verificationToken.identifier === identifier) verificationTokens.delete(key);
      }
    },
  };
  // On the adapter and on the object it is called on: an app that wraps the adapter (`{ ...inner, getUser }`) gets
  // the features' methods on its wrapper, and on `inner`, which its own methods may call; each keeps what it has.
  adapter[storeFeatures] = function (this: Adapter, features) {
    for (const feature of features) {
      if (!feature.storage) continue;
      for (const column of feature.storage.columns ?? []) if (!addedColumns.some((known) => known.table === column.table && known.name === column.name)) addedColumns.push(column);
      let store = featureStores.get(feature.storage);
      if (!store) featureStores.set(feature.storage, (store = feature.storage.memory(users, adapter)));
      addMissing([adapter, this], store.methods);
    }
  };
  storeOptionFeatures(adapter, options);
  return adapter;
}
