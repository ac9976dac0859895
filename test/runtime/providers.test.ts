// The provider catalog: every factory's config passes the runtime's checks with its env vars, is listed by
// GET /auth/providers, and starts a sign-in at the provider's real authorization URL. Discovery documents of the
// OpenID providers are answered by `customFetch`, so nothing leaves 127.0.0.1.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import { customFetch, resolveConfig } from '../../templates/runtime/index.js';
import type { AnyProvider, CustomFetch } from '../../templates/runtime/index.js';
import Auth0 from '../../templates/runtime/providers/auth0.js';
import Discord, { discordAvatarUrl } from '../../templates/runtime/providers/discord.js';
import GitHub from '../../templates/runtime/providers/github.js';
import GitLab from '../../templates/runtime/providers/gitlab.js';
import Google from '../../templates/runtime/providers/google.js';
import Keycloak from '../../templates/runtime/providers/keycloak.js';
import MicrosoftEntraID from '../../templates/runtime/providers/microsoft-entra-id.js';
import Microblog from '../../templates/runtime/providers/microblog.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import type { ResolvedOAuthProvider } from '../../templates/runtime/contracts.js';
import { createJar, formBody } from '../support/cookie-jar.js';

import { SECRET, passwordProvider } from './helpers.js';
import { AppRegistry, csrfTokenOf, expectRedirect, loggedTypes, startSignIn } from './oauth-harness.js';

/** What the real provider publishes at its discovery URL (only the fields the sign-in needs). */
interface Discovery {
  url: string;
  document: Record<string, unknown>;
}

interface CatalogCase {
  id: string;
  /** Builds the provider; `fetch` answers discovery for the OpenID providers. */
  create: (fetch: CustomFetch) => AnyProvider;
  /** `AUTH_<ID>_ISSUER`, for the providers found by an issuer the user chooses. */
  issuer?: string;
  discovery?: Discovery;
  /** The provider's authorization endpoint, without query. */
  authorizationEndpoint: string;
  scope: string;
  checks: readonly string[];
}

const entraTenant = '72f988bf-86f1-41af-91ab-2d7cd011db47';

function openIdDocument(issuer: string, endpoints: { authorization: string; token: string; userinfo: string; jwks: string }): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
    userinfo_endpoint: endpoints.userinfo,
    jwks_uri: endpoints.jwks,
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    code_challenge_methods_supported: ['S256'],
  };
}

