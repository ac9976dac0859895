/**
 * `FrameworkAuthConfig` (the core auth config without Auth.js's `raw` option) and its one-time resolution: the
 * factory checks the config once, so a short secret fails at startup, and the user's object is never mutated.
 */
import type { Request } from 'express';
import { checkBasePath } from './http/base-path.js';
import { type CookiesOptions, type CookiesOverrides, defaultCookies, mergeCookies } from './http/cookies.js';
import { type AuthError, type ErrorResponse, MissingAdapter, MissingSecret, UnsupportedStrategy, UntrustedHost, errorResponses } from './errors.js';
import { type Adapter, type DatabaseHooks, type Feature, type SecondFactorHooks, carriedFeatures } from './feature.js';
import { DEFAULT_MAX_AGE, type JWTOptions, decode, encode } from './session/jwt.js';
import { type TrustedHostRule, parseTrustedHosts } from './http/origin.js';
import { type PageMessages, pageMessages } from './pages/messages.js';
import { isOAuthProvider, resolveProviders, type ResolvedProvider } from './providers/resolve.js';
import type { ProviderInput } from './providers/types.js';
import type { Theme } from './theme.js';
import type { Account, AdapterUser, AuthEnv, Awaitable, DefaultSession, JWT, Profile, Session, User } from './types.js';

/** Callbacks that decide what happens at each step. All may be async. */
export interface CallbacksOptions {
  /**
   * Allows or refuses a sign-in. Return false to refuse (AccessDenied), or a same-origin URL to redirect to.
   * @default () => true
   */
  signIn: (params: {
    user: User | AdapterUser;
    account: Account | null;
    profile?: Profile;
    email?: { verificationRequest?: boolean };
    credentials?: Record<string, unknown>;
  }) => Awaitable<boolean | string>;
  /**
   * Decides where to send the user after sign-in or sign-out. Whatever it returns, a URL of another origin is
   * replaced by `baseUrl`.
   * @default relative URLs are resolved against baseUrl; same-origin URLs are kept; anything else is baseUrl
   */
  redirect: (params: { url: string; baseUrl: string }) => Awaitable<string>;
  /** Shapes the session the app sees. @default the session as built from the token */
  session: (params: { session: Session; token: JWT; user?: AdapterUser; trigger?: 'update'; newSession?: unknown }) => Awaitable<Session | DefaultSession>;
  /**
   * Shapes the session JWT. Called at sign-in (with `user`, `account`, `profile`), on every session read, and on
   * update. Return null to end the session.
   * @default the token unchanged
   */
  jwt: (params: {
    token: JWT;
    user?: User | AdapterUser;
    account?: Account | null;
    profile?: Profile;
    trigger?: 'signIn' | 'signUp' | 'update';
    isNewUser?: boolean;
    session?: unknown;
  }) => Awaitable<JWT | null>;
}

/** Events: side effects after something happened. Errors in them are logged, never shown to the user. */
export interface EventCallbacks {
  signIn: (message: { user: User; account: Account | null; profile?: Profile; isNewUser?: boolean }) => Awaitable<void>;
  signOut: (message: { token: JWT | null } | { session: unknown }) => Awaitable<void>;
  createUser: (message: { user: User }) => Awaitable<void>;
  updateUser: (message: { user: User }) => Awaitable<void>;
  linkAccount: (message: { user: User | AdapterUser; account: Account; profile: User | AdapterUser }) => Awaitable<void>;
  session: (message: { session: Session; token: JWT }) => Awaitable<void>;
}

/** Paths of your own pages, used instead of the built-in ones (they receive `error` and `callbackUrl`). */
export interface PagesOptions {
  signIn: string;
  signOut: string;
  error: string;
  verifyRequest: string;
  newUser: string;
}

/** Warnings the runtime can log. */
export type WarningCode = 'debug-enabled' | 'csrf-disabled' | 'experimental-webauthn' | 'env-url-basepath-redundant' | 'env-url-basepath-mismatch' | 'untrusted-proxy'
  | 'email-printed-to-console' | 'breached-password-check-failed';

