/**
 * Impersonation (SPEC §15): an admin sees the app as a user, for a reason, for at most `impersonation.maxAge` (an
 * hour). It is a session of the user whose token says so (`impersonationToken`: its clock ends it then however it is
 * renewed, and it is never a recent authentication) and whose row names the admin and the admin's own session.
 * While it lasts, every page of the runtime shows a banner with a stop button, `session.impersonatedBy` names the
 * admin, and nothing below the mount changes but ending it: no password, address, factor, key, session, deletion,
 * re-authentication or sign-in. Stopping deletes it and gives the browser the admin's own session back.
 * Never of an admin (Better Auth's #6448), never through an API key (its #10819: the handler refuses them).
 */
import type { Request } from 'express';
import type { RequestContext, ResolvedConfig, Route } from '../../contracts.js';
import { sendJson, sendRedirect } from '../../context.js';
import { type ErrorResponse, type ErrorType, AuthError, MethodNotAllowed, clientSafe } from '../../errors.js';
import { chunkCookie, clearChunkedCookie, findCookie, readChunkedCookie } from '../../http/cookies.js';
import { csrfTokenOf, verifyCsrf } from '../../http/csrf.js';
import { cookieOptionsFor, prefersJson, readBody } from '../../http/request.js';
import { html } from '../../pages/html.js';
import type { AdapterUser, Session } from '../../types.js';
import { callAdapter } from '../database/adapter.js';
import { type SignedInAdmin, isAdmin, recordAdminAction } from './access.js';
import { adminSettingsOf } from './settings.js';

declare module '../../errors.js' {
  interface FeatureErrorTypes {
    ImpersonationRefused: true;
  }
}

/** The admin acting as the session's user, as `session.impersonatedBy` shows them. */
export interface SessionImpersonation {
  id: string;
  email: string | null;
  name: string | null;
}

declare module '../../types.js' {
  interface DefaultSession {
    /** Set while an admin acts as this user (features/admin/): the admin. Read on this request. */
    impersonatedBy?: SessionImpersonation;
  }
}

/** A change asked while an admin acts as the user: refused, whatever it is. */
export class ImpersonationRefused extends AuthError {
  static type: ErrorType = 'ImpersonationRefused';
  static override response: ErrorResponse = clientSafe(
    'ImpersonationRefused',
    403,
    'error',
    'An administrator acting as this user cannot change anything here: stop acting as them first.',
    'Not while acting as this user',
  );
}

/**
 * An impersonation's session token, `<token>~i<seconds>`: the database feature's session clock
 * (features/database/session-token.ts) ends it at that time however it is renewed and never counts it as a recent
 * authentication. Every adapter stores and looks up the token whole, so nobody can change the time or the mark.
 */
export function impersonationToken(generated: string, endsAt: Date): string {
  return `${generated}~i${Math.floor(endsAt.valueOf() / 1000)}`;
}

/** Whether a session token is an impersonation's ({@link impersonationToken}). */
export const isImpersonationToken = (sessionToken: string): boolean => /~i\d{1,12}$/.test(sessionToken);

/**
 * Starts acting as `target` for `reason` (checked by the action): refused (the errors by field returned, nothing
 * answered) for an admin, the admin themselves or a disabled user, or when impersonation is off. Otherwise the
 * browser's session becomes the impersonation's (the admin's own is kept to return to), and the admin is sent to the
 * app's start page.
 */
export async function startImpersonation(context: RequestContext, admin: SignedInAdmin, target: AdapterUser, reason: string, json: boolean): Promise<Record<string, string> | undefined> {
  const { options } = context;
  const adapter = options.adapter!;
  const maxAge = adminSettingsOf(options).impersonationMaxAge;
  if (maxAge === null) return { action: 'Impersonation is turned off (Admin({ impersonation: false })).' };
  if (target.id === admin.user.id) return { action: 'You cannot act as yourself.' };
  if (await isAdmin(options, target)) return { action: 'An admin cannot be impersonated: ask them instead.' };
  if ((await callAdapter(adapter, 'getAdminState', target.id)).disabledAt) return { action: 'A disabled user cannot be impersonated: enable them first.' };
  const adminSessionToken = readChunkedCookie(context.cookies, context.cookieOptions.sessionToken.name);
  if (!adminSessionToken) return { action: 'Your own session was not found: sign in again.' };
  const now = new Date();
  const expires = new Date(now.valueOf() + maxAge * 1000);
  const sessionToken = impersonationToken(options.session.generateSessionToken(), expires);
  const userAgent = context.req.headers['user-agent']?.slice(0, 512) ?? null;
  await callAdapter(adapter, 'createImpersonationSession', { session: { sessionToken, userId: target.id, expires, createdAt: now, userAgent }, adminId: admin.user.id, adminSessionToken });
  await recordAdminAction(context, admin.user, target.id, 'impersonated', reason);
  context.outgoing.push(...chunkCookie(context.cookies, context.cookieOptions.sessionToken, sessionToken, { expires }));
  if (json) sendJson(context, 200, { impersonating: { id: target.id, email: target.email ?? null }, expires: expires.toISOString() });
  else sendRedirect(context, `${context.origin}/`);
  return undefined;
}

