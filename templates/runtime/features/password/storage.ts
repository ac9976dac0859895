/**
 * Where the password provider keeps password hashes: the `passwords` table of the SQL adapters (one row per user,
 * deleted with the user), or a map in memory.
 */
import type { AdapterUser, Awaitable } from '../../types.js';
import type { FeatureStorage } from '../database/adapter.js';

declare module '../../contracts.js' {
  interface Adapter {
    /**
     * Not part of Auth.js's interface: the user's password hash (a PHC string such as `$argon2id$v=19$m=19456,t=2,p=1$…`), or null when
     * the user has none. Email and password sign-in (the `password` provider) needs it.
     */
    getPasswordHash?(userId: AdapterUser['id']): Awaitable<string | null>;
    /**
     * Not part of Auth.js's interface: stores the user's password hash, replacing the one stored. Deleting the user
     * deletes it.
     */
    setPasswordHash?(userId: AdapterUser['id'], hash: string): Awaitable<void>;
  }
}

export const passwordStorage: FeatureStorage = {
  tables: [{ name: 'passwords', columns: { user_id: 'text', hash: 'text', updated_at: 'date' }, primaryKey: ['user_id'] }],
  sql: (database) => ({
    async getPasswordHash(userId) {
      const [row] = await database.all<{ hash: string }>('SELECT hash FROM passwords WHERE user_id = ?', [userId]);
      return row ? row.hash : null;
    },
    async setPasswordHash(userId, hash) {
      await database.run(
        `INSERT INTO passwords (user_id, hash, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`,
        [userId, hash, new Date()],
      );
    },
  }),
  memory(users) {
    const hashes = new Map<string, string>();
    return {
      forgetUser: (userId) => void hashes.delete(userId),
      methods: {
        async getPasswordHash(userId) {
          return hashes.get(userId) ?? null;
        },
        async setPasswordHash(userId, hash) {
          if (!users.has(userId)) throw new Error(`setPasswordHash: no user has the id ${JSON.stringify(userId)}`);
          hashes.set(userId, hash);
        },
      },
    };
  },
};
