/**
 * API keys (SPEC §11), the feature `ApiKeys()` brings: keys a signed-in user creates for scripts, mobile apps and CI
 * jobs, sent as `Authorization: Bearer <key>` to the app's own routes, where `getSession` and `requireAuth` read them
 * as they read a session cookie (bearer.ts answers their refusals). `<mount>/api-keys`:
 * - GET (signed in): the user's keys (name, scopes, created, last used, expiry; never the key), a form to create one
 *   and a revoke button each; JSON clients get `{ apiKeys, scopes }`;
 * - POST with the CSRF token: `action=create&name&scopes&expiresInDays` (after a recent authentication) answers the key
 *   this once (`{ id, key, name, scopes, expiresAt }`, or the page showing it); `action=revoke&id` deletes it at once.
 * A key cannot reach this route (nor the account's other management): handler.ts refuses bearer requests below the
 * mount but `GET <mount>/session`.
 */
import type { Request } from 'express';
import type { BearerResult, FrameworkAuthConfig, RequestContext, ResolvedConfig, Route } from '../../contracts.js';
import { resolveConfigOnce } from '../../config.js';
import { actionUrl, sendHtml, sendJson, sendRedirect } from '../../context.js';
import { csrfTokenOf, verifyCsrf } from '../../http/csrf.js';
import { InvalidRequest, isAuthError } from '../../errors.js';
import { recordSecurityEvent } from '../../events.js';
import { bodyField, prefersJson, readBody } from '../../http/request.js';
import { safeEqual } from '../../http/safe-equal.js';
import type { AdapterUser, Awaitable, JWT, Session } from '../../types.js';
import { isoDate } from '../../session/iso-date.js';
import { userClaims } from '../../session/jwt.js';
import { callAdapter, callAdapterAtOnce, isPromiseLike } from '../database/adapter.js';
import { askToReauthenticate } from '../database/ask-to-reauthenticate.js';
import { askToSignIn, currentSignIn, isRecentSignIn, sessionUserOf } from '../database/signed-in.js';
import { RateLimited, consumeClientRateLimit } from '../rate-limit/rate-limit.js';
import { apiKeyDigest, isApiKeyShaped, newApiKey } from './keys.js';
import { type ApiKeysPage, type NewKeyErrors, copyKeyScriptHash, renderApiKeysPage } from './pages.js';
import { type ApiKeyInUse, type ApiKeyRecord, TOUCH_INTERVAL_MS } from './storage.js';

/** The options of `ApiKeys()`. */
export interface ApiKeysOptions {
  /**
   * The scopes a key may hold (`['read', 'write']`): its creator picks among them, and `requireAuth({ scopes })`
   * passes a key only with each scope it names. Each a scope token of RFC 6749 (no spaces or quotes).
   * @default [] (keys hold no scope: they pass `requireAuth()`, never a guard that names scopes)
   */
  scopes?: readonly string[];
  /** Days a new key lasts when its creator does not say. @default 90 */
  expiresInDays?: number;
  /** The most days a key may last. @default 365 */
  maxExpiresInDays?: number;
  /** How many unexpired keys one user may hold. @default 10 */
  maxKeysPerUser?: number;
}

/** The options, checked and defaulted. */
export interface ResolvedApiKeys {
  scopes: readonly string[];
  expiresInDays: number;
  maxExpiresInDays: number;
  maxKeysPerUser: number;
}

/** What a new key's creator asks for (`createApiKey`, the form, JSON clients). */
export interface NewApiKey {
  name: string;
  /** Among the configured scopes. @default none */
  scopes?: readonly string[];
  /** @default the configured `expiresInDays` */
  expiresInDays?: number;
  /**
   * The id of an organization the key acts in alone, with at most its creator's permissions there at each request
   * (features/organizations/). The page offers those where the creator's role grants `api-key:create`.
   * @default none: the key acts as its user
   */
  organizationId?: string;
}

/** A created key: the key itself is in no list and never shown again. */
export interface CreatedApiKey {
  id: string;
  key: string;
  name: string;
  scopes: string[];
  /** The organization it acts in alone, or null. */
  organizationId: string | null;
  /** ISO 8601. */
  expiresAt: string;
}

/** A scope token (RFC 6749 §3.3): printable ASCII without space, `"` and `\`. */
const scopeToken = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const MAX_NAME_LENGTH = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

function wholeNumber(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new TypeError(`ApiKeys({ ${name} }) must be a whole number of at least ${min} (got ${String(value)})`);
  return value;
}

