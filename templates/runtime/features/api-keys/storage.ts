/**
 * Where the API-keys feature keeps keys: the `api_keys` table of the SQL adapters (a user's keys go with the user),
 * or maps in memory. Never the key: its SHA-256 digest, looked up through a unique index, and its shown start.
 */
import type { AdapterUser, Awaitable } from '../../types.js';
import { type FeatureStorage, isPromiseLike } from '../database/adapter.js';

/** An API key as the list shows it: everything but the key. */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  /** The key's first characters (`fak_AbCdEf`): enough to recognise it, not to use it. */
  start: string;
  scopes: string[];
  /** The organization it was made for, where alone it acts (features/organizations/); null for the user's own key. */
  organizationId: string | null;
  createdAt: Date;
  /** When a request last used it, to the minute; null when none has. */
  lastUsedAt: Date | null;
  expiresAt: Date;
}

/** An API key as stored: its record and the SHA-256 digest of the key (hex). */
export interface StoredApiKey extends ApiKeyRecord {
  digest: string;
}

/** What a request with a key needs of it (`getApiKeyAndUser`): not its name, start or creation. */
export type ApiKeyInUse = Pick<StoredApiKey, 'id' | 'userId' | 'digest' | 'scopes' | 'organizationId' | 'lastUsedAt' | 'expiresAt'>;

declare module '../../contracts.js' {
  interface Adapter {
    /**
     * Not part of Auth.js's interface: stores a new key unless its user then has more than `maxPerUser` unexpired
     * keys; true when stored. API keys (features/api-keys/) need it and the four methods below.
     */
    createApiKey?(apiKey: StoredApiKey, maxPerUser: number): Awaitable<boolean>;
    /** Not part of Auth.js's interface: the user's keys, newest first, without their digests. */
    listApiKeys?(userId: AdapterUser['id']): Awaitable<ApiKeyRecord[]>;
    /**
     * Not part of Auth.js's interface: the key with this digest and its user, or null. Called on every request with
     * a key: the built-in SQLite adapter answers at once (no promise).
     */
    getApiKeyAndUser?(digest: string): Awaitable<{ apiKey: ApiKeyInUse; user: AdapterUser } | null>;
    /** Not part of Auth.js's interface: deletes one of the user's keys; true when it was theirs. */
    deleteApiKey?(userId: AdapterUser['id'], id: string): Awaitable<boolean>;
    /** Not part of Auth.js's interface: records a use at `usedAt`, unless one was recorded within the minute before. */
    touchApiKey?(id: string, usedAt: Date): Awaitable<void>;
  }
}

/** Milliseconds between two recorded uses of a key: a busy key writes at most once a minute. */
export const TOUCH_INTERVAL_MS = 60_000;

/** A row of `api_keys` as either driver returns it: dates as milliseconds or Dates. */
interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  start: string;
  digest: string;
  scopes: string;
  organization_id: string | null;
  created_at: Date | number;
  last_used_at: Date | number | null;
  expires_at: Date | number;
}

function apiKeyFromRow(row: ApiKeyRow): StoredApiKey {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    start: row.start,
    digest: row.digest,
    scopes: scopesOf(row.scopes),
    organizationId: row.organization_id,
    createdAt: new Date(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
    expiresAt: new Date(row.expires_at),
  };
}

/** The scopes column (space-separated) as a list. */
function scopesOf(column: string): string[] {
  return column === '' ? [] : column.split(' ');
}

/** A record without its digest, for the list. */
function listed({ digest: _digest, ...record }: StoredApiKey): ApiKeyRecord {
  return record;
}

const columns = 'id, user_id, name, start, digest, scopes, organization_id, created_at, last_used_at, expires_at';

/** `getApiKeyAndUser`'s statement: what a request with the key needs of it, and its user. */
const keyInUseSql = `SELECT k.id, k.digest, k.scopes, k.organization_id, k.last_used_at, k.expires_at, u.id AS user_id, u.name, u.email, u.email_verified, u.image
FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.digest = ?`;

/** A row of {@link keyInUseSql}. */
interface KeyInUseRow extends Pick<ApiKeyRow, 'id' | 'user_id' | 'digest' | 'scopes' | 'organization_id' | 'last_used_at' | 'expires_at'> {
  name: string | null;
  email: string | null;
  email_verified: Date | number | null;
  image: string | null;
}

function keyInUseOf(row: KeyInUseRow | undefined): { apiKey: ApiKeyInUse; user: AdapterUser } | null {
  if (!row) return null;
  const apiKey: ApiKeyInUse = {
    id: row.id,
    userId: row.user_id,
    digest: row.digest,
    scopes: scopesOf(row.scopes),
    organizationId: row.organization_id,
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
    expiresAt: new Date(row.expires_at),
  };
  // A provider without an email (the microblog network over OAuth 2) stores none.
  const user: AdapterUser = { id: row.user_id, name: row.name, email: row.email as string, emailVerified: row.email_verified === null ? null : new Date(row.email_verified), image: row.image };
  return { apiKey, user };
}

