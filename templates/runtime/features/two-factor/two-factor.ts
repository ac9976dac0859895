/**
 * Two-factor sign-in with TOTP (SPEC §10), the feature `TwoFactor()` brings. `<mount>/two-factor`:
 * - during a pending sign-in (a password was right, the user has two-factor on): GET shows the code form; POST with
 *   `code` or `recoveryCode` finishes the sign-in;
 * - signed in: GET shows setting up (off) or managing (on); POST `action=enroll` → `{ secret, uri }` (or the page with
 *   the QR code), `action=enable&code` → `{ recoveryCodes }` (shown once), `action=regenerate&code` → new recovery
 *   codes, `action=disable` with `code` or `recoveryCode`.
 *
 * A pending sign-in is an encrypted cookie (5 minutes) naming the user and the provider, and a single-use row (a
 * verification token under `two-factor:<user id>`, only the newest counts): it is spent by the sign-in it finishes,
 * and ended by the fifth wrong code. A code is accepted once: the adapter keeps the last accepted time step.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Adapter } from '../database/adapter.js';
import type { TwoFactorRecord } from './storage.js';
import { callAdapter } from '../database/adapter.js';
import { type SignedIn, askToSignIn, currentSignIn, isRecentSignIn } from '../database/signed-in.js';
import { startSession } from '../../session/session.js';
import { askToReauthenticate } from '../database/ask-to-reauthenticate.js';
import type { RequestContext, CookieOption, PendingSignIn, Route } from '../../contracts.js';
import { actionUrl, sendHtml, sendJson, sendRedirect, setCookie } from '../../context.js';
import { csrfTokenOf, verifyCsrf } from '../../http/csrf.js';
import { type ErrorResponse, type ErrorType, AuthError, InvalidRequest, clientSafe } from '../../errors.js';
import { recordSecurityEvent } from '../../events.js';
import { customPageUrl } from '../../http/redirect.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import { bodyField, prefersJson, readBody } from '../../http/request.js';
import { decode, encode } from '../../session/jwt.js';
import type { Account, AdapterUser } from '../../types.js';
import { RateLimited, clearRateLimit, consumeRateLimit } from '../rate-limit/rate-limit.js';
import { type TwoFactorPageBase, renderCodePage, renderEnrollPage, renderManagePage, renderOffPage, renderRecoveryCodesPage } from './pages.js';
import { hmacRecoveryCode, newRecoveryCodes, normalizeRecoveryCode, openTotpSecret, recoveryCodeHashes, sealTotpSecret } from './secrets.js';
import { base32Decode, base32Encode, matchingTotpStep, newTotpSecret, otpauthUri } from './totp.js';

declare module '../../errors.js' {
  interface FeatureErrorTypes {
    TwoFactorSignIn: true;
  }
}

/**
 * A pending sign-in that cannot finish: its cookie is missing, expired, foreign or spent, or five wrong codes ended
 * it. The user signs in again.
 */
export class TwoFactorSignIn extends AuthError {
  static type: ErrorType = 'TwoFactorSignIn';
  static override response: ErrorResponse = clientSafe(
    'TwoFactorSignIn',
    400,
    'signIn',
    'Your sign-in expired or was ended. Sign in again.',
    'Sign in again',
  );
}

/** The options of `TwoFactor()`. */
export interface TwoFactorOptions {
  /** The name authenticator apps show beside the account. @default the host of AUTH_URL (or of the request) */
  issuer?: string;
  /** The clock codes are checked against (tests). @default Date.now */
  now?: () => number;
}

/** Seconds a pending sign-in lives. */
export const PENDING_MAX_AGE = 5 * 60;

/** The first factors a pending sign-in may follow (a passkey asks no code). */
const pendingAccountTypes: readonly unknown[] = ['credentials', 'email', 'oauth', 'oidc'];

/** The claims of a pending sign-in's cookie. */
interface PendingClaims {
  sub: string;
  provider: string;
  pid: string;
  /** The first factor's account type (`credentials`, `email`, `oauth`, `oidc`); absent in cookies of older versions. */
  type?: Account['type'];
  callbackUrl?: string;
  /** Names the pending sign-in's single-use row. */
  nonce: string;
}

const pendingIdentifier = (userId: string): string => `two-factor:${userId}`;
const nonceHash = (nonce: string): string => createHash('sha256').update(nonce).digest('hex');

