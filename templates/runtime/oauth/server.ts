/**
 * The authorization server and client of a provider, as oauth4webapi needs them: discovered from `issuer` or
 * `wellKnown` (then cached for an hour; a failed discovery is retried on the next sign-in), or built from explicit
 * endpoints. Explicit endpoints override discovered ones.
 */
import * as oauth from 'oauth4webapi';
import { InvalidEndpoints, OAuthSignInError } from '../errors.js';
import { isLoopbackHostname } from '../http/origin.js';
import type { ResolvedOAuthProvider } from '../contracts.js';

/** How long any single call to a provider may take. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** True for URLs of this machine (`isLoopbackHostname`): plain HTTP is allowed there, for development providers. */
function isLoopback(url: string): boolean {
  return URL.canParse(url) && isLoopbackHostname(new URL(url).hostname);
}

/** True for `https:` URLs, and `http:` URLs of this machine (see `isLoopback`). */
export function isSecureOrLoopback(url: string): boolean {
  const protocol = URL.canParse(url) ? new URL(url).protocol : undefined;
  return protocol === 'https:' || (protocol === 'http:' && isLoopback(url));
}

/**
 * Runs `call` with a signal that aborts after {@link PROVIDER_TIMEOUT_MS}, and clears the timer once `call` settles:
 * an `AbortSignal.timeout` stays armed, holding the request it was given, for the whole timeout after the answer.
 */
export async function withProviderTimeout<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), PROVIDER_TIMEOUT_MS);
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** Options of every oauth4webapi HTTP call: the provider's `customFetch`, a timeout, plain HTTP only to this machine. */
export function httpOptions(provider: ResolvedOAuthProvider, url: string | undefined, signal = AbortSignal.timeout(PROVIDER_TIMEOUT_MS)): oauth.HttpRequestOptions<'GET' | 'POST', unknown> {
  const options: oauth.HttpRequestOptions<'GET' | 'POST', unknown> & { [oauth.allowInsecureRequests]?: boolean } = { signal };
  if (provider.customFetch) {
    const userFetch = provider.customFetch;
    options[oauth.customFetch] = (input, init) => userFetch(input, init as RequestInit);
  }
  if (url && url.startsWith('http:') && isLoopback(url)) options[oauth.allowInsecureRequests] = true;
  return options;
}

/** Discovery is fetched again after an hour, so a provider that moves an endpoint or `jwks_uri` is followed. */
const DISCOVERY_MAX_AGE_MS = 60 * 60 * 1000;
const discovered = new WeakMap<ResolvedOAuthProvider, { startedAt: number; metadata: Promise<oauth.AuthorizationServer> }>();

async function discover(provider: ResolvedOAuthProvider): Promise<oauth.AuthorizationServer> {
  const issuer = provider.issuer;
  if (provider.wellKnown) {
    const init = { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) };
    const response = await (provider.customFetch ? provider.customFetch(provider.wellKnown, init) : fetch(provider.wellKnown, init));
    if (issuer) return oauth.processDiscoveryResponse(new URL(issuer), response);
    // Without a configured issuer, the document's own issuer is the expected one; it must still be consistent.
    const metadata = (await response.clone().json().catch(() => null)) as { issuer?: unknown } | null;
    if (!metadata || typeof metadata.issuer !== 'string') throw new InvalidEndpoints(`Provider "${provider.id}": ${provider.wellKnown} has no issuer`);
    return oauth.processDiscoveryResponse(new URL(metadata.issuer), response);
  }
  if (!issuer) throw new InvalidEndpoints(`Provider "${provider.id}" has no issuer`);
  const issuerUrl = new URL(issuer);
  const response = await oauth.discoveryRequest(issuerUrl, {
    ...(httpOptions(provider, issuer) as oauth.DiscoveryRequestOptions),
    algorithm: provider.type === 'oidc' ? 'oidc' : 'oauth2',
  });
  return oauth.processDiscoveryResponse(issuerUrl, response);
}

/** Scheme and host of `url` for an error message (never its path or query, which might carry a secret). */
export function describeUrl(url: string): string {
  if (!URL.canParse(url)) return 'an invalid URL';
  const parsed = new URL(url);
  return parsed.host ? `${parsed.protocol}//${parsed.host}` : parsed.protocol;
}

function needsDiscovery(provider: ResolvedOAuthProvider): boolean {
  if (provider.wellKnown) return true;
  if (provider.type === 'oidc') return !(provider.authorization.url && provider.token.url && provider.issuer && provider.config.jwks_endpoint);
  return !(provider.authorization.url && (provider.token.url || provider.token.request)) && Boolean(provider.issuer);
}

