/**
 * Where the account page keeps a pending address change: the `email_changes` table of the SQL adapters (one row per
 * user, the newest request only, deleted with the user), or a map in memory. The link's token is stored as a digest
 * (`sha256hex(token + secret)`, as the other emailed links), so that a database leak yields no working link.
 */
import type { AdapterUser, Awaitable } from '../../types.js';
import type { FeatureStorage } from '../database/adapter.js';

/** A user's pending change of address: the new address, the digest of the link's token, and when the link expires. */
export interface EmailChange {
  userId: string;
  newEmail: string;
  digest: string;
  expires: Date;
}

declare module '../../contracts.js' {
  interface Adapter {
    /**
     * Not part of Auth.js's interface: stores a user's pending address change, replacing the one stored (only the
     * newest link works). The account page (features/account/) needs it and `useEmailChange`.
     */
    setEmailChange?(change: EmailChange): Awaitable<void>;
    /**
     * Not part of Auth.js's interface: the pending change whose link has this digest, or null, left in place: what the
     * confirmation page shows (which account would move) and checks before `useEmailChange` spends the link.
     */
    findEmailChange?(digest: EmailChange['digest']): Awaitable<EmailChange | null>;
    /**
     * Not part of Auth.js's interface: the pending change whose link has this digest, or null, deleted as it is read
     * (single use), expired or not. Every other change to the same new address is deleted with it, so that no row
     * keeps the address once someone owns it.
     */
    useEmailChange?(digest: EmailChange['digest']): Awaitable<EmailChange | null>;
    /** Not part of Auth.js's interface: deletes every pending change to this address (its owner deleted the account). */
    deleteEmailChangesTo?(newEmail: EmailChange['newEmail']): Awaitable<void>;
  }
}

/** A row of `email_changes` as either driver returns it: the date as milliseconds or a Date. */
interface EmailChangeRow {
  user_id: string;
  new_email: string;
  digest: string;
  expires: Date | number;
}

function changeOf(row: EmailChangeRow): EmailChange {
  return { userId: row.user_id, newEmail: row.new_email, digest: row.digest, expires: new Date(row.expires) };
}

export const emailChangeStorage: FeatureStorage = {
  tables: [
    {
      name: 'email_changes',
      columns: { user_id: 'text', new_email: 'text', digest: 'text', expires: 'date' },
      primaryKey: ['user_id'],
      unique: ['digest'],
      indexes: ['new_email'],
    },
  ],
  sql: (database) => ({
    async setEmailChange({ userId, newEmail, digest, expires }) {
      // Expired changes of every user go first: a link nobody used must not keep its address for ever.
      await database.run('DELETE FROM email_changes WHERE expires < ?', [new Date()]);
      await database.run(
        `INSERT INTO email_changes (user_id, new_email, digest, expires) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET new_email = excluded.new_email, digest = excluded.digest, expires = excluded.expires`,
        [userId, newEmail, digest, expires],
      );
    },
    async findEmailChange(digest) {
      const [row] = await database.all<EmailChangeRow>('SELECT user_id, new_email, digest, expires FROM email_changes WHERE digest = ?', [digest]);
      return row ? changeOf(row) : null;
    },
    async useEmailChange(digest) {
      const [row] = await database.all<EmailChangeRow>('SELECT user_id, new_email, digest, expires FROM email_changes WHERE digest = ?', [digest]);
      if (!row) return null;
      // Two confirmations of one link at once: only the one whose DELETE removed the row goes on.
      const deleted = await database.run('DELETE FROM email_changes WHERE digest = ?', [digest]);
      if (deleted === 0) return null;
      await database.run('DELETE FROM email_changes WHERE new_email = ?', [row.new_email]);
      return changeOf(row);
    },
    async deleteEmailChangesTo(newEmail) {
      await database.run('DELETE FROM email_changes WHERE new_email = ?', [newEmail]);
    },
  }),
  memory(users: ReadonlyMap<string, AdapterUser>) {
    const changes = new Map<string, EmailChange>();
    return {
      forgetUser: (userId) => void changes.delete(userId),
      methods: {
        async setEmailChange(change) {
          if (!users.has(change.userId)) throw new Error(`setEmailChange: no user has the id ${JSON.stringify(change.userId)}`);
          for (const [userId, stored] of changes) if (stored.expires < new Date()) changes.delete(userId);
          changes.set(change.userId, structuredClone(change));
        },
        async findEmailChange(digest) {
          const found = [...changes.values()].find((change) => change.digest === digest);
          return found ? structuredClone(found) : null;
        },
        async useEmailChange(digest) {
          const found = [...changes.values()].find((change) => change.digest === digest);
          if (!found) return null;
          for (const [userId, change] of changes) if (change.newEmail === found.newEmail) changes.delete(userId);
          return structuredClone(found);
        },
        async deleteEmailChangesTo(newEmail) {
          for (const [userId, change] of changes) if (change.newEmail === newEmail) changes.delete(userId);
        },
      },
    };
  },
};