/** The pending sign-in's cookie: beside the session cookie, with its security and a 5-minute life. */
function pendingCookie(context: RequestContext): CookieOption {
  const session = context.cookieOptions.sessionToken;
  return { name: `${session.options.secure ? '__Secure-' : ''}authjs.two-factor`, options: { ...session.options, maxAge: PENDING_MAX_AGE } };
}

/** The request's pending sign-in, when its cookie opens and has not expired; the row is checked when it is spent. */
async function pendingOf(context: RequestContext): Promise<PendingClaims | null> {
  const cookie = pendingCookie(context);
  const raw = context.cookies.get(cookie.name);
  if (!raw) return null;
  const claims = (await decode<Partial<PendingClaims>>({ token: raw, secret: context.options.secrets, salt: cookie.name }).catch(() => null)) ?? null;
  if (!claims || typeof claims.sub !== 'string' || typeof claims.provider !== 'string' || typeof claims.pid !== 'string' || typeof claims.nonce !== 'string') return null;
  if (!context.options.providersById.has(claims.provider)) return null;
  if (claims.type !== undefined && !pendingAccountTypes.includes(claims.type)) return null;
  return claims as PendingClaims;
}

/** The adapter: the feature's startup check makes it present with its methods. */
function adapterOf(context: RequestContext): Adapter {
  return context.options.adapter!;
}

/**
 * Whether a sign-in through `account` asks a user who turned two-factor on for their code (SPEC §10): after every
 * first factor (a password, an email or confirmation link, OAuth) except a passkey, which verifies the user itself.
 * An OAuth provider that does its own MFA may opt out (`twoFactor: false`); a credentials provider opts in
 * (`twoFactor: true`), as its `authorize()` may check a second factor of its own.
 */
function asksSecondFactor(context: RequestContext, account: PendingSignIn['account']): boolean {
  if (account.type === 'webauthn') return false;
  const provider = context.options.providersById.get(account.provider);
  if (provider && isOAuthProvider(provider)) return provider.config.twoFactor !== false;
  return (provider as { twoFactor?: boolean } | undefined)?.twoFactor !== false;
}

/** The hook the core calls once a first factor is proven (complete-sign-in.ts). */
export async function challenge(context: RequestContext, signIn: PendingSignIn): Promise<boolean> {
  if (!asksSecondFactor(context, signIn.account)) return false;
  const adapter = adapterOf(context);
  const record = await callAdapter(adapter, 'getTwoFactor', signIn.user.id);
  if (!record?.enabledAt) return false;
  const nonce = randomBytes(32).toString('base64url');
  // One pending sign-in per user: a newer one voids the older.
  if (typeof adapter.deleteVerificationTokens === 'function') await callAdapter(adapter, 'deleteVerificationTokens', pendingIdentifier(signIn.user.id));
  await callAdapter(adapter, 'createVerificationToken', { identifier: pendingIdentifier(signIn.user.id), token: nonceHash(nonce), expires: new Date(Date.now() + PENDING_MAX_AGE * 1000) });
  const cookie = pendingCookie(context);
  const { account } = signIn;
  const claims: PendingClaims = { sub: signIn.user.id, provider: account.provider, pid: account.providerAccountId, type: account.type, nonce, ...(signIn.callbackUrl && { callbackUrl: signIn.callbackUrl }) };
  setCookie(context, cookie, await encode({ token: claims as unknown as Record<string, unknown>, secret: context.options.secrets, salt: cookie.name, maxAge: PENDING_MAX_AGE }));
  const url = actionUrl(context, 'two-factor');
  if (prefersJson(context.req)) sendJson(context, 200, { twoFactorRequired: true, url });
  else sendRedirect(context, url);
  return true;
}

/** A code field of the body: absent, or one string of digits and spaces (at most 16 characters); 400 otherwise. */
function codeOf(body: Record<string, unknown>, name: 'code' | 'recoveryCode'): string | undefined {
  const value = body[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 32) throw new InvalidRequest(`The "${name}" field must be one short text value.`);
  return value;
}

/** What a submitted code proved (for a TOTP code, the time step it was accepted for), or why it did not. */
type CodeCheck = { ok: true; step?: number } | { ok: false; field: 'code' | 'recoveryCode'; message: string };

/**
 * Checks a TOTP code (accepted once: its step must be later than the last accepted one) or a recovery code (spent)
 * against the user's stored secret (`stored`, when the caller read it already). Malformed codes are refused before
 * anything is counted or spent.
 */
