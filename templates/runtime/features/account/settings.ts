/**
 * The settings of the config's `Account()`, kept with its resolved config by the feature's startup check, and what
 * the account's routes share: who is asking (signed in, recently), and the features' parts of the account.
 */
import type { RequestContext, ResolvedConfig } from '../../contracts.js';
import { actionUrl } from '../../context.js';
import type { AccountPart } from '../database/account-parts.js';
import type { Adapter } from '../database/adapter.js';
import { askToReauthenticate } from '../database/ask-to-reauthenticate.js';
import { type SignedIn, askToSignIn, currentSignIn, isRecentSignIn } from '../database/signed-in.js';
import type { AccountMailer } from './mail.js';

/** What `Account()` resolved: the mail transport (undefined: production without one, no address change). */
export interface AccountSettings {
  mailer: AccountMailer | undefined;
  /** Seconds a confirmation link works. */
  linkMaxAge: number;
}

const settingsByConfig = new WeakMap<ResolvedConfig, AccountSettings>();

/** Remembers the settings of `Account()` for its config (its startup check). */
export function useAccountSettings(options: ResolvedConfig, settings: AccountSettings): void {
  settingsByConfig.set(options, settings);
}

/** The settings of the config's `Account()`; a TypeError when it has none. */
export function accountSettingsOf(options: ResolvedConfig): AccountSettings {
  const settings = settingsByConfig.get(options);
  if (!settings) throw new TypeError('The config has no Account() in its `features`.');
  return settings;
}

/** The features' parts of the account (`Feature.account`), by their `order`, then in the features' order. */
export function accountPartsOf(options: ResolvedConfig): AccountPart[] {
  const parts = options.features.flatMap((feature) => (feature.account ? [feature.account] : []));
  return parts.sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
}

/** An account request from a signed-in user: the adapter, and whether the client wants JSON. */
export interface AccountRequest {
  context: RequestContext;
  adapter: Adapter;
  settings: AccountSettings;
  signedIn: SignedIn;
  json: boolean;
}

/**
 * The signed-in user, or null once the request is answered: a visitor without a session is asked to sign in (401
 * JSON with `message`, or the sign-in page coming back to the account page).
 */
export async function signedInOrAsk(context: RequestContext, adapter: Adapter, json: boolean, message = 'Sign in to see your account.'): Promise<SignedIn | null> {
  const signedIn = await currentSignIn(context, adapter);
  if (!signedIn) askToSignIn(context, json, { action: 'account', message });
  return signedIn;
}

/**
 * Whether the user authenticated within `session.reauthMaxAge`; otherwise answers (401 `reauthentication_required`,
 * or `<mount>/reauth` coming back to `<mount>/<returnTo>`) and resolves false.
 */
export function recentOrAsk(request: AccountRequest, returnTo: string): boolean {
  if (isRecentSignIn(request.context, request.signedIn)) return true;
  askToReauthenticate(request.context, actionUrl(request.context, returnTo));
  return false;
}
