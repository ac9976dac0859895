/**
 * What administration keeps: when a user was disabled and why, and since when they exist (columns on `users`), the
 * admins other admins granted (`admin_grants`), the admin actions with their actor and reason (`admin_actions`), and
 * which sessions are an admin acting as a user (columns on `sessions`: the admin, and the admin's own session to
 * return to). Disabling a user and ending their sessions is one transaction, so that no session of theirs outlives it
 * on any process.
 *
 * The rule that one admin is always left is one conditional statement after a lock on every grant (PostgreSQL: a
 * concurrent revocation waits, then counts what this one left; SQLite writes one transaction at a time already).
 */
import type { Adapter } from '../../contracts.js';
import type { AdapterSession, AdapterUser, Awaitable } from '../../types.js';
import type { FeatureStorage, NewAdapterSession, SqlDatabase } from '../database/adapter.js';

/** A user as the admin's list shows them. */
export interface AdminUserSummary {
  id: string;
  email: string | null;
  name: string | null;
  emailVerified: Date | null;
  /** When the user was created (`users.created_at`); null for users made before administration was added. */
  createdAt: Date | null;
  /** Their last sign-in (the newest `sign-in` security event), or null. */
  lastSignInAt: Date | null;
  disabledAt: Date | null;
  /** An admin by grant (`admin_grants`); an admin by the config's addresses is not marked here. */
  granted: boolean;
}

/** What administration knows of one user beyond Auth.js's fields. */
export interface AdminState {
  disabledAt: Date | null;
  /** The reason the admin gave when disabling; shown only to admins. */
  disabledReason: string | null;
  /** An admin by grant (`admin_grants`). */
  granted: boolean;
  createdAt: Date | null;
}

/** An admin action on a user, as the user's admin page lists it (the actor's address read with it). */
export interface AdminActionRecord {
  id: string;
  /** The user acted on. */
  userId: string;
  /** The admin; null once their account is deleted. */
  actorId: string | null;
  actorEmail: string | null;
  /** The action's name (`disable`, `remove-two-factor`, `impersonate`, …). */
  action: string;
  /** The reason the admin gave (disable, impersonate), or a passkey's name; never a secret. */
  detail: string | null;
  at: Date;
}

/** What a revocation did: done, refused because no admin would be left, or the user held no grant. */
export type AdminRevocation = 'done' | 'last-admin' | 'not-granted';

/** An impersonation session's admin and the admin's own session, to return to. */
export interface Impersonation {
  adminId: string;
  /** The admin's own session's token: the cookie it had before impersonating. */
  adminSessionToken: string;
}

/** A new impersonation session: a session row of the user, marked with the admin and the admin's own session. */
export interface NewImpersonationSession extends Impersonation {
  session: Pick<AdapterSession, 'sessionToken' | 'userId' | 'expires'> & { createdAt: Date; userAgent: string | null };
}

declare module '../../contracts.js' {
  interface Adapter {
    /**
     * Not part of Auth.js's interface: users whose address or name contains `query` (case-insensitive; every user when
     * empty), ordered by address, `limit` from `offset`, and how many match. Administration (features/admin/) needs it
     * and the methods below.
     */
    searchUsers?(search: { query: string; offset: number; limit: number }): Awaitable<{ users: AdminUserSummary[]; total: number }>;
    /** Not part of Auth.js's interface: what administration knows of a user (never null: a user without any is enabled). */
    getAdminState?(userId: AdapterUser['id']): Awaitable<AdminState>;
    /** Not part of Auth.js's interface: writes a new user's creation time, once. */
    markUserCreated?(userId: AdapterUser['id'], at: Date): Awaitable<void>;
    /**
     * Not part of Auth.js's interface: disables a user and deletes every session of theirs, in one transaction;
     * resolves how many sessions ended.
     */
    disableUser?(userId: AdapterUser['id'], disabled: { at: Date; reason: string }): Awaitable<number>;
    /** Not part of Auth.js's interface: enables a disabled user again (their ended sessions stay ended). */
    enableUser?(userId: AdapterUser['id']): Awaitable<void>;
    /** Not part of Auth.js's interface: makes a user an admin by grant; false when they already were. */
    grantAdmin?(grant: { userId: AdapterUser['id']; grantedBy: AdapterUser['id']; at: Date }): Awaitable<boolean>;
    /**
     * Not part of Auth.js's interface: withdraws a user's grant unless no admin would be left: counted are the grants
     * and the users whose verified address is in `configured` (the config's admins, normalised addresses).
     */
    revokeAdmin?(userId: AdapterUser['id'], configured: readonly string[]): Awaitable<AdminRevocation>;
    /** Not part of Auth.js's interface: how many admins there are: grants, and users whose verified address is in `configured`. */
    countAdmins?(configured: readonly string[]): Awaitable<number>;
    /** Not part of Auth.js's interface: stores an admin action. */
    createAdminAction?(action: Omit<AdminActionRecord, 'actorEmail'>): Awaitable<void>;
    /** Not part of Auth.js's interface: the actions on a user, newest first, at most `limit`. */
    listAdminActions?(userId: AdapterUser['id'], limit: number): Awaitable<AdminActionRecord[]>;
    /** Not part of Auth.js's interface: stores an impersonation session (a session row with its admin). */
    createImpersonationSession?(impersonation: NewImpersonationSession): Awaitable<void>;
    /** Not part of Auth.js's interface: the admin of an impersonation session, or null (no such row, or not one). */
    getImpersonation?(sessionToken: string): Awaitable<Impersonation | null>;
  }
}

