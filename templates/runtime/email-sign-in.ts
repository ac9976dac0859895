/**
 * Email (magic link) sign-in, as Auth.js does it: POST `<mount>/signin/<id>` stores a single-use, expiring
 * verification token and sends a link holding it; GET `<mount>/callback/<id>?token=…&email=…` uses the token once.
 * Only the SHA-256 of `token + secret` is stored, so a database leak yields no working link.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { callAdapter } from './adapter.js';
import { type RequestContext, configuredActionUrl, sendRedirect } from './context.js';
import { assertSingleAddress } from './email-address.js';
import { AccessDenied, EmailSignInError, MissingAdapter, Verification } from './errors.js';
import type { ResolvedEmailProvider } from './providers/resolve.js';
import { resolveRedirect } from './redirect.js';
import { hasProvenEmail } from './sign-in.js';
import type { Account, AdapterUser, User } from './types.js';

/** The stored form of a token: `sha256hex(token + secret)`, as Auth.js stores it (existing tokens keep working). */
export function hashVerificationToken(token: string, secret: string): string {
  return createHash('sha256').update(`${token}${secret}`).digest('hex');
}

/** What the user typed, as the provider's address; throws what `normalizeIdentifier` threw. */
export function emailIdentifier(provider: ResolvedEmailProvider, typed: string): string {
  const identifier = provider.normalizeIdentifier(typed);
  if (typeof identifier !== 'string') throw new TypeError(`normalizeIdentifier of provider "${provider.id}" did not return a string`);
  assertSingleAddress(identifier);
  return identifier;
}

/**
 * Starts an email sign-in for an already normalised address: the `signIn` callback (with
 * `email.verificationRequest`), the stored token, the message, then a redirect to the "check your email" page.
 */
export async function sendVerificationLink(
  context: RequestContext,
  provider: ResolvedEmailProvider,
  params: { identifier: string; callbackUrl: string | undefined },
): Promise<void> {
  const { options } = context;
  const adapter = options.adapter;
  if (!adapter) throw new MissingAdapter(`Provider "${provider.id}" needs an adapter`);
  const { identifier } = params;
  const existing = await callAdapter(adapter, 'getUserByEmail', identifier);
  const user: AdapterUser = existing ?? { id: randomUUID(), email: identifier, emailVerified: null };
  const account: Account = { providerAccountId: identifier, userId: user.id, type: 'email', provider: provider.id };
  let allowed: boolean | string;
  try {
    allowed = await options.callbacks.signIn({ user, account, email: { verificationRequest: true } });
  } catch (error) {
    throw new AccessDenied('The signIn callback threw', { cause: error instanceof Error ? error : undefined });
  }
  if (allowed === false) throw new AccessDenied('The signIn callback refused the email sign-in');
  if (typeof allowed === 'string') return sendRedirect(context, await resolveRedirect(context, allowed));

  const token = (await provider.generateVerificationToken?.()) ?? randomBytes(32).toString('hex');
  const expires = new Date(Date.now() + provider.maxAge * 1000);
  const secret = provider.secret ?? options.secrets[0]!;
  const query = new URLSearchParams();
  if (params.callbackUrl) query.set('callbackUrl', await resolveRedirect(context, params.callbackUrl));
  query.set('token', token);
  query.set('email', identifier);
  // The link's origin is configuration's, never the Host header's: whoever could choose it would receive the token.
  const url = `${configuredActionUrl(context, `callback/${encodeURIComponent(provider.id)}`)}?${query}`;
  const hashed = hashVerificationToken(token, secret);
  // Stored before sending, so that a link opened at once already works.
  await callAdapter(adapter, 'createVerificationToken', { identifier, token: hashed, expires });
  try {
    await provider.sendVerificationRequest({
      identifier,
      url,
      expires,
      token,
      provider: { id: provider.id, name: provider.name, server: provider.server, from: provider.from, maxAge: provider.maxAge },
      theme: options.theme,
      request: context.req,
    });
  } catch (error) {
    // A link that was never delivered must not stay usable.
    await callAdapter(adapter, 'useVerificationToken', { identifier, token: hashed }).catch((cleanup: Error) => options.logger.error(cleanup));
    throw new EmailSignInError(`Sending the sign-in email of provider "${provider.id}" failed`, { cause: error instanceof Error ? error : undefined });
  }
  const page = new URLSearchParams({ provider: provider.id, type: provider.type });
  sendRedirect(context, `${configuredActionUrl(context, 'verify-request')}?${page}`);
}

/**
 * Uses the token of a sign-in link: found once, unexpired, for this address. Every failure is `Verification` (the
 * error page says the link is no longer valid) without saying which check failed. Tokens hashed with a previous
 * secret (`AUTH_SECRET` rotation) are still found.
 */
export async function useVerificationLink(
  context: RequestContext,
  provider: ResolvedEmailProvider,
  query: URLSearchParams,
): Promise<{ user: User | AdapterUser; storedUser: AdapterUser | null; account: Account; identifier: string; callbackUrl: string | undefined }> {
  const { options } = context;
  const adapter = options.adapter;
  if (!adapter) throw new MissingAdapter(`Provider "${provider.id}" needs an adapter`);
  const token = query.get('token');
  const email = query.get('email');
  if (!token || !email) throw new Verification('The sign-in link has no token or no email: it was opened incompletely');
  const secrets = provider.secret ? [provider.secret] : options.secrets;
  let invite = null;
  for (const secret of secrets) {
    invite = await callAdapter(adapter, 'useVerificationToken', { identifier: email, token: hashVerificationToken(token, secret) });
    if (invite) break;
  }
  if (!invite) throw new Verification('The sign-in link is unknown or was already used');
  if (new Date(invite.expires).valueOf() < Date.now()) throw new Verification('The sign-in link has expired');
  if (invite.identifier !== email) throw new Verification('The sign-in link belongs to another address');
  const identifier = invite.identifier;
  // A holder who never proved the address is not who signs in: the link claims it for a new user (sign-in.ts).
  const holder = await callAdapter(adapter, 'getUserByEmail', identifier);
  const storedUser = holder && hasProvenEmail(holder) ? holder : null;
  const user: User | AdapterUser = storedUser ?? { id: randomUUID(), email: identifier, emailVerified: null } as AdapterUser;
  const account: Account = { providerAccountId: identifier, userId: String(user.id), type: 'email', provider: provider.id };
  return { user, storedUser, account, identifier, callbackUrl: query.get('callbackUrl') ?? undefined };
}