const catalog: CatalogCase[] = [
  {
    id: 'oidc',
    create: (fetch) => OIDC({ [customFetch]: fetch }),
    issuer: 'https://id.example.com',
    discovery: {
      url: 'https://id.example.com/.well-known/openid-configuration',
      document: openIdDocument('https://id.example.com', {
        authorization: 'https://id.example.com/authorize',
        token: 'https://id.example.com/token',
        userinfo: 'https://id.example.com/userinfo',
        jwks: 'https://id.example.com/jwks',
      }),
    },
    authorizationEndpoint: 'https://id.example.com/authorize',
    scope: 'openid profile email',
    checks: ['pkce'],
  },
  {
    id: 'github',
    create: (fetch) => GitHub({ [customFetch]: fetch }),
    authorizationEndpoint: 'https://github.com/login/oauth/authorize',
    scope: 'read:user user:email',
    checks: ['pkce', 'state'],
  },
  {
    id: 'google',
    create: (fetch) => Google({ [customFetch]: fetch }),
    discovery: {
      url: 'https://accounts.google.com/.well-known/openid-configuration',
      document: openIdDocument('https://accounts.google.com', {
        authorization: 'https://accounts.google.com/o/oauth2/v2/auth',
        token: 'https://oauth2.googleapis.com/token',
        userinfo: 'https://openidconnect.googleapis.com/v1/userinfo',
        jwks: 'https://www.googleapis.com/oauth2/v3/certs',
      }),
    },
    authorizationEndpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
    scope: 'openid profile email',
    checks: ['pkce'],
  },
  {
    id: 'microblog',
    create: (fetch) => Microblog({ [customFetch]: fetch }),
    authorizationEndpoint: 'https://x.com/i/oauth2/authorize',
    scope: 'users.read tweet.read offline.access',
    checks: ['pkce', 'state'],
  },
  {
    id: 'discord',
    create: (fetch) => Discord({ [customFetch]: fetch }),
    authorizationEndpoint: 'https://discord.com/api/oauth2/authorize',
    scope: 'identify email',
    checks: ['pkce', 'state'],
  },
  {
    id: 'gitlab',
    create: (fetch) => GitLab({ [customFetch]: fetch }),
    authorizationEndpoint: 'https://gitlab.com/oauth/authorize',
    scope: 'read_user',
    checks: ['pkce', 'state'],
  },
  {
    id: 'microsoft-entra-id',
    create: (fetch) => MicrosoftEntraID({ [customFetch]: fetch }),
    issuer: `https://login.microsoftonline.com/${entraTenant}/v2.0`,
    discovery: {
      url: `https://login.microsoftonline.com/${entraTenant}/v2.0/.well-known/openid-configuration`,
      document: openIdDocument(`https://login.microsoftonline.com/${entraTenant}/v2.0`, {
        authorization: `https://login.microsoftonline.com/${entraTenant}/oauth2/v2.0/authorize`,
        token: `https://login.microsoftonline.com/${entraTenant}/oauth2/v2.0/token`,
        userinfo: 'https://graph.microsoft.com/oidc/userinfo',
        jwks: `https://login.microsoftonline.com/${entraTenant}/discovery/v2.0/keys`,
      }),
    },
    authorizationEndpoint: `https://login.microsoftonline.com/${entraTenant}/oauth2/v2.0/authorize`,
    scope: 'openid profile email User.Read',
    checks: ['pkce'],
  },
  {
    id: 'auth0',
    create: (fetch) => Auth0({ [customFetch]: fetch }),
    issuer: 'https://acme.eu.auth0.com/',
    discovery: {
      url: 'https://acme.eu.auth0.com/.well-known/openid-configuration',
      document: openIdDocument('https://acme.eu.auth0.com/', {
        authorization: 'https://acme.eu.auth0.com/authorize',
        token: 'https://acme.eu.auth0.com/oauth/token',
        userinfo: 'https://acme.eu.auth0.com/userinfo',
        jwks: 'https://acme.eu.auth0.com/.well-known/jwks.json',
      }),
    },
    authorizationEndpoint: 'https://acme.eu.auth0.com/authorize',
    scope: 'openid profile email',
    checks: ['pkce'],
  },
  {
    id: 'keycloak',
    create: (fetch) => Keycloak({ [customFetch]: fetch }),
    issuer: 'https://sso.example.com/realms/acme',
    discovery: {
      url: 'https://sso.example.com/realms/acme/.well-known/openid-configuration',
      document: openIdDocument('https://sso.example.com/realms/acme', {
        authorization: 'https://sso.example.com/realms/acme/protocol/openid-connect/auth',
        token: 'https://sso.example.com/realms/acme/protocol/openid-connect/token',
        userinfo: 'https://sso.example.com/realms/acme/protocol/openid-connect/userinfo',
        jwks: 'https://sso.example.com/realms/acme/protocol/openid-connect/certs',
      }),
    },
    authorizationEndpoint: 'https://sso.example.com/realms/acme/protocol/openid-connect/auth',
    scope: 'openid profile email',
    checks: ['pkce'],
  },
];

/** `AUTH_<ID>_…` names and values for a catalog id. */
function envOf(entry: CatalogCase): Record<string, string> {
  const prefix = `AUTH_${entry.id.toUpperCase().replace(/-/g, '_')}`;
  return {
    [`${prefix}_ID`]: `${entry.id}-client-id`,
    [`${prefix}_SECRET`]: `${entry.id}-client-secret`,
    ...(entry.issuer && { [`${prefix}_ISSUER`]: entry.issuer }),
  };
}

/**
 * A customFetch that answers the one discovery URL of `entry` and records every URL it is asked for. Anything
 * else is refused: no test request may leave this machine.
 */
function discoveryFetch(entry: CatalogCase) {
  const urls: string[] = [];
  const fetch: CustomFetch = async (input) => {
    const url = input instanceof Request ? input.url : String(input);
    urls.push(url);
    if (entry.discovery && url === entry.discovery.url) return Response.json(entry.discovery.document);
    throw new Error(`unexpected request to ${url}`);
  };
  return { urls, fetch };
}

const apps = new AppRegistry();
afterEach(() => {
  vi.unstubAllEnvs();
});
afterAll(async () => {
  await apps.closeAll();
});