/** The adapter methods administration calls. */
export const adminMethods = [
  'getUser',
  'getUserByEmail',
  'deleteUser',
  'deleteSession',
  'listSessionsByUserId',
  'listAccountsByUserId',
  'searchUsers',
  'getAdminState',
  'markUserCreated',
  'disableUser',
  'enableUser',
  'grantAdmin',
  'revokeAdmin',
  'countAdmins',
  'createAdminAction',
  'listAdminActions',
  'createImpersonationSession',
  'getImpersonation',
] as const;

type When = Date | number;

const dateOf = (value: When | null): Date | null => (value === null ? null : new Date(value));

interface SummaryRow {
  id: string;
  email: string | null;
  name: string | null;
  email_verified: When | null;
  created_at: When | null;
  disabled_at: When | null;
  grantee: string | null;
  last_sign_in_at: When | null;
}

function summaryOf(row: SummaryRow): AdminUserSummary {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    emailVerified: dateOf(row.email_verified),
    createdAt: dateOf(row.created_at),
    lastSignInAt: dateOf(row.last_sign_in_at),
    disabledAt: dateOf(row.disabled_at),
    granted: row.grantee !== null,
  };
}

interface ActionRow {
  id: string;
  user_id: string;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  detail: string | null;
  at: When;
}

const actionOf = (row: ActionRow): AdminActionRecord => ({ id: row.id, userId: row.user_id, actorId: row.actor_id, actorEmail: row.actor_email, action: row.action, detail: row.detail, at: new Date(row.at) });

