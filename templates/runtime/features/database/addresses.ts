/**
 * Who gets an email address, by the rules at the top of sign-in.ts (`settleAddress`), and the undoing of a new user
 * whose first writes failed: for sign-in.ts and the flows that create users (email links, passkeys, passwords).
 */
import { type Adapter, callAdapter } from './adapter.js';
import type { ResolvedConfig } from '../../contracts.js';
import { emitEvent } from '../../events.js';
import type { AdapterUser } from '../../types.js';

/**
 * Runs the writes that complete a new user (linking the account, storing the passkey). If one fails (the database
 * went down), the user created for this sign-in is deleted again: a user without an account could never sign in
 * again, as their email would already be taken. Deleting the user cascades to whatever was written for it.
 */
export async function undoNewUserOnFailure(options: ResolvedConfig, adapter: Adapter, created: AdapterUser | null, writes: () => Promise<unknown>): Promise<void> {
  try {
    await writes();
  } catch (error) {
    if (created) {
      await callAdapter(adapter, 'deleteUser', created.id).catch((cleanup: Error) => options.logger.error(cleanup));
    }
    throw error;
  }
}

/** What an identity says about its email address. */
interface AddressClaim {
  /** The address, as the flow has it; null when the identity brings none. */
  email: string | null;
  /** A used magic link, or a provider that vouches for the address. */
  proven: boolean;
  /** Whether a proven address may join a user who proved it too (magic link: yes; OAuth: `allowDangerous…`). */
  joinProvenHolder: boolean;
}

/** Who gets the address: a new user (with these fields), the existing user it joins, or nobody (refused). */
type AddressOutcome =
  | { action: 'create'; email: string | null; emailVerified: Date | null }
  | { action: 'join'; user: AdapterUser }
  | { action: 'refuse' };

/** Whether a stored user proved their address (a magic link, or a provider that vouched for it). */
export function hasProvenEmail(user: AdapterUser): boolean {
  return user.emailVerified !== null && user.emailVerified !== undefined;
}

/**
 * The one place that decides who gets an email address when no account or session already names the user (see
 * the rules at the top of this file). Claiming clears the address from the unproven holder (an `updateUser` event)
 * before the caller creates the new user, as the address is unique.
 */
export async function settleAddress(options: ResolvedConfig, adapter: Adapter, claim: AddressClaim): Promise<AddressOutcome> {
  if (claim.email === null) return { action: 'create', email: null, emailVerified: null };
  const holder = await callAdapter(adapter, 'getUserByEmail', claim.email);
  if (!holder) return { action: 'create', email: claim.email, emailVerified: claim.proven ? new Date() : null };
  if (!claim.proven) return { action: 'refuse' };
  if (hasProvenEmail(holder)) return claim.joinProvenHolder ? { action: 'join', user: holder } : { action: 'refuse' };
  // AdapterUser types email as a string (Auth.js's type); every adapter stores a user without one as null.
  const cleared = await callAdapter(adapter, 'updateUser', { id: holder.id, email: null as unknown as string });
  await emitEvent(options, 'updateUser', { user: cleared });
  return { action: 'create', email: claim.email, emailVerified: new Date() };
}
