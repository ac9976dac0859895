/**
 * A real OpenID Provider (the certified `oidc-provider` package) on http://127.0.0.1, for `framework-auth dev-idp`
 * (sign in while developing, with nothing registered anywhere), `npm run demo`, and the end-to-end tests, which
 * speak plain HTTP to it (test/support/oidc-provider.ts adds the login steps a browser would take).
 *
 * Its login page is oidc-provider's development one: any password is accepted and the login name picks the account
 * (`alice` by default). Consent is granted automatically by `loadExistingGrant` (see `autoConsent`), so the flow is:
 * authorization request → login form → callback. oidc-provider is imported when a provider starts, never before:
 * the CLI loads this module only for `dev-idp`.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

import type Provider from 'oidc-provider';
import type { Adapter, AdapterPayload, Client, Configuration, ErrorOut, KoaContextWithOIDC } from 'oidc-provider';

export interface OidcTestClient {
  client_id: string;
  /** Defaults to `<client_id>-secret` unless the auth method is 'none'. */
  client_secret?: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post' | 'none';
  response_types?: string[];
  grant_types?: string[];
  id_token_signed_response_alg?: string;
  post_logout_redirect_uris?: string[];
  /** Any other client metadata oidc-provider understands. */
  [metadata: string]: unknown;
}

export interface AccountClaims {
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  [claim: string]: unknown;
}

export const DEFAULT_ACCOUNTS: Readonly<Record<string, AccountClaims>> = Object.freeze({
  alice: {
    sub: 'alice-sub',
    name: 'Alice Example',
    given_name: 'Alice',
    family_name: 'Example',
    preferred_username: 'alice',
    email: 'alice@example.test',
    email_verified: true,
    picture: 'https://example.test/alice.png',
  },
});

/** Which claims each scope releases (OIDC Core 5.4), plus anything passed in `scopes`. */
const STANDARD_SCOPE_CLAIMS: Record<string, string[]> = {
  openid: ['sub'],
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
};

export interface OidcProviderOptions {
  /** Where oidc-provider comes from (default: this package's own dependency); `dev-idp` passes the project's. */
  loadProvider?: () => Promise<typeof Provider>;
  /** Port to listen on (default 0: one the OS picks). */
  port?: number;
  /** Address to listen on (default 127.0.0.1: this machine only). */
  host?: string;
  clients?: OidcTestClient[];
  /**
   * login name → claims. Defaults to DEFAULT_ACCOUNTS (login `alice`). Signing in with an unknown login sends the
   * user back to the client with `error=access_denied`.
   */
  accounts?: Record<string, AccountClaims>;
  /**
   * true: every authorization request must carry an S256 code_challenge; false: never required (a state-only
   * flow works). Default: oidc-provider's own rule, required for public clients ('none') only.
   */
  pkceRequired?: boolean;
  /** Grant requested scopes/claims without showing the consent page (default true). */
  autoConsent?: boolean;
  /** Extra scope → claim names, e.g. `{ groups: ['groups'] }`. */
  scopes?: Record<string, string[]>;
  /** JWS algorithms to hold signing keys for. RS256 always; algorithms named by `clients` are added. */
  signingAlgs?: string[];
  /** Raw oidc-provider configuration merged last (escape hatch; see node_modules/oidc-provider/lib/helpers/defaults.js). */
  configuration?: Configuration;
}

export interface OidcEndpoints {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  jwks_uri: string;
  end_session_endpoint: string | undefined;
}

export interface ProviderRequest {
  method: string;
  /** Path and query, e.g. `/token`. */
  url: string;
  status: number;
}

export interface ProviderErrorEvent {
  /** oidc-provider event name: 'authorization.error', 'grant.error', 'userinfo.error', 'server_error', ... */
  event: string;
  error: string;
  description: string | undefined;
}

