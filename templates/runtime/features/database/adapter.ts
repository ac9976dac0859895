/**
 * The database adapter interface, method for method as Auth.js's `Adapter`, so that existing `@auth/*-adapter`
 * packages can be passed as `adapter`: the database feature declares its methods on the core's `Adapter` (contracts.ts), which a
 * project without an adapter keeps empty. Every method is optional; each feature checks for the ones it needs.
 */
import { AdapterError, MissingAdapterMethods } from '../../errors.js';
import type { Adapter } from '../../contracts.js';
import type {
  Account,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  Awaitable,
  TokenSet,
  VerificationToken,
} from '../../types.js';

export type { AdapterAccount, AdapterAuthenticator, AdapterSession, AdapterUser, VerificationToken };

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

/** The count of a rate-limit key's current window after a hit, and when that window ends. */
export interface RateLimitHit {
  count: number;
  resetAt: Date;
}

declare module '../../contracts.js' {
  /** Storage for users, accounts, sessions, verification tokens and WebAuthn authenticators (Auth.js's methods). */
  interface Adapter {
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
    getAuthenticator?(credentialID: AdapterAuthenticator['credentialID']): Awaitable<AdapterAuthenticator | null>;
    createAuthenticator?(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator>;
    /**
     * Not part of Auth.js's interface: creates a user and links its first account in one transaction, so that a
     * failure (the database going down between the two writes) leaves neither. Used when present; otherwise the
     * runtime calls `createUser` then `linkAccount`, and deletes the user again if linking fails.
     */
    createUserWithAccount?(user: AdapterUser, account: Account): Awaitable<AdapterUser>;
    listAuthenticatorsByUserId?(userId: AdapterAuthenticator['userId']): Awaitable<AdapterAuthenticator[]>;
    updateAuthenticatorCounter?(credentialID: AdapterAuthenticator['credentialID'], newCounter: AdapterAuthenticator['counter']): Awaitable<AdapterAuthenticator>;
    /**
     * Not part of Auth.js's interface: counts one attempt for a rate-limit key in its fixed window, atomically (see
     * `RateLimitStore.hit`). With `resetRateLimit`, the `rateLimit` counters live in the database, so every app
     * process sharing it counts together; without them, they live in each process's memory.
     */
    hitRateLimit?(key: string, windowSeconds: number, max?: number): Awaitable<RateLimitHit>;
    /** Not part of Auth.js's interface: forgets a rate-limit key's window (see `RateLimitStore.reset`). */
    resetRateLimit?(key: string): Awaitable<void>;
    /**
     * Not part of Auth.js's interface: every account of a user, in any order (none: an empty list). `getAccessToken`
     * finds the signed-in user's account with a provider through it, and database sessions show
     * `session.error` from it.
     */
    listAccountsByUserId?(userId: AdapterAccount['userId']): Awaitable<AdapterAccount[]>;
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

export type { Adapter } from '../../contracts.js';

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
    throw new AdapterError(`adapter.${method}() failed`, { cause: error instanceof Error ? error : undefined });
  }
}