/** Checks `ApiKeys()`'s options when the config is written, not at the first key. */
export function resolveApiKeys(options: ApiKeysOptions): ResolvedApiKeys {
  const scopes = options.scopes ?? [];
  if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string' || !scopeToken.test(scope))) {
    throw new TypeError('ApiKeys({ scopes }) must be a list of scope names without spaces or quotes, like ["read", "write"]');
  }
  const maxExpiresInDays = wholeNumber('maxExpiresInDays', options.maxExpiresInDays ?? 365, 1);
  const expiresInDays = wholeNumber('expiresInDays', options.expiresInDays ?? Math.min(90, maxExpiresInDays), 1);
  if (expiresInDays > maxExpiresInDays) throw new TypeError(`ApiKeys({ expiresInDays }) must be at most maxExpiresInDays (${maxExpiresInDays})`);
  return { scopes: [...new Set(scopes)], expiresInDays, maxExpiresInDays, maxKeysPerUser: wholeNumber('maxKeysPerUser', options.maxKeysPerUser ?? 10, 1) };
}

/** A new key's fields as sent (form or JSON), checked; each refusal names its field. */
function checkNewKey(settings: ResolvedApiKeys, input: { name: unknown; scopes: unknown; expiresInDays: unknown }): { ok: true; value: Required<Omit<NewApiKey, 'organizationId'>> } | { ok: false; errors: NewKeyErrors } {
  const errors: NewKeyErrors = {};
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name === '' || name.length > MAX_NAME_LENGTH) errors.name = `Give the key a name of 1 to ${MAX_NAME_LENGTH} characters, like "CI deploys".`;
  const sent = input.scopes === undefined || input.scopes === '' ? [] : typeof input.scopes === 'string' ? input.scopes.split(/[\s,]+/).filter(Boolean) : input.scopes;
  const scopes = Array.isArray(sent) && sent.every((scope) => typeof scope === 'string') ? [...new Set(sent as string[])] : undefined;
  if (!scopes || scopes.some((scope) => !settings.scopes.includes(scope))) {
    errors.scopes = settings.scopes.length > 0 ? `Choose among these scopes: ${settings.scopes.join(', ')}.` : 'This app gives keys no scopes.';
  }
  const days = input.expiresInDays === undefined || input.expiresInDays === '' ? settings.expiresInDays : Number(input.expiresInDays);
  if (!Number.isInteger(days) || days < 1 || days > settings.maxExpiresInDays) errors.expiresInDays = `Enter a whole number of days from 1 to ${settings.maxExpiresInDays}.`;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: { name, scopes: scopes!, expiresInDays: days } };
}

/**
 * Stores a new key for `userId` and records it (`api-key-created`, with the key's name; on the request that made it,
 * when there is one); null when the user holds `maxKeysPerUser` keys already.
 */
async function issueApiKey(context: { req?: Request; options: ResolvedConfig }, settings: ResolvedApiKeys, userId: string, request: Required<Omit<NewApiKey, 'organizationId'>> & { organizationId: string | null }): Promise<CreatedApiKey | null> {
  const adapter = context.options.adapter!;
  const { key, digest, start } = newApiKey();
  const createdAt = new Date();
  const expiresAt = new Date(createdAt.valueOf() + request.expiresInDays * DAY_MS);
  const id = crypto.randomUUID();
  const scopes = [...request.scopes];
  const { organizationId } = request;
  const stored = await callAdapter(adapter, 'createApiKey', { id, userId, name: request.name, start, digest, scopes, organizationId, createdAt, lastUsedAt: null, expiresAt }, settings.maxKeysPerUser);
  if (!stored) return null;
  // Its organization, when it has one: a field of the security events (record.ts), which an app without them lacks.
  await recordSecurityEvent(context, { type: 'api-key-created', userId, detail: request.name, ...(organizationId === null ? {} : { organizationId }) });
  return { id, key, name: request.name, scopes, organizationId, expiresAt: expiresAt.toISOString() };
}

const settingsByConfig = new WeakMap<ResolvedConfig, ResolvedApiKeys>();

/** The settings of the config's `ApiKeys()`; a TypeError when it has none. */
function settingsOf(options: ResolvedConfig): ResolvedApiKeys {
  const settings = settingsByConfig.get(options);
  if (!settings) throw new TypeError('The config has no ApiKeys() in its `features`.');
  return settings;
}

/** Remembers the settings of `ApiKeys()` for its config (its startup check). */
export function useApiKeys(options: ResolvedConfig, settings: ResolvedApiKeys): void {
  settingsByConfig.set(options, settings);
}

/**
 * Creates a key for a user from the app's own code (an admin script, a test), as the page does for a signed-in user:
 * the key is in the result only. Throws a TypeError naming a wrong field, or when the user holds `maxKeysPerUser`.
 * @example
 * const { key } = await createApiKey(authConfig, { userId: user.id, name: 'CI deploys', scopes: ['read'] })
 */