describe.each(catalog)('provider $id', (entry) => {
  it('passes resolveConfig with its client id, secret and issuer taken from the AUTH_<ID>_* env vars', () => {
    const env = envOf(entry);
    const options = resolveConfig({ secret: SECRET, providers: [entry.create(discoveryFetch(entry).fetch)] }, env);
    const provider = options.providers[0] as ResolvedOAuthProvider;
    expect(provider).toMatchObject({ id: entry.id, clientId: `${entry.id}-client-id`, clientSecret: `${entry.id}-client-secret` });
    expect([...provider.checks].sort()).toEqual([...entry.checks].sort());
    if (entry.issuer) expect(provider.issuer).toBe(entry.issuer);
  });

  it('is listed by GET /auth/providers with its sign-in and callback URLs', async () => {
    for (const [name, value] of Object.entries(envOf(entry))) vi.stubEnv(name, value);
    const app = await apps.start({ providers: [entry.create(discoveryFetch(entry).fetch)] });
    const response = await app.fetch(createJar(), '/auth/providers');
    expect(response.status).toBe(200);
    const listed = (await response.json()) as Record<string, { id: string; callbackUrl: string; signinUrl: string }>;
    expect(listed[entry.id]).toMatchObject({
      id: entry.id,
      signinUrl: `${app.url}/auth/signin/${entry.id}`,
      callbackUrl: app.redirectUri(entry.id),
    });
  });

  it("redirects POST /auth/signin/<id> to the provider's authorization URL with client_id, scope, redirect_uri and its checks", async () => {
    for (const [name, value] of Object.entries(envOf(entry))) vi.stubEnv(name, value);
    const spy = discoveryFetch(entry);
    const app = await apps.start({ providers: [entry.create(spy.fetch)] });
    const { authorizationUrl } = await startSignIn(app, createJar(), { providerId: entry.id });

    expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(entry.authorizationEndpoint);
    const params = authorizationUrl.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe(`${entry.id}-client-id`);
    expect(params.get('scope')).toBe(entry.scope);
    expect(params.get('redirect_uri')).toBe(app.redirectUri(entry.id));
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('code_challenge_method')).toBe('S256');
    if (entry.checks.includes('state')) expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    else expect(params.has('state')).toBe(false);
    expect(spy.urls).toEqual(entry.discovery ? [entry.discovery.url] : []);
  });
});

describe('provider credentials', () => {
  it('passes resolveConfig and is listed by GET /auth/providers', async () => {
    const options = resolveConfig({ secret: SECRET, providers: [passwordProvider()] }, {});
    expect(options.providers[0]).toMatchObject({ id: 'credentials', type: 'credentials' });
    const app = await apps.start({ providers: [passwordProvider()] });
    const listed = (await (await app.fetch(createJar(), '/auth/providers')).json()) as Record<string, { callbackUrl: string }>;
    expect(listed.credentials).toMatchObject({ callbackUrl: app.redirectUri('credentials') });
  });
});

