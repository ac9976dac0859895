/**
 * Who is an admin, read on every request that asks: a user whose proven (verified) address the config lists
 * (`Admin({ admins })`, AUTH_ADMINS), or whom another admin granted it (`admin_grants`). The gate of every admin page
 * and action (`adminOf`), `requireAdmin()` for the app's routes, a disabled user's refusal, and the record of what an
 * admin did.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { FrameworkAuthConfig, RequestContext, ResolvedConfig } from '../../contracts.js';
import { resolveConfigOnce } from '../../config.js';
import { sendJson, sendJsonResponse, sendRedirect, sendRedirectResponse } from '../../context.js';
import { normalizeEmailAddress } from '../../email-address.js';
import { type ErrorResponse, type ErrorType, AuthError, UnknownAction, clientSafe } from '../../errors.js';
import { recordSecurityEvent } from '../../events.js';
import { DEFAULT_BASE_PATH } from '../../http/base-path.js';
import { prefersJson } from '../../http/request.js';
import { createRequireAuth } from '../../session/get-session.js';
import type { AdapterUser, Session, User } from '../../types.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import { reauthUrl, reauthenticationJson } from '../database/reauth-route.js';
import { askToSignIn, currentSignIn, isRecentSignIn } from '../database/signed-in.js';
import type { AdminEventType } from './events.js';
import { adminSettingsOf } from './settings.js';

declare module '../../errors.js' {
  interface FeatureErrorTypes {
    AccountDisabled: true;
  }
}

/** An admin disabled the account: its sign-ins and API keys are refused (after a proven first factor only). */
export class AccountDisabled extends AuthError {
  static type: ErrorType = 'AccountDisabled';
  static override response: ErrorResponse = clientSafe(
    'AccountDisabled',
    403,
    'signIn',
    'This account is disabled: an administrator stopped it. Contact the site\'s administrators.',
    'Account disabled',
  );
}

/** Whether the user's verified address is one the config lists as an admin's. */
export function isConfiguredAdmin(options: ResolvedConfig, user: Pick<AdapterUser, 'email' | 'emailVerified'>): boolean {
  const { admins } = adminSettingsOf(options);
  if (admins.size === 0 || !user.email || !user.emailVerified) return false;
  try {
    return admins.has(normalizeEmailAddress(user.email));
  } catch {
    return false;
  }
}

/** Whether the user is an admin now: by the config's addresses, or by a grant, read from the database. */
export async function isAdmin(options: ResolvedConfig, user: AdapterUser): Promise<boolean> {
  if (isConfiguredAdmin(options, user)) return true;
  return (await callAdapter(options.adapter!, 'getAdminState', user.id)).granted;
}

/** An admin's second factor: two-factor turned on, or a passkey. */
async function hasSecondFactor(adapter: Adapter, userId: string): Promise<boolean> {
  if (typeof adapter.getTwoFactor === 'function' && (await callAdapter(adapter, 'getTwoFactor', userId))?.enabledAt) return true;
  return typeof adapter.listAuthenticatorsByUserId === 'function' && (await callAdapter(adapter, 'listAuthenticatorsByUserId', userId)).length > 0;
}

/** What an admin without a second factor is told, and where they enrol one. */
function secondFactorRequired(mountPath: string): { error: 'second_factor_required'; message: string; url: string } {
  return { error: 'second_factor_required', message: 'Administration needs a second factor: turn on two-factor authentication or add a passkey first.', url: `${mountPath}/two-factor` };
}

/** The signed-in admin of an admin page or action, and when they last authenticated. */
export interface SignedInAdmin {
  user: AdapterUser;
  authTime: number | undefined;
}

/**
 * The admin of a request to an admin page (`post`: an action), or undefined once answered: a visitor is asked to
 * sign in; anyone but an admin gets 404 (a stranger learns nothing of the pages); an admin without a second factor is
 * sent to enrol one; an action without a recent authentication (`session.reauthMaxAge`) asks who is there.
 */
