/**
 * The one-time resolution of `FrameworkAuthConfig` (the core auth config without Auth.js's `raw` option, declared in
 * contracts.ts): the factory checks the config once, so a short secret fails at startup, and the user's object is
 * never mutated.
 */
import { checkBasePath } from './http/base-path.js';
import { carriedFeatures, providerFlow, type BearerAuthentication, type BearerResult, type CallbacksOptions, type CarriedFlow, type DatabaseHooks, type Feature, type FrameworkAuthConfig, type LoggerInstance, type ResolvedConfig, type ResolvedProvider, type TrustedHostRule, type WarningCode } from './contracts.js';
import { defaultCookies, mergeCookies } from './http/cookies.js';
import { type AuthError, MissingAdapter, MissingSecret, UnsupportedStrategy, UntrustedHost, errorResponses } from './errors.js';
import { DEFAULT_MAX_AGE, decode, encode } from './session/jwt.js';
import { parseTrustedHosts } from './http/origin.js';
import { pageMessages } from './pages/messages.js';
import { isOAuthProvider, resolveProviders } from './providers/resolve.js';
import type { AuthEnv } from './types.js';

/** The database feature's hooks, which every path that needs them reaches only with an adapter (checked at startup). */
export function databaseOf(options: ResolvedConfig): DatabaseHooks {
  if (!options.database) throw new MissingAdapter('This needs an adapter and the database feature (features/database/).');
  return options.database;
}

/**
 * Every feature of a config, each once: the config's `features`, those its adapter carries and those its providers'
 * flows bring, and those each of them brings (`Feature.features`). `npx framework-auth migrate` reads it to create only
 * these features' tables. A value that is not a feature throws, naming `option`.
 */
export function featuresOf(config: Partial<Pick<FrameworkAuthConfig, 'adapter' | 'providers'>> & { features?: readonly Feature[] | undefined }, option = '`features`'): Feature[] {
  const flows = (config.providers ?? []).map((input) => (typeof input === 'function' ? input() : input) as { [providerFlow]?: CarriedFlow });
  const listed = [...(config.features ?? []), ...(config.adapter?.[carriedFeatures] ?? []), ...flows.flatMap((provider) => provider?.[providerFlow]?.features ?? [])];
  const byId = new Map<string, Feature>();
  for (const feature of listed.flatMap((feature) => [feature, ...(feature?.features ?? [])])) {
    if (!feature || typeof feature.id !== 'string') throw new TypeError(`${option} holds something that is not a feature (see \`Feature\` in contracts.ts)`);
    if (!byId.has(feature.id)) byId.set(feature.id, feature);
  }
  return [...byId.values()];
}

/** The config's features, given to its adapter (which adds their tables and methods), and the database feature's hooks. */
function resolveFeatures(config: FrameworkAuthConfig): { features: Feature[]; database: DatabaseHooks | undefined } {
  const features = featuresOf(config);
  const database = features.find((feature) => feature.database)?.database;
  if (config.adapter && !database) {
    throw new MissingAdapter(
      'The config has an `adapter` but not the database feature that uses it: add `features: [database]`, with `database` imported from core/features/database/index.ts. The built-in adapters bring it themselves.',
    );
  }
  if (config.adapter) database?.useFeatures(config.adapter, features);
  return { features, database };
}

/** The features' bearer readers as one: the first whose `resultOf` answers a request judges it, and refuses it. */
function firstBearer(bearers: BearerAuthentication[]): BearerAuthentication | undefined {
  if (bearers.length < 2) return bearers[0];
  const judges = new WeakMap<BearerResult, BearerAuthentication>();
  return {
    resultOf(req, options) {
      for (const bearer of bearers) {
        const result = bearer.resultOf(req, options);
        if (result instanceof Promise) return result.then((answer) => (judges.set(answer, bearer), answer));
        if (result) return (judges.set(result, bearer), result);
      }
      return undefined;
    },
    refuse: (res, result, needed) => judges.get(result)!.refuse(res, result, needed),
  };
}