/** A search's `LIKE` pattern: the query lower-cased, its `%`, `_` and `\` matched as themselves (`ESCAPE '\'`). */
const containing = (query: string): string => `%${query.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;

/**
 * The admins' ids, each once: the grants, and the users whose verified address is one of `configured` (normalised,
 * lower-case; none: the grants alone, as an empty `IN ()` is no SQL). With `except`, every admin but that user.
 */
function adminIds(configured: readonly string[], except?: string): [sql: string, parameters: unknown[]] {
  const other = except === undefined ? [] : [except];
  const grants = `SELECT user_id AS id FROM admin_grants${except === undefined ? '' : ' WHERE user_id <> ?'}`;
  if (configured.length === 0) return [grants, other];
  const addresses = `SELECT id FROM users WHERE email_verified IS NOT NULL AND lower(email) IN (${configured.map(() => '?').join(', ')})${except === undefined ? '' : ' AND id <> ?'}`;
  return [`${grants} UNION ${addresses}`, [...other, ...configured, ...other]];
}

/** One user's row as administration reads it: its columns of `users` and whether it holds a grant. */
const stateSql = 'SELECT u.disabled_at, u.disabled_reason, u.created_at, g.user_id AS grantee FROM users u LEFT JOIN admin_grants g ON g.user_id = u.id WHERE u.id = ?';

/** What administration knows of a user that is not there (or has nothing): enabled, no grant. */
const noState = (): AdminState => ({ disabledAt: null, disabledReason: null, granted: false, createdAt: null });

export const adminStorage: FeatureStorage = {
  tables: [
    {
      name: 'admin_grants',
      columns: { user_id: 'text', granted_by: 'text', granted_at: 'date' },
      nullable: ['granted_by'],
      primaryKey: ['user_id'],
      references: { granted_by: { table: 'users', onDelete: 'set null' } },
    },
    {
      name: 'admin_actions',
      columns: { id: 'text', user_id: 'text', actor_id: 'text', action: 'text', detail: 'text', at: 'date' },
      nullable: ['actor_id', 'detail'],
      primaryKey: ['id'],
      indexes: [['user_id', 'at']],
      // The admins' record outlives the user it names: a deletion stays recorded (by the user's id only).
      references: { user_id: null, actor_id: { table: 'users', onDelete: 'set null' } },
    },
  ],
  columns: [
    { table: 'users', name: 'disabled_at', type: 'date', nullable: true },
    { table: 'users', name: 'disabled_reason', type: 'text', nullable: true },
    { table: 'users', name: 'created_at', type: 'date', nullable: true },
    // An impersonation ends with its admin's account; its admin's own session is only a token to return to.
    { table: 'sessions', name: 'impersonated_by', type: 'text', nullable: true, references: { table: 'users', onDelete: 'cascade' } },
    { table: 'sessions', name: 'impersonator_session', type: 'text', nullable: true },
  ],
  sql: sqlAdmin,
  memory: memoryAdmin,
};

function sqlAdmin(database: SqlDatabase): Partial<Adapter> {
  const postgres = database.dialect === 'postgres';
  // PostgreSQL's ILIKE folds case beyond ASCII; SQLite's lower() folds ASCII only. The order is by code point in
  // both (PostgreSQL's default collation would follow the server's locale), users without an address last.
  const matches = (column: string): string => (postgres ? `${column} ILIKE ? ESCAPE '\\'` : `lower(${column}) LIKE ? ESCAPE '\\'`);
  const order = postgres ? 'u.email IS NULL, u.email COLLATE "C", u.id COLLATE "C"' : 'u.email IS NULL, u.email, u.id';
  /**
   * Locks every grant for the rest of the transaction (PostgreSQL, in one order, so that two revocations wait for
   * each other rather than deadlock: the second then counts what the first left). SQLite's UPDATE takes the file's
   * write lock at once, before the count is read.
   */
  const lockGrants = postgres ? 'SELECT user_id FROM admin_grants ORDER BY user_id COLLATE "C" FOR UPDATE' : 'UPDATE admin_grants SET granted_at = granted_at';
  return {
    async searchUsers({ query, offset, limit }) {
      const where = query === '' ? '' : `WHERE (${matches('u.email')} OR ${matches('u.name')})`;
      const filter = query === '' ? [] : [containing(query), containing(query)];
      const rows = await database.all<SummaryRow>(
        `SELECT u.id, u.email, u.name, u.email_verified, u.created_at, u.disabled_at, g.user_id AS grantee,
                (SELECT max(e.at) FROM security_events e WHERE e.user_id = u.id AND e.type = 'sign-in') AS last_sign_in_at
         FROM users u LEFT JOIN admin_grants g ON g.user_id = u.id ${where}
         ORDER BY ${order} LIMIT ? OFFSET ?`,
        [...filter, limit, offset],
      );
      const [count] = await database.all<{ total: number | string }>(`SELECT count(*) AS total FROM users u ${where}`, filter);
      return { users: rows.map(summaryOf), total: Number(count?.total ?? 0) };
    },
    async getAdminState(userId) {
      const [row] = await database.all<{ disabled_at: When | null; disabled_reason: string | null; created_at: When | null; grantee: string | null }>(stateSql, [userId]);
      if (!row) return noState();
      return { disabledAt: dateOf(row.disabled_at), disabledReason: row.disabled_reason, granted: row.grantee !== null, createdAt: dateOf(row.created_at) };
    },
    async markUserCreated(userId, at) {
      await database.run('UPDATE users SET created_at = ? WHERE id = ? AND created_at IS NULL', [at, userId]);
    },
    async disableUser(userId, { at, reason }) {
      // The user's own sessions (their impersonations by an admin too), and those in which they act as an admin as
      // someone else: a disabled admin impersonates no one.
      const [, ended] = await database.batch([
        ['UPDATE users SET disabled_at = ?, disabled_reason = ? WHERE id = ?', [at, reason, userId]],
        ['DELETE FROM sessions WHERE user_id = ? OR impersonated_by = ?', [userId, userId]],
      ]);
      return ended ?? 0;
    },
    async enableUser(userId) {
      await database.run('UPDATE users SET disabled_at = NULL, disabled_reason = NULL WHERE id = ?', [userId]);
    },
    async grantAdmin({ userId, grantedBy, at }) {
      const granted = await database.run('INSERT INTO admin_grants (user_id, granted_by, granted_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO NOTHING', [userId, grantedBy, at]);
      return granted > 0;
    },
    async revokeAdmin(userId, configured) {
      const [others, parameters] = adminIds(configured, userId);
      const [, revoked] = await database.batch([
        [lockGrants, []],
        [`DELETE FROM admin_grants WHERE user_id = ? AND (SELECT count(*) FROM (${others}) admins) >= 1`, [userId, ...parameters]],
      ]);
      if ((revoked ?? 0) > 0) return 'done';
      const [held] = await database.all<{ user_id: string }>('SELECT user_id FROM admin_grants WHERE user_id = ?', [userId]);
      return held ? 'last-admin' : 'not-granted';
    },
    async countAdmins(configured) {
      const [admins, parameters] = adminIds(configured);
      const [row] = await database.all<{ admins: number | string }>(`SELECT count(*) AS admins FROM (${admins}) admins`, parameters);
      return Number(row?.admins ?? 0);
    },
    async createAdminAction({ id, userId, actorId, action, detail, at }) {
      await database.run('INSERT INTO admin_actions (id, user_id, actor_id, action, detail, at) VALUES (?, ?, ?, ?, ?, ?)', [id, userId, actorId, action, detail, at]);
    },
    async listAdminActions(userId, limit) {
      const rows = await database.all<ActionRow>(
        `SELECT a.id, a.user_id, a.actor_id, u.email AS actor_email, a.action, a.detail, a.at
         FROM admin_actions a LEFT JOIN users u ON u.id = a.actor_id
         WHERE a.user_id = ? ORDER BY a.at DESC, a.id LIMIT ?`,
        [userId, limit],
      );
      return rows.map(actionOf);
    },
    async createImpersonationSession({ session, adminId, adminSessionToken }) {
      const { sessionToken, userId, expires, createdAt, userAgent } = session;
      await database.run(
        `INSERT INTO sessions (session_token, user_id, expires, created_at, last_seen_at, user_agent, impersonated_by, impersonator_session)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [sessionToken, userId, expires, createdAt, createdAt, userAgent, adminId, adminSessionToken],
      );
    },
    async getImpersonation(sessionToken) {
      const [row] = await database.all<{ impersonated_by: string; impersonator_session: string | null }>(
        'SELECT impersonated_by, impersonator_session FROM sessions WHERE session_token = ? AND impersonated_by IS NOT NULL',
        [sessionToken],
      );
      // Written together: a row without the admin's session returns to none (an empty token finds no session).
      return row ? { adminId: row.impersonated_by, adminSessionToken: row.impersonator_session ?? '' } : null;
    },
  };
}