/**
 * POST `<mount>/admin/stop-impersonating`: ends the impersonation and gives the browser the admin's own session back
 * when it is still good (to the user's admin page), else signs the browser out (to the sign-in page).
 */
export async function stopImpersonatingRoute(context: RequestContext, route: Route): Promise<void> {
  if (route.method !== 'POST') throw new MethodNotAllowed('GET is not allowed here; use POST', { allow: ['POST'] });
  verifyCsrf(context, await readBody(context.req));
  const { options } = context;
  const adapter = options.adapter!;
  const cookie = context.cookieOptions.sessionToken;
  const token = readChunkedCookie(context.cookies, cookie.name);
  const json = prefersJson(context.req);
  const impersonation = token && isImpersonationToken(token) ? await callAdapter(adapter, 'getImpersonation', token) : null;
  const found = impersonation && (await callAdapter(adapter, 'getSessionAndUser', token!));
  if (token && isImpersonationToken(token)) await callAdapter(adapter, 'deleteSession', token);
  const own = impersonation && (await callAdapter(adapter, 'getSessionAndUser', impersonation.adminSessionToken));
  if (impersonation && own && own.user.id === impersonation.adminId && own.session.expires.valueOf() > Date.now()) {
    context.outgoing.push(...chunkCookie(context.cookies, cookie, impersonation.adminSessionToken, { expires: own.session.expires }));
    const back = found ? `${context.mountPath}/admin/users/${encodeURIComponent(found.user.id)}` : `${context.mountPath}/admin`;
    return json ? sendJson(context, 200, { stopped: true, url: back }) : sendRedirect(context, `${context.origin}${back}`);
  }
  // Not impersonating, or the admin's own session ended meanwhile: signed out here.
  if (token && isImpersonationToken(token)) context.outgoing.push(...clearChunkedCookie(context.cookies, cookie));
  const signIn = `${context.mountPath}/signin`;
  return json ? sendJson(context, 200, { stopped: impersonation !== null, url: signIn }) : sendRedirect(context, `${context.origin}${signIn}`);
}

/**
 * The feature's `beforeRoute`: while the browser's session is an impersonation, every page shows the banner, and
 * nothing runs but GETs (a sign-in's callback and the account's export excepted), sign-out and stopping.
 */
export function impersonationGuard(context: RequestContext, action: string, route: Route): void {
  const token = readChunkedCookie(context.cookies, context.cookieOptions.sessionToken.name);
  if (!token || !isImpersonationToken(token)) return;
  context.banner = String(
    html`<header class="impersonating" style="background:#7a2e00;color:#fff;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;justify-content:center"><p style="margin:0">An administrator is acting as this user: nothing in the account can change.</p><form method="post" action="${context.mountPath}/admin/stop-impersonating" style="margin:0"><input type="hidden" name="csrfToken" value="${csrfTokenOf(context)}"><button type="submit" style="background:#fff;color:#7a2e00;border:0;border-radius:.375rem;padding:.375rem .75rem;font:inherit;cursor:pointer">Stop acting as this user</button></form></header>`,
  );
  // Seeing is allowed, taking is not: the account's export is the user's data to download, not an admin's.
  const readable = action !== 'callback' && !(action === 'account' && route.subpath === 'export');
  const allowed = route.method === 'GET' ? readable : action === 'signout' || (action === 'admin' && route.subpath === 'stop-impersonating');
  if (!allowed) throw new ImpersonationRefused(`${route.method} ${context.mountPath}/${action} refused while an admin acts as the user`);
}

/**
 * The feature's `session` hook: `impersonatedBy`, the admin, on an impersonation's session (read only then: the
 * token says so). An API key's session is never one.
 */
export async function sessionImpersonation(_session: Session, context: { options: ResolvedConfig; req: Request }): Promise<{ impersonatedBy: SessionImpersonation } | undefined> {
  const { options, req } = context;
  const header = req.headers.cookie;
  // An API key's session is its own: the bearer feature, the one judge of whether a request carries a key, says so
  // (another scheme, a staging site's Basic, is no key; neither is any header in an app without API keys).
  if (!header?.includes('~i') || options.bearer?.resultOf(req, options) !== undefined) return undefined;
  const token = findCookie(header, cookieOptionsFor(req, options).sessionToken.name);
  if (!token || !isImpersonationToken(token)) return undefined;
  const impersonation = await callAdapter(options.adapter!, 'getImpersonation', token);
  const admin = impersonation && (await callAdapter(options.adapter!, 'getUser', impersonation.adminId));
  return admin ? { impersonatedBy: { id: admin.id, email: admin.email ?? null, name: admin.name ?? null } } : undefined;
}
