/**
 * The rows of the SQL adapters' tables (the same columns in SQLite and PostgreSQL) and their mapping to and from
 * the adapter's objects. Copied with either SQL adapter. Each driver returns its own column types, named by the
 * type parameters: SQLite stores dates as milliseconds since the epoch and booleans as 0/1; `pg` returns
 * `timestamptz` as a Date and `bigint` as a string.
 */
import type { AdapterAccount, AdapterSession, AdapterUser, VerificationToken } from '../features/database/adapter.js';
import type { TokenSet } from '../types.js';

export interface UserRow<DateColumn = Date | number> {
  id: string;
  name: string | null;
  email: string | null;
  email_verified: DateColumn | null;
  image: string | null;
}

export interface AccountRow<BigintColumn = string | number> {
  user_id: string;
  type: string;
  provider: string;
  provider_account_id: string;
  access_token: string | null;
  refresh_token: string | null;
  id_token: string | null;
  expires_at: BigintColumn | null;
  scope: string | null;
  token_type: string | null;
  session_state: string | null;
  oauth_token: string | null;
  oauth_token_secret: string | null;
}

export interface SessionRow<DateColumn = Date | number> {
  session_token: string;
  user_id: string;
  expires: DateColumn;
  created_at?: DateColumn | null;
  last_seen_at?: DateColumn | null;
  user_agent?: string | null;
}

/**
 * The columns `sessions` gained for session management: core migration steps (`column:sessions.<name>`) that add
 * them to a table created by an earlier version. Every one may be NULL: rows made before they existed have none.
 */
export const sessionDetailColumns = { created_at: 'date', last_seen_at: 'date', user_agent: 'text' } as const;

export interface VerificationTokenRow<DateColumn = Date | number> {
  identifier: string;
  token: string;
  expires: DateColumn;
}

/** The token columns of `accounts`, named as the fields of the token set. */
export const tokenFields = [
  'access_token',
  'refresh_token',
  'id_token',
  'expires_at',
  'scope',
  'token_type',
  'session_state',
  'oauth_token',
  'oauth_token_secret',
] as const;

/** The token columns `updateAccountTokens` writes (`AccountTokens`): all of them, an absent field as NULL. */
export const refreshedTokenFields = ['access_token', 'refresh_token', 'expires_at', 'id_token', 'scope', 'token_type'] as const;

/** A date of any form the adapter receives or a driver returns, as a Date (null stays null). */
export function toDate(value: Date | string | number | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  return new Date(value);
}

export function userFromRow(row: UserRow): AdapterUser {
  return {
    id: row.id,
    name: row.name,
    // A provider without an email (the microblog network over OAuth 2) stores none.
    email: row.email as string,
    emailVerified: toDate(row.email_verified),
    image: row.image,
  };
}

export function accountFromRow(row: AccountRow): AdapterAccount {
  const account: Record<string, unknown> = {
    userId: row.user_id,
    type: row.type,
    provider: row.provider,
    providerAccountId: row.provider_account_id,
  };
  // Absent tokens stay absent (not null), as in the token set the provider returned.
  for (const field of tokenFields) {
    const value = row[field];
    if (value !== null) account[field] = field === 'expires_at' ? Number(value) : value;
  }
  return account as unknown as AdapterAccount;
}

export function sessionFromRow(row: SessionRow): AdapterSession {
  const session: AdapterSession = { sessionToken: row.session_token, userId: row.user_id, expires: new Date(row.expires) };
  // Absent details stay absent (not null): a session made without them is exactly Auth.js's three fields.
  if (row.created_at != null) session.createdAt = toDate(row.created_at);
  if (row.last_seen_at != null) session.lastSeenAt = toDate(row.last_seen_at);
  if (row.user_agent != null) session.userAgent = row.user_agent;
  return session;
}

/**
 * The statement of `getSessionAndUser`: the session and its user in one row, by the session table's primary key
 * (`placeholder` is `?` in SQLite, `$1` in PostgreSQL).
 */
