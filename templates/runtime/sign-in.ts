/**
 * Signing in with an adapter: find the user behind the provider account, link accounts, create users, and open a
 * database session. Mirrors Auth.js's rules so that existing databases behave the same:
 * - an account already linked signs its user in;
 * - a signed-in user who signs in with a new provider gets that account linked;
 * - a new account whose email belongs to an existing user is refused (`OAuthAccountNotLinked`) unless the provider
 *   sets `allowDangerousEmailAccountLinking`;
 * - otherwise a user is created and the account linked to it.
 */
import { randomUUID } from 'node:crypto';
import { type Adapter, callAdapter } from './adapter.js';
import type { ResolvedConfig } from './config.js';
import type { RequestContext } from './context.js';
import { readChunkedCookie } from './cookies.js';
import { OAuthAccountNotLinked } from './errors.js';
import { emitEvent } from './events.js';
import type { Account, AdapterSession, AdapterUser, Profile, User } from './types.js';

/** What a sign-in with an adapter resolved to. */
export interface SignInResolution {
  user: User | AdapterUser;
  isNewUser: boolean;
  /** The new database session (database strategy only). */
  session?: AdapterSession | undefined;
}

/** The user of the request's current session, when there is one, so that a new provider gets linked to them. */
async function currentUser(context: RequestContext, adapter: Adapter): Promise<AdapterUser | null> {
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
      user = await callAdapter(adapter, 'createUser', newUser);
      isNewUser = true;
      await emitEvent(options, 'createUser', { user });
    }
  }
  await callAdapter(adapter, 'linkAccount', { ...account, userId: user.id });
  await emitEvent(options, 'linkAccount', { user, account, profile: params.user });
  return { user, isNewUser, session: await openSession(options, adapter, user.id) };
}
