/**
 * Where the passkey feature keeps WebAuthn authenticators (Auth.js's authenticator methods): the `authenticators`
 * table of the SQL adapters, or a map in memory.
 */
import type { Awaitable } from '../../types.js';
import type { Adapter, FeatureStorage, SqlDatabase } from '../database/adapter.js';

/** A stored WebAuthn authenticator. */
export interface AdapterAuthenticator {
  credentialID: string;
  userId: string;
  providerAccountId: string;
  credentialPublicKey: string;
  counter: number;
  credentialDeviceType: string;
  credentialBackedUp: boolean;
  transports?: string | null;
}

declare module '../../contracts.js' {
  interface Adapter {
    getAuthenticator?(credentialID: AdapterAuthenticator['credentialID']): Awaitable<AdapterAuthenticator | null>;
    createAuthenticator?(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator>;
    listAuthenticatorsByUserId?(userId: AdapterAuthenticator['userId']): Awaitable<AdapterAuthenticator[]>;
    updateAuthenticatorCounter?(credentialID: AdapterAuthenticator['credentialID'], newCounter: AdapterAuthenticator['counter']): Awaitable<AdapterAuthenticator>;
    /**
     * Not part of Auth.js's interface: deletes an authenticator; resolves whether there was one. The account page
     * (features/account/) removes a passkey with it and `unlinkAccount`.
     */
    deleteAuthenticator?(credentialID: AdapterAuthenticator['credentialID']): Awaitable<boolean>;
  }
}

/** A row of `authenticators` as either driver returns it (`counter` is a bigint: WebAuthn counters are unsigned 32-bit). */
interface AuthenticatorRow {
  credential_id: string;
  user_id: string;
  provider_account_id: string;
  credential_public_key: string;
  counter: number | string;
  credential_device_type: string;
  credential_backed_up: boolean | number;
  transports: string | null;
}

function authenticatorFromRow(row: AuthenticatorRow): AdapterAuthenticator {
  return {
    credentialID: row.credential_id,
    userId: row.user_id,
    providerAccountId: row.provider_account_id,
    credentialPublicKey: row.credential_public_key,
    counter: Number(row.counter),
    credentialDeviceType: row.credential_device_type,
    credentialBackedUp: row.credential_backed_up === true || row.credential_backed_up === 1,
    transports: row.transports,
  };
}

function sqlAuthenticators(database: SqlDatabase): Partial<Adapter> {
  return {
    async createAuthenticator(authenticator) {
      const [row] = await database.all<AuthenticatorRow>(
        `INSERT INTO authenticators (credential_id, user_id, provider_account_id, credential_public_key, counter,
           credential_device_type, credential_backed_up, transports)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        [
          authenticator.credentialID,
          authenticator.userId,
          authenticator.providerAccountId,
          authenticator.credentialPublicKey,
          authenticator.counter,
          authenticator.credentialDeviceType,
          authenticator.credentialBackedUp,
          authenticator.transports ?? null,
        ],
      );
      return authenticatorFromRow(row!);
    },

    async getAuthenticator(credentialID) {
      const [row] = await database.all<AuthenticatorRow>('SELECT * FROM authenticators WHERE credential_id = ?', [credentialID]);
      return row ? authenticatorFromRow(row) : null;
    },

    async listAuthenticatorsByUserId(userId) {
      const rows = await database.all<AuthenticatorRow>('SELECT * FROM authenticators WHERE user_id = ? ORDER BY credential_id', [userId]);
      return rows.map(authenticatorFromRow);
    },

    async updateAuthenticatorCounter(credentialID, newCounter) {
      const [row] = await database.all<AuthenticatorRow>('UPDATE authenticators SET counter = ? WHERE credential_id = ? RETURNING *', [newCounter, credentialID]);
      if (!row) throw new Error(`updateAuthenticatorCounter: no authenticator has the credential ID ${JSON.stringify(credentialID)}`);
      return authenticatorFromRow(row);
    },

    async deleteAuthenticator(credentialID) {
      return (await database.run('DELETE FROM authenticators WHERE credential_id = ?', [credentialID])) > 0;
    },
  };
}

export const passkeyStorage: FeatureStorage = {
  tables: [
    {
      name: 'authenticators',
      columns: {
        credential_id: 'text',
        user_id: 'text',
        provider_account_id: 'text',
        credential_public_key: 'text',
        counter: 'bigint',
        credential_device_type: 'text',
        credential_backed_up: 'boolean',
        transports: 'text',
      },
      nullable: ['transports'],
      unique: ['credential_id'],
      primaryKey: ['user_id', 'credential_id'],
    },
  ],
  sql: sqlAuthenticators,
  memory(users) {
    const authenticators = new Map<string, AdapterAuthenticator>();
    return {
      forgetUser(userId) {
        for (const [id, authenticator] of authenticators) if (authenticator.userId === userId) authenticators.delete(id);
      },
      methods: {
        async createAuthenticator(authenticator) {
          if (!users.has(authenticator.userId)) throw new Error(`createAuthenticator: no user has the id ${JSON.stringify(authenticator.userId)}`);
          if (authenticators.has(authenticator.credentialID)) throw new Error('createAuthenticator: the credential ID is already registered');
          authenticators.set(authenticator.credentialID, structuredClone(authenticator));
          return structuredClone(authenticator);
        },
        async getAuthenticator(credentialID) {
          const authenticator = authenticators.get(credentialID);
          return authenticator ? structuredClone(authenticator) : null;
        },
        async listAuthenticatorsByUserId(userId) {
          return [...authenticators.values()].filter((authenticator) => authenticator.userId === userId).map((authenticator) => structuredClone(authenticator));
        },
        async updateAuthenticatorCounter(credentialID, newCounter) {
          const authenticator = authenticators.get(credentialID);
          if (!authenticator) throw new Error(`updateAuthenticatorCounter: no authenticator has the credential ID ${JSON.stringify(credentialID)}`);
          authenticator.counter = newCounter;
          return structuredClone(authenticator);
        },
        async deleteAuthenticator(credentialID) {
          return authenticators.delete(credentialID);
        },
      },
    };
  },
};
