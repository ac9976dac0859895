/**
 * WebAuthn (passkey) sign-in, with Auth.js's routes and rules. GET `<mount>/webauthn-options/<id>?action=…` answers
 * the options for the browser and keeps their challenge in a short-lived encrypted cookie (`authjs.challenge`);
 * POST `<mount>/callback/<id>` with `csrfToken`, `action` and `data` (the browser's response as JSON) verifies the
 * response against that challenge, single use, and hands the user and account to the shared end of sign-in.
 *
 * Which options:
 * - `register` adds a passkey to the signed-in user, or, when nobody is signed in, creates a new user. The `email`
 *   query parameter is then a label only: nobody proved it, so it becomes the new user's `name` (and the passkey's
 *   user name) while the user's `email` stays null (SECURITY.md, "Email proof and account linking"). No user is
 *   looked up by it, so the answer is the same whether or not the address has an account.
 * - `authenticate` asks for any passkey of this site (discoverable credentials, `allowCredentials` empty), so the
 *   page never reveals which emails have passkeys.
 * - without `action`: register when someone is signed in or an email is given, otherwise authenticate. Unlike
 *   Auth.js's inference this never asks the database whether the email is known.
 * The relying party is the app's origin (AUTH_URL when set) unless the provider's `relayingParty` says otherwise.
 * @see https://www.w3.org/TR/webauthn-3/
 */
import { callAdapter } from './adapter.js';
import { type RequestContext, sendJson } from './context.js';
import { normalizeEmailAddress } from './email-address.js';
import { InvalidRequest, MissingAdapter, WebAuthnVerificationError } from './errors.js';
import { consumeCheckCookie, writeCheckCookie } from './oauth/check-cookies.js';
import type { ResolvedWebAuthnProvider } from './providers/resolve.js';
import type { WebAuthnCredentialDescriptor } from './providers/types.js';
import { bodyField, queryParams } from './request.js';
import { currentUser } from './sign-in.js';
import type { Account, AdapterAuthenticator, AdapterUser, User } from './types.js';

type WebAuthnAction = 'register' | 'authenticate';

/** What the challenge cookie holds between the options and the callback. */
interface ChallengePayload {
  challenge: string;
  action: WebAuthnAction;
  /** register: the signed-in user's id, or the name (the typed address) of the user to create. */
  user?: { id?: string; name?: string };
}

/** The relying party of this request: the provider's settings, else the app's origin. */
export function relyingPartyOf(context: RequestContext, provider: ResolvedWebAuthnProvider): { id: string; name: string; origin: string } {
  const url = new URL(context.origin);
  return {
    id: provider.relayingParty.id ?? url.hostname,
    name: provider.relayingParty.name ?? url.host,
    origin: provider.relayingParty.origin ?? context.origin,
  };
}

/**
 * Stored credential IDs are base64url; Auth.js stores standard base64. Node decodes either alphabet, so this gives
 * the base64url form of both, and databases written by Auth.js keep working.
 */
function toBase64Url(id: string): string {
  return Buffer.from(id, 'base64').toString('base64url');
}

function descriptorOf(authenticator: AdapterAuthenticator): WebAuthnCredentialDescriptor {
  return { id: toBase64Url(authenticator.credentialID), transports: authenticator.transports ? authenticator.transports.split(',') : undefined };
}

function badRequest(message: string): InvalidRequest {
  return new InvalidRequest(message);
}

function adapterOf(context: RequestContext, provider: ResolvedWebAuthnProvider) {
  if (!context.options.adapter) throw new MissingAdapter(`Provider "${provider.id}" needs an adapter`);
  return context.options.adapter;
}

/** GET `<mount>/webauthn-options/<id>`: `{ action, options }` plus the challenge cookie. */
export async function sendWebAuthnOptions(context: RequestContext, provider: ResolvedWebAuthnProvider): Promise<void> {
  const adapter = adapterOf(context, provider);
  const query = queryParams(context.req);
  const action = query.get('action');
  if (action !== null && action !== 'register' && action !== 'authenticate') {
    throw badRequest('The action parameter must be "register" or "authenticate".');
  }
  const typed = query.get('email')?.trim();
  let email: string | undefined;
  if (typed) {
    try {
      email = normalizeEmailAddress(typed);
    } catch (error) {
      throw badRequest(error instanceof Error ? error.message : 'Enter a valid email address.');
    }
  }
  const signedIn = await currentUser(context, adapter);
  const decision: WebAuthnAction = action ?? (signedIn || email !== undefined ? 'register' : 'authenticate');
  const relyingParty = relyingPartyOf(context, provider);

  if (decision === 'authenticate') {
    const { challenge, options } = await provider.ceremonies.authenticationOptions({ rpID: relyingParty.id, allowCredentials: [] });
    await writeCheckCookie(context, context.cookieOptions.webauthnChallenge, provider.id, { challenge, action: decision } satisfies ChallengePayload);
    return sendJson(context, 200, { action: decision, options });
  }
  if (!signedIn && email === undefined) throw badRequest('Enter your email address to create a passkey, or sign in first to add one to your account.');
  const excludeCredentials = signedIn ? (await callAdapter(adapter, 'listAuthenticatorsByUserId', signedIn.id)).map(descriptorOf) : [];
  const userName = signedIn ? (signedIn.email ?? signedIn.name ?? String(signedIn.id)) : email!;
  const { challenge, options } = await provider.ceremonies.registrationOptions({
    rpID: relyingParty.id,
    rpName: relyingParty.name,
    userName,
    userDisplayName: signedIn?.name ?? undefined,
    excludeCredentials,
  });
  const user = signedIn ? { id: String(signedIn.id) } : { name: email! };
  await writeCheckCookie(context, context.cookieOptions.webauthnChallenge, provider.id, { challenge, action: decision, user } satisfies ChallengePayload);
  sendJson(context, 200, { action: decision, options });
}

