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
import type { AdapterSession, AdapterUser, Awaitable } from '../../types.js';

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
