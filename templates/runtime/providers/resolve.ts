/**
 * Turns the `providers` list into checked, normalised providers once, at startup. The user's objects are copied,
 * never changed. Env defaults follow Auth.js: `AUTH_<ID>_ID`, `AUTH_<ID>_SECRET`, `AUTH_<ID>_ISSUER`.
 */
import type { AuthEnv, Awaitable, Profile, TokenSet, User } from '../types.js';
import {
  customFetch,
  providerFlow,
  type AnyProvider,
  type CarriedFlow,
  type FlowProviderConfig,
  type OAuthConfig,
  type OIDCConfig,
  type ProviderInput,
  type ResolvedOAuthProvider,
  type ResolvedProvider,
} from '../contracts.js';

/** True for an OAuth 2 / OpenID Connect provider; false for one that brings its own flow. */
export function isOAuthProvider(provider: ResolvedProvider): provider is ResolvedOAuthProvider {
  return provider.type === 'oauth' || provider.type === 'oidc';
}

/** `AUTH_<ID>_…`: the id upper-cased, `-` turned into `_` (`microsoft-entra-id` → `AUTH_MICROSOFT_ENTRA_ID_ID`). */
function envPrefix(providerId: string): string {
  return `AUTH_${providerId.toUpperCase().replace(/-/g, '_')}`;
}

const providerIdPattern = /^[A-Za-z0-9_-]+$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** Merges `options` over `defaults`: plain objects merge key by key, everything else is replaced. */
function mergeDeep<T extends object>(defaults: T, overrides: object | undefined): T {
  if (!overrides) return { ...defaults };
  const merged: Record<string | symbol, unknown> = { ...(defaults as Record<string | symbol, unknown>) };
  for (const key of Reflect.ownKeys(overrides)) {
    const value = (overrides as Record<string | symbol, unknown>)[key];
    if (value === undefined) continue;
    const current = merged[key];
    merged[key] = isPlainObject(current) && isPlainObject(value) ? mergeDeep(current, value) : value;
  }
  return merged as T;
}

function defaultProfile(profile: Profile): User {
  const id = profile.sub ?? profile.id;
  const user: User = {};
  if (id !== undefined && id !== null) user.id = String(id);
  const name = profile.name ?? profile.nickname ?? profile.preferred_username;
  if (name !== undefined) user.name = name;
  if (profile.email !== undefined) user.email = profile.email;
  if (typeof profile.picture === 'string' || profile.picture === null) user.image = profile.picture;
  return user;
}

const defaultAccountFields = ['access_token', 'id_token', 'refresh_token', 'expires_at', 'scope', 'token_type', 'session_state'] as const;

function defaultAccount(tokens: TokenSet): TokenSet {
  const account: Record<string, unknown> = {};
  for (const field of defaultAccountFields) {
    if (tokens[field] !== undefined) account[field] = tokens[field];
  }
  return account as TokenSet;
}

/** An endpoint option's URL and custom request: a string is the URL, a function the request, an object either. */
function endpointOf<Context, Result>(
  endpoint: string | { url?: string; request?: (context: Context) => Awaitable<Result> } | ((context: Context) => Awaitable<Result>) | undefined,
): { url: string | undefined; request: ((context: Context) => Awaitable<Result>) | undefined } {
  if (typeof endpoint === 'function') return { url: undefined, request: endpoint };
  return typeof endpoint === 'string' ? { url: endpoint, request: undefined } : { url: endpoint?.url, request: endpoint?.request };
}

function stringParams(params: Record<string, unknown> | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value !== undefined && value !== null) result[key] = String(value);
  }
  return result;
}

