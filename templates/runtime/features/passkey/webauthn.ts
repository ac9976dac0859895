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
import { randomUUID } from 'node:crypto';
import { callAdapter } from '../database/adapter.js';
import type { SignInResolution, RequestContext, FlowProviderConfig, ResolvedFlowProvider, Route } from '../../contracts.js';
import { completeSignIn } from '../../complete-sign-in.js';
import { sendJson } from '../../context.js';
import { verifyCsrf } from '../../http/csrf.js';
import { normalizeEmailAddress } from '../../email-address.js';
import { AccountNotLinked, InvalidRequest, MethodNotAllowed, MissingAdapter } from '../../errors.js';
import { WebAuthnVerificationError } from './errors.js';
import { emitEvent, recordSecurityEvent } from '../../events.js';
import type { SignInFormContext } from '../../flow.js';
import { consumeCheckCookie, writeCheckCookie } from '../../oauth/check-cookies.js';
import { type SafeHtml, html } from '../../pages/html.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import { findProvider, unsupportedProvider } from '../../router.js';
import { consumeClientRateLimit } from '../rate-limit/rate-limit.js';
import { requestedCallbackUrl } from '../../http/requested-callback-url.js';
import { bodyField, queryParams, readBody } from '../../http/request.js';
import { existingUserOf } from '../database/sign-in.js';
import { settleAddress, undoNewUserOnFailure } from '../database/addresses.js';
import { currentSignIn, isRecentSignIn } from '../database/signed-in.js';
import { ReauthenticationRequired } from '../database/recent-auth.js';
import { askToReauthenticate } from '../database/ask-to-reauthenticate.js';
import type { Account, AdapterUser, User } from '../../types.js';
import type { AdapterAuthenticator } from './storage.js';

/** A WebAuthn credential as the ceremonies see it: `id` is base64url. */
export interface WebAuthnCredentialDescriptor {
  id: string;
  transports: string[] | undefined;
}

/** A credential that passed registration. */
export interface WebAuthnRegisteredCredential extends WebAuthnCredentialDescriptor {
  publicKey: Uint8Array;
  counter: number;
  /** `singleDevice` or `multiDevice` (a synced passkey). */
  deviceType: string;
  backedUp: boolean;
}

/** The options JSON for the browser, and the challenge inside it (kept in the challenge cookie). */
export interface WebAuthnCeremonyOptions {
  challenge: string;
  options: unknown;
}

/**
 * The four WebAuthn ceremonies. `Passkey()` implements them with @simplewebauthn/server; the runtime calls them and
 * stores what they return. The verify functions throw when the response does not verify.
 * @see https://www.w3.org/TR/webauthn-3/#sctn-rp-operations
 */
export interface WebAuthnCeremonies {
  registrationOptions(params: {
    rpID: string;
    rpName: string;
    userName: string;
    userDisplayName: string | undefined;
    excludeCredentials: WebAuthnCredentialDescriptor[];
  }): Promise<WebAuthnCeremonyOptions>;
  verifyRegistration(params: { response: unknown; expectedChallenge: string; expectedOrigin: string; expectedRPID: string }): Promise<WebAuthnRegisteredCredential>;
  authenticationOptions(params: { rpID: string; allowCredentials: WebAuthnCredentialDescriptor[] }): Promise<WebAuthnCeremonyOptions>;
  verifyAuthentication(params: {
    response: unknown;
    expectedChallenge: string;
    expectedOrigin: string;
    expectedRPID: string;
    credential: WebAuthnCredentialDescriptor & { publicKey: Uint8Array; counter: number };
  }): Promise<{ newCounter: number }>;
}

/**
 * The configuration of a WebAuthn (passkey) provider; create it with `Passkey()`. Needs an `adapter` with the
 * authenticator methods.
 */
export interface WebAuthnConfig extends FlowProviderConfig {
  type: 'webauthn';
  /**
   * The relying party (Auth.js's spelling): `id` is the domain passkeys are bound to, `name` is shown by the
   * authenticator, `origin` is where the sign-in page runs.
   * @default from the app's origin (AUTH_URL when set, else the request's): its hostname, host and origin
   */
  relayingParty?: { id?: string; name?: string; origin?: string };
  /** Accepted for Auth.js compatibility; the built-in page does not offer passkeys in the browser's autofill yet. */
  enableConditionalUI?: boolean;
  /** The ceremonies; `Passkey()` sets them. */
  ceremonies: WebAuthnCeremonies;
  options?: Partial<WebAuthnConfig>;
}


/** A WebAuthn (passkey) provider, ready for the routes. */
export interface ResolvedWebAuthnProvider extends ResolvedFlowProvider {
  type: 'webauthn';
  relayingParty: { id?: string; name?: string; origin?: string };
  ceremonies: WebAuthnCeremonies;
}

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