async function checkCode(
  context: RequestContext,
  settings: ResolvedTwoFactor,
  user: AdapterUser,
  submitted: { code?: string | undefined; recoveryCode?: string | undefined },
  allowRecovery: boolean,
  stored?: TwoFactorRecord | null,
): Promise<CodeCheck> {
  const adapter = adapterOf(context);
  if (submitted.code !== undefined) {
    const code = submitted.code.replace(/\s/g, '');
    if (!/^\d{6}$/.test(code)) return { ok: false, field: 'code', message: 'Enter the 6 digits your authenticator app shows.' };
    await consumeRateLimit(context.options, 'twoFactorPerUser', user.id);
    const record = stored === undefined ? await callAdapter(adapter, 'getTwoFactor', user.id) : stored;
    const secret = record && (await openTotpSecret(record.secret, context.options.secrets));
    const step = secret === undefined || secret === null ? undefined : matchingTotpStep(base32Decode(secret), code, settings.now());
    if (step === undefined || !(await callAdapter(adapter, 'acceptTwoFactorStep', user.id, step))) {
      return { ok: false, field: 'code', message: 'That code is not right, or was used already. Wait for the next one and try again.' };
    }
    return { ok: true, step };
  }
  if (submitted.recoveryCode !== undefined && allowRecovery) {
    const normalized = normalizeRecoveryCode(submitted.recoveryCode);
    if (!normalized) return { ok: false, field: 'recoveryCode', message: 'A recovery code has 10 letters and digits, like abcde-23456.' };
    await consumeRateLimit(context.options, 'twoFactorPerUser', user.id);
    // Stored under the newest secret; codes stored under an older secret, or before they were keyed, still work.
    let used = false;
    for (const codeHash of recoveryCodeHashes(normalized, context.options.secrets)) {
      if (await callAdapter(adapter, 'useRecoveryCode', user.id, codeHash)) {
        used = true;
        break;
      }
    }
    if (!used) return { ok: false, field: 'recoveryCode', message: 'That recovery code is not right, or was used already.' };
    return { ok: true };
  }
  return { ok: false, field: 'code', message: allowRecovery ? 'Enter a code or a recovery code.' : 'Enter the code your authenticator app shows.' };
}

/** The `method` of a `sign-in-failed` security event, by the field of the refused code. */
const failedFactor = { code: 'code', recoveryCode: 'recovery-code' } as const;

/** Answers a refused code: 400, the page again with the reason by its field, or JSON. */
function refuseCode(context: RequestContext, failed: Extract<CodeCheck, { ok: false }>, page: (errors: TwoFactorPageBase['errors']) => string): void {
  const errors = { [failed.field]: failed.message };
  if (prefersJson(context.req) || context.req.headers['x-auth-return-redirect']) return sendJson(context, 400, { error: 'InvalidCode', errors });
  sendHtml(context, 400, page(errors));
}

function pageBase(context: RequestContext): TwoFactorPageBase {
  return { mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: context.options.theme };
}

/** Ends a pending sign-in: its row and its cookie. */
async function endPending(context: RequestContext, pending: PendingClaims): Promise<void> {
  const adapter = adapterOf(context);
  if (typeof adapter.deleteVerificationTokens === 'function') await callAdapter(adapter, 'deleteVerificationTokens', pendingIdentifier(pending.sub));
  else await callAdapter(adapter, 'useVerificationToken', { identifier: pendingIdentifier(pending.sub), token: nonceHash(pending.nonce) });
  setCookie(context, pendingCookie(context), null);
}