export const apiKeyStorage: FeatureStorage = {
  tables: [
    {
      name: 'api_keys',
      columns: { id: 'text', user_id: 'text', name: 'text', start: 'text', digest: 'text', scopes: 'text', created_at: 'date', last_used_at: 'date', expires_at: 'date' },
      nullable: ['last_used_at'],
      primaryKey: ['id'],
      unique: ['digest'],
      indexes: ['user_id'],
    },
  ],
  // Added after the table's first version (issue 48): an existing table gets it by `migrate`.
  columns: [{ table: 'api_keys', name: 'organization_id', type: 'text', nullable: true }],
  sql: (database) => ({
    async createApiKey(apiKey, maxPerUser) {
      const { id, userId, name, start, digest, scopes, organizationId, createdAt, expiresAt } = apiKey;
      await database.run(`INSERT INTO api_keys (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`, [id, userId, name, start, digest, scopes.join(' '), organizationId, createdAt, expiresAt]);
      // Counted after the insert, so that of two concurrent creations over the cap neither stays.
      const [row] = await database.all<{ live: number | string }>('SELECT count(*) AS live FROM api_keys WHERE user_id = ? AND expires_at > ?', [userId, createdAt]);
      if (Number(row?.live ?? 0) <= maxPerUser) return true;
      await database.run('DELETE FROM api_keys WHERE id = ?', [id]);
      return false;
    },

    async listApiKeys(userId) {
      const rows = await database.all<ApiKeyRow>(`SELECT ${columns} FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, id`, [userId]);
      return rows.map((row) => listed(apiKeyFromRow(row)));
    },

    // Not async: on SQLite the row is there at once, and a request with a key is then judged without waiting a turn.
    getApiKeyAndUser(digest) {
      const row = database.first<KeyInUseRow>(keyInUseSql, [digest]);
      return isPromiseLike(row) ? Promise.resolve(row).then(keyInUseOf) : keyInUseOf(row);
    },

    async deleteApiKey(userId, id) {
      return (await database.run('DELETE FROM api_keys WHERE id = ? AND user_id = ?', [id, userId])) > 0;
    },

    async touchApiKey(id, usedAt) {
      // One conditional statement: of the processes that see a key's use at once, one writes per minute.
      await database.run('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)', [usedAt, id, new Date(usedAt.valueOf() - TOUCH_INTERVAL_MS)]);
    },
  }),
  memory(users) {
    const keys = new Map<string, StoredApiKey>();
    const idsByDigest = new Map<string, string>();
    const remove = (id: string): void => {
      const stored = keys.get(id);
      if (stored) idsByDigest.delete(stored.digest);
      keys.delete(id);
    };
    return {
      forgetUser(userId) {
        for (const stored of [...keys.values()]) if (stored.userId === userId) remove(stored.id);
      },
      methods: {
        async createApiKey(apiKey, maxPerUser) {
          if (!users.has(apiKey.userId)) throw new Error(`createApiKey: no user has the id ${JSON.stringify(apiKey.userId)}`);
          if (idsByDigest.has(apiKey.digest) || keys.has(apiKey.id)) throw new Error('createApiKey: a key with this id or digest exists');
          const live = [...keys.values()].filter((stored) => stored.userId === apiKey.userId && stored.expiresAt > apiKey.createdAt);
          if (live.length >= maxPerUser) return false;
          keys.set(apiKey.id, structuredClone(apiKey));
          idsByDigest.set(apiKey.digest, apiKey.id);
          return true;
        },
        async listApiKeys(userId) {
          const own = [...keys.values()].filter((stored) => stored.userId === userId);
          return own.sort((a, b) => b.createdAt.valueOf() - a.createdAt.valueOf()).map((stored) => listed(structuredClone(stored)));
        },
        async getApiKeyAndUser(digest) {
          const id = idsByDigest.get(digest);
          const stored = id === undefined ? undefined : keys.get(id);
          const user = stored && users.get(stored.userId);
          if (!stored || !user) return null;
          const { name: _name, start: _start, createdAt: _createdAt, ...apiKey } = structuredClone(stored);
          return { apiKey, user: structuredClone(user) };
        },
        async deleteApiKey(userId, id) {
          if (keys.get(id)?.userId !== userId) return false;
          remove(id);
          return true;
        },
        async touchApiKey(id, usedAt) {
          const stored = keys.get(id);
          if (stored && (stored.lastUsedAt === null || stored.lastUsedAt.valueOf() <= usedAt.valueOf() - TOUCH_INTERVAL_MS)) stored.lastUsedAt = new Date(usedAt);
        },
      },
    };
  },
};