/** The provider's authorization server metadata; throws naming what is missing, refused or unreachable. */
export async function authorizationServer(provider: ResolvedOAuthProvider): Promise<oauth.AuthorizationServer> {
  let metadata: oauth.AuthorizationServer;
  if (needsDiscovery(provider)) {
    if (!provider.wellKnown && !provider.issuer) {
      throw new InvalidEndpoints(`Provider "${provider.id}" has no issuer: set ${provider.env.issuer} in .env`);
    }
    // Discovery names every other endpoint and the signing keys: it is fetched only over https (or plain http to
    // this machine), never from file:, data:, ftp: or a remote http URL, and refused before any request.
    for (const [name, url] of [['wellKnown', provider.wellKnown], ['issuer', provider.issuer]] as const) {
      if (url !== undefined && !isSecureOrLoopback(url)) {
        throw new InvalidEndpoints(
          `Provider "${provider.id}": ${name} must be an https URL, or http to localhost/127.0.0.1/[::1] (got ${describeUrl(url)})`,
        );
      }
    }
    let cached = discovered.get(provider);
    if (!cached || Date.now() - cached.startedAt >= DISCOVERY_MAX_AGE_MS) {
      const entry = (cached = { startedAt: Date.now(), metadata: discover(provider) });
      discovered.set(provider, entry);
      entry.metadata.catch(() => discovered.get(provider) === entry && discovered.delete(provider));
    }
    try {
      metadata = await cached.metadata;
    } catch (error) {
      throw new OAuthSignInError(
        `Provider "${provider.id}": discovery at ${provider.wellKnown ?? provider.issuer} failed`,
        { cause: error instanceof Error ? error : undefined },
      );
    }
    // A remote document may name plain-http endpoints on this machine (`http://127.0.0.1:…`), which would get the
    // client secret and tokens in the clear: plain http is only for an issuer, and a document, on this machine.
    const remote = [metadata.issuer, provider.wellKnown].find((url) => url !== undefined && !isLoopback(url));
    for (const name of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri', 'revocation_endpoint'] as const) {
      const url: unknown = metadata[name];
      if (remote && url !== undefined && !(typeof url === 'string' && url.startsWith('https:'))) {
        throw new InvalidEndpoints(`Provider "${provider.id}": ${name} must be an https URL, as ${describeUrl(remote)} is not on this machine (got ${describeUrl(String(url))})`);
      }
    }
  } else {
    if (!provider.authorization.url) {
      throw new InvalidEndpoints(
        `Provider "${provider.id}" has neither an issuer (set ${provider.env.issuer}) nor an authorization endpoint`,
      );
    }
    // Without discovery the issuer is only known when configured; its absence disables the `iss` mix-up check.
    metadata = { issuer: provider.issuer ?? new URL(provider.authorization.url).origin };
  }
  return {
    ...metadata,
    ...(provider.authorization.url && { authorization_endpoint: provider.authorization.url }),
    ...(provider.token.url && { token_endpoint: provider.token.url }),
    ...(provider.userinfo.url && { userinfo_endpoint: provider.userinfo.url }),
    ...(provider.config.jwks_endpoint && { jwks_uri: provider.config.jwks_endpoint }),
  };
}

/** The oauth4webapi client and its token endpoint authentication. */
export function oauthClient(provider: ResolvedOAuthProvider): { client: oauth.Client; clientAuth: oauth.ClientAuth } {
  if (!provider.clientId) {
    throw new OAuthSignInError(`Provider "${provider.id}" has no client id: set ${provider.env.id} in .env`);
  }
  const { token_endpoint_auth_method: method, ...metadata } = provider.client;
  const client: oauth.Client = { ...metadata, client_id: provider.clientId };
  const authMethod = method ?? (provider.clientSecret ? 'client_secret_basic' : 'none');
  if (authMethod !== 'none' && !provider.clientSecret) {
    throw new OAuthSignInError(`Provider "${provider.id}" has no client secret: set ${provider.env.secret} in .env`);
  }
  switch (authMethod) {
    case 'client_secret_basic':
      return { client, clientAuth: oauth.ClientSecretBasic(provider.clientSecret!) };
    case 'client_secret_post':
      return { client, clientAuth: oauth.ClientSecretPost(provider.clientSecret!) };
    case 'client_secret_jwt':
      return { client, clientAuth: oauth.ClientSecretJwt(provider.clientSecret!) };
    case 'none':
      return { client, clientAuth: oauth.None() };
    default:
      throw new OAuthSignInError(
        `Provider "${provider.id}": token_endpoint_auth_method "${authMethod}" is not supported; use client_secret_basic, client_secret_post, client_secret_jwt or none`,
      );
  }
}
