// Plain http to a provider only on this machine, and only for an issuer on this machine: a remote https issuer whose
// discovery names `http://127.0.0.1:…` endpoints is refused with InvalidEndpoints before any request carrying the
// client secret or a token is sent. The "remote" issuer is https://id.example.test, answered by a customFetch; the
// endpoints it names are a listener on 127.0.0.1 that counts what reaches it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { InvalidEndpoints, customFetch, resolveConfig } from '../../templates/runtime/index.js';
import type { CustomFetch } from '../../templates/runtime/index.js';
import { refreshTokenGrant } from '../../templates/runtime/oauth/refresh.js';
import { authorizationServer } from '../../templates/runtime/oauth/server.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import type { OIDCUserConfig, ResolvedOAuthProvider } from '../../templates/runtime/contracts.js';
import { createJar } from '../support/cookie-jar.js';
import type { RunningApp } from '../support/listen.js';

import { SECRET } from './helpers.js';
import { AppRegistry, expectRedirect, loggedTypes, startSignIn } from './oauth-harness.js';
import { startStandIn } from './stand-in.js';

const REMOTE_ISSUER = 'https://id.example.test';
const REMOTE_DISCOVERY = `${REMOTE_ISSUER}/.well-known/openid-configuration`;

let local: RunningApp;
/** Requests that reached the listener on 127.0.0.1. */
let received: string[] = [];
/** The discovery document the listener serves, for an issuer on 127.0.0.1. */
let localDocument: Record<string, string> = {};
const apps = new AppRegistry();

beforeAll(async () => {
  local = await startStandIn((app) => {
    app.use((req, res) => {
      received.push(`${req.method} ${req.path}`);
      if (req.path === '/.well-known/openid-configuration') res.json(localDocument);
      else res.status(400).json({ error: 'invalid_grant' });
    });
  });
});
afterAll(async () => {
  await apps.closeAll();
  await local?.close();
});
beforeEach(() => {
  received = [];
});

/** A discovery document of `issuer`, whose endpoints are below the issuer unless `endpoints` names others. */
function discoveryDocument(issuer: string, endpoints: Record<string, string> = {}): Record<string, string> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    userinfo_endpoint: `${issuer}/me`,
    jwks_uri: `${issuer}/jwks`,
    ...endpoints,
  };
}

/** A customFetch that answers REMOTE_DISCOVERY with `document`, passes requests to 127.0.0.1 on, and records them. */
function remoteDiscovery(document: Record<string, string>): { fetched: string[]; fetch: CustomFetch } {
  const fetched: string[] = [];
  return {
    fetched,
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      fetched.push(url);
      if (url === REMOTE_DISCOVERY) return Promise.resolve(Response.json(document));
      if (new URL(url).hostname === '127.0.0.1') return fetch(input, init);
      return Promise.reject(new Error(`test refused a request to ${url}`));
    },
  };
}

function resolvedOidc(options: OIDCUserConfig): ResolvedOAuthProvider {
  const config = { secret: SECRET, providers: [OIDC({ clientId: 'client', clientSecret: 'client-secret', ...options })] };
  return resolveConfig(config, {}).providers[0] as ResolvedOAuthProvider;
}

describe('an https issuer', () => {
  it.each(['token_endpoint', 'userinfo_endpoint', 'jwks_uri', 'revocation_endpoint'])(
    'is refused when its discovery names an http %s on 127.0.0.1',
    async (name) => {
      const document = discoveryDocument(REMOTE_ISSUER, { [name]: `${local.url}/${name}` });
      const provider = resolvedOidc({ issuer: REMOTE_ISSUER, [customFetch]: remoteDiscovery(document).fetch });

      const refusal = authorizationServer(provider);
      await expect(refusal).rejects.toBeInstanceOf(InvalidEndpoints);
      await expect(refusal).rejects.toThrow(
        `Provider "oidc": ${name} must be an https URL, as ${REMOTE_ISSUER} is not on this machine (got ${local.url})`,
      );
    },
  );

  it('sends no refresh token or client secret to an http token endpoint on 127.0.0.1 that its discovery names', async () => {
    const document = discoveryDocument(REMOTE_ISSUER, { token_endpoint: `${local.url}/token` });
    const provider = resolvedOidc({ issuer: REMOTE_ISSUER, [customFetch]: remoteDiscovery(document).fetch });

    const refusal: unknown = await refreshTokenGrant(provider, 'refresh-token').catch((error: unknown) => error);
    expect(received).toEqual([]);
    expect(refusal).toBeInstanceOf(InvalidEndpoints);
  });

  it('answers a sign-in with the Configuration error when its discovery names an http endpoint on 127.0.0.1', async () => {
    const document = discoveryDocument(REMOTE_ISSUER, { userinfo_endpoint: `${local.url}/me` });
    const app = await apps.start({
      providers: [OIDC({ issuer: REMOTE_ISSUER, clientId: 'client', clientSecret: 'client-secret', [customFetch]: remoteDiscovery(document).fetch })],
    });

    const { response } = await startSignIn(app, createJar());
    expectRedirect(response, { origin: app.url, pathname: '/auth/error', error: 'Configuration' });
    expect(loggedTypes(app)).toEqual(['InvalidEndpoints']);
    expect(app.errors[0]!.message).toBe(
      `Provider "oidc": userinfo_endpoint must be an https URL, as ${REMOTE_ISSUER} is not on this machine (got ${local.url})`,
    );
    expect(received).toEqual([]);
  });
});

describe('a remote wellKnown', () => {
  it('is refused when its document names http endpoints on 127.0.0.1, even under an issuer on 127.0.0.1', async () => {
    const document = discoveryDocument(local.url, { authorization_endpoint: `${REMOTE_ISSUER}/auth`, jwks_uri: `${REMOTE_ISSUER}/jwks` });
    const provider = resolvedOidc({ wellKnown: REMOTE_DISCOVERY, [customFetch]: remoteDiscovery(document).fetch });

    await expect(authorizationServer(provider)).rejects.toThrow(
      `Provider "oidc": token_endpoint must be an https URL, as ${REMOTE_ISSUER} is not on this machine (got ${local.url})`,
    );
    expect(received).toEqual([]);
  });
});

describe('an issuer on 127.0.0.1', () => {
  it('may name http endpoints on 127.0.0.1', async () => {
    localDocument = discoveryDocument(local.url);
    const provider = resolvedOidc({ issuer: local.url });

    await expect(authorizationServer(provider)).resolves.toMatchObject({ token_endpoint: `${local.url}/token`, jwks_uri: `${local.url}/jwks` });
  });

  it('sends nothing to an http token endpoint on a remote host that its discovery names', async () => {
    localDocument = discoveryDocument(local.url, { token_endpoint: 'http://token.example.test/token' });
    const { fetched, fetch } = remoteDiscovery({});
    const provider = resolvedOidc({ issuer: local.url, [customFetch]: fetch });

    await expect(refreshTokenGrant(provider, 'refresh-token')).rejects.toThrow('only requests to HTTPS are allowed');
    expect(fetched).toEqual([`${local.url}/.well-known/openid-configuration`]);
  });
});