/** Administration's columns on a memory user (`FeatureStorage.columns`, as camelCase fields). */
type MemoryUser = AdapterUser & { disabledAt?: Date | null; disabledReason?: string | null; createdAt?: Date | null };
/** Administration's columns on a memory session. */
type MemorySession = AdapterSession & { impersonatedBy?: string | null; impersonatorSession?: string | null };

/** Orders by address (users without one last), then id, by code unit as the SQL adapters do by code point. */
function byAddress(a: AdapterUser, b: AdapterUser): number {
  const [left, right] = [a.email ?? null, b.email ?? null];
  if (left !== right) {
    if (left === null) return 1;
    if (right === null) return -1;
    return left < right ? -1 : 1;
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The same methods for MemoryAdapter, over its users (administration's columns as fields on them), its sessions
 * (through its own methods) and maps of grants and actions. One process: each method is atomic by running to its end.
 */
function memoryAdmin(users: ReadonlyMap<string, AdapterUser>, adapter: Adapter): ReturnType<FeatureStorage['memory']> {
  const grants = new Map<string, { grantedBy: string | null; grantedAt: Date }>();
  const actions: Omit<AdminActionRecord, 'actorEmail'>[] = [];
  /** The tokens of the impersonation sessions made here: the sessions a disabled admin acts in (read when used). */
  const impersonationTokens = new Set<string>();
  const userOf = (userId: string): MemoryUser | undefined => users.get(userId);
  const refuseUnknown = (method: string, userId: string | null): void => {
    if (userId !== null && !users.has(userId)) throw new Error(`${method}: no user has the id ${JSON.stringify(userId)}`);
  };
  const sessionOf = async (sessionToken: string): Promise<MemorySession | null> => (await adapter.getSessionAndUser!(sessionToken))?.session ?? null;
  const admins = (configured: readonly string[]): Set<string> => {
    const found = new Set(grants.keys());
    for (const user of users.values()) if (user.emailVerified && user.email && configured.includes(user.email.toLowerCase())) found.add(user.id);
    return found;
  };
  const lastSignIn = async (userId: string): Promise<Date | null> => {
    // The security events' own memory (features/security-events/storage.ts), read through the adapter; without the
    // feature there are none.
    const events = (await adapter.listSecurityEvents?.(userId, Number.MAX_SAFE_INTEGER)) ?? [];
    return events.find((event) => event.type === 'sign-in')?.at ?? null;
  };
  return {
    forgetUser(userId) {
      grants.delete(userId);
      for (const grant of grants.values()) if (grant.grantedBy === userId) grant.grantedBy = null;
      for (const action of actions) if (action.actorId === userId) action.actorId = null;
    },
    methods: {
      async searchUsers({ query, offset, limit }) {
        const lower = query.toLowerCase();
        const found = [...users.values()].filter((user) => query === '' || [user.email, user.name].some((field) => field?.toLowerCase().includes(lower))).sort(byAddress);
        const page = await Promise.all(
          found.slice(offset, offset + limit).map(async (user: MemoryUser): Promise<AdminUserSummary> => ({
            id: user.id,
            email: user.email ?? null,
            name: user.name ?? null,
            emailVerified: user.emailVerified ? new Date(user.emailVerified) : null,
            createdAt: user.createdAt ? new Date(user.createdAt) : null,
            lastSignInAt: await lastSignIn(user.id),
            disabledAt: user.disabledAt ? new Date(user.disabledAt) : null,
            granted: grants.has(user.id),
          })),
        );
        return { users: page, total: found.length };
      },
      async getAdminState(userId) {
        const user = userOf(userId);
        if (!user) return noState();
        return {
          disabledAt: user.disabledAt ? new Date(user.disabledAt) : null,
          disabledReason: user.disabledReason ?? null,
          granted: grants.has(userId),
          createdAt: user.createdAt ? new Date(user.createdAt) : null,
        };
      },
      async markUserCreated(userId, at) {
        const user = userOf(userId);
        if (user && !user.createdAt) user.createdAt = new Date(at);
      },
      async disableUser(userId, { at, reason }) {
        const user = userOf(userId);
        if (!user) return 0;
        user.disabledAt = new Date(at);
        user.disabledReason = reason;
        const ended = new Set((await adapter.listSessionsByUserId!(userId)).map((session) => session.sessionToken));
        for (const token of impersonationTokens) {
          const session = await sessionOf(token);
          if (!session) impersonationTokens.delete(token);
          else if (session.impersonatedBy === userId) ended.add(token);
        }
        for (const token of ended) await adapter.deleteSession!(token);
        return ended.size;
      },
      async enableUser(userId) {
        const user = userOf(userId);
        if (!user) return;
        user.disabledAt = null;
        user.disabledReason = null;
      },
      async grantAdmin({ userId, grantedBy, at }) {
        refuseUnknown('grantAdmin', userId);
        refuseUnknown('grantAdmin', grantedBy);
        if (grants.has(userId)) return false;
        grants.set(userId, { grantedBy, grantedAt: new Date(at) });
        return true;
      },
      async revokeAdmin(userId, configured) {
        if (!grants.has(userId)) return 'not-granted';
        const others = admins(configured);
        others.delete(userId);
        if (others.size === 0) return 'last-admin';
        grants.delete(userId);
        return 'done';
      },
      async countAdmins(configured) {
        return admins(configured).size;
      },
      async createAdminAction(action) {
        refuseUnknown('createAdminAction', action.userId);
        refuseUnknown('createAdminAction', action.actorId);
        actions.push(structuredClone(action));
      },
      async listAdminActions(userId, limit) {
        const own = actions.filter((action) => action.userId === userId).sort((a, b) => b.at.valueOf() - a.at.valueOf() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        return own.slice(0, limit).map((action) => ({ ...structuredClone(action), actorEmail: (action.actorId === null ? undefined : users.get(action.actorId)?.email) ?? null }));
      },
      async createImpersonationSession({ session, adminId, adminSessionToken }) {
        refuseUnknown('createImpersonationSession', adminId);
        // MemoryAdapter's createSession keeps the fields of the columns features add to sessions.
        const row: NewAdapterSession & Pick<MemorySession, 'impersonatedBy' | 'impersonatorSession'> = {
          ...session,
          lastSeenAt: session.createdAt,
          impersonatedBy: adminId,
          impersonatorSession: adminSessionToken,
        };
        await adapter.createSession!(row);
        impersonationTokens.add(session.sessionToken);
      },
      async getImpersonation(sessionToken) {
        const session = await sessionOf(sessionToken);
        if (typeof session?.impersonatedBy !== 'string') return null;
        return { adminId: session.impersonatedBy, adminSessionToken: session.impersonatorSession ?? '' };
      },
    },
  };
}
