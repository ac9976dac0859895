/**
 * What an admin reads (the GETs of the administration): the users, searched by address or name and paged
 * (`<mount>/admin`), and one user (`<mount>/admin/users/<id>`) with everything an admin needs to help or stop them,
 * as a page (pages.ts) or as JSON. The actions' route shows a user's page again with a refused form's errors.
 *
 * How a user signs in is read from the features' parts of the account (`Feature.account.view`): administration names
 * no other feature's storage, and shows only the methods the app has.
 */
import type { RequestContext } from '../../contracts.js';
import { sendHtml, sendJson } from '../../context.js';
import { UnknownAction } from '../../errors.js';
import { csrfTokenOf } from '../../http/csrf.js';
import { queryParams } from '../../http/request.js';
import type { AdapterUser } from '../../types.js';
import type { AccountPartView } from '../database/account-parts.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import { sessionIdOf } from '../database/session-management.js';
import { type SecurityEvent, securityEventLabelsOf, securityEventsOf } from '../security-events/index.js';
import { type AdminAction, type SignedInAdmin, isConfiguredAdmin } from './access.js';
import { isImpersonationToken } from './impersonation.js';
import { type ListedSession, type SignInMethods, type UserPage, renderUserListPage, renderUserPage } from './pages.js';
import { adminSettingsOf } from './settings.js';

/** Users a page of the list holds. */
const USERS_PER_PAGE = 25;
/** The longest search: a longer one is cut. */
const MAX_QUERY_LENGTH = 200;
/** How many of the user's security events and admin actions their page shows: the newest. */
const SHOWN_RECORDS = 20;

/**
 * The notices a redirect after an action asks for (`?notice=<what was done>`, as the action records it; an
 * impersonation goes to the app instead): a page shows only these, never text from the URL.
 */
const notices: Readonly<Partial<Record<AdminAction, string>>> = {
  disabled: 'The user is disabled: every session of theirs ended, and they can no longer sign in.',
  enabled: 'The user is enabled: they can sign in again.',
  'sessions-ended': 'Every session of the user ended.',
  'two-factor-removed': 'Two-factor is removed: the user signs in with their first factor alone until they turn it on again.',
  'passkey-removed': 'The passkey is removed.',
  'reset-sent': 'A password reset link was sent to the user’s address.',
  granted: 'The user is an admin now.',
  revoked: 'The user is no longer an admin.',
  deleted: 'The user was deleted.',
};

/** The text of the notice the request's `?notice=` names, if it is one. */
function noticeOf(context: RequestContext): string | undefined {
  const key = queryParams(context.req).get('notice');
  return key !== null && Object.hasOwn(notices, key) ? notices[key as AdminAction] : undefined;
}

/** `?page=`: a whole number from 1; anything else is the first page. */
function pageOf(value: string | null): number {
  return value !== null && /^[1-9]\d{0,8}$/.test(value) ? Number(value) : 1;
}

const iso = (date: Date | null | undefined): string | null => (date ? new Date(date).toISOString() : null);

/** GET `<mount>/admin`: `?q=` (address or name), `?page=` (1-based), 25 users a page; JSON `{ users, total, page, pages }`. */
export async function showUserList(context: RequestContext, admin: SignedInAdmin, json: boolean): Promise<void> {
  const { options } = context;
  const params = queryParams(context.req);
  const query = (params.get('q') ?? '').trim().slice(0, MAX_QUERY_LENGTH).trim();
  const page = pageOf(params.get('page'));
  const found = await callAdapter(options.adapter!, 'searchUsers', { query, offset: (page - 1) * USERS_PER_PAGE, limit: USERS_PER_PAGE });
  const pages = Math.max(1, Math.ceil(found.total / USERS_PER_PAGE));
  const users = found.users.map((user) => ({ ...user, admin: user.granted || (user.email !== null && isConfiguredAdmin(options, { email: user.email, emailVerified: user.emailVerified })) }));
  if (json) {
    return sendJson(context, 200, {
      users: users.map((user) => ({ id: user.id, email: user.email, name: user.name, createdAt: iso(user.createdAt), lastSignInAt: iso(user.lastSignInAt), state: user.disabledAt ? 'disabled' : 'active', admin: user.admin })),
      total: found.total,
      page,
      pages,
    });
  }
  sendHtml(context, 200, renderUserListPage({ mountPath: context.mountPath, theme: options.theme, adminId: admin.user.id, users, query, page, pages, total: found.total, notice: noticeOf(context) }));
}

