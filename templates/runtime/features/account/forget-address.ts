/**
 * What is kept under an address rather than a user, forgotten when the address leaves its user: the account's deletion
 * and address change (delete-account.ts, email-change.ts), and an admin's deletion of a user (features/admin/), which
 * copies this file without the rest of the account in an app without `Account()`: so it names what it needs itself,
 * the account's adapter method with its declaration (storage.ts).
 */
import type { ResolvedConfig } from '../../contracts.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import { accountPartsOf } from './settings.js';
import type { EmailChange } from './storage.js';

/**
 * Deletes what is keyed by an address rather than a user, so that nothing keeps an address its user no longer has:
 * its email-link tokens (stored under the address itself), other users' pending changes to it, and what each
 * feature keeps under it (`Feature.account.forgetAddress`: the password's confirmation and reset links).
 */
export async function forgetAddress(options: ResolvedConfig, adapter: Adapter, email: EmailChange['newEmail']): Promise<void> {
  if (typeof adapter.deleteVerificationTokens === 'function') await callAdapter(adapter, 'deleteVerificationTokens', email);
  // The account's own table: absent when an admin deletes a user in an app without the account (features/admin/).
  if (typeof adapter.deleteEmailChangesTo === 'function') await callAdapter(adapter, 'deleteEmailChangesTo', email);
  for (const part of accountPartsOf(options)) await part.forgetAddress?.(options, adapter, email);
}
