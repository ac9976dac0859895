/**
 * Credentials sign-in, the flow `Credentials()` brings: POST `<mount>/callback/<id>` (or `<mount>/signin/<id>`) with
 * the CSRF token and the form's fields calls the provider's `authorize`. Rate-limited per user name and per client.
 * With JWT sessions the user is whoever `authorize` returned; with database sessions the database feature keeps that
 * user by the account (`credentials`, the returned id) and opens a session row.
 */
import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import { completeSignIn } from '../../complete-sign-in.js';
import type { Feature, RequestContext, FlowProviderConfig, ResolvedFlowProvider } from '../../contracts.js';
import { verifyCsrf } from '../../http/csrf.js';
import {
  type ErrorResponse,
  type ErrorType,
  AuthError,
  CallbackRouteError,
  CredentialsSignin,
  InvalidRequest,
  MethodNotAllowed,
  configuration,
  isAuthError,
} from '../../errors.js';
import type { ProviderFlow, SignInFormContext } from '../../flow.js';
import { formStyles } from '../../pages/form-styles.js';
import { type SafeHtml, html } from '../../pages/html.js';
import { clearRateLimit, consumeClientRateLimit, consumeRateLimit } from '../rate-limit/rate-limit.js';
import { rateLimits } from '../rate-limit/index.js';
import { readBody } from '../../http/request.js';
import type { Account, Awaitable, User } from '../../types.js';

/** One input of the credentials form. */
export interface CredentialInput {
  label?: string;
  type?: string;
  placeholder?: string;
  required?: boolean;
  autocomplete?: string;
  value?: string;
}

/** The configuration of a credentials provider. Credentials sign-in uses JWT sessions. */
export interface CredentialsConfig<Fields extends string = string> extends FlowProviderConfig {
  type: 'credentials';
  /** The form fields; their names are the keys of `credentials` in `authorize`. */
  credentials: Record<Fields, CredentialInput>;
  /**
   * Checks the submitted credentials. Return the user (its `id` becomes `providerAccountId`), or null / throw
   * `CredentialsSignin` for wrong credentials. The second argument is the Express request.
   */
  authorize: (credentials: Partial<Record<Fields, unknown>>, request: Request) => Awaitable<User | null>;
  /**
   * Asks users who turned two-factor on for a code after `authorize()` (the `TwoFactor()` feature). Needs database
   * sessions: the database feature keeps the user of each credentials account, whose two-factor settings are looked up.
   * @default false
   */
  twoFactor?: boolean;
}


/** A credentials provider, ready for the routes. */
export interface ResolvedCredentialsProvider extends ResolvedFlowProvider {
  type: 'credentials';
  credentials: Record<string, CredentialInput>;
  authorize: CredentialsConfig['authorize'];
  twoFactor: boolean;
}

/**
 * The user-name field of a credentials form: the provider's first credential field that is not a password, else
 * `username` or `email`, whichever was submitted. Undefined when there is none (only the per-client rule applies).
 */
function credentialsUserField(fields: Record<string, CredentialInput>, submitted: Record<string, unknown>): string | undefined {
  const named = Object.entries(fields).find(([, input]) => input.type !== 'password')?.[0];
  return named ?? ['username', 'email'].find((name) => submitted[name] !== undefined);
}

/**
 * The user name a credentials sign-in is counted under: the very value `authorize()` receives in the user-name
 * field, never another field's. A value that is not one string (a number or an object from JSON, an array from a
 * repeated form field) is refused with 400 before `authorize()` runs, so that no attempt is checked under one name
 * and counted under another. Undefined when the field is absent or blank.
 */
