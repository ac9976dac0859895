/**
 * GET `<mount>/account/export` (signed in, recent authentication): what is stored about the user, as a JSON download
 * (GDPR art. 15 and 20): the account's own parts and each feature's entries (`Feature.account.export`: passkeys, API
 * keys, password and two-factor state). Each is read through the adapter method that keeps it, when the adapter has
 * it, and written field by field, never by spreading a stored row: the export never holds a hash, token, secret or key
 * (no account tokens, session tokens, password hash, TOTP secret, recovery codes, API-key digest or start, passkey
 * public key).
 */
import { readChunkedCookie } from '../../http/cookies.js';
import { sendJson } from '../../context.js';
import { callAdapter } from '../database/adapter.js';
import { securityEventsOf } from '../security-events/index.js';
import { sessionIdOf } from '../database/session-management.js';
import { has, partRequestOf } from './account-view.js';
import { type AccountRequest, accountPartsOf } from './settings.js';

const iso = (date: Date | null | undefined): string | null => (date ? new Date(date).toISOString() : null);

/** The export of the signed-in user: a plain object of strings, booleans and lists. */
export async function accountExportOf(request: AccountRequest): Promise<Record<string, unknown>> {
  const { context, adapter } = request;
  const { options } = context;
  const user = request.signedIn.user;
  const userId = String(user.id);
  const current = readChunkedCookie(context.cookies, context.cookieOptions.sessionToken.name);
  const accounts = has(adapter, 'listAccountsByUserId') ? await callAdapter(adapter, 'listAccountsByUserId', userId) : [];
  const sessions = options.session.strategy === 'database' && has(adapter, 'listSessionsByUserId') ? await callAdapter(adapter, 'listSessionsByUserId', userId) : [];
  const entries = await Promise.all(accountPartsOf(options).map((part) => part.export?.(partRequestOf(request)) ?? {}));
  const events = has(adapter, 'listSecurityEvents') ? await securityEventsOf(options, userId) : [];
  return {
    exportedAt: new Date().toISOString(),
    user: { id: userId, name: user.name ?? null, email: user.email ?? null, emailVerified: iso(user.emailVerified), image: user.image ?? null },
    accounts: accounts.map((account) => ({ provider: account.provider, type: account.type, providerAccountId: account.providerAccountId })),
    // A session is named by the digest the sessions page uses, never by its token.
    sessions: sessions.map((session) => ({
      id: sessionIdOf(session.sessionToken),
      current: session.sessionToken === current,
      createdAt: iso(session.createdAt),
      lastSeenAt: iso(session.lastSeenAt),
      expires: iso(session.expires),
      userAgent: session.userAgent ?? null,
    })),
    ...Object.assign({}, ...entries),
    securityEvents: events.map((event) => ({ type: event.type, at: event.at.toISOString(), method: event.method, ip: event.ip, userAgent: event.userAgent, detail: event.detail })),
  };
}

/** GET `<mount>/account/export`: the download, `account-<date>.json`, never cached. */
export async function exportRoute(request: AccountRequest): Promise<void> {
  const { res } = request.context;
  const exported = await accountExportOf(request);
  res.setHeader('Content-Disposition', `attachment; filename="account-${new Date().toISOString().slice(0, 10)}.json"`);
  sendJson(request.context, 200, exported);
}
