/**
 * Where two-factor keeps each user's TOTP secret (encrypted by the runtime), the last accepted time step and the
 * hashes of the recovery codes: the `two_factor` and `recovery_codes` tables of the SQL adapters, or maps in memory.
 */
import type { AdapterUser, Awaitable } from '../../types.js';
import type { FeatureStorage } from '../database/adapter.js';

/** A user's two-factor settings as stored (`getTwoFactor`). */
export interface TwoFactorRecord {
  /** The TOTP secret, encrypted by the runtime (never stored in clear). */
  secret: string;
  /** When two-factor was turned on; null while enrolling. */
  enabledAt: Date | null;
  /** The time step of the last accepted code; null when none was accepted since the secret was stored. */
  lastStep: number | null;
  /** How many unused recovery codes the user has. */
  recoveryCodes: number;
}

declare module '../../contracts.js' {
  interface Adapter {
    /**
     * Not part of Auth.js's interface: the user's two-factor settings, or null when the user never began to enroll.
     * Two-factor sign-in (features/two-factor/) needs it and the five methods below.
     */
    getTwoFactor?(userId: AdapterUser['id']): Awaitable<TwoFactorRecord | null>;
    /**
     * Not part of Auth.js's interface: stores the user's TOTP secret (encrypted by the runtime) and when two-factor
     * was turned on (null: enrolling, not on yet), replacing what was stored and forgetting the last accepted step.
     */
    setTwoFactor?(userId: AdapterUser['id'], settings: { secret: string; enabledAt: Date | null }): Awaitable<void>;
    /** Not part of Auth.js's interface: deletes the user's two-factor settings and recovery codes. */
    deleteTwoFactor?(userId: AdapterUser['id']): Awaitable<void>;
    /**
     * Not part of Auth.js's interface: records that a code of time step `step` was accepted, atomically and only when
     * it is later than the last accepted one; true when recorded, false for a step already used (a replayed code).
     */
    acceptTwoFactorStep?(userId: AdapterUser['id'], step: number): Awaitable<boolean>;
    /** Not part of Auth.js's interface: replaces the user's recovery codes with these hashes. */
    setRecoveryCodes?(userId: AdapterUser['id'], codeHashes: readonly string[]): Awaitable<void>;
    /** Not part of Auth.js's interface: deletes one recovery code by its hash, atomically; true when it was there. */
    useRecoveryCode?(userId: AdapterUser['id'], codeHash: string): Awaitable<boolean>;
  }
}

export const twoFactorStorage: FeatureStorage = {
  tables: [
    { name: 'two_factor', columns: { user_id: 'text', secret: 'text', enabled_at: 'date', last_step: 'bigint' }, nullable: ['enabled_at', 'last_step'], primaryKey: ['user_id'] },
    { name: 'recovery_codes', columns: { user_id: 'text', code_hash: 'text' }, primaryKey: ['user_id', 'code_hash'] },
  ],
  sql: (database) => ({
    async getTwoFactor(userId) {
      // A count is a number in SQLite and a bigint (a string) in PostgreSQL, as is last_step.
      const [row] = await database.all<{ secret: string; enabled_at: Date | number | null; last_step: number | string | null; recovery_codes: number | string }>(
        `SELECT secret, enabled_at, last_step,
                (SELECT count(*) FROM recovery_codes WHERE recovery_codes.user_id = two_factor.user_id) AS recovery_codes
         FROM two_factor WHERE user_id = ?`,
        [userId],
      );
      if (!row) return null;
      return {
        secret: row.secret,
        enabledAt: row.enabled_at === null ? null : new Date(row.enabled_at),
        lastStep: row.last_step === null ? null : Number(row.last_step),
        recoveryCodes: Number(row.recovery_codes),
      };
    },

    async setTwoFactor(userId, { secret, enabledAt }) {
      await database.run(
        `INSERT INTO two_factor (user_id, secret, enabled_at, last_step) VALUES (?, ?, ?, NULL)
         ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, enabled_at = excluded.enabled_at, last_step = NULL`,
        [userId, secret, enabledAt === null ? null : new Date(enabledAt)],
      );
    },

    async deleteTwoFactor(userId) {
      await database.batch([
        ['DELETE FROM recovery_codes WHERE user_id = ?', [userId]],
        ['DELETE FROM two_factor WHERE user_id = ?', [userId]],
      ]);
    },

    async acceptTwoFactorStep(userId, step) {
      // One statement: of two processes accepting the same step, only one changes the row (PostgreSQL's row lock makes
      // the second re-check its condition; SQLite runs one write at a time).
      return (await database.run('UPDATE two_factor SET last_step = ? WHERE user_id = ? AND (last_step IS NULL OR last_step < ?)', [step, userId, step])) > 0;
    },

    async setRecoveryCodes(userId, codeHashes) {
      await database.batch([
        // In PostgreSQL the user's row is locked first, so that of two concurrent replacements one runs after the other.
        ...(database.dialect === 'postgres' ? [['SELECT 1 FROM users WHERE id = ? FOR UPDATE', [userId]] as const] : []),
        ['DELETE FROM recovery_codes WHERE user_id = ?', [userId]],
        ...codeHashes.map((hash) => ['INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?) ON CONFLICT DO NOTHING', [userId, hash]] as const),
      ]);
    },

    async useRecoveryCode(userId, codeHash) {
      // Single use: of two DELETEs of the same row, the second finds it gone.
      return (await database.run('DELETE FROM recovery_codes WHERE user_id = ? AND code_hash = ?', [userId, codeHash])) > 0;
    },
  }),
  memory(users) {
    const settings = new Map<string, { secret: string; enabledAt: Date | null; lastStep: number | null }>();
    const recoveryCodes = new Map<string, Set<string>>();
    return {
      forgetUser(userId) {
        settings.delete(userId);
        recoveryCodes.delete(userId);
      },
      methods: {
        async getTwoFactor(userId) {
          const stored = settings.get(userId);
          return stored ? { ...structuredClone(stored), recoveryCodes: recoveryCodes.get(userId)?.size ?? 0 } : null;
        },
        async setTwoFactor(userId, { secret, enabledAt }) {
          if (!users.has(userId)) throw new Error(`setTwoFactor: no user has the id ${JSON.stringify(userId)}`);
          settings.set(userId, { secret, enabledAt: enabledAt ? new Date(enabledAt) : null, lastStep: null });
        },
        async deleteTwoFactor(userId) {
          settings.delete(userId);
          recoveryCodes.delete(userId);
        },
        async acceptTwoFactorStep(userId, step) {
          // Compare and set with no await in between: one process, so no other call runs in the middle.
          const stored = settings.get(userId);
          if (!stored || (stored.lastStep !== null && stored.lastStep >= step)) return false;
          stored.lastStep = step;
          return true;
        },
        async setRecoveryCodes(userId, codeHashes) {
          if (!users.has(userId)) throw new Error(`setRecoveryCodes: no user has the id ${JSON.stringify(userId)}`);
          recoveryCodes.set(userId, new Set(codeHashes));
        },
        async useRecoveryCode(userId, codeHash) {
          return recoveryCodes.get(userId)?.delete(codeHash) ?? false;
        },
      },
    };
  },
};