/** The features' views of the user's account (`Feature.account.view`): passwords, passkeys, two-factor, organizations. */
async function partsJsonOf(context: RequestContext, adapter: Adapter, user: AdapterUser): Promise<Record<string, unknown>> {
  const views = await Promise.all(context.options.features.map((feature): Promise<AccountPartView> | AccountPartView => feature.account?.view?.({ context, adapter, user }) ?? {}));
  return Object.assign({}, ...views.map((view) => view.json ?? {})) as Record<string, unknown>;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The passkeys of the passkey feature's view (`passkeys`), or undefined when the app has none. */
function passkeysOf(json: Record<string, unknown>): SignInMethods['passkeys'] {
  if (!Array.isArray(json['passkeys'])) return undefined;
  return json['passkeys'].filter(isRecord).map((passkey) => ({
    id: String(passkey['id']),
    deviceType: typeof passkey['deviceType'] === 'string' ? passkey['deviceType'] : null,
    backedUp: passkey['backedUp'] === true,
  }));
}

/** The memberships of the organizations' view (`organizations`), or null when the app has none. */
function membershipsOf(json: Record<string, unknown>): UserPage['memberships'] {
  if (!Array.isArray(json['organizations'])) return null;
  return json['organizations'].filter(isRecord).map((membership) => ({ slug: String(membership['slug']), name: String(membership['name']), role: String(membership['role']) }));
}

const flag = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);

/** The user's live sessions, the most recently seen first; never a token (an impersonation is marked). */
async function sessionsOf(adapter: Adapter, userId: string): Promise<ListedSession[]> {
  if (typeof adapter.listSessionsByUserId !== 'function') return [];
  const now = Date.now();
  const seen = (session: ListedSession): number => (session.lastSeenAt ?? session.createdAt ?? new Date(0)).valueOf();
  return (await callAdapter(adapter, 'listSessionsByUserId', userId))
    .filter((row) => row.expires.valueOf() > now)
    .map((row) => ({
      id: sessionIdOf(row.sessionToken),
      createdAt: row.createdAt ?? null,
      lastSeenAt: row.lastSeenAt ?? null,
      expires: row.expires,
      userAgent: row.userAgent ?? null,
      impersonation: isImpersonationToken(row.sessionToken),
    }))
    .sort((a, b) => seen(b) - seen(a));
}

/** Everything the user's page shows (but the refusal and the notice). */
async function userViewOf(context: RequestContext, admin: SignedInAdmin, user: AdapterUser): Promise<Omit<UserPage, 'mountPath' | 'csrfToken' | 'theme' | 'errors' | 'refusedAction' | 'notice'>> {
  const { options } = context;
  const adapter = options.adapter!;
  const settings = adminSettingsOf(options);
  const [state, stored, parts, sessions, events, actions] = await Promise.all([
    callAdapter(adapter, 'getAdminState', user.id),
    typeof adapter.listAccountsByUserId === 'function' ? callAdapter(adapter, 'listAccountsByUserId', user.id) : [],
    partsJsonOf(context, adapter, user),
    sessionsOf(adapter, user.id),
    securityEventsOf(options, user.id, SHOWN_RECORDS),
    callAdapter(adapter, 'listAdminActions', user.id, SHOWN_RECORDS),
  ]);
  const configured = isConfiguredAdmin(options, user);
  const isAnAdmin = configured || state.granted;
  const self = admin.user.id === user.id;
  const disabled = state.disabledAt !== null;
  const methods: SignInMethods = {
    // A passkey's `webauthn` account is listed with the passkeys.
    accounts: stored
      .filter((account) => account.type !== 'webauthn')
      .map((account) => ({ provider: account.provider, providerName: options.providersById.get(account.provider)?.name ?? account.provider, providerAccountId: account.providerAccountId })),
    password: flag(parts['password']),
    twoFactor: flag(parts['twoFactor']),
    passkeys: passkeysOf(parts),
  };
  return {
    user: { id: user.id, email: user.email ?? null, name: user.name ?? null, emailVerified: user.emailVerified ?? null },
    self,
    state: { createdAt: state.createdAt, disabledAt: state.disabledAt, disabledReason: state.disabledReason, granted: state.granted, configured },
    methods,
    sessions,
    memberships: membershipsOf(parts),
    events,
    eventLabels: securityEventLabelsOf(options),
    providerNames: new Map(options.providers.map((provider) => [provider.id, provider.name])),
    actions,
    // Each form only where the action's rules allow it: never on yourself, never impersonate an admin or a disabled user.
    may: {
      disable: !self && !disabled,
      enable: disabled,
      endSessions: sessions.length > 0,
      removeTwoFactor: methods.twoFactor === true,
      removePasskey: (methods.passkeys?.length ?? 0) > 0,
      // The password feature's view says whether the app signs in with a password.
      sendReset: methods.password !== undefined && Boolean(user.email),
      grantAdmin: !isAnAdmin,
      revokeAdmin: state.granted && !configured && !self,
      impersonate: settings.impersonationMaxAge !== null && !isAnAdmin && !self && !disabled,
      delete: !self,
    },
    impersonationMinutes: Math.floor((settings.impersonationMaxAge ?? 0) / 60),
  };
}