/** Where the runtime logs. Never receives a secret or a token. */
export interface LoggerInstance {
  error: (error: Error) => void;
  warn: (code: WarningCode) => void;
  debug: (message: string, metadata?: unknown) => void;
}

/** Session options. */
export interface SessionOptions {
  /**
   * `jwt` keeps the session in an encrypted cookie; `database` keeps it in the adapter.
   * @default 'jwt', or 'database' when an adapter is set
   */
  strategy: 'jwt' | 'database';
  /** Seconds until an idle session expires. @default 2592000 (30 days) */
  maxAge: number;
  /**
   * Seconds between refreshes of the session's expiry (its cookie is re-issued, or its database row updated).
   * 0 re-issues on every read.
   * @default 86400 (24 hours)
   */
  updateAge: number;
  /**
   * Seconds a session may live from its sign-in, however often it is renewed: a stolen session cannot be kept
   * alive forever. The sign-in time travels in the JWT (`auth_time`) or is the row's `createdAt`.
   * @default 7776000 (90 days)
   */
  absoluteMaxAge: number;
  /**
   * Seconds a sign-in counts as recent: what turns a session into a lasting credential or changes how the account
   * signs in (a passkey, a linked account, two-factor on or off, new recovery codes, a new password) needs a sign-in
   * or re-authentication (`<mount>/reauth`) at most this long ago, measured from that authentication, not from the
   * session's renewals. `requireRecentAuth()` guards an app's own routes the same way.
   * @default 600 (10 minutes)
   */
  reauthMaxAge: number;
  /** Generates database session tokens. @default crypto.randomUUID */
  generateSessionToken: () => string;
}

export type { Adapter } from './feature.js';

/** Everything `FrameworkAuth` and `getSession` accept. */
export interface FrameworkAuthConfig {
  /** Sign-in methods; a button or form appears for each on the sign-in page. */
  providers: ProviderInput[];
  /**
   * Secret(s) for encrypting tokens and signing cookies, newest first. Each at least 32 characters.
   * @default process.env['AUTH_SECRET'] (comma-separated for rotation)
   */
  secret?: string | string[];
  /**
   * The mount path (`/auth`), by the CLI's `--mount` rules: starts with "/", no trailing "/" (see base-path.ts).
   * Inferred from the request when absent, so mounting anywhere works.
   */
  basePath?: string;
  session?: Partial<SessionOptions>;
  jwt?: Partial<JWTOptions>;
  callbacks?: Partial<CallbacksOptions>;
  events?: Partial<EventCallbacks>;
  pages?: Partial<PagesOptions>;
  theme?: Theme;
  logger?: Partial<LoggerInstance>;
  /** Logs each step at debug level (never secrets or tokens). @default false */
  debug?: boolean;
  /**
   * Which request hosts may build the app's URLs when `AUTH_URL` is not set (the Host header, or `X-Forwarded-Host`
   * when Express's `trust proxy` trusts the hop). `AUTH_URL`, when set, always wins.
   * - a list (`['app.example.com', '*.preview.example.com', 'https://admin.example.com']`): only these hosts are
   *   served, and their own origin is used, also for emailed links and as redirect-proxy targets. An entry without a
   *   scheme matches any port and the request's scheme; `*.` matches subdomains.
   * - `true`: any host, for redirects and provider callbacks only. Emailed sign-in links and the redirect proxy never
   *   use an origin a header chose: with an email provider or `redirectProxyUrl`, set `AUTH_URL` or a list.
   * - `false`: none; `AUTH_URL` must be set.
   * @default AUTH_TRUST_HOST (`true`, `false`, or a comma-separated list), else true when AUTH_URL is set or
   * NODE_ENV is not 'production'
   */
  trustHost?: boolean | string[];
  /** @default true when the request is HTTPS (`req.protocol`, so Express's `trust proxy` matters) */
  useSecureCookies?: boolean;
  cookies?: CookiesOverrides;
  /** An origin that receives OAuth callbacks for preview deployments and forwards them. @default AUTH_REDIRECT_PROXY_URL */
  redirectProxyUrl?: string;
  adapter?: Adapter;
  /**
   * Features beyond what the providers and the adapter bring (feature.ts). The built-in adapters carry the database
   * feature and each provider its own routes, so a generated config lists none; an Auth.js adapter needs
   * `features: [database]` (features/database/index.ts).
   */
  features?: Feature[];
}

