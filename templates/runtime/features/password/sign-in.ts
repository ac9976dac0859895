/**
 * The POST of the password provider's sign-in form, `<mount>/callback/<id>` (or `<mount>/signin/<id>`): `email`,
 * `password` → a session. A wrong password, an unknown address and an unconfirmed address get one and the same
 * answer (the last also gets a new confirmation link, rate-limited).
 */
import { randomUUID } from 'node:crypto';
import { callAdapter } from '../database/adapter.js';
import { hasProvenEmail } from '../database/addresses.js';
import type { RequestContext } from '../../contracts.js';
import { CredentialsSignin } from '../../errors.js';
import { recordSecurityEvent } from '../../events.js';
import { requestedCallbackUrl } from '../../http/requested-callback-url.js';
import { bodyField } from '../../http/request.js';
import { RateLimited, clearRateLimit, consumeClientRateLimit, consumeRateLimit } from '../rate-limit/rate-limit.js';
import { consumeRecipientRateLimit } from '../email/recipient-limits.js';
import { hashPassword, verifyPassword } from './hash.js';
import { type ResolvedPasswordProvider, MAX_PASSWORD_INPUT, adapterOf, addressOf, afterAnswer, resetIdentifier, sendConfirmationLink, signInAs, textField, voidLinks } from './shared.js';

/** The user id an unknown address's password is looked up by: nobody's, so that both branches read alike. */
const NOBODY = `nobody-${randomUUID()}`;

/** POST `<mount>/callback/<id>` (or `<mount>/signin/<id>`): `email`, `password`. */
export async function signIn(context: RequestContext, provider: ResolvedPasswordProvider, body: Record<string, unknown>): Promise<void> {
  const typed = textField(body, 'email', 320);
  const password = textField(body, 'password', MAX_PASSWORD_INPUT);
  await consumeClientRateLimit(context, 'credentialsPerClient');
  let email: string;
  try {
    email = addressOf(typed);
  } catch {
    throw new CredentialsSignin('The address is not a valid email address');
  }
  await consumeRateLimit(context.options, 'credentialsPerUser', email);
  const adapter = adapterOf(context);
  const holder = await callAdapter(adapter, 'getUserByEmail', email);
  // An unknown address costs the same database reads and one hash too, so that its answer takes as long.
  const stored = await callAdapter(adapter, 'getPasswordHash', holder?.id ?? NOBODY);
  const check = await verifyPassword(password ?? '', holder ? stored : null, { request: context.req });
  if (!holder || !check.valid) {
    // The known user's failed sign-in is recorded after the answer, so that it takes as long as an unknown address's.
    if (holder) afterAnswer(context, () => recordSecurityEvent(context, { type: 'sign-in-failed', userId: holder.id, method: 'password' }));
    throw new CredentialsSignin(`Wrong password or unknown address for provider "${provider.id}"`);
  }
  if (!hasProvenEmail(holder)) {
    // The same answer as a wrong password; the owner of the address gets a new link, within the message limits.
    try {
      await consumeClientRateLimit(context, 'passwordEmailPerClient');
      await consumeRateLimit(context.options, 'passwordEmailPerAddress', email);
      await consumeRecipientRateLimit(context.options, email);
      await sendConfirmationLink(context, provider, email, requestedCallbackUrl(context, body));
    } catch (error) {
      if (!(error instanceof RateLimited)) throw error;
    }
    throw new CredentialsSignin(`The address of provider "${provider.id}"'s user is not confirmed yet`);
  }
  await clearRateLimit(context.options, 'credentialsPerUser', email);
  if (check.needsRehash) await callAdapter(adapter, 'setPasswordHash', holder.id, await hashPassword(password!));
  // A reset link asked for earlier is not needed any more: the user knows their password.
  await voidLinks(adapter, resetIdentifier(email));
  const callbackUrl = bodyField(body, 'callbackUrl') ?? context.cookies.get(context.cookieOptions.callbackUrl.name);
  // With two-factor on, completeSignIn asks for the code before the session (features/two-factor/).
  await signInAs(context, provider, holder, { isNewUser: false, callbackUrl });
}
