/**
 * The passkeys' part of the account (`Feature.account`): each passkey in "How you sign in" with a button that removes
 * it (POST `<mount>/account/passkeys/remove` `id`: its authenticator and its `webauthn` account, refused by the field
 * for another user's or the last way to sign in), the list in the page's JSON and in the export, and each passkey
 * without an account row counted as a way to sign in. No name is stored: its kind and whether it is synced say which.
 */
import type { ResolvedConfig } from '../../contracts.js';
import { MissingAdapterMethods } from '../../errors.js';
import { recordSecurityEvent } from '../../events.js';
import { bodyField } from '../../http/request.js';
import { html } from '../../pages/html.js';
import type { AccountFormRequest, AccountPart, AccountPartRequest } from '../database/account-parts.js';
import { type Adapter, type AdapterAccount, callAdapter } from '../database/adapter.js';
import type { AdapterAuthenticator } from './storage.js';

declare module '../../contracts.js' {
  interface SecurityEventTypes {
    'passkey-added': true;
    'passkey-removed': true;
  }
}

/** The adapter methods the account lists and removes passkeys with. */
const accountMethods = ['listAuthenticatorsByUserId', 'deleteAuthenticator'] as const;

/** The user's authenticators; none when the adapter keeps none. */
async function authenticatorsOf({ adapter, user }: AccountPartRequest): Promise<AdapterAuthenticator[]> {
  return typeof adapter.listAuthenticatorsByUserId === 'function' ? callAdapter(adapter, 'listAuthenticatorsByUserId', user.id) : [];
}

/**
 * Deletes a passkey: its authenticator and the `webauthn` account it signs in with (among the user's `accounts`). The
 * user's own removal and an admin's (features/admin/) both delete it so.
 */
export async function deletePasskey(adapter: Adapter, authenticator: AdapterAuthenticator, accounts: readonly AdapterAccount[]): Promise<void> {
  await callAdapter(adapter, 'deleteAuthenticator', authenticator.credentialID);
  const account = accounts.find((candidate) => candidate.type === 'webauthn' && candidate.providerAccountId === authenticator.providerAccountId);
  if (account) await callAdapter(adapter, 'unlinkAccount', { provider: account.provider, providerAccountId: account.providerAccountId });
}

/** POST `<mount>/account/passkeys/remove`. */
async function removePasskey(request: AccountFormRequest, body: Record<string, unknown>): Promise<void> {
  const { context, adapter, user } = request;
  const id = bodyField(body, 'id') ?? '';
  // Only the user's own: a credential ID of another user's passkey is refused like an unknown one.
  const authenticator = (await authenticatorsOf(request)).find((candidate) => candidate.credentialID === id);
  if (!authenticator) return request.refuse({ passkey: id ? 'You have no passkey with this id.' : 'Name the passkey to remove by its id.' });
  const accounts = await callAdapter(adapter, 'listAccountsByUserId', user.id);
  if ((await request.waysToSignIn(accounts)) <= 1) return request.refuse({ passkey: request.lastWay });
  await deletePasskey(adapter, authenticator, accounts);
  await recordSecurityEvent(context, { type: 'passkey-removed', userId: String(user.id), method: 'passkey' });
  request.done(200, { removed: { id: authenticator.credentialID } }, 'passkey-removed');
}

export const passkeyAccountPart: AccountPart = {
  order: 1,
  check(options: ResolvedConfig) {
    const missing = accountMethods.filter((method) => typeof options.adapter?.[method] !== 'function');
    if (missing.length > 0) throw new MissingAdapterMethods(`The account page lists and removes passkeys through the adapter, which lacks these methods: ${missing.join(', ')}`);
  },
  async view(request) {
    const passkeys = (await authenticatorsOf(request)).map((authenticator) => ({ id: authenticator.credentialID, deviceType: authenticator.credentialDeviceType, backedUp: authenticator.credentialBackedUp }));
    return {
      json: { passkeys },
      html: (page) => ({
        methods: passkeys.map(
          (passkey, index) =>
            html`<li class="inline"><span>Passkey ${String(index + 1)} <span class="muted">(${passkey.backedUp ? 'synced' : 'this device only'})</span></span>${page.buttonForm('passkeys/remove', { id: passkey.id }, 'Remove', html` aria-label="Remove passkey ${String(index + 1)}"${page.invalid('account-passkey', page.errors['passkey'])}`)}</li>`,
        ),
      }),
    };
  },
  async export(request) {
    const passkeys = await authenticatorsOf(request);
    return { passkeys: passkeys.map((passkey) => ({ id: passkey.credentialID, deviceType: passkey.credentialDeviceType, backedUp: passkey.credentialBackedUp, transports: passkey.transports ?? null })) };
  },
  async waysToSignIn(request, accounts) {
    const authenticators = await authenticatorsOf(request);
    return authenticators.filter((authenticator) => !accounts.some((account) => account.type === 'webauthn' && account.providerAccountId === authenticator.providerAccountId)).length;
  },
  forms: { 'passkeys/remove': removePasskey },
  notices: { 'passkey-removed': 'The passkey is removed: it no longer signs you in.' },
};