/** The config after checks and defaults, computed once per config object. */
export interface ResolvedConfig {
  source: FrameworkAuthConfig;
  secrets: string[];
  basePath: string | undefined;
  /** `AUTH_URL`'s origin when set: every URL the app builds uses it. */
  envOrigin: string | undefined;
  /** `trustHost: true`: any well-formed host may build redirects and callback URLs (never emailed links). */
  trustHost: boolean;
  /** The `trustHost` allow-list: hosts that build every URL, emailed links included, on their own origin. */
  trustedHosts: readonly TrustedHostRule[];
  providers: ResolvedProvider[];
  providersById: Map<string, ResolvedProvider>;
  session: SessionOptions;
  jwt: JWTOptions;
  callbacks: CallbacksOptions;
  events: Partial<EventCallbacks>;
  pages: Partial<PagesOptions>;
  theme: Required<Pick<Theme, 'colorScheme'>> & Theme;
  logger: LoggerInstance;
  debug: boolean;
  useSecureCookies: boolean | undefined;
  cookies: { secure: CookiesOptions; plain: CookiesOptions };
  redirectProxyUrl: string | undefined;
  adapter: Adapter | undefined;
  /** The config's features, the adapter's and the providers' flows', each once. */
  features: readonly Feature[];
  /** The database feature's hooks: set whenever `adapter` is. */
  database: DatabaseHooks | undefined;
  /** The two-factor feature's hooks, when the config has it. */
  secondFactor: SecondFactorHooks | undefined;
  /** What the pages say for each client-safe error type: the core's and those of its features. */
  pageMessages: PageMessages;
}

/** The database feature's hooks, which every path that needs them reaches only with an adapter (checked at startup). */
export function databaseOf(options: ResolvedConfig): DatabaseHooks {
  if (!options.database) throw new MissingAdapter('This needs an adapter and the database feature (features/database/).');
  return options.database;
}

/**
 * The features of a config, each once: those it lists, those its adapter carries, and those its providers' flows
 * carry. With an adapter, one of them must bring the database hooks: without them nothing would use the adapter.
 */
function resolveFeatures(config: FrameworkAuthConfig, providers: readonly ResolvedProvider[]): { features: Feature[]; database: DatabaseHooks | undefined } {
  const listed = [
    ...(config.features ?? []),
    ...(config.adapter?.[carriedFeatures] ?? []),
    ...providers.flatMap((provider) => (isOAuthProvider(provider) ? [] : (provider.flow.features ?? []))),
  ];
  const byId = new Map<string, Feature>();
  for (const feature of listed) {
    if (!feature || typeof feature.id !== 'string') throw new TypeError('`features` holds something that is not a feature (see feature.ts)');
    if (!byId.has(feature.id)) byId.set(feature.id, feature);
  }
  const features = [...byId.values()];
  const database = features.find((feature) => feature.database)?.database;
  if (config.adapter && !database) {
    throw new MissingAdapter(
      'The config has an `adapter` but not the database feature that uses it: add `features: [database]`, with `database` imported from core/features/database/index.ts. The built-in adapters bring it themselves.',
    );
  }
  return { features, database };
}

/** The responses of the error classes the features bring, by type. */
function featureErrorResponses(features: readonly Feature[]): Record<string, ErrorResponse> {
  return Object.fromEntries(features.flatMap((feature) => (feature.errors ?? []).flatMap((error) => (error.response ? [[error.type, error.response]] : []))));
}