export function credentialsUserName(fields: Record<string, CredentialInput>, submitted: Record<string, unknown>): string | undefined {
  const field = credentialsUserField(fields, submitted);
  const value = field === undefined ? undefined : submitted[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidRequest(`The "${field}" field must be one text value.`);
  return value.trim() === '' ? undefined : value;
}

async function signInWithCredentials(context: RequestContext, provider: ResolvedCredentialsProvider, body: Record<string, unknown>): Promise<void> {
  const { csrfToken: _csrf, callbackUrl, ...credentials } = body;
  // Counted before authorize() for every user name alike, so a refusal says nothing about whether the user exists.
  const userName = credentialsUserName(provider.credentials, credentials);
  await consumeClientRateLimit(context, 'credentialsPerClient');
  if (userName !== undefined) await consumeRateLimit(context.options, 'credentialsPerUser', userName);
  let user: User | null;
  try {
    user = await provider.authorize(credentials, context.req);
  } catch (error) {
    if (isAuthError(error)) throw error;
    throw new CallbackRouteError(`authorize() of provider "${provider.id}" threw`, { cause: error instanceof Error ? error : undefined });
  }
  if (!user) throw new CredentialsSignin(`authorize() of provider "${provider.id}" returned no user`);
  if (userName !== undefined) await clearRateLimit(context.options, 'credentialsPerUser', userName);
  const hasId = user.id !== undefined && user.id !== null && String(user.id) !== '';
  const database = context.options.session.strategy === 'database';
  if (database && !hasId) {
    throw new CallbackRouteError(`authorize() of provider "${provider.id}" returned a user without an id: database sessions keep the user by it`);
  }
  const id = hasId ? String(user.id) : randomUUID();
  const signedIn: User = { ...user, id };
  const account: Account = { providerAccountId: id, type: 'credentials', provider: provider.id };
  const returnTo = typeof callbackUrl === 'string' ? callbackUrl : context.cookies.get(context.cookieOptions.callbackUrl.name);
  await completeSignIn(context, {
    user: signedIn,
    account,
    credentials,
    callbackUrl: returnTo,
    // JWT sessions: the user is whoever authorize() returned. Database sessions: the database feature finds the
    // user of this account (or creates one, its address unproven) and opens a session row.
    ...(database ? {} : { storedUser: null, resolve: async () => ({ user: signedIn, isNewUser: false }) }),
  });
}

/** The `autocomplete` of a credentials field the configuration left without one, so password managers can help. */
function defaultAutocomplete(name: string, type: string): string | undefined {
  if (type === 'password') return 'current-password';
  if (type === 'email' || /^(username|user|login|email)$/i.test(name)) return 'username';
  return undefined;
}

/** A form built from the provider's `credentials` fields, each with its label. */
function credentialsForm(provider: ResolvedCredentialsProvider, { mountPath, hidden }: SignInFormContext): SafeHtml {
  const fields = Object.entries(provider.credentials).map(([name, input]) => {
    const id = `input-${provider.id}-${name}`;
    const type = input.type ?? 'text';
    const autocomplete = input.autocomplete ?? defaultAutocomplete(name, type);
    return html`<label for="${id}">${input.label ?? name}</label><input id="${id}" name="${name}" type="${type}"${input.placeholder ? html` placeholder="${input.placeholder}"` : ''}${autocomplete ? html` autocomplete="${autocomplete}"` : ''}${input.required === false ? '' : html` required`}>`;
  });
  return html`<form action="${mountPath}/callback/${encodeURIComponent(provider.id)}" method="POST">${hidden}${fields}<button type="submit">Sign in with ${provider.name}</button></form>`;
}

declare module '../../errors.js' {
  interface FeatureErrorTypes {
    MissingAuthorize: true;
  }
}

/** A `credentials` provider has no `authorize` function (thrown at startup). */
export class MissingAuthorize extends AuthError {
  static type: ErrorType = 'MissingAuthorize';
  static override response: ErrorResponse = configuration;
}

/**
 * The credentials feature: a startup check. Its limits are the rate-limit feature's own (`credentialsPerUser`,
 * `credentialsPerClient`), which the password provider counts under too.
 */
const credentials: Feature = {
  id: 'credentials',
  check(options) {
    const asking = options.providers.filter((provider) => 'flow' in provider && provider.flow === credentialsFlow && (provider as ResolvedCredentialsProvider).twoFactor);
    if (asking.length > 0 && !options.features.some((feature) => 'secondFactor' in feature)) {
      throw new TypeError(`Credentials provider "${asking[0]!.id}" has twoFactor: true: add TwoFactor() (core/features/two-factor/index.ts) to the config's features.`);
    }
  },
};

/** The flow of a credentials provider. */
export const credentialsFlow: ProviderFlow<ResolvedCredentialsProvider> = {
  resolve(provider) {
    const { id, name, credentials, authorize, twoFactor } = provider as CredentialsConfig;
    if (typeof authorize !== 'function') throw new MissingAuthorize(`Credentials provider "${id}" needs an authorize(credentials, request) function`);
    return { id, name, type: 'credentials', credentials: { ...credentials }, authorize, twoFactor: twoFactor === true, flow: credentialsFlow };
  },
  check(provider, config) {
    if (provider.twoFactor && config.strategy !== 'database') {
      throw new TypeError(`Credentials provider "${provider.id}" has twoFactor: true, which needs database sessions (an adapter, and session.strategy "database").`);
    }
  },
  signIn: signInWithCredentials,
  async callback(context, provider, method) {
    if (method !== 'POST') throw new MethodNotAllowed('Credentials are submitted with POST', { allow: ['POST'] });
    const body = await readBody(context.req);
    verifyCsrf(context, body);
    await signInWithCredentials(context, provider, body);
  },
  signInForm: credentialsForm,
  pageStyles: formStyles,
  features: [rateLimits, credentials],
};

