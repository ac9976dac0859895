/** The shared end of every sign-in (OAuth, credentials, email, passkeys): `completeSignIn`. */
import type { RequestContext, SignInResolution } from './contracts.js';
import { sendRedirect } from './context.js';
import { AccessDenied } from './errors.js';
import { resolveRedirect } from './http/redirect.js';
import { startSession } from './session/session.js';
import type { Account, AdapterUser, Profile, User } from './types.js';

/** What a flow hands to `completeSignIn`. */
interface CompletedSignIn {
  user: User;
  account: Account;
  profile?: Profile;
  credentials?: Record<string, unknown>;
  callbackUrl: string | undefined;
  allowDangerousEmailAccountLinking?: boolean;
  /** The stored user, when the flow already looked it up (email, passkeys): shown to the `signIn` callback. */
  storedUser?: AdapterUser | null;
  /** How the user is resolved; with an adapter, OAuth's linking rules (the database feature) when absent. */
  resolve?: () => Promise<SignInResolution>;
}

/**
 * Completes a sign-in: the `signIn` callback may refuse it (`AccessDenied`) or redirect elsewhere; then the user
 * (found, linked or created), the features' `beforeSignIn` (each may refuse), the second factor when the user turned
 * it on, the session, and the redirect to `callbackUrl` (`pages.newUser` for a new user).
 */
export async function completeSignIn(context: RequestContext, params: CompletedSignIn): Promise<void> {
  const { options } = context;
  const { account, profile } = params;
  const storedUser = params.storedUser !== undefined ? params.storedUser : ((await options.database?.userOfAccount(options, account)) ?? null);
  let allowed: boolean | string;
  try {
    allowed = await options.callbacks.signIn({
      user: storedUser ?? params.user,
      account,
      ...(profile && { profile }),
      ...(params.credentials && { credentials: params.credentials }),
    });
  } catch (error) {
    throw new AccessDenied('The signIn callback threw', { cause: error instanceof Error ? error : undefined });
  }
  if (allowed === false) throw new AccessDenied('The signIn callback refused the sign-in');
  if (typeof allowed === 'string') return sendRedirect(context, await resolveRedirect(context, allowed));

  const resolved: SignInResolution = params.resolve
    ? await params.resolve()
    : options.database
      ? await options.database.resolveSignIn(context, {
          user: params.user,
          account,
          ...(profile && { profile }),
          allowDangerousEmailAccountLinking: params.allowDangerousEmailAccountLinking ?? false,
        })
      : { user: params.user, isNewUser: false };
  const { user, isNewUser } = resolved;
  for (const feature of options.features) await feature.beforeSignIn?.({ user, method: account.provider, account, isNewUser }, context);
  // With two-factor on, no session yet: the second factor finishes the sign-in (features/two-factor/).
  if (options.database && (await options.database.askSecondFactor(context, { user, account, callbackUrl: params.callbackUrl }))) return;
  await startSession(context, { user, account, ...(profile && { profile }), isNewUser, callbackUrl: params.callbackUrl });
}