function positiveSeconds(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a positive number of seconds (got ${String(value)})`);
  return value;
}

/** The minimum length of every secret (seed §8). */
export const MIN_SECRET_LENGTH = 32;

/** Seconds a sign-in counts as recent for sensitive changes (`session.reauthMaxAge`). */
const DEFAULT_REAUTH_MAX_AGE = 10 * 60;

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

function defaultRedirect({ url, baseUrl }: { url: string; baseUrl: string }): string {
  if (url.startsWith('/')) return `${baseUrl}${url}`;
  try {
    if (new URL(url).origin === baseUrl) return url;
  } catch {
    // not a URL: fall back to the base URL
  }
  return baseUrl;
}

const defaultCallbacks: CallbacksOptions = {
  signIn: () => true,
  redirect: defaultRedirect,
  session: ({ session }) => session,
  jwt: ({ token }) => token,
};

/** What the default logger adds to a warning's code: what to do about it. */
const warningHints: Partial<Record<WarningCode, string>> = {
  'untrusted-proxy':
    'requests carry X-Forwarded-For from a proxy that `trust proxy` does not trust, so every client counts as that proxy for rate limits. Set TRUST_PROXY in .env (its hop count or addresses).',
  'email-printed-to-console':
    'AUTH_EMAIL_SERVER is empty, so the email below is printed here instead of sent (development only: in production the app refuses to start without it).',
  'breached-password-check-failed': 'the breached-password check did not answer in time; the password was accepted (the check fails open).',
};

function createLogger(config: FrameworkAuthConfig, debug: boolean): LoggerInstance {
  const custom = config.logger ?? {};
  return {
    error: custom.error ?? ((error) => {
      const authError = error as AuthError;
      const cause = authError.cause?.err;
      console.error(`[auth][error] ${authError.type ?? error.name}: ${error.message}${cause ? `\n[auth][cause] ${cause.stack ?? cause.message}` : ''}`);
    }),
    warn: custom.warn ?? ((code) => console.warn(`[auth][warn] ${code}${warningHints[code] ? `: ${warningHints[code]}` : ''}`)),
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
  const logger = createLogger(config, debug);
  const envOrigin = readEnvOrigin(env);
  const { trustHost, trustedHosts } = readTrustHost(config, env, envOrigin);
  const redirectProxyUrl = config.redirectProxyUrl ?? (env['AUTH_REDIRECT_PROXY_URL'] || undefined);
  const providers = resolveProviders(config.providers, { env, redirectProxyUrl });
  const strategy = config.session?.strategy ?? (config.adapter ? 'database' : 'jwt');
  if (strategy === 'database' && !config.adapter) {
    throw new UnsupportedStrategy('session.strategy "database" needs an `adapter`; remove the strategy to use JWT sessions.');
  }
  const originConfigured = envOrigin !== undefined || trustedHosts.length > 0;
  for (const provider of providers) {
    if (!isOAuthProvider(provider)) provider.flow.check?.(provider, { adapter: config.adapter, strategy, originConfigured });
  }
  assertConfiguredOrigin(providers, envOrigin, trustedHosts);
  const { features, database } = resolveFeatures(config, providers);
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
    session: {
      strategy,
      maxAge,
      updateAge: config.session?.updateAge ?? 24 * 60 * 60,
      absoluteMaxAge: positiveSeconds('session.absoluteMaxAge', config.session?.absoluteMaxAge ?? 90 * 24 * 60 * 60),
      reauthMaxAge: positiveSeconds('session.reauthMaxAge', config.session?.reauthMaxAge ?? DEFAULT_REAUTH_MAX_AGE),
      generateSessionToken: config.session?.generateSessionToken ?? (() => crypto.randomUUID()),
    },
    jwt: { maxAge: config.jwt?.maxAge ?? maxAge, encode: config.jwt?.encode ?? encode, decode: config.jwt?.decode ?? decode },
    callbacks: { ...defaultCallbacks, ...config.callbacks },
    events: { ...config.events },
    pages: { ...config.pages },
    theme: { colorScheme: 'auto', ...config.theme },
    logger,
    debug,
    useSecureCookies: config.useSecureCookies,
    cookies: { secure: mergeCookies(defaultCookies(true), config.cookies), plain: mergeCookies(defaultCookies(false), config.cookies) },
    redirectProxyUrl,
    adapter: config.adapter,
    features,
    database,
    secondFactor: features.find((feature) => feature.secondFactor)?.secondFactor,
    pageMessages: pageMessages({ ...errorResponses, ...featureErrorResponses(features) }),
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

/** The Express request type the callbacks and guards receive. */
export type FrameworkRequest = Request;