export async function createApiKey(config: FrameworkAuthConfig, request: NewApiKey & { userId: string }): Promise<CreatedApiKey> {
  const options = resolveConfigOnce(config);
  const settings = settingsOf(options);
  const checked = checkNewKey(settings, { name: request.name, scopes: request.scopes, expiresInDays: request.expiresInDays });
  if (!checked.ok) throw new TypeError(`createApiKey: ${Object.values(checked.errors).join(' ')}`);
  const created = await issueApiKey({ options }, settings, request.userId, { ...checked.value, organizationId: request.organizationId ?? null });
  if (!created) throw new TypeError(`createApiKey: the user holds ${settings.maxKeysPerUser} keys already (maxKeysPerUser).`);
  return created;
}

/**
 * Who `Authorization: Bearer <credential>` is (`Feature.bearer`): the key's user, with `session.apiKey`, when the key
 * exists, is unexpired, its digest matches in constant time and no feature's `beforeSignIn` refuses the user (then
 * `invalid_token`). Otherwise the failure counts against the client (`apiKeyFailuresPerClient`): `invalid_token`, or
 * `too_many_requests` once over the limit. The answer itself, not a promise, when the adapter found the key at once
 * (SQLite) and nothing is left to wait for: no feature's `beforeSignIn`, no use to record, no `session` callback.
 */
export function authenticateApiKey(req: Request, credential: string, options: ResolvedConfig): Awaitable<BearerResult> {
  const now = Date.now();
  const digest = isApiKeyShaped(credential) ? apiKeyDigest(credential) : undefined;
  if (digest === undefined) return refuseKey(req, options);
  const found = callAdapterAtOnce(options.adapter!, 'getApiKeyAndUser', digest);
  return isPromiseLike(found) ? Promise.resolve(found).then((answered) => judgeKey(req, options, digest, now, answered)) : judgeKey(req, options, digest, now, found);
}

/** A key the adapter found, with its user. */
type FoundKey = { apiKey: ApiKeyInUse; user: AdapterUser };

/** The key's session, or its refusal, once the adapter answered. */
function judgeKey(req: Request, options: ResolvedConfig, digest: string, now: number, found: FoundKey | null): Awaitable<BearerResult> {
  if (!found || !safeEqual(found.apiKey.digest, digest) || found.apiKey.expiresAt.valueOf() <= now) return refuseKey(req, options);
  // A key made for an organization acts there alone: without the feature that keeps it there, it acts nowhere.
  if (found.apiKey.organizationId !== null && !options.features.some((feature) => feature.apiKeyOrganizations)) return { session: null, refused: 'invalid_token' };
  const touch = found.apiKey.lastUsedAt === null || found.apiKey.lastUsedAt.valueOf() <= now - TOUCH_INTERVAL_MS;
  if (touch || options.source.callbacks?.session || options.features.some((feature) => feature.beforeSignIn)) return admitKey(req, options, found, now, touch);
  return resultOfKey(found.apiKey, keySession(found));
}

/** A wrong, unknown or expired key: the failure counts against the client. */
async function refuseKey(req: Request, options: ResolvedConfig): Promise<BearerResult> {
  try {
    await consumeClientRateLimit({ req, options }, 'apiKeyFailuresPerClient');
  } catch (error) {
    if (error instanceof RateLimited) return { session: null, refused: 'too_many_requests', retryAfter: error.retryAfter };
    throw error;
  }
  return { session: null, refused: 'invalid_token' };
}

/** A good key's session when something is to be waited for: the features' `beforeSignIn`, the use recorded, the callback. */
async function admitKey(req: Request, options: ResolvedConfig, found: FoundKey, now: number, touch: boolean): Promise<BearerResult> {
  const { apiKey, user } = found;
  // A user a feature refuses (`Feature.beforeSignIn`, asked with `method: 'api-key'` on every request): the key
  // authenticates nothing. A hook that fails otherwise is the database's failure (503), not the key's.
  try {
    for (const feature of options.features) await feature.beforeSignIn?.({ user, method: 'api-key' }, { options, req });
  } catch (error) {
    if (isAuthError(error)) return { session: null, refused: 'invalid_token' };
    throw error;
  }
  if (touch) await callAdapter(options.adapter!, 'touchApiKey', apiKey.id, new Date(now));
  let session = keySession(found);
  // The app's `session` callback shapes a key's session as it shapes a cookie session: with database sessions an
  // empty token, as they have; with JWT sessions the claims a sign-in puts in the token, because their callbacks read
  // the user from it (`session.user.id = token.sub` would otherwise erase the key's user id).
  if (options.source.callbacks?.session) {
    const token: JWT = options.session.strategy === 'jwt' ? userClaims(user) : {};
    session = (await options.callbacks.session({ session, token, user })) as Session;
  }
  return resultOfKey(apiKey, session);
}