export interface RunningOidcProvider {
  /** `http://127.0.0.1:<port>` (no trailing slash), as in discovery and in `iss`. */
  issuer: string;
  port: number;
  /** Endpoints read from the discovery document. */
  endpoints: OidcEndpoints;
  discovery: Record<string, unknown>;
  /** Registered clients (with their resolved secrets), by client_id. */
  readonly clients: ReadonlyMap<string, OidcTestClient>;
  /** Registers or replaces a client at runtime (e.g. once the app's port, hence its redirect_uri, is known). */
  setClient(client: OidcTestClient): Promise<OidcTestClient>;
  /** Adds or replaces the account signing in with `login`. */
  setAccount(login: string, claims: AccountClaims): void;
  /** Removes an account: signing in with it is refused, and tokens already issued for it stop working at userinfo. */
  removeAccount(login: string): void;
  /** Live switches, read on every request. */
  settings: { autoConsent: boolean; pkceRequired: boolean | undefined };
  /** Every request the provider answered, in order. */
  requests: ProviderRequest[];
  /** Every error oidc-provider reported (refused requests included), in order. */
  errors: ProviderErrorEvent[];
  /** The oidc-provider instance, for anything not covered here. */
  provider: Provider;
  close(): Promise<void>;
}

const ERROR_EVENTS = [
  'authorization.error',
  'grant.error',
  'userinfo.error',
  'jwks.error',
  'discovery.error',
  'end_session.error',
  'end_session_confirm.error',
  'end_session_success.error',
  'revocation.error',
  'introspection.error',
  'pushed_authorization_request.error',
  'server_error',
];

