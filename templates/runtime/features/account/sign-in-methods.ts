/**
 * Removing a way to sign in from the account page, after a recent authentication: POST `<mount>/account/unlink`
 * (`provider`, and `providerAccountId` when the user linked two accounts of one provider) unlinks an OAuth, email or
 * credentials account; POST `<mount>/account/passkeys/remove` (`id`, the credential ID) deletes a passkey's
 * authenticator and its `webauthn` account. Either is refused (400, by the field) when it would leave the user no way
 * to sign in.
 */
import { bodyField } from '../../http/request.js';
import { recordSecurityEvent } from '../../events.js';
import type { ResolvedConfig } from '../../contracts.js';
import type { AdapterUser } from '../../types.js';
import { type Adapter, type AdapterAccount, callAdapter } from '../database/adapter.js';
import { hasProvenEmail } from '../database/addresses.js';
import { hasPasswordProvider } from './account-view.js';
import { callOther, hasOther } from './other-features.js';
import { refuseForm, sendDone } from './account-view.js';
import type { AccountRequest } from './settings.js';

const LAST_WAY = 'This is your only way to sign in: add another (a passkey, a password or another account) before removing it.';

/**
 * How many ways the user has to sign in: each linked account (a passkey is one), a passkey without an account row,
 * a password, and an email link to a proven address when the app signs in by email link.
 */
export async function waysToSignIn(options: ResolvedConfig, adapter: Adapter, user: AdapterUser, accounts: readonly AdapterAccount[]): Promise<number> {
  // Only accounts of a configured provider sign in: a row of a provider the app has since dropped is no way in.
  let ways = accounts.filter((account) => options.providersById.has(account.provider)).length;
  const authenticators = await callOther(adapter, 'listAuthenticatorsByUserId', user.id);
  if (authenticators) {
    ways += authenticators.filter((authenticator) => !accounts.some((account) => account.type === 'webauthn' && account.providerAccountId === authenticator.providerAccountId)).length;
  }
  if (hasPasswordProvider(options) && user.email && hasOther(adapter, 'getPasswordHash') && (await callOther(adapter, 'getPasswordHash', user.id)) !== null) ways += 1;
  // An email link signs in the proven holder of its address (database/sign-in.ts); an unproven address would be claimed from them.
  if (user.email && hasProvenEmail(user) && options.providers.some((provider) => provider.type === 'email')) ways += 1;
  return ways;
}

/** POST `<mount>/account/unlink`. */
export async function unlinkRoute(request: AccountRequest, body: Record<string, unknown>): Promise<void> {
  const { context, adapter } = request;
  const user = request.signedIn.user;
  const provider = bodyField(body, 'provider') ?? '';
  const providerAccountId = bodyField(body, 'providerAccountId');
  const accounts = await callAdapter(adapter, 'listAccountsByUserId', user.id);
  const candidates = accounts.filter((account) => account.type !== 'webauthn' && account.provider === provider && (providerAccountId === undefined || account.providerAccountId === providerAccountId));
  if (candidates.length === 0) return refuseForm(request, { unlink: provider ? `You have no linked ${provider} account.` : 'Name the provider of the account to unlink.' });
  if (candidates.length > 1) return refuseForm(request, { unlink: `You have several ${provider} accounts: name the one to unlink (providerAccountId).` });
  const account = candidates[0]!;
  if ((await waysToSignIn(context.options, adapter, user, accounts)) <= 1) return refuseForm(request, { unlink: LAST_WAY });
  await callAdapter(adapter, 'unlinkAccount', { provider: account.provider, providerAccountId: account.providerAccountId });
  await recordSecurityEvent(context, { type: 'account-unlinked', userId: String(user.id), method: account.provider });
  sendDone(request, 200, { unlinked: { provider: account.provider, providerAccountId: account.providerAccountId } }, 'unlinked');
}

/** POST `<mount>/account/passkeys/remove`. */
export async function removePasskeyRoute(request: AccountRequest, body: Record<string, unknown>): Promise<void> {
  const { context, adapter } = request;
  const user = request.signedIn.user;
  const id = bodyField(body, 'id') ?? '';
  // An app without passkeys has no authenticators to remove (nor the methods).
  const authenticators = (await callOther(adapter, 'listAuthenticatorsByUserId', user.id)) ?? [];
  // Only the user's own: a credential ID of another user's passkey is refused like an unknown one.
  const authenticator = authenticators.find((candidate) => candidate.credentialID === id);
  if (!authenticator) return refuseForm(request, { passkey: id ? 'You have no passkey with this id.' : 'Name the passkey to remove by its id.' });
  const accounts = await callAdapter(adapter, 'listAccountsByUserId', user.id);
  if ((await waysToSignIn(context.options, adapter, user, accounts)) <= 1) return refuseForm(request, { passkey: LAST_WAY });
  await callOther(adapter, 'deleteAuthenticator', authenticator.credentialID);
  const account = accounts.find((candidate) => candidate.type === 'webauthn' && candidate.providerAccountId === authenticator.providerAccountId);
  if (account) await callAdapter(adapter, 'unlinkAccount', { provider: account.provider, providerAccountId: account.providerAccountId });
  await recordSecurityEvent(context, { type: 'passkey-removed', userId: String(user.id), method: 'passkey' });
  sendDone(request, 200, { removed: { id: authenticator.credentialID } }, 'passkey-removed');
}