function resolveOAuth(
  provider: OAuthConfig<Profile> | OIDCConfig<Profile>,
  context: { env: AuthEnv; redirectProxyUrl: string | undefined },
): ResolvedOAuthProvider {
  const merged = mergeDeep(provider, provider.options) as OAuthConfig<Profile> | OIDCConfig<Profile>;
  const prefix = envPrefix(merged.id);
  const env = { id: `${prefix}_ID`, secret: `${prefix}_SECRET`, issuer: `${prefix}_ISSUER` };
  const redirectProxyUrl = merged.redirectProxyUrl ?? context.redirectProxyUrl;
  const checks = new Set<'pkce' | 'state' | 'nonce' | 'none'>(merged.checks ?? ['pkce']);
  if (redirectProxyUrl) checks.add('state');
  if (merged.type === 'oauth' && checks.has('nonce' as never)) {
    throw new TypeError(`Provider "${merged.id}": the "nonce" check exists only for OpenID Connect (type "oidc")`);
  }
  for (const check of checks) {
    if (!['pkce', 'state', 'nonce', 'none'].includes(check)) {
      throw new TypeError(`Provider "${merged.id}": unknown check "${String(check)}"; valid checks are none, state, pkce, nonce`);
    }
  }
  checks.delete('none');
  const protocol = merged[providerFlow];
  if (merged.version !== undefined && merged.version !== '2.0' && !protocol) {
    throw new TypeError(`Provider "${merged.id}": version "${merged.version}" needs its flow, which the provider's module brings (OAuth 1.0a: Microblog({ version: '1.0A' }))`);
  }
  const authorization = merged.authorization;
  const issuer = merged.issuer ?? (context.env[env.issuer] || undefined);
  return {
    id: merged.id,
    name: merged.name,
    type: merged.type,
    clientId: merged.clientId ?? (context.env[env.id] || undefined),
    clientSecret: merged.clientSecret ?? (context.env[env.secret] || undefined),
    issuer,
    wellKnown: merged.wellKnown,
    authorization: {
      url: endpointOf(authorization).url,
      params: stringParams(typeof authorization === 'object' ? authorization.params : undefined),
    },
    token: endpointOf(merged.token),
    userinfo: endpointOf(merged.userinfo),
    checks: [...checks] as ResolvedOAuthProvider['checks'],
    client: { ...merged.client },
    idToken: merged.type === 'oidc' ? (merged.idToken ?? true) : false,
    profile: merged.profile ?? defaultProfile,
    account: merged.account ?? defaultAccount,
    allowDangerousEmailAccountLinking: merged.allowDangerousEmailAccountLinking ?? false,
    // OpenID Connect's standard claim (Core §5.1); a plain OAuth 2 profile has no standard way to say the provider
    // verified the address: without a rule, no address is proven.
    isEmailVerified: merged.isEmailVerified ?? (merged.type === 'oidc' ? (profile) => profile.email_verified === true : () => false),
    redirectProxyUrl,
    style: merged.style,
    customFetch: merged[customFetch],
    env,
    config: merged,
    protocol,
  };
}

/** The factories that bring each flow, for the error of a provider created without one. */
const flowFactories = { credentials: 'Credentials() from providers/credentials.ts', email: 'Email() from providers/email.ts', webauthn: 'Passkey() from providers/passkey.ts' };

/** Checks and normalises the providers list. Throws on a structural mistake (duplicate id, missing authorize). */
export function resolveProviders(
  inputs: readonly ProviderInput[],
  context: { env: AuthEnv; redirectProxyUrl: string | undefined },
): ResolvedProvider[] {
  const seen = new Set<string>();
  return inputs.map((input, index) => {
    const provider = (typeof input === 'function' ? input() : input) as AnyProvider;
    if (!provider || typeof provider !== 'object') throw new TypeError(`providers[${index}] is not a provider configuration`);
    const withOptions: AnyProvider = 'options' in provider && provider.options ? { ...provider, ...provider.options } : provider;
    const { id, type } = withOptions;
    if (typeof id !== 'string' || !providerIdPattern.test(id)) {
      throw new TypeError(`providers[${index}] has an invalid id "${String(id)}": use letters, digits, "-" and "_"`);
    }
    if (seen.has(id)) throw new TypeError(`Two providers have the id "${id}"; ids must be unique`);
    seen.add(id);
    const name = typeof withOptions.name === 'string' && withOptions.name ? withOptions.name : id;
    switch (type) {
      case 'oauth':
      case 'oidc':
        return resolveOAuth({ ...provider, name } as OAuthConfig<Profile>, context);
      case 'credentials':
      case 'email':
      case 'webauthn': {
        const flow = (withOptions as FlowProviderConfig)[providerFlow] as CarriedFlow | undefined;
        if (typeof flow?.resolve !== 'function') {
          throw new TypeError(`Provider "${id}" (${type}) has no sign-in flow: create it with its factory (${flowFactories[type]})`);
        }
        return flow.resolve({ ...withOptions, name }, { env: context.env, envPrefix: envPrefix(id) });
      }
      default:
        throw new TypeError(`Provider "${id}" has an unknown type "${String(type)}"; valid types are oauth, oidc, credentials, email, webauthn`);
    }
  });
}