export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<RunningOidcProvider> {
  const accounts = new Map(Object.entries(options.accounts ?? DEFAULT_ACCOUNTS));
  const settings = { autoConsent: options.autoConsent ?? true, pkceRequired: options.pkceRequired };
  const requests: ProviderRequest[] = [];
  const errors: ProviderErrorEvent[] = [];

  // The issuer must name the port, so the server listens before the provider exists. A request that arrives in
  // between waits for the provider instead of being refused (a 503 there was a failed first sign-in for users).
  let provideHandler: (handler: RequestListener) => void = () => {};
  let failHandler: () => void = () => {};
  const handlerReady = new Promise<RequestListener>((resolve, reject) => {
    provideHandler = resolve;
    failHandler = () => reject(new Error('the OpenID provider did not start'));
  });
  handlerReady.catch(() => {});
  const server = createServer((req, res) => {
    res.on('finish', () => requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', status: res.statusCode }));
    handlerReady.then(
      (handler) => handler(req, res),
      () => res.writeHead(503).end(),
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  };

  try {
    const algs = new Set(['RS256', ...(options.signingAlgs ?? [])]);
    for (const client of options.clients ?? []) {
      if (client.id_token_signed_response_alg) algs.add(client.id_token_signed_response_alg);
    }
    const keys = [...algs].filter((alg) => !alg.startsWith('HS')).map(signingJwk);

    const provider = await quietly(async () => {
      const ProviderClass = options.loadProvider ? await options.loadProvider() : (await import('oidc-provider')).default;
      return new ProviderClass(issuer, {
        ...baseConfiguration(accounts, settings, options.scopes),
        jwks: { keys },
        ...options.configuration,
      });
    });
    mapLoginToAccount(provider, accounts);
    for (const event of ERROR_EVENTS) {
      provider.on(event, (_ctx, err) => {
        const e = (err ?? {}) as { error?: string; error_description?: string; message?: string };
        errors.push({ event, error: e.error ?? e.message ?? String(err), description: e.error_description });
        if (event === 'server_error') console.error('oidc-provider server_error:', err);
      });
    }
    provideHandler(provider.callback());

    const clients = new Map<string, OidcTestClient>();
    const setClient = async (client: OidcTestClient): Promise<OidcTestClient> => {
      const resolved = await registerClient(provider, client);
      clients.set(resolved.client_id, resolved);
      return resolved;
    };
    for (const client of options.clients ?? []) await setClient(client);

    const response = await fetch(`${issuer}/.well-known/openid-configuration`);
    if (!response.ok) throw new Error(`oidc-provider discovery answered ${response.status}`);
    const discovery = (await response.json()) as Record<string, unknown>;
    const endpoints: OidcEndpoints = {
      issuer: String(discovery.issuer),
      authorization_endpoint: String(discovery.authorization_endpoint),
      token_endpoint: String(discovery.token_endpoint),
      userinfo_endpoint: String(discovery.userinfo_endpoint),
      jwks_uri: String(discovery.jwks_uri),
      end_session_endpoint: typeof discovery.end_session_endpoint === 'string' ? discovery.end_session_endpoint : undefined,
    };

    return {
      issuer,
      port,
      endpoints,
      discovery,
      clients,
      setClient,
      setAccount: (login, claims) => void accounts.set(login, claims),
      removeAccount: (login) => void accounts.delete(login),
      settings,
      requests,
      errors,
      provider,
      close,
    };
  } catch (error) {
    failHandler();
    await close();
    throw error;
  }
}

type Settings = RunningOidcProvider['settings'];

/** Lifetimes in seconds of what the provider issues; a test configuration may override some of them. */
export const defaultTtl = {
  AccessToken: 3600,
  AuthorizationCode: 60,
  IdToken: 3600,
  RefreshToken: 86_400,
  Interaction: 600,
  Session: 86_400,
  Grant: 86_400,
  ClientCredentials: 600,
} as const;

function baseConfiguration(
  accounts: Map<string, AccountClaims>,
  settings: Settings,
  scopes: Record<string, string[]> | undefined,
): Configuration {
  return {
    adapter: createMapAdapter(),
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: { ...STANDARD_SCOPE_CLAIMS, ...scopes },
    // Release scope claims in the ID token as well, not only from userinfo.
    conformIdTokenClaims: false,
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
    },
    pkce: {
      required: (_ctx: KoaContextWithOIDC, client: Client) => settings.pkceRequired ?? client.clientAuthMethod === 'none',
    },
    async findAccount(_ctx: KoaContextWithOIDC, sub: string) {
      const claims = [...accounts.values()].find((account) => account.sub === sub);
      return claims && { accountId: sub, claims: () => ({ ...claims }) };
    },
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const { oidc } = ctx;
      const client = oidc.client!;
      const session = oidc.session!;
      const grantId = oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      const existing = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
      if (!settings.autoConsent) return existing;
      // Auto-consent: grant whatever OIDC scopes/claims this request asks for, so no consent prompt is due.
      const grant = existing ?? new oidc.provider.Grant({ accountId: session.accountId!, clientId: client.clientId });
      const scopes = [...oidc.requestParamOIDCScopes];
      if (scopes.length) grant.addOIDCScope(scopes.join(' '));
      const claims = [...oidc.requestParamClaims];
      if (claims.length) grant.addOIDCClaims(claims);
      await grant.save();
      return grant;
    },
    renderError,
    clientBasedCORS: () => false,
    // Explicit TTLs (seconds) also keep oidc-provider from printing "you SHOULD change" notices.
    ttl: { ...defaultTtl },
  };
}

/**
 * oidc-provider uses the accountId as `sub`, and its dev login form submits the typed login as accountId:
 * translate the login into its account's sub. An unknown login ends the interaction with access_denied (left
 * alone, it would crash the provider's consent checks).
 */
function mapLoginToAccount(provider: Provider, accounts: Map<string, AccountClaims>): void {
  const interactionResult = provider.interactionResult.bind(provider);
  provider.interactionResult = (req, res, result, opts) => {
    const login = result.login?.accountId;
    if (login === undefined) return interactionResult(req, res, result, opts);
    const account = accounts.get(login);
    const mapped = account
      ? { ...result, login: { ...result.login, accountId: account.sub } }
      : { error: 'access_denied', error_description: `unknown login '${login}'` };
    return interactionResult(req, res, mapped, opts);
  };
}

/**
 * Clients live in the adapter rather than in static configuration so they can be added or replaced after start.
 * Metadata is validated here, not at the first request that uses the client.
 */
async function registerClient(provider: Provider, client: OidcTestClient): Promise<OidcTestClient> {
  const method = client.token_endpoint_auth_method ?? 'client_secret_basic';
  const resolved: OidcTestClient = {
    ...client,
    token_endpoint_auth_method: method,
    ...(method === 'none' ? {} : { client_secret: client.client_secret ?? `${client.client_id}-secret` }),
  };
  await provider.Client.adapter.upsert(resolved.client_id, { ...resolved });
  try {
    await provider.Client.find(resolved.client_id);
  } catch (error) {
    await provider.Client.adapter.destroy(resolved.client_id);
    throw error;
  }
  return resolved;
}

/**
 * An unbounded in-memory adapter. oidc-provider's own dev adapter is an LRU of 1000 entries (a client registered
 * early could be evicted in a long test file) and prints a warning.
 */
function createMapAdapter(): (model: string) => Adapter {
  const entries = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const sessionIdByUid = new Map<string, string>();
  const idByUserCode = new Map<string, string>();
  const keysByGrant = new Map<string, Set<string>>();

  return (model) => {
    const keyOf = (id: string): string => `${model}:${id}`;
    const find = async (id: string | undefined): Promise<AdapterPayload | undefined> => {
      if (id === undefined) return undefined;
      const entry = entries.get(keyOf(id));
      if (entry && entry.expiresAt <= Date.now()) entries.delete(keyOf(id));
      return entry && entry.expiresAt > Date.now() ? entry.payload : undefined;
    };
    return {
      async upsert(id, payload, expiresIn) {
        const key = keyOf(id);
        entries.set(key, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
        if (model === 'Session' && typeof payload.uid === 'string') sessionIdByUid.set(payload.uid, id);
        if (typeof payload.userCode === 'string') idByUserCode.set(payload.userCode, id);
        if (typeof payload.grantId === 'string') {
          const keys = keysByGrant.get(payload.grantId) ?? new Set<string>();
          keysByGrant.set(payload.grantId, keys.add(key));
        }
      },
      find,
      findByUid: async (uid) => find(sessionIdByUid.get(uid)),
      findByUserCode: async (userCode) => find(idByUserCode.get(userCode)),
      async consume(id) {
        const entry = entries.get(keyOf(id));
        if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        entries.delete(keyOf(id));
      },
      async revokeByGrantId(grantId) {
        for (const key of keysByGrant.get(grantId) ?? []) entries.delete(key);
        keysByGrant.delete(grantId);
      },
    };
  };
}

let quietDepth = 0;
let restoreConsole: (() => void) | undefined;

/**
 * Runs `fn` with oidc-provider's start-up WARNING/NOTICE lines dropped: "devInteractions is enabled" and, on
 * Node 20, "Unsupported runtime" (printed once, when the module is first imported).
 */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  if (quietDepth++ === 0) {
    const { warn, info } = console;
    const filtered =
      (original: (...args: unknown[]) => void) =>
      (...args: unknown[]): void => {
        if (typeof args[0] === 'string' && /oidc-provider (WARNING|NOTICE):/.test(args[0])) return;
        original.apply(console, args);
      };
    console.warn = filtered(warn);
    console.info = filtered(info);
    restoreConsole = () => {
      console.warn = warn;
      console.info = info;
    };
  }
  try {
    return await fn();
  } finally {
    if (--quietDepth === 0) restoreConsole?.();
  }
}

const curves: Record<string, string> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };

