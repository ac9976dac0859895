/**
 * Removing a way to sign in from the account page, after a recent authentication: POST `<mount>/account/unlink`
 * (`provider`, and `providerAccountId` when the user linked two accounts of one provider) unlinks an OAuth, email or
 * credentials account, refused (400, by the field) when it would leave the user no way to sign in. The features'
 * own forms below `<mount>/account/` (`Feature.account.forms`: removing a passkey) are answered here too, with the
 * same count of the ways to sign in.
 */
import { bodyField } from '../../http/request.js';
import { recordSecurityEvent } from '../../events.js';
import type { AccountFormRequest } from '../database/account-parts.js';
import { type AdapterAccount, callAdapter } from '../database/adapter.js';
import { hasProvenEmail } from '../database/addresses.js';
import { partRequestOf, refuseForm, sendDone } from './account-view.js';
import { type AccountRequest, accountPartsOf } from './settings.js';

const LAST_WAY = 'This is your only way to sign in: add another (a passkey, a password or another account) before removing it.';

/**
 * How many ways the user has to sign in: each linked account, what each feature counts beyond them (a password, a
 * passkey without an account row), and an email link to a proven address when the app signs in by email link.
 */
export async function waysToSignIn(request: AccountRequest, accounts: readonly AdapterAccount[]): Promise<number> {
  const { options } = request.context;
  const user = request.signedIn.user;
  // Only accounts of a configured provider sign in: a row of a provider the app has since dropped is no way in.
  let ways = accounts.filter((account) => options.providersById.has(account.provider)).length;
  for (const part of accountPartsOf(options)) if (part.waysToSignIn) ways += await part.waysToSignIn(partRequestOf(request), accounts);
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
  if ((await waysToSignIn(request, accounts)) <= 1) return refuseForm(request, { unlink: LAST_WAY });
  await callAdapter(adapter, 'unlinkAccount', { provider: account.provider, providerAccountId: account.providerAccountId });
  await recordSecurityEvent(context, { type: 'account-unlinked', userId: String(user.id), method: account.provider });
  sendDone(request, 200, { unlinked: { provider: account.provider, providerAccountId: account.providerAccountId } }, 'unlinked');
}

/**
 * Forms the account served before its features brought them, answered as ever in an app without the feature: the
 * user has none of the kind (400, by the field).
 */
const keptForms: Readonly<Record<string, Readonly<Record<string, string>>>> = { 'passkeys/remove': { passkey: 'You have no passkey with this id.' } };

/** POST `<mount>/account/<path>` of a feature's form (`Feature.account.forms`). */
export async function featureFormRoute(request: AccountRequest, path: string, body: Record<string, unknown>): Promise<void> {
  const form = accountPartsOf(request.context.options).find((part) => part.forms && Object.hasOwn(part.forms, path))?.forms![path];
  if (!form) return refuseForm(request, keptForms[path] ?? {});
  const formRequest: AccountFormRequest = {
    ...partRequestOf(request),
    json: request.json,
    waysToSignIn: (accounts) => waysToSignIn(request, accounts),
    lastWay: LAST_WAY,
    refuse: (errors) => refuseForm(request, errors),
    done: (status, body, notice) => sendDone(request, status, body, notice),
  };
  return form(formRequest, body);
}
