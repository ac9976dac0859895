/**
 * A feature is a part of the runtime that not every app has (users, accounts and sessions in a database; email
 * links; passkeys): one folder that brings its routes, its startup check and the hooks the core calls. The core
 * imports none of a feature's code, so a project holds only the features it uses. A feature comes with what needs
 * it, as a provider's flow comes with the provider: a built-in adapter carries the database feature, a provider's
 * flow carries its routes. An Auth.js adapter carries none: list the feature in the config's `features`.
 */
import type { Request } from 'express';
import type { ResolvedConfig } from './config.js';
import type { SignInResolution } from './complete-sign-in.js';
import type { RequestContext } from './context.js';
import type { ErrorResponse, ErrorType } from './errors.js';
import type { ResolvedOAuthProvider } from './providers/resolve.js';
import type { RouteEntry } from './router.js';
import type { SessionRead, SessionResult } from './session/session.js';
import type { Account, AdapterSession, AdapterUser, Profile, User } from './types.js';

/**
 * Key under which an adapter carries the features that use it (the built-in adapters carry the database feature).
 * @example adapter: { ...myAdapter, [carriedFeatures]: [database] }
 */
export const carriedFeatures = Symbol.for('framework-auth.features');

/**
 * Storage for users, accounts and sessions (the config's `adapter`). Its methods (Auth.js's `Adapter` interface) are
 * declared by the database feature (features/database/adapter.ts), which comes with an adapter; without one, a
 * project has no adapter code.
 */
export interface Adapter {
  /** The features that use this adapter: the built-in adapters carry the database feature. */
  [carriedFeatures]?: readonly Feature[];
}

/** What a feature brings. Every part is optional. */
export interface Feature {
  /** Names the feature; a feature listed twice (in the config and by an adapter) counts once. */
  id: string;
  /** Routes below the mount path, by action name (the first path segment); none may shadow another's. */
  routes?: Readonly<Record<string, RouteEntry>>;
  /** The error classes it adds (each with its `type` and `response`), so that the pages can show `?error=<type>`. */
  errors?: readonly { readonly type: ErrorType; readonly response?: ErrorResponse | undefined }[];
  /** Checks the resolved config at startup: throws a clear error when something the feature needs is missing. */
  check?(options: ResolvedConfig): void;
  /** The users, accounts and sessions kept through the adapter (the database feature). */
  database?: DatabaseHooks;
  /** The second factor asked after a first factor (the two-factor feature). */
  secondFactor?: SecondFactorHooks;
}

/** A sign-in whose first factor (a password, a link, a provider) is proven, waiting for the second. */
export interface PendingSignIn {
  user: AdapterUser;
  /** The provider that proved the first factor, and the account it knows the user by. */
  account: Pick<Account, 'provider' | 'type' | 'providerAccountId'>;
  callbackUrl: string | undefined;
}

/** What the core asks of the two-factor feature (features/two-factor/). */
export interface SecondFactorHooks {
  /** After a proven first factor: with two-factor on, answers the request (a pending sign-in, no session) and resolves true. */
  challenge(context: RequestContext, signIn: PendingSignIn): Promise<boolean>;
}

/**
 * What the core asks of the database feature (features/database/): with it, sign-ins find, link and create users,
 * and sessions may live in the database.
 */
export interface DatabaseHooks {
  /** The user an account belongs to, before any change: what the `signIn` callback is shown. */
  userOfAccount(options: ResolvedConfig, account: Account): Promise<AdapterUser | null>;
  /** Finds or creates the user of an account's sign-in, links the account, and opens a database session if configured. */
  resolveSignIn(context: RequestContext, signIn: AccountSignIn): Promise<SignInResolution>;
  /**
   * Opens the database session of a proven sign-in (`session.strategy: 'database'`), replacing the browser's previous
   * session row.
   */
  openSession(context: RequestContext, userId: string): Promise<AdapterSession>;
  /** Reads a database session by the token in its cookie (`session.strategy: 'database'`). */
  readSession(options: ResolvedConfig, sessionToken: string, read: SessionRead): Promise<SessionResult>;
  /** Deletes a session's row at sign-out; resolves the deleted row, or null (also when the database failed). */
  endSession(options: ResolvedConfig, sessionToken: string): Promise<AdapterSession | null>;
  /** `getAccessToken` with database sessions: the tokens live in the account row. */
  accessToken(req: Request, options: ResolvedConfig, provider: ResolvedOAuthProvider): Promise<string | null>;
}

/**
 * A sign-in through an account (OAuth or OpenID Connect; credentials with database sessions) that the database
 * feature resolves to a user, linking the account.
 */
export interface AccountSignIn {
  user: User;
  account: Account;
  profile?: Profile;
  allowDangerousEmailAccountLinking: boolean;
}
