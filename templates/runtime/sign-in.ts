/**
 * Signing in with an adapter: find the user behind the provider account, link accounts, create users, and open a
 * database session. Mirrors Auth.js's rules so that existing databases behave the same:
 * - an account already linked signs its user in;
 * - a signed-in user who signs in with a new provider gets that account linked;
 * - a new account whose email belongs to an existing user is refused (`OAuthAccountNotLinked`) unless the provider
 *   sets `allowDangerousEmailAccountLinking`;
 * - otherwise a user is created and the account linked to it.
 * Email and passkey sign-ins have their own rules, also Auth.js's (`resolveEmailSignIn`, `resolveWebAuthnSignIn`).
 */
import { randomUUID } from 'node:crypto';
import { type Adapter, callAdapter } from './adapter.js';
import type { ResolvedConfig } from './config.js';
import type { RequestContext } from './context.js';
import { readChunkedCookie } from './cookies.js';
import { AccountNotLinked, MissingAdapter, OAuthAccountNotLinked } from './errors.js';
import { emitEvent } from './events.js';
import type { Account, AdapterAuthenticator, AdapterSession, AdapterUser, Profile, User } from './types.js';

/** What a sign-in with an adapter resolved to. */
export interface SignInResolution {
  user: User | AdapterUser;
  isNewUser: boolean;
  /** The new database session (database strategy only). */
  session?: AdapterSession | undefined;
}

/**
 * Runs the writes that complete a new user (linking the account, storing the passkey). If one fails (the database
 * went down), the user created for this sign-in is deleted again: a user without an account could never sign in
 * again, as their email would already be taken. Deleting the user cascades to whatever was written for it.
 */
async function undoNewUserOnFailure(options: ResolvedConfig, adapter: Adapter, created: AdapterUser | null, writes: () => Promise<unknown>): Promise<void> {
  try {
    await writes();
  } catch (error) {
    if (created) {
      await callAdapter(adapter, 'deleteUser', created.id).catch((cleanup: Error) => options.logger.error(cleanup));
    }
    throw error;
  }
}

/** The user of the request's current session, when there is one, so that a new provider gets linked to them. */
export async function currentUser(context: RequestContext, adapter: Adapter): Promise<AdapterUser | null> {
  const { options } = context;
  const cookie = context.cookieOptions.sessionToken;
  const raw = readChunkedCookie(context.cookies, cookie.name);
  if (!raw) return null;
  if (options.session.strategy === 'database') {
    const found = await callAdapter(adapter, 'getSessionAndUser', raw);
    return found && found.session.expires.valueOf() > Date.now() ? found.user : null;
  }
  const token = await options.jwt.decode({ token: raw, secret: options.secrets, salt: cookie.name }).catch(() => null);
  return token?.sub ? callAdapter(adapter, 'getUser', token.sub) : null;
}

async function openSession(options: ResolvedConfig, adapter: Adapter, userId: string): Promise<AdapterSession | undefined> {
  if (options.session.strategy !== 'database') return undefined;
  return callAdapter(adapter, 'createSession', {
    sessionToken: options.session.generateSessionToken(),
    userId,
    expires: new Date(Date.now() + options.session.maxAge * 1000),
  });
}

/** The user an account belongs to, or null, before any change: what the `signIn` callback is shown. */
export async function existingUserOf(options: ResolvedConfig, account: Account): Promise<AdapterUser | null> {
  if (!options.adapter) return null;
  return callAdapter(options.adapter, 'getUserByAccount', { provider: account.provider, providerAccountId: account.providerAccountId });
}

/** Finds or creates the user of an OAuth sign-in, links the account, and opens a database session if configured. */
export async function resolveSignIn(
  context: RequestContext,
  params: { user: User; account: Account; profile?: Profile; allowDangerousEmailAccountLinking: boolean },
): Promise<SignInResolution> {
  const { options } = context;
  const adapter = options.adapter;
  if (!adapter) return { user: params.user, isNewUser: false };
  const { account } = params;
  const signedIn = await currentUser(context, adapter);
  const owner = await existingUserOf(options, account);

  if (owner) {
    if (signedIn && String(signedIn.id) !== String(owner.id)) {
      throw new OAuthAccountNotLinked(`The ${account.provider} account is already linked to another user`);
    }
    return { user: owner, isNewUser: false, session: await openSession(options, adapter, owner.id) };
  }

  let user: AdapterUser;
  let isNewUser = false;
  if (signedIn) {
    user = signedIn;
  } else {
    const email = params.user.email ? String(params.user.email) : null;
    const byEmail = email ? await callAdapter(adapter, 'getUserByEmail', email) : null;
    if (byEmail) {
      if (!params.allowDangerousEmailAccountLinking) {
        throw new OAuthAccountNotLinked(`Another user already has the email of this ${account.provider} account`);
      }
      user = byEmail;
    } else {
      const { id: _providerId, ...fields } = params.user;
      // As in Auth.js, a provider without an email (the microblog network over OAuth 2) stores null.
      const newUser = { ...fields, id: randomUUID(), email, emailVerified: null } as AdapterUser;
      if (adapter.createUserWithAccount) {
        user = await callAdapter(adapter, 'createUserWithAccount', newUser, account);
        await emitEvent(options, 'createUser', { user });
        await emitEvent(options, 'linkAccount', { user, account, profile: params.user });
        return { user, isNewUser: true, session: await openSession(options, adapter, user.id) };
      }
      user = await callAdapter(adapter, 'createUser', newUser);
      isNewUser = true;
      await emitEvent(options, 'createUser', { user });
    }
  }
  await undoNewUserOnFailure(options, adapter, isNewUser ? user : null, () => callAdapter(adapter, 'linkAccount', { ...account, userId: user.id }));
  await emitEvent(options, 'linkAccount', { user, account, profile: params.user });
  return { user, isNewUser, session: await openSession(options, adapter, user.id) };
}