/** A security event as the user's JSON lists it, with what the app calls it. */
function eventJson(event: SecurityEvent, labels: ReadonlyMap<string, string>): Record<string, unknown> {
  return { id: event.id, type: event.type, label: labels.get(event.type) ?? null, at: event.at.toISOString(), method: event.method, ip: event.ip, userAgent: event.userAgent, detail: event.detail, actorId: event.actorId ?? null };
}

/**
 * GET `<mount>/admin/users/<id>` (404 `UnknownAction` for an unknown id): the user's state, address, sign-in methods,
 * sessions, organizations, recent events and admin actions, with the forms of the actions; JSON
 * `{ user, state, methods, sessions, memberships, events, actions }`. `refused`: a refused action's errors by field
 * (400; JSON `{ error: 'InvalidRequest', errors }`), `action` naming the refused form. The notice of what an action
 * did (`?notice=disabled` after its redirect) is shown at the top.
 */
export async function showUser(
  context: RequestContext,
  admin: SignedInAdmin,
  userId: string,
  json: boolean,
  refused?: { status: 400; errors: Record<string, string>; action?: string | undefined },
): Promise<void> {
  const { options } = context;
  const user = await callAdapter(options.adapter!, 'getUser', userId);
  if (!user) throw new UnknownAction('There is no such user');
  if (json && refused) return sendJson(context, refused.status, { error: 'InvalidRequest', errors: refused.errors });
  const view = await userViewOf(context, admin, user);
  if (json) {
    const { user: shown, state, methods, sessions, memberships, events, actions, eventLabels } = view;
    return sendJson(context, 200, {
      user: { ...shown, emailVerified: iso(shown.emailVerified) },
      state: {
        state: state.disabledAt ? 'disabled' : 'active',
        disabledAt: iso(state.disabledAt),
        disabledReason: state.disabledReason,
        createdAt: iso(state.createdAt),
        admin: state.granted || state.configured,
        granted: state.granted,
        configured: state.configured,
      },
      methods,
      sessions: sessions.map((session) => ({ ...session, createdAt: iso(session.createdAt), lastSeenAt: iso(session.lastSeenAt), expires: iso(session.expires) })),
      memberships,
      events: events.map((event) => eventJson(event, eventLabels)),
      actions: actions.map((action) => ({ id: action.id, action: action.action, actorId: action.actorId, actorEmail: action.actorEmail, detail: action.detail, at: iso(action.at) })),
    });
  }
  const page = renderUserPage({
    ...view,
    mountPath: context.mountPath,
    csrfToken: csrfTokenOf(context),
    theme: options.theme,
    errors: refused?.errors,
    refusedAction: refused?.action,
    notice: refused ? undefined : noticeOf(context),
  });
  sendHtml(context, refused?.status ?? 200, page);
}