/** POST `<mount>/two-factor` during a pending sign-in: the second factor, then the session. */
async function finishPending(context: RequestContext, settings: ResolvedTwoFactor, pending: PendingClaims, body: Record<string, unknown>): Promise<void> {
  const adapter = adapterOf(context);
  const submitted = { code: codeOf(body, 'code'), recoveryCode: codeOf(body, 'recoveryCode') };
  const user = await callAdapter(adapter, 'getUser', pending.sub);
  if (!user) throw new TwoFactorSignIn('The user of the pending sign-in no longer exists');
  if (submitted.code !== undefined || submitted.recoveryCode !== undefined) {
    try {
      // Five wrong codes end the pending sign-in: the sixth attempt is refused and the row deleted.
      await consumeRateLimit(context.options, 'twoFactorPerSignIn', pending.nonce);
    } catch (error) {
      if (error instanceof RateLimited) await endPending(context, pending);
      throw error;
    }
  }
  const check = await checkCode(context, settings, user, submitted, true);
  if (!check.ok) {
    if (submitted.code !== undefined || submitted.recoveryCode !== undefined) {
      await recordSecurityEvent(context, { type: 'sign-in-failed', userId: user.id, method: failedFactor[check.field] });
    }
    return refuseCode(context, check, (errors) => renderCodePage({ ...pageBase(context), errors }));
  }
  // A code is checked before a recovery code: without one, the recovery code was used (and is spent now).
  if (submitted.code === undefined) await recordSecurityEvent(context, { type: 'recovery-code-used', userId: user.id });
  const row = await callAdapter(adapter, 'useVerificationToken', { identifier: pendingIdentifier(pending.sub), token: nonceHash(pending.nonce) });
  if (!row || new Date(row.expires).valueOf() < Date.now()) throw new TwoFactorSignIn('The pending sign-in was already finished, replaced or has expired');
  setCookie(context, pendingCookie(context), null);
  await clearRateLimit(context.options, 'twoFactorPerUser', user.id);
  // The `signIn` callback ran before the code was asked; now the session, as after any sign-in. An OAuth account's
  // tokens were stored at its sign-in: read back, a JWT session carries them as a sign-in without two-factor would.
  const oauth = pending.type === 'oauth' || pending.type === 'oidc';
  const stored = oauth && typeof adapter.getAccount === 'function' ? await callAdapter(adapter, 'getAccount', pending.pid, pending.provider) : null;
  await startSession(context, {
    user,
    account: stored ?? { provider: pending.provider, type: pending.type ?? 'credentials', providerAccountId: pending.pid, userId: user.id },
    isNewUser: false,
    callbackUrl: pending.callbackUrl,
  });
}

/** The issuer authenticator apps show: configured, or the host the app is reached at. */
function issuerOf(context: RequestContext, settings: ResolvedTwoFactor): string {
  return settings.issuer ?? new URL(context.origin).host;
}

/**
 * POST `<mount>/two-factor` signed in: enroll, enable, regenerate or disable. Each changes how the account signs in,
 * so each needs a recent authentication (a copied session cookie alone could otherwise lock the owner out with the
 * thief's authenticator).
 */
async function manage(context: RequestContext, settings: ResolvedTwoFactor, signedIn: SignedIn, body: Record<string, unknown>): Promise<void> {
  if (!isRecentSignIn(context, signedIn)) return askToReauthenticate(context, actionUrl(context, 'two-factor'));
  const { user } = signedIn;
  const adapter = adapterOf(context);
  const json = prefersJson(context.req);
  const action = bodyField(body, 'action');
  const record = await callAdapter(adapter, 'getTwoFactor', user.id);
  const enabled = Boolean(record?.enabledAt);
  const submitted = { code: codeOf(body, 'code'), recoveryCode: codeOf(body, 'recoveryCode') };
  const showCodes = (codes: string[]): void =>
    json ? sendJson(context, 200, { recoveryCodes: codes }) : sendHtml(context, 200, renderRecoveryCodesPage({ mountPath: context.mountPath, theme: context.options.theme, codes }));
  const manageAgain = (refused: string) => (errors: TwoFactorPageBase['errors']) => renderManagePage({ ...pageBase(context), errors, refused, recoveryCodesLeft: record?.recoveryCodes ?? 0 });

  if (action === 'enroll') {
    if (enabled) throw new InvalidRequest('Two-factor authentication is on already: turn it off first to set up another app.');
    const secret = base32Encode(newTotpSecret());
    await callAdapter(adapter, 'setTwoFactor', user.id, { secret: await sealTotpSecret(secret, context.options.secrets), enabledAt: null });
    const uri = otpauthUri({ secret, issuer: issuerOf(context, settings), account: user.email ?? user.name ?? user.id });
    if (json) return sendJson(context, 200, { secret, uri });
    return sendHtml(context, 200, renderEnrollPage({ ...pageBase(context), secret, uri }));
  }
  if (action === 'enable') {
    if (enabled) throw new InvalidRequest('Two-factor authentication is on already.');
    if (!record) throw new InvalidRequest('Set up two-factor authentication first (action=enroll).');
    const check = await checkCode(context, settings, user, { code: submitted.code }, false, record);
    if (!check.ok) {
      const secret = await openTotpSecret(record.secret, context.options.secrets);
      return refuseCode(context, check, (errors) =>
        secret ? renderEnrollPage({ ...pageBase(context), errors, secret, uri: otpauthUri({ secret, issuer: issuerOf(context, settings), account: user.email ?? user.name ?? user.id }) }) : renderOffPage(pageBase(context)),
      );
    }
    await callAdapter(adapter, 'setTwoFactor', user.id, { secret: record.secret, enabledAt: new Date() });
    // Storing the settings forgot the accepted step: remember it again, so that this code cannot sign in.
    if (check.step !== undefined) await callAdapter(adapter, 'acceptTwoFactorStep', user.id, check.step);
    const codes = newRecoveryCodes();
    await callAdapter(adapter, 'setRecoveryCodes', user.id, codes.map((code) => hmacRecoveryCode(code, context.options.secrets)));
    await clearRateLimit(context.options, 'twoFactorPerUser', user.id);
    await recordSecurityEvent(context, { type: 'two-factor-on', userId: user.id });
    return showCodes(codes);
  }
  if (action === 'regenerate' || action === 'disable') {
    if (!enabled) throw new InvalidRequest('Two-factor authentication is off.');
    const check = await checkCode(context, settings, user, submitted, action === 'disable', record);
    if (!check.ok) return refuseCode(context, check, manageAgain(action));
    await clearRateLimit(context.options, 'twoFactorPerUser', user.id);
    if (action === 'regenerate') {
      const codes = newRecoveryCodes();
      await callAdapter(adapter, 'setRecoveryCodes', user.id, codes.map((code) => hmacRecoveryCode(code, context.options.secrets)));
      return showCodes(codes);
    }
    await callAdapter(adapter, 'deleteTwoFactor', user.id);
    if (submitted.code === undefined) await recordSecurityEvent(context, { type: 'recovery-code-used', userId: user.id });
    await recordSecurityEvent(context, { type: 'two-factor-off', userId: user.id });
    if (json) return sendJson(context, 200, { enabled: false });
    return sendRedirect(context, actionUrl(context, 'two-factor'));
  }
  throw new InvalidRequest('Unknown action: send action=enroll, enable, regenerate or disable.');
}

