/**
 * The second factor, which the core asks through the database feature (`DatabaseHooks.askSecondFactor`) after every
 * proven first factor: a feature that brings one (two-factor) declares `secondFactor`. It needs the database, where
 * its secrets are.
 */
import type { RequestContext } from '../../contracts.js';
import type { Account, AdapterUser, User } from '../../types.js';

declare module '../../contracts.js' {
  /** A sign-in whose first factor (a password, a link, a provider) is proven, waiting for the second. */
  interface PendingSignIn {
    user: AdapterUser;
    /** The provider that proved the first factor, and the account it knows the user by. */
    account: Pick<Account, 'provider' | 'type' | 'providerAccountId'>;
    callbackUrl: string | undefined;
  }

  interface Feature {
    /**
     * A second factor asked after a first factor (the two-factor feature), in feature order until one answers: with it
     * on for the user, `challenge` answers the request (a pending sign-in, no session yet) and resolves true.
     */
    secondFactor?: { challenge(context: RequestContext, signIn: PendingSignIn): Promise<boolean> };
  }
}

/**
 * Asks the app's second factors after `signIn`'s first, each in feature order until one that the user turned on answers
 * the request; true when one did.
 */
export async function askSecondFactor(context: RequestContext, signIn: { user: User | AdapterUser; account: Account; callbackUrl: string | undefined }): Promise<boolean> {
  const { provider, type, providerAccountId } = signIn.account;
  for (const feature of context.options.features) {
    // The database feature resolved the user: it is the stored one.
    if (await feature.secondFactor?.challenge(context, { user: signIn.user as AdapterUser, account: { provider, type, providerAccountId }, callbackUrl: signIn.callbackUrl })) return true;
  }
  return false;
}
