/**
 * Signing in with an adapter: find the user behind the provider account, link accounts, create users, and open a
 * database session. Auth.js's rules, except where an email address is concerned: an address joins identities only
 * once proven (SECURITY.md, "Email proof and account linking"). A user's `email` is proven when `emailVerified` is
 * set, and the runtime sets it only on proof: a used magic link, or an OAuth/OIDC sign-in whose provider vouches
 * for the address (the provider's `isEmailVerified`). `settleAddress` (addresses.ts) decides who gets an address, for every flow:
 * - an account already linked signs its user in (and a vouched-for address equal to the user's unproven one proves it);
 * - a signed-in user who signs in with a new provider gets that account linked (not a credentials account: that
 *   sign-in switches to whoever `authorize()` vouched for);
 * - an address nobody holds goes to the new user, proven or not;
 * - an unproven address never joins or takes an existing user's: refused (`OAuthAccountNotLinked`);
 * - a proven address held by a user who never proved it is claimed: that user keeps their account without the
 *   address, and a new user gets it, so whoever squatted an address first gains nothing from its owner's sign-in;
 * - a proven address held by a proven user joins them for a magic link, and for OAuth only with the provider's
 *   `allowDangerousEmailAccountLinking` (else `OAuthAccountNotLinked`, as Auth.js);
 * - a passkey sign-up claims no address at all: what was typed is only the new user's name.
 */
import { randomUUID } from 'node:crypto';
import { type Adapter, callAdapter } from './adapter.js';
import type { ResolvedConfig, SignInResolution, RequestContext, AccountSignIn } from '../../contracts.js';
import { userAgentOf } from '../../http/user-agent.js';
import { newSessionToken } from './session-token.js';
import { readChunkedCookie } from '../../http/cookies.js';
import { OAuthAccountNotLinked } from '../../errors.js';
import { ReauthenticationRequired } from './recent-auth.js';
import { hasProvenEmail, settleAddress, undoNewUserOnFailure } from './addresses.js';
import { type SignedIn, currentSignIn, isRecentSignIn } from './signed-in.js';
import { emitEvent, recordSecurityEvent } from '../../events.js';
import type { Account, AdapterSession, AdapterUser, Profile } from '../../types.js';

/** Whether the OAuth provider of `account` vouches for the email of this profile. */
function providerVouchesForEmail(context: RequestContext, account: Account, profile: Profile | undefined, email: string | null): boolean {
  const provider = context.options.providersById.get(account.provider);
  if (!email || !profile || !provider || (provider.type !== 'oauth' && provider.type !== 'oidc')) return false;
  return provider.isEmailVerified(profile) === true;
}

/**
 * Opens a new database session for the user, replacing the browser's previous session row. Its token carries the
 * authentication time (now). An adapter that lists sessions also stores when it was created and last used and the
 * browser's `User-Agent`, for the user's list of sessions. The expiry never passes the absolute end.
 */
export async function openSession(context: RequestContext, userId: string): Promise<AdapterSession> {
  const { options } = context;
  const adapter = options.adapter!;
  const previous = readChunkedCookie(context.cookies, context.cookieOptions.sessionToken.name);
  if (previous) await callAdapter(adapter, 'deleteSession', previous).catch((error: Error) => options.logger.error(error));
  const now = new Date();
  const details = typeof adapter.listSessionsByUserId === 'function' && {
    createdAt: now,
    lastSeenAt: now,
    userAgent: userAgentOf(context.req),
  };
  return callAdapter(adapter, 'createSession', {
    sessionToken: newSessionToken(options.session.generateSessionToken(), now),
    userId,
    expires: new Date(now.valueOf() + Math.min(options.session.maxAge, options.session.absoluteMaxAge) * 1000),
    ...details,
  });
}

/** The user an account belongs to, or null, before any change: what the `signIn` callback is shown. */
export async function existingUserOf(options: ResolvedConfig, account: Account): Promise<AdapterUser | null> {
  return callAdapter(options.adapter!, 'getUserByAccount', { provider: account.provider, providerAccountId: account.providerAccountId });
}

/**
 * A returning user's new tokens replace the stored ones (Auth.js keeps those of the first sign-in), so that
 * `getAccessToken` starts from them, and a sign-in after a refused refresh restores the account. The stored refresh
 * token stays when the provider sent none this time (Google sends one only at the first consent). Needs the
 * adapter's `listAccountsByUserId` and `updateAccountTokens`; without them the stored tokens stay as they were.
 */