/** The session a key's user has, before the app's callback. */
function keySession({ apiKey, user }: FoundKey): Session {
  return { user: sessionUserOf(user), expires: isoDate(apiKey.expiresAt) };
}

/** The key's session with `session.apiKey`, and what the guards check: its scopes and organization. */
function resultOfKey(apiKey: ApiKeyInUse, session: Session): BearerResult {
  session.apiKey = { id: apiKey.id, scopes: [...apiKey.scopes], ...(apiKey.organizationId === null ? {} : { organizationId: apiKey.organizationId }) };
  return { session, scopes: apiKey.scopes, ...(apiKey.organizationId === null ? {} : { organizationId: apiKey.organizationId }) };
}

/** A key as the JSON list gives it: dates in ISO 8601. */
function listedJson(record: ApiKeyRecord): Record<string, unknown> {
  return { ...record, createdAt: record.createdAt.toISOString(), lastUsedAt: record.lastUsedAt?.toISOString() ?? null, expiresAt: record.expiresAt.toISOString() };
}

/** `<mount>/api-keys`. */
export async function apiKeysRoute(context: RequestContext, route: Route): Promise<void> {
  const { options } = context;
  const adapter = options.adapter!;
  const settings = settingsOf(options);
  const json = prefersJson(context.req);
  const body = route.method === 'POST' ? await readBody(context.req) : undefined;
  if (body) verifyCsrf(context, body);
  const signedIn = await currentSignIn(context, adapter);
  if (!signedIn) return askToSignIn(context, json, { action: 'api-keys', message: 'Sign in to manage your API keys.' });
  const userId = signedIn.user.id;
  const offered = async () => (await Promise.all(options.features.map((feature) => feature.apiKeyOrganizations?.(context, userId) ?? []))).flat();
  const page = async (status: number, extra: Partial<ApiKeysPage> = {}): Promise<void> => {
    const keys = await callAdapter(adapter, 'listApiKeys', userId);
    const rendered = renderApiKeysPage({ mountPath: context.mountPath, csrfToken: csrfTokenOf(context), theme: options.theme, settings, keys, organizations: await offered(), now: Date.now(), ...extra });
    sendHtml(context, status, rendered, extra.created ? [copyKeyScriptHash] : []);
  };
  if (!body) {
    if (json) return sendJson(context, 200, { apiKeys: (await callAdapter(adapter, 'listApiKeys', userId)).map(listedJson), scopes: settings.scopes });
    return page(200);
  }
  const action = bodyField(body, 'action');
  if (action === 'revoke') {
    const id = bodyField(body, 'id') ?? '';
    // Its name, for the security event (when the app records them): once deleted, the key is nowhere to read it from.
    const name = context.options.securityEvents.length > 0 ? (await callAdapter(adapter, 'listApiKeys', userId)).find((key) => key.id === id)?.name : undefined;
    const revoked = await callAdapter(adapter, 'deleteApiKey', userId, id);
    if (revoked) await recordSecurityEvent(context, { type: 'api-key-revoked', userId, detail: name });
    if (json) return sendJson(context, revoked ? 200 : 404, { revoked });
    return sendRedirect(context, actionUrl(context, 'api-keys'));
  }
  if (action !== 'create') throw new InvalidRequest('Unknown action: send action=create with a name, or action=revoke with the id of a key.');
  // A key is a lasting credential: making one asks who is there (a copied session cookie alone cannot).
  if (!isRecentSignIn(context, signedIn)) return askToReauthenticate(context, actionUrl(context, 'api-keys'));
  const checked = checkNewKey(settings, { name: body['name'], scopes: body['scopes'], expiresInDays: body['expiresInDays'] });
  const refuse = async (errors: NewKeyErrors): Promise<void> => (json ? sendJson(context, 400, { error: 'InvalidRequest', errors }) : page(400, { errors, sent: body }));
  if (!checked.ok) return refuse(checked.errors);
  // An organization (its id or slug) among those where the user's role grants `api-key:create`, read now.
  const organization = bodyField(body, 'organization') ?? '';
  const chosen = organization === '' ? undefined : (await offered()).find((offer) => offer.id === organization || offer.slug === organization);
  if (organization !== '' && !chosen) return refuse({ organization: 'Choose an organization in which your role lets you create API keys.' });
  const created = await issueApiKey(context, settings, userId, { ...checked.value, organizationId: chosen?.id ?? null });
  if (!created) return refuse({ form: `You have ${settings.maxKeysPerUser} keys, the most one account may hold: revoke one first.` });
  if (json) return sendJson(context, 201, created);
  return page(200, { created });
}