describe('catalog factories', () => {
  it('give every provider a brand colour, text colour and name for its sign-in button', () => {
    const fetch = discoveryFetch(catalog[0]!).fetch;
    for (const entry of catalog) {
      const provider = entry.create(fetch) as { name: string; style?: { brandColor?: string; text?: string; logo?: string } };
      expect(provider.name, entry.id).toBeTruthy();
      expect(provider.style?.brandColor, entry.id).toMatch(/^#[0-9a-f]{6}$/i);
      expect(provider.style?.text, entry.id).toMatch(/^#[0-9a-f]{3,6}$/i);
      if (provider.style?.logo) expect(provider.style.logo, entry.id).toMatch(/^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
    }
  });

  it('can be listed uncalled (providers: [GitHub, Google, Microblog]) and show a button with their logo on the sign-in page', async () => {
    const app = await apps.start({ providers: [GitHub, Google, Microblog, Discord] });
    const response = await app.fetch(createJar(), '/auth/signin');
    expect(response.status).toBe(200);
    const page = await response.text();
    for (const name of ['GitHub', 'Google', 'X', 'Discord']) expect(page).toContain(`Sign in with ${name}</span>`);
    expect(page.match(/<img src="data:image\/svg\+xml;charset=utf-8,%3Csvg[^"]*"/g)).toHaveLength(3);
    expect(page).toContain('--button-bg:#24292f');
  });

  it('leave an OpenID provider without AUTH_<ID>_ISSUER to fail at sign-in with a Configuration error naming it', async () => {
    vi.stubEnv('AUTH_KEYCLOAK_ID', 'keycloak-client-id');
    vi.stubEnv('AUTH_KEYCLOAK_SECRET', 'keycloak-client-secret');
    vi.stubEnv('AUTH_KEYCLOAK_ISSUER', '');
    const app = await apps.start({ providers: [Keycloak()] });
    const jar = createJar();
    const csrfToken = await csrfTokenOf(app, jar);
    const response = await app.fetch(jar, '/auth/signin/keycloak', { method: 'POST', ...formBody({ csrfToken }) });
    expectRedirect(response, { pathname: '/auth/error', error: 'Configuration' });
    expect(loggedTypes(app)).toEqual(['InvalidEndpoints']);
    expect(app.errors[0]!.message).toBe('Provider "keycloak" has no issuer: set AUTH_KEYCLOAK_ISSUER in .env');
  });

  it('let options override single endpoints (a self-managed GitLab via baseUrl)', () => {
    const options = resolveConfig({ secret: SECRET, providers: [GitLab({ baseUrl: 'https://gitlab.example.com/' })] }, {});
    expect(options.providers[0]).toMatchObject({
      authorization: { url: 'https://gitlab.example.com/oauth/authorize', params: { scope: 'read_user' } },
      token: { url: 'https://gitlab.example.com/oauth/token' },
      userinfo: { url: 'https://gitlab.example.com/api/v4/user' },
    });
  });

  it('point GitHub Enterprise Server at its own host and API', () => {
    const options = resolveConfig({ secret: SECRET, providers: [GitHub({ enterprise: { baseUrl: 'https://github.example.com' } })] }, {});
    expect(options.providers[0]).toMatchObject({
      issuer: 'https://github.example.com/login/oauth',
      authorization: { url: 'https://github.example.com/login/oauth/authorize' },
      token: { url: 'https://github.example.com/login/oauth/access_token' },
      userinfo: { url: 'https://github.example.com/api/v3/user' },
    });
  });

  it('refuse a multi-tenant Entra ID issuer, naming the tenant-specific form', () => {
    expect(() => MicrosoftEntraID({ issuer: 'https://login.microsoftonline.com/common/v2.0' })).toThrow(
      /multi-tenant endpoint.*https:\/\/login\.microsoftonline\.com\/<tenant id>\/v2\.0/,
    );
  });
});

describe('profile mappings', () => {
  const tokens = {};

  it('Discord: global name, else username; avatar URL from id and hash (animated as GIF)', async () => {
    const provider = Discord();
    const base = { id: '80351110224678912', username: 'nelly', discriminator: '0', email: 'nelly@example.test', verified: true };
    const user = await provider.profile!({ ...base, global_name: 'Nelly', avatar: 'a_8342729096ea3675442027381ff50dfe' } as never, tokens);
    expect(user).toEqual({
      id: '80351110224678912',
      name: 'Nelly',
      email: 'nelly@example.test',
      image: 'https://cdn.discordapp.com/avatars/80351110224678912/a_8342729096ea3675442027381ff50dfe.gif',
    });
    expect((await provider.profile!({ ...base, global_name: null, avatar: null } as never, tokens)).name).toBe('nelly');
  });

  it('Discord: a user without an avatar gets the default one Discord picks from the id or the legacy tag', () => {
    // (80351110224678912 >> 22) % 6 = 19157197529 % 6 = 5
    expect(discordAvatarUrl({ id: '80351110224678912', avatar: null, discriminator: '0' })).toBe('https://cdn.discordapp.com/embed/avatars/5.png');
    expect(discordAvatarUrl({ id: '80351110224678912', avatar: null, discriminator: '1337' })).toBe('https://cdn.discordapp.com/embed/avatars/2.png');
  });

  it('GitLab: numeric id as a string, name, email and avatar', async () => {
    const user = await GitLab().profile!({ id: 42, username: 'ada', name: 'Ada', email: 'ada@example.test', avatar_url: 'https://gitlab.example/ada.png' } as never, tokens);
    expect(user).toEqual({ id: '42', name: 'Ada', email: 'ada@example.test', image: 'https://gitlab.example/ada.png' });
  });

  it('Entra ID: the id is sub, as in Auth.js, and there is no image', async () => {
    const user = await MicrosoftEntraID().profile!({ sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', oid: '00000000-0000-0000-66f3-3332eca7ea81', name: 'Ada', email: 'ada@contoso.test' } as never, tokens);
    expect(user).toEqual({ id: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', name: 'Ada', email: 'ada@contoso.test', image: null });
  });

  it('Keycloak: name falls back to preferred_username', async () => {
    const user = await Keycloak().profile!({ sub: 'f1c2', preferred_username: 'ada' } as never, tokens);
    expect(user).toEqual({ id: 'f1c2', name: 'ada', email: null, image: null });
  });
});