/** A fresh private signing key as a JWK, with Node's own crypto (the CLI does not depend on jose). */
function signingJwk(alg: string): Record<string, unknown> {
  const { privateKey } =
    curves[alg] !== undefined
      ? generateKeyPairSync('ec', { namedCurve: curves[alg] })
      : alg === 'EdDSA' || alg === 'Ed25519'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `dev-${alg.toLowerCase()}-${randomBytes(4).toString('hex')}`;
  return { ...privateKey.export({ format: 'jwk' }), alg, use: 'sig', kid };
}

function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Error pages as minimal HTML; the status code is already set by oidc-provider. */
function renderError(ctx: KoaContextWithOIDC, out: ErrorOut): void {
  ctx.type = 'html';
  const error = escapeHtml(out.error);
  const description = escapeHtml(out.error_description ?? '');
  ctx.body = `<!DOCTYPE html><html><head><title>${error}</title></head><body><h1>${error}</h1><p>${description}</p></body></html>`;
}

/** Sign-out confirmation page whose form already says "yes", so tests can submit it with parseForms. */
function logoutSource(ctx: KoaContextWithOIDC, form: string): void {
  ctx.type = 'html';
  ctx.body = `<!DOCTYPE html><html><head><title>Sign-out</title></head><body>${form.replace(
    '</form>',
    '<input type="hidden" name="logout" value="yes"/></form>',
  )}</body></html>`;
}

function postLogoutSuccessSource(ctx: KoaContextWithOIDC): void {
  ctx.type = 'html';
  ctx.body = '<!DOCTYPE html><html><head><title>Signed out</title></head><body><h1>Signed out</h1></body></html>';
}