export function sessionAndUserSql(placeholder: string): string {
  return `SELECT sessions.session_token, sessions.user_id, sessions.expires, sessions.created_at, sessions.last_seen_at, sessions.user_agent,
       users.id, users.name, users.email, users.email_verified, users.image
     FROM sessions JOIN users ON users.id = sessions.user_id
     WHERE sessions.session_token = ${placeholder}`;
}

/** A row of {@link sessionAndUserSql}. */
export type SessionAndUserRow = SessionRow & UserRow;

/**
 * The statement of `getSessionAndUserForRead`: only what reading a session uses (not the token the caller has,
 * not `user_id`, which is `users.id`, not `user_agent`), and whether one of the user's OAuth accounts had its tokens
 * withdrawn after a refused refresh, by the rule of `isWithdrawnAccount` (features/database/access-token.ts): kept
 * `expires_at`, no access or refresh token. Short, because PostgreSQL receives the text with every (unnamed) query.
 * Its answer is {@link SessionForReadValues}, dates as milliseconds since the epoch: SQLite stores them so, and its
 * statement answers the columns as an array (better-sqlite3's `raw` mode). PostgreSQL answers them in one `json`
 * column, which `pg` parses with one `JSON.parse`: `pg`'s cost grows with each column (its field list, parser and
 * property per column), and a `timestamptz` it would parse into a Date by regular expression is a number here.
 */
export function sessionForReadSql(dialect: 'sqlite' | 'postgres'): string {
  const epochMilliseconds = (column: string): string => (dialect === 'sqlite' ? column : `round(extract(epoch FROM ${column})*1000)`);
  const values = `${epochMilliseconds('s.expires')},${epochMilliseconds('s.created_at')},${epochMilliseconds('s.last_seen_at')},u.id,u.name,u.email,${epochMilliseconds('u.email_verified')},u.image,EXISTS(SELECT 1 FROM accounts a WHERE a.user_id=u.id AND a.type IN('oauth','oidc') AND a.access_token IS NULL AND a.refresh_token IS NULL AND a.expires_at IS NOT NULL)`;
  return dialect === 'sqlite'
    ? `SELECT ${values} FROM sessions s JOIN users u ON u.id=s.user_id WHERE s.session_token=?`
    : `SELECT json_build_array(${values}) AS r FROM sessions s JOIN users u ON u.id=s.user_id WHERE s.session_token=$1`;
}

/**
 * A row of {@link sessionForReadSql}, in its column order: the session's expiry, creation and last use, the user's
 * id, name, address, verification date and image, and whether tokens were withdrawn (SQLite answers 0 or 1,
 * PostgreSQL a boolean).
 */
export type SessionForReadValues = [
  expires: number,
  createdAt: number | null,
  lastSeenAt: number | null,
  id: string,
  name: string | null,
  email: string | null,
  emailVerified: number | null,
  image: string | null,
  withdrawn: number | boolean,
];

/** `getSessionAndUserForRead`'s answer from a row of {@link sessionForReadSql}. */
export function sessionForReadFromValues(
  sessionToken: string,
  values: SessionForReadValues,
): { session: AdapterSession; user: AdapterUser; withdrawnTokens: boolean } {
  const [expires, createdAt, lastSeenAt, id, name, email, emailVerified, image, withdrawn] = values;
  const session: AdapterSession = { sessionToken, userId: id, expires: new Date(expires) };
  if (createdAt !== null) session.createdAt = new Date(createdAt);
  if (lastSeenAt !== null) session.lastSeenAt = new Date(lastSeenAt);
  // A provider without an email (the microblog network over OAuth 2) stores none.
  const user: AdapterUser = { id, name, email: email as string, emailVerified: toDate(emailVerified), image };
  return { session, user, withdrawnTokens: withdrawn === true || withdrawn === 1 };
}

export function verificationTokenFromRow(row: VerificationTokenRow): VerificationToken {
  return { identifier: row.identifier, token: row.token, expires: new Date(row.expires) };
}

/** A token field as a column value: text stays text, `expires_at` is whole seconds. */
export function tokenParameter(tokens: TokenSet, field: (typeof tokenFields)[number]): string | number | null {
  const value = tokens[field];
  if (value === undefined || value === null) return null;
  if (field === 'expires_at') return Math.floor(Number(value));
  return String(value);
}