function requireAdapter(options: ResolvedConfig): Adapter {
  // The config check at startup makes this unreachable for email and WebAuthn providers; kept for custom wiring.
  if (!options.adapter) throw new MissingAdapter('This sign-in needs an adapter');
  return options.adapter;
}

/**
 * Email sign-in, as Auth.js: the user with the address gets `emailVerified` set to now, or a user is created with it
 * (the link proved the address). No account row is linked; the account passed to callbacks has type `email` and the
 * address as `providerAccountId`. With database sessions, the browser's previous session row is deleted: the new
 * session replaces it (also when it belonged to another user, who is thereby signed out).
 */
export async function resolveEmailSignIn(context: RequestContext, params: { identifier: string }): Promise<SignInResolution> {
  const { options } = context;
  const adapter = requireAdapter(options);
  const existing = await callAdapter(adapter, 'getUserByEmail', params.identifier);
  if (options.session.strategy === 'database') {
    const previous = readChunkedCookie(context.cookies, context.cookieOptions.sessionToken.name);
    if (previous) await callAdapter(adapter, 'deleteSession', previous).catch((error: Error) => options.logger.error(error));
  }
  let user: AdapterUser;
  let isNewUser = false;
  if (existing) {
    user = await callAdapter(adapter, 'updateUser', { id: existing.id, emailVerified: new Date() });
    await emitEvent(options, 'updateUser', { user });
  } else {
    user = await callAdapter(adapter, 'createUser', { id: randomUUID(), email: params.identifier, emailVerified: new Date() });
    isNewUser = true;
    await emitEvent(options, 'createUser', { user });
  }
  return { user, isNewUser, session: await openSession(options, adapter, user.id) };
}

/**
 * Passkey sign-in, as Auth.js. A known credential signs its user in (refused with `AccountNotLinked` while another
 * user is signed in). A new credential (registration) is added to the signed-in user, or creates a user with the
 * given email, never attaching itself to an existing user found only by that email (`AccountNotLinked`: the email
 * was typed, not proven; sign in first, then add a passkey). The account has type `webauthn` and the credential
 * ID as `providerAccountId`; the authenticator is stored with the user's id.
 */
export async function resolveWebAuthnSignIn(
  context: RequestContext,
  params: { user: User; account: Account; authenticator?: Omit<AdapterAuthenticator, 'userId'> },
): Promise<SignInResolution> {
  const { options } = context;
  const adapter = requireAdapter(options);
  const { account } = params;
  const signedIn = await currentUser(context, adapter);
  const owner = await existingUserOf(options, account);
  if (owner) {
    if (signedIn && String(signedIn.id) !== String(owner.id)) {
      throw new AccountNotLinked('This passkey belongs to another user than the one signed in');
    }
    return { user: owner, isNewUser: false, session: await openSession(options, adapter, owner.id) };
  }
  let user: AdapterUser;
  let isNewUser = false;
  if (signedIn) {
    user = signedIn;
  } else {
    const email = params.user.email ? String(params.user.email) : null;
    if (email && (await callAdapter(adapter, 'getUserByEmail', email))) {
      throw new AccountNotLinked('Another user already has this email: sign in, then add a passkey');
    }
    const newUser = { id: randomUUID(), email, emailVerified: null, ...(params.user.name ? { name: params.user.name } : {}) } as AdapterUser;
    user = await callAdapter(adapter, 'createUser', newUser);
    isNewUser = true;
    await emitEvent(options, 'createUser', { user });
  }
  const { authenticator } = params;
  await undoNewUserOnFailure(options, adapter, isNewUser ? user : null, async () => {
    await callAdapter(adapter, 'linkAccount', { ...account, userId: user.id });
    if (authenticator) await callAdapter(adapter, 'createAuthenticator', { ...authenticator, userId: user.id });
  });
  await emitEvent(options, 'linkAccount', { user, account, profile: params.user });
  return { user, isNewUser, session: await openSession(options, adapter, user.id) };
}