export async function adminOf(context: RequestContext, json: boolean, post: boolean): Promise<SignedInAdmin | undefined> {
  const { options } = context;
  const adapter = options.adapter!;
  const signedIn = await currentSignIn(context, adapter);
  if (!signedIn) {
    askToSignIn(context, json, { action: 'admin', message: 'Sign in to use the administration pages.' });
    return undefined;
  }
  if (!(await isAdmin(options, signedIn.user))) throw new UnknownAction('There is no auth route "admin" for this user');
  if (adminSettingsOf(options).requireSecondFactor && !(await hasSecondFactor(adapter, signedIn.user.id))) {
    const refusal = secondFactorRequired(context.mountPath);
    if (json) sendJson(context, 403, refusal);
    else sendRedirect(context, refusal.url);
    return undefined;
  }
  if (post && !isRecentSignIn(context, signedIn)) {
    const url = reauthUrl(context.mountPath, context.req.originalUrl ?? context.req.url);
    if (json) sendJson(context, 401, reauthenticationJson(url));
    else sendRedirect(context, url);
    return undefined;
  }
  return signedIn;
}

/** What an admin does to a user, as recorded: each is the user's security event `admin-<action>`. */
export type AdminAction = AdminEventType extends `admin-${infer Action}` ? Action : never;

/**
 * Records an admin's action on a user: the user's security event with the admin as its actor (the user's account
 * page and `onSecurityEvent` show it), and the admins' own record with the reason, which only admins see. A deletion
 * is recorded before it happens: the user's events go with the user, the admins' record and `onSecurityEvent` keep it.
 */
export async function recordAdminAction(context: RequestContext, actor: { id: string }, userId: string, action: AdminAction, detail: string | null = null): Promise<void> {
  const { options } = context;
  await callAdapter(options.adapter!, 'createAdminAction', { id: crypto.randomUUID(), userId, actorId: actor.id, action, detail, at: new Date() });
  await recordSecurityEvent(context, { type: `admin-${action}`, userId, actorId: actor.id });
}

/** The feature's `beforeSignIn`: a disabled user's proven sign-in, or their API key, is refused. */
export async function refuseDisabled(signIn: { user: User | AdapterUser }, context: { options: ResolvedConfig }): Promise<void> {
  const state = await callAdapter(context.options.adapter!, 'getAdminState', signIn.user.id!);
  if (state.disabledAt) throw new AccountDisabled(`The user ${signIn.user.id!} is disabled`);
}

/**
 * A guard for the app's admin routes: 401 (or the sign-in page) without a session, 403 `{ error: 'forbidden' }` for
 * anyone but an admin (an API key is never one; an admin acting as a user is that user), and 403
 * `second_factor_required` (or the two-factor page) for an admin without a second factor. Read on every request.
 * @example
 * app.get('/admin/reports', requireAdmin, reports)
 */
export function createRequireAdmin(config: FrameworkAuthConfig): RequestHandler {
  const options = resolveConfigOnce(config);
  const signedIn = createRequireAuth(config);
  const mountPath = options.basePath ?? DEFAULT_BASE_PATH;
  async function check(req: Request, res: Response, next: NextFunction): Promise<void> {
    const session = res.locals['session'] as Session;
    const user = await callAdapter(options.adapter!, 'getUser', session.user!.id!);
    if (!user || !(await isAdmin(options, user))) return sendJsonResponse(res, 403, { error: 'forbidden', message: 'Only an admin may do this.' });
    if (adminSettingsOf(options).requireSecondFactor && !(await hasSecondFactor(options.adapter!, user.id))) {
      const refusal = secondFactorRequired(mountPath);
      return prefersJson(req) ? sendJsonResponse(res, 403, refusal) : sendRedirectResponse(res, refusal.url);
    }
    next();
  }
  return function requireAdmin(req: Request, res: Response, next: NextFunction): void | Promise<void> {
    // An API key proves a key, not who is there: never an admin.
    const bearer = options.bearer?.resultOf(req, options);
    if (bearer) return Promise.resolve(bearer).then((result) => options.bearer!.refuse(res, result, { message: 'An API key cannot do this: an admin signs in.' }));
    return signedIn(req, res, (error?: unknown) => {
      if (error !== undefined) return next(error);
      check(req, res, next).catch(next);
    }) as void | Promise<void>;
  };
}