function positiveSeconds(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a positive number of seconds (got ${String(value)})`);
  return value;
}

/** The minimum length of every secret (seed §8). */
export const MIN_SECRET_LENGTH = 32;

/** Reads the secrets: the config's, or `AUTH_SECRET` (comma-separated, newest first). */
export function readSecrets(config: Pick<FrameworkAuthConfig, 'secret'>, env: AuthEnv): string[] {
  const fromConfig = config.secret === undefined ? undefined : Array.isArray(config.secret) ? config.secret : [config.secret];
  const secrets = (fromConfig ?? (env['AUTH_SECRET'] ?? '').split(',')).map((secret) => secret.trim()).filter(Boolean);
  if (secrets.length === 0) {
    throw new MissingSecret(
      'AUTH_SECRET is not set. Put a random string of at least 32 characters in .env (`npx framework-auth secret` writes one), or pass `secret` in the config.',
    );
  }
  secrets.forEach((secret, index) => {
    if (secret.length < MIN_SECRET_LENGTH) {
      const which = secrets.length > 1 ? `Secret #${index + 1} of AUTH_SECRET` : 'AUTH_SECRET';
      throw new MissingSecret(
        `${which} is ${secret.length} characters long; it must be at least ${MIN_SECRET_LENGTH}. Generate one with \`npx framework-auth secret\`.`,
      );
    }
  });
  return secrets;
}

/** `true`/`1`/`yes` are true, `false`/`0`/`no` are false (Auth.js treats "false" as true; we don't). */
function parseBooleanEnv(value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const normalised = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(normalised)) return true;
  if (['false', '0', 'no', 'off'].includes(normalised)) return false;
  return undefined;
}

const defaultCallbacks: CallbacksOptions = {
  signIn: () => true,
  redirect: ({ url, baseUrl }) => (url.startsWith('/') ? `${baseUrl}${url}` : URL.canParse(url) && new URL(url).origin === baseUrl ? url : baseUrl),
  session: ({ session }) => session,
  jwt: ({ token }) => token,
};

/** The logger: the config's, or the console, where a feature's warning comes with its hint (`Feature.warnings`). */
function createLogger(config: FrameworkAuthConfig, debug: boolean, features: readonly Feature[]): LoggerInstance {
  const custom = config.logger ?? {};
  const hints: Partial<Record<WarningCode, string>> = Object.assign({}, ...features.map((feature) => feature.warnings));
  return {
    error: custom.error ?? ((error) => {
      const authError = error as AuthError;
      const cause = authError.cause?.err;
      console.error(`[auth][error] ${authError.type ?? error.name}: ${error.message}${cause ? `\n[auth][cause] ${cause.stack ?? cause.message}` : ''}`);
    }),
    warn: custom.warn ?? ((code) => console.warn(`[auth][warn] ${code}${hints[code] ? `: ${hints[code]}` : ''}`)),
    debug: debug ? (custom.debug ?? ((message, metadata) => console.debug(`[auth][debug] ${message}`, metadata ?? ''))) : () => {},
  };
}

function readEnvOrigin(env: AuthEnv): string | undefined {
  const url = env['AUTH_URL']?.trim();
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    throw new TypeError(`AUTH_URL must be an absolute URL such as https://app.example.com (got "${url}")`);
  }
}