/**
 * `<mount>/two-factor`. A pending sign-in that cannot finish sends the browser back to the sign-in page with
 * `error=TwoFactorSignIn` (JSON clients get 400), its cookie deleted.
 */
export async function twoFactorRoute(context: RequestContext, route: Route, settings: ResolvedTwoFactor): Promise<void> {
  try {
    await serveTwoFactor(context, route, settings);
  } catch (error) {
    if (!(error instanceof TwoFactorSignIn)) throw error;
    context.options.logger.debug(error.message);
    setCookie(context, pendingCookie(context), null);
    if (prefersJson(context.req)) return sendJson(context, 400, { error: 'TwoFactorSignIn' });
    const signIn = context.options.pages.signIn ?? `${context.mountPath}/signin`;
    sendRedirect(context, customPageUrl(context, signIn, { error: 'TwoFactorSignIn' }));
  }
}

async function serveTwoFactor(context: RequestContext, route: Route, settings: ResolvedTwoFactor): Promise<void> {
  const pending = await pendingOf(context);
  if (route.method === 'GET') {
    if (pending) return sendHtml(context, 200, renderCodePage(pageBase(context)));
    const signedIn = await currentSignIn(context, adapterOf(context));
    if (!signedIn) return notSignedIn(context);
    const { user } = signedIn;
    const record = await callAdapter(adapterOf(context), 'getTwoFactor', user.id);
    if (prefersJson(context.req)) return sendJson(context, 200, { enabled: Boolean(record?.enabledAt), recoveryCodes: record?.enabledAt ? record.recoveryCodes : 0 });
    return sendHtml(context, 200, record?.enabledAt ? renderManagePage({ ...pageBase(context), recoveryCodesLeft: record.recoveryCodes }) : renderOffPage(pageBase(context)));
  }
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  if (pending && bodyField(body, 'action') === undefined) return finishPending(context, settings, pending, body);
  const signedIn = await currentSignIn(context, adapterOf(context));
  if (!signedIn) {
    if (pending) return finishPending(context, settings, pending, body);
    if (context.cookies.has(pendingCookie(context).name)) throw new TwoFactorSignIn('The pending sign-in cookie is expired or not ours');
    return notSignedIn(context);
  }
  await manage(context, settings, signedIn, body);
}

/** Without a session or a pending sign-in: 401 JSON, or the sign-in page with a way back here. */
function notSignedIn(context: RequestContext): void {
  askToSignIn(context, prefersJson(context.req), { action: 'two-factor', message: 'Sign in to manage two-factor authentication.' });
}

/** The settings of the feature, resolved. */
export interface ResolvedTwoFactor {
  issuer: string | undefined;
  now: () => number;
}