function adapterOf(context: RequestContext, provider?: ResolvedWebAuthnProvider) {
  // The startup check makes this unreachable; kept for custom wiring.
  if (!context.options.adapter) throw new MissingAdapter(provider ? `Provider "${provider.id}" needs an adapter` : 'This sign-in needs an adapter');
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
  const current = await currentSignIn(context, adapter);
  const signedIn = current?.user ?? null;
  const decision: WebAuthnAction = action ?? (signedIn || email !== undefined ? 'register' : 'authenticate');
  const relyingParty = relyingPartyOf(context, provider);

  if (decision === 'authenticate') {
    const { challenge, options } = await provider.ceremonies.authenticationOptions({ rpID: relyingParty.id, allowCredentials: [] });
    await writeCheckCookie(context, context.cookieOptions.webauthnChallenge, provider.id, { challenge, action: decision } satisfies ChallengePayload);
    return sendJson(context, 200, { action: decision, options });
  }
  if (!signedIn && email === undefined) throw badRequest('Enter your email address to create a passkey, or sign in first to add one to your account.');
  if (current && !isRecentSignIn(context, current)) {
    // The passkey form lives on the sign-in page: back there, to add the passkey once re-authenticated.
    return askToReauthenticate(context, `${context.origin}${context.mountPath}/signin`);
  }
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

/**
 * Passkey sign-in. A known credential signs its user in (refused with `AccountNotLinked` while another user is
 * signed in). A new credential (registration) is added to the signed-in user, or creates a new user. Unlike
 * Auth.js, that new user claims no email: the address typed at sign-up is unproven, so it becomes the user's
 * `name` only (and the WebAuthn user name), and no user is looked up by it. Proving an address later (a magic
 * link) creates the user who owns it, apart from this one. The account has type `webauthn` and the credential ID
 * as `providerAccountId`; the authenticator is stored with the user's id.
 */
async function resolveWebAuthnSignIn(
  context: RequestContext,
  params: { user: User; account: Account; authenticator?: Omit<AdapterAuthenticator, 'userId'> },
): Promise<SignInResolution> {
  const { options } = context;
  const adapter = adapterOf(context);
  const { account } = params;
  const current = await currentSignIn(context, adapter);
  const signedIn = current?.user ?? null;
  const owner = await existingUserOf(options, account);
  if (owner) {
    if (signedIn && String(signedIn.id) !== String(owner.id)) {
      throw new AccountNotLinked('This passkey belongs to another user than the one signed in');
    }
    return { user: owner, isNewUser: false };
  }
  let user: AdapterUser;
  let isNewUser = false;
  if (current) {
    // A passkey is a lasting credential that skips the second factor: added only after a recent authentication.
    if (!isRecentSignIn(context, current)) throw new ReauthenticationRequired('Adding a passkey needs a recent authentication');
    user = current.user;
  } else {
    const outcome = await settleAddress(options, adapter, { email: null, proven: false, joinProvenHolder: false });
    if (outcome.action !== 'create') throw new AccountNotLinked('A passkey sign-up claims no email address');
    const name = params.user.name ?? null;
    const newUser = { id: randomUUID(), email: outcome.email, emailVerified: outcome.emailVerified, ...(name ? { name } : {}) } as AdapterUser;
    user = await callAdapter(adapter, 'createUser', newUser);
    isNewUser = true;
    await emitEvent(options, 'createUser', { user });
  }
  const { authenticator } = params;
  await undoNewUserOnFailure(options, adapter, isNewUser ? user : null, async () => {
    await callAdapter(adapter, 'linkAccount', { ...account, userId: user.id });
    if (authenticator) await callAdapter(adapter, 'createAuthenticator', { ...authenticator, userId: user.id });
  });
  await emitEvent(options, 'linkAccount', { user, account, profile: params.user });
  // A passkey stored with a new user is their sign-up; one added to the signed-in user is a new way in.
  if (!isNewUser) await recordSecurityEvent(context, { type: 'passkey-added', userId: String(user.id), method: account.provider });
  return { user, isNewUser };
}

/** POST `<mount>/callback/<webauthn provider>`: a verified registration or authentication signs the user in. */
export async function webAuthnCallback(context: RequestContext, provider: ResolvedWebAuthnProvider, method: 'GET' | 'POST'): Promise<void> {
  if (method !== 'POST') throw new MethodNotAllowed('Passkey responses are submitted with POST', { allow: ['POST'] });
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  const verified = await verifyWebAuthnResponse(context, provider, body);
  await completeSignIn(context, {
    user: verified.user,
    account: verified.account,
    storedUser: verified.storedUser,
    callbackUrl: requestedCallbackUrl(context, body),
    resolve: () =>
      resolveWebAuthnSignIn(context, { user: verified.user, account: verified.account, ...(verified.authenticator && { authenticator: verified.authenticator }) }),
  });
}

/**
 * The passkey form. Its buttons start disabled, with a note that passkeys need JavaScript: the script enables them
 * and clears the note, so a browser without JavaScript shows why they do nothing rather than posting an empty form.
 */
export function passkeyForm(provider: ResolvedWebAuthnProvider, { mountPath, hidden }: SignInFormContext): SafeHtml {
  const id = `input-email-for-${provider.id}-provider`;
  const hint = `hint-${provider.id}-provider`;
  const encoded = encodeURIComponent(provider.id);
  const noun = provider.name.toLowerCase();
  return html`<form action="${mountPath}/callback/${encoded}" method="POST" data-webauthn-options="${mountPath}/webauthn-options/${encoded}">${hidden}<label for="${id}">Email for a new ${noun}</label><input id="${id}" name="email" type="email" autocomplete="username webauthn" aria-describedby="${hint}"><p id="${hint}" class="hint">Leave it empty to sign in with a ${noun} you have.</p><button type="submit" data-webauthn-action="authenticate" disabled>Sign in with ${provider.name}</button><button type="submit" class="secondary" data-webauthn-action="register" disabled>Create a ${noun}</button><p class="note" role="status" aria-live="polite" data-webauthn-status>${provider.name} sign-in needs JavaScript. Turn it on, or use another way to sign in.</p></form>`;
}


/** GET `<mount>/webauthn-options/<provider>`: the options of a passkey provider's next ceremony (rate-limited per client). */
export async function webauthnOptionsRoute(context: RequestContext, route: Route): Promise<void> {
  const provider = findProvider(context, route.providerId!);
  if (isOAuthProvider(provider) || provider.type !== 'webauthn') return unsupportedProvider(provider);
  await consumeClientRateLimit(context, 'passkeyOptionsPerClient');
  await sendWebAuthnOptions(context, provider as ResolvedWebAuthnProvider);
}