/** `trustHost` from the config or `AUTH_TRUST_HOST`: a boolean, or the allow-list of hosts. */
function readTrustHost(config: FrameworkAuthConfig, env: AuthEnv, envOrigin: string | undefined): { trustHost: boolean; trustedHosts: TrustedHostRule[] } {
  if (Array.isArray(config.trustHost)) return { trustHost: false, trustedHosts: parseTrustedHosts(config.trustHost) };
  if (typeof config.trustHost === 'boolean') return { trustHost: config.trustHost, trustedHosts: [] };
  const raw = env['AUTH_TRUST_HOST'];
  const flag = parseBooleanEnv(raw);
  if (flag !== undefined) return { trustHost: flag, trustedHosts: [] };
  const hosts = (raw ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  if (hosts.length > 0) return { trustHost: false, trustedHosts: parseTrustedHosts(hosts) };
  return { trustHost: envOrigin !== undefined || env['NODE_ENV'] !== 'production', trustedHosts: [] };
}

/**
 * Redirect-proxy targets carry an authorization code: their origin must come from configuration (as emailed links',
 * which the email flow checks). Checked at startup, so that no request can make the app build one on a
 * header-chosen host.
 */
function assertConfiguredOrigin(providers: readonly ResolvedProvider[], envOrigin: string | undefined, trustedHosts: readonly TrustedHostRule[]): void {
  if (envOrigin || trustedHosts.length > 0) return;
  const proxied = providers.find((provider) => (provider.type === 'oauth' || provider.type === 'oidc') && provider.redirectProxyUrl);
  if (proxied) {
    throw new UntrustedHost(
      `Provider "${proxied.id}" uses the redirect proxy, which forwards authorization codes to this app: set AUTH_URL to the URL users reach it at (e.g. AUTH_URL=https://app.example.com), or list its hosts in trustHost / AUTH_TRUST_HOST.`,
    );
  }
}

/** Checks a config and fills in its defaults. Throws at once on a missing or short secret. */
export function resolveConfig(config: FrameworkAuthConfig, env: AuthEnv = process.env): ResolvedConfig {
  if (!config || !Array.isArray(config.providers)) {
    throw new TypeError('FrameworkAuth(config) needs a config object with a `providers` array');
  }
  const secrets = readSecrets(config, env);
  const debug = config.debug ?? false;
  const envOrigin = readEnvOrigin(env);
  const { trustHost, trustedHosts } = readTrustHost(config, env, envOrigin);
  const redirectProxyUrl = config.redirectProxyUrl ?? (env['AUTH_REDIRECT_PROXY_URL'] || undefined);
  const providers = resolveProviders(config.providers, { env, redirectProxyUrl });
  const strategy = config.session?.strategy ?? (config.adapter ? 'database' : 'jwt');
  if (strategy === 'database' && !config.adapter) {
    throw new UnsupportedStrategy('session.strategy "database" needs an `adapter`; remove the strategy to use JWT sessions.');
  }
  // Before the providers' checks: the adapter gains the features' methods (passkeys, password hashes, …) here.
  const { features, database } = resolveFeatures(config);
  const logger = createLogger(config, debug, features);
  const originConfigured = envOrigin !== undefined || trustedHosts.length > 0;
  for (const provider of providers) {
    if (!isOAuthProvider(provider)) provider.flow.check?.(provider, { adapter: config.adapter, strategy, originConfigured });
  }
  assertConfiguredOrigin(providers, envOrigin, trustedHosts);
  // `form-action` (pages/csp.ts): AUTH_URL (every redirect is built on it) and each OAuth provider's authorization origin (the
  // sign-in form's answer; Chromium checks it), before discovery its configured URL, issuer or wellKnown. No IPv6, `;`, `,`.
  const authorizationUrls = providers.flatMap((provider) => (isOAuthProvider(provider) ? [provider.authorization.url ?? provider.issuer ?? provider.wellKnown ?? ''] : []));
  const formActionOrigins = [envOrigin ?? '', ...authorizationUrls].flatMap((url) => (URL.canParse(url) ? [new URL(url).origin] : [])).filter((origin) => /^https?:\/\/[a-z0-9.-]+(:\d+)?$/.test(origin));
  const maxAge = config.session?.maxAge ?? DEFAULT_MAX_AGE;
  if (debug) logger.warn('debug-enabled');
  const options: ResolvedConfig = {
    source: config,
    secrets,
    basePath: checkBasePath(config.basePath),
    envOrigin,
    trustHost,
    trustedHosts,
    providers,
    providersById: new Map(providers.map((provider) => [provider.id, provider])),
    formAction: ["'self'", ...new Set(formActionOrigins)].join(' '),
    session: {
      strategy,
      maxAge,
      updateAge: config.session?.updateAge ?? 24 * 60 * 60,
      absoluteMaxAge: positiveSeconds('session.absoluteMaxAge', config.session?.absoluteMaxAge ?? 90 * 24 * 60 * 60),
      generateSessionToken: config.session?.generateSessionToken ?? (() => crypto.randomUUID()),
    },
    jwt: { maxAge: config.jwt?.maxAge ?? maxAge, encode: config.jwt?.encode ?? encode, decode: config.jwt?.decode ?? decode },
    callbacks: { ...defaultCallbacks, ...config.callbacks },
    events: { ...config.events },
    securityEvents: features.flatMap((feature) => feature.securityEvents ?? []),
    pages: { ...config.pages },
    theme: { colorScheme: 'auto', ...config.theme },
    logger,
    useSecureCookies: config.useSecureCookies,
    cookies: { secure: mergeCookies(defaultCookies(true), config.cookies), plain: mergeCookies(defaultCookies(false), config.cookies) },
    adapter: config.adapter,
    features,
    database,
    bearer: firstBearer(features.flatMap((feature) => feature.bearer ?? [])),
    sessionFeatures: features.filter((feature) => feature.session),
    // The core's error responses, and those of the error classes the features bring.
    pageMessages: pageMessages({ ...errorResponses, ...Object.fromEntries(features.flatMap((feature) => (feature.errors ?? []).flatMap((error) => (error.response ? [[error.type, error.response]] : [])))) }),
  };
  for (const feature of features) feature.check?.(options);
  return options;
}

const resolved = new WeakMap<FrameworkAuthConfig, ResolvedConfig>();

/** `resolveConfig`, once per config object (getSession is called per request). */
export function resolveConfigOnce(config: FrameworkAuthConfig): ResolvedConfig {
  let options = resolved.get(config);
  if (!options) {
    options = resolveConfig(config);
    resolved.set(config, options);
  }
  return options;
}