/** The browser's response: `data` as a JSON string (a form post, as Auth.js sends it) or an object (a JSON body). */
function readResponse(body: Record<string, unknown>): Record<string, unknown> & { id: string } {
  let data: unknown = body['data'];
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      throw badRequest('The data field is not valid JSON.');
    }
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data) || typeof (data as { id?: unknown }).id !== 'string') {
    throw badRequest('The data field must be the WebAuthn response of the browser, with its credential id.');
  }
  return data as Record<string, unknown> & { id: string };
}

async function consumeChallenge(context: RequestContext, provider: ResolvedWebAuthnProvider, action: WebAuthnAction): Promise<ChallengePayload> {
  let payload: Record<string, unknown>;
  try {
    // Bound to the provider that issued it: another passkey provider (another relying party) cannot use it.
    payload = await consumeCheckCookie(context, context.cookieOptions.webauthnChallenge, 'WebAuthn challenge', provider.id);
  } catch (error) {
    throw new WebAuthnVerificationError('The WebAuthn challenge cookie is missing, expired, not ours or issued for another provider', { cause: error instanceof Error ? error : undefined });
  }
  if (typeof payload['challenge'] !== 'string' || payload['action'] !== action) {
    throw new WebAuthnVerificationError(`The WebAuthn challenge was not issued for "${action}"`);
  }
  return payload as unknown as ChallengePayload;
}

/** A verified passkey response: who signs in, with which account, and the new authenticator (registration). */
export interface VerifiedWebAuthnResponse {
  user: User | AdapterUser;
  /** The stored user, when known before sign-in (shown to the `signIn` callback). */
  storedUser: AdapterUser | null;
  account: Account;
  authenticator?: Omit<AdapterAuthenticator, 'userId'>;
}

/**
 * POST `<mount>/callback/<id>`: verifies a registration or an authentication. Any failure of the check itself is
 * `WebAuthnVerificationError` (the sign-in page says the passkey could not be verified); the challenge is used up
 * whatever happens, so a response cannot be tried twice.
 */
export async function verifyWebAuthnResponse(
  context: RequestContext,
  provider: ResolvedWebAuthnProvider,
  body: Record<string, unknown>,
): Promise<VerifiedWebAuthnResponse> {
  const adapter = adapterOf(context, provider);
  const action = bodyField(body, 'action');
  if (action !== 'register' && action !== 'authenticate') throw badRequest('The action field must be "register" or "authenticate".');
  const response = readResponse(body);
  const { challenge, user: registering } = await consumeChallenge(context, provider, action);
  const relyingParty = relyingPartyOf(context, provider);
  const expected = { expectedChallenge: challenge, expectedOrigin: relyingParty.origin, expectedRPID: relyingParty.id };

  if (action === 'register') {
    let credential;
    try {
      credential = await provider.ceremonies.verifyRegistration({ response, ...expected });
    } catch (error) {
      throw new WebAuthnVerificationError('The passkey registration did not verify', { cause: error instanceof Error ? error : undefined });
    }
    const credentialID = credential.id;
    const account: Account = { provider: provider.id, type: 'webauthn', providerAccountId: credentialID };
    const storedUser = registering?.id ? await callAdapter(adapter, 'getUser', registering.id) : null;
    // A new user: the typed address is only a name, never an email (nobody proved it).
    const user: User = storedUser ?? { name: registering?.name ?? null, email: null };
    const authenticator: Omit<AdapterAuthenticator, 'userId'> = {
      credentialID,
      providerAccountId: credentialID,
      credentialPublicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      credentialDeviceType: credential.deviceType,
      credentialBackedUp: credential.backedUp,
      transports: credential.transports?.join(',') ?? null,
    };
    return { user, storedUser, account, authenticator };
  }

  const stored =
    (await callAdapter(adapter, 'getAuthenticator', response.id)) ??
    (await callAdapter(adapter, 'getAuthenticator', Buffer.from(response.id, 'base64url').toString('base64')));
  if (!stored) throw new WebAuthnVerificationError('No authenticator is registered with this credential ID');
  let newCounter: number;
  try {
    ({ newCounter } = await provider.ceremonies.verifyAuthentication({
      response,
      ...expected,
      credential: {
        ...descriptorOf(stored),
        publicKey: new Uint8Array(Buffer.from(stored.credentialPublicKey, 'base64')),
        counter: Number(stored.counter),
      },
    }));
  } catch (error) {
    throw new WebAuthnVerificationError('The passkey assertion did not verify', { cause: error instanceof Error ? error : undefined });
  }
  await callAdapter(adapter, 'updateAuthenticatorCounter', stored.credentialID, newCounter);
  const account = await callAdapter(adapter, 'getAccount', stored.providerAccountId, provider.id);
  const user = account ? await callAdapter(adapter, 'getUser', account.userId) : null;
  if (!account || !user) throw new WebAuthnVerificationError('The passkey has no account or user in the database');
  return { user, storedUser: user, account };
}