async function storeSignInTokens(adapter: Adapter, owner: AdapterUser, account: Account): Promise<void> {
  if (typeof account.access_token !== 'string' || typeof adapter.updateAccountTokens !== 'function' || typeof adapter.listAccountsByUserId !== 'function') return;
  const accounts = await callAdapter(adapter, 'listAccountsByUserId', owner.id);
  const stored = accounts.find((candidate) => candidate.provider === account.provider && candidate.providerAccountId === account.providerAccountId);
  const fields: Record<string, unknown> = {
    access_token: account.access_token,
    refresh_token: account.refresh_token ?? stored?.refresh_token,
    expires_at: account.expires_at,
    id_token: account.id_token,
    scope: account.scope,
    token_type: account.token_type,
  };
  await callAdapter(adapter, 'updateAccountTokens', {
    provider: account.provider,
    providerAccountId: account.providerAccountId,
    tokens: Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
  });
}

/**
 * Finds or creates the user of an account's sign-in (OAuth, OpenID Connect, or credentials with database sessions),
 * links the account, and opens a database session if configured.
 */
export async function resolveSignIn(
  context: RequestContext,
  params: AccountSignIn,
): Promise<SignInResolution> {
  const { options } = context;
  const adapter = options.adapter!;
  const { account } = params;
  const email = params.user.email ? String(params.user.email) : null;
  const proven = providerVouchesForEmail(context, account, params.profile, email);
  // A credentials sign-in is whoever authorize() vouched for: it switches the browser to that user, and never links
  // their account to the user signed in before (on a shared computer, that would hand one person's account to another).
  const current: SignedIn | null = account.type === 'credentials' ? null : await currentSignIn(context, adapter);
  const signedIn = current?.user ?? null;
  const owner = await existingUserOf(options, account);

  if (owner) {
    if (signedIn && String(signedIn.id) !== String(owner.id)) {
      throw new OAuthAccountNotLinked(`The ${account.provider} account is already linked to another user`);
    }
    await storeSignInTokens(adapter, owner, account);
    // Users from before this rule (or from Auth.js) become proven once their provider vouches for their address.
    if (proven && email === owner.email && !hasProvenEmail(owner)) {
      const updated = await callAdapter(adapter, 'updateUser', { id: owner.id, emailVerified: new Date() });
      await emitEvent(options, 'updateUser', { user: updated });
      return { user: updated, isNewUser: false };
    }
    return { user: owner, isNewUser: false };
  }

  let user: AdapterUser;
  let isNewUser = false;
  if (current) {
    // Linking an account gives its holder a lasting way into this user: only after a recent authentication, so that
    // a copied session cookie cannot add the thief's account (SPEC §13).
    if (!isRecentSignIn(context, current)) {
      throw new ReauthenticationRequired(`Linking the ${account.provider} account to the signed-in user needs a recent authentication`);
    }
    user = current.user;
  } else {
    const outcome = await settleAddress(options, adapter, { email, proven, joinProvenHolder: params.allowDangerousEmailAccountLinking });
    if (outcome.action === 'refuse') {
      throw new OAuthAccountNotLinked(
        proven
          ? `Another user already has the email of this ${account.provider} account`
          : `Another user already has the email of this ${account.provider} account, which the provider does not vouch for`,
      );
    }
    if (outcome.action === 'join') {
      user = outcome.user;
    } else {
      const { id: _providerId, ...fields } = params.user;
      // As in Auth.js, a provider without an email (the microblog network over OAuth 2) stores null.
      const newUser = { ...fields, id: randomUUID(), email: outcome.email, emailVerified: outcome.emailVerified } as AdapterUser;
      if (adapter.createUserWithAccount) {
        user = await callAdapter(adapter, 'createUserWithAccount', newUser, account);
        await emitEvent(options, 'createUser', { user });
        await emitEvent(options, 'linkAccount', { user, account, profile: params.user });
        return { user, isNewUser: true };
      }
      user = await callAdapter(adapter, 'createUser', newUser);
      isNewUser = true;
      await emitEvent(options, 'createUser', { user });
    }
  }
  await undoNewUserOnFailure(options, adapter, isNewUser ? user : null, () => callAdapter(adapter, 'linkAccount', { ...account, userId: user.id }));
  await emitEvent(options, 'linkAccount', { user, account, profile: params.user });
  // A new user's first account is their sign-up; another account is a new way into an existing user.
  if (!isNewUser) await recordSecurityEvent(context, { type: 'account-linked', userId: String(user.id), method: account.provider });
  return { user, isNewUser };
}
