// Which provider URLs the runtime will talk to: plain http only to this machine (a loopback IP literal or exactly
// `localhost`), discovery (`issuer`, `wellKnown`) and the JWKS only over https otherwise. A URL that breaks the rule
// is refused with a message naming it, before any request is made.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { isSecureOrLoopback } from '../../templates/runtime/oauth/server.js';
import Microblog from '../../templates/runtime/providers/microblog.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { customFetch, type CustomFetch } from '../../templates/runtime/contracts.js';
import { createJar, formBody } from '../support/cookie-jar.js';

import { pendingCallbackViaStandIn } from './support/oauth-flow.js';
import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn } from './support/oidc-stand-in.js';
import { MOUNT, csrfToken, expectNoSession, expectRefusalRedirect, startScaffoldApp } from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';

describe('isSecureOrLoopback (plain http only to this machine)', () => {
  it.each(['http://localhost:3000/x', 'http://127.0.0.1:8080', 'http://127.1.2.3/', 'http://127.1/', 'http://[::1]:4000/', 'http://[0:0:0:0:0:0:0:1]/'])(
    'is true for %s',
    (url) => {
      expect(isSecureOrLoopback(url)).toBe(true);
    },
  );

  it.each([
    'http://127.attacker.example/',
    'http://127.0.0.1.attacker.example/',
    'http://localhost.attacker.example/',
    'http://attacker.example/127.0.0.1',
    'http://128.0.0.1/',
    'http://[::2]/',
    'not a url',
  ])('is false for %s', (url) => {
    expect(isSecureOrLoopback(url)).toBe(false);
  });
});

/** A customFetch that records every URL and answers nothing: the refusals below must come before it is called. */
function recordingFetch(): { urls: string[]; fetch: CustomFetch } {
  const urls: string[] = [];
  return {
    urls,
    fetch: (input) => {
      urls.push(input instanceof Request ? input.url : String(input));
      return Promise.reject(new Error('the test allows no request'));
    },
  };
}

describe('discovery URLs', () => {
  const apps: ScaffoldApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  /** Starts a sign-in with an OpenID provider configured by `urls`: the answer, the log and what was fetched. */
  async function signInWith(urls: { issuer?: string; wellKnown?: string }) {
    const spy = recordingFetch();
    const app = await startScaffoldApp({ providers: [OIDC({ ...urls, clientId: 'client', clientSecret: 'secret', [customFetch]: spy.fetch })] });
    apps.push(app);
    const jar = createJar();
    const response = await jar.fetch(`${app.url}${MOUNT}/signin/oidc`, { method: 'POST', ...formBody({ csrfToken: await csrfToken(app.url, jar), callbackUrl: '/me' }) });
    return { app, jar, response, fetched: spy.urls };
  }

  it.each([
    ['http to a remote host', 'http://idp.attacker.example/.well-known/openid-configuration', 'http://idp.attacker.example'],
    ['http to a name that starts with 127.', 'http://127.attacker.example/.well-known/openid-configuration', 'http://127.attacker.example'],
    ['file:', 'file:///etc/passwd', 'file:'],
    ['data:', 'data:application/json,{"issuer":"https://idp.example"}', 'data:'],
    ['ftp:', 'ftp://idp.example/openid-configuration', 'ftp://idp.example'],
  ])('refuses a wellKnown over %s before fetching anything', async (_name, wellKnown, shown) => {
    const { app, jar, response, fetched } = await signInWith({ wellKnown });
    expectRefusalRedirect(response, app.url, { page: 'error', error: 'Configuration' });
    await expectNoSession(app.url, jar, response);
    expect(app.log.types()).toEqual(['InvalidEndpoints']);
    expect(app.log.errors[0]!.message).toBe(`Provider "oidc": wellKnown must be an https URL, or http to localhost/127.0.0.1/[::1] (got ${shown})`);
    expect(fetched).toEqual([]);
  });

  it('refuses an issuer over http to a remote host before fetching anything', async () => {
    const { app, response, fetched } = await signInWith({ issuer: 'http://127.attacker.example' });
    expectRefusalRedirect(response, app.url, { page: 'error', error: 'Configuration' });
    expect(app.log.errors[0]!.message).toBe('Provider "oidc": issuer must be an https URL, or http to localhost/127.0.0.1/[::1] (got http://127.attacker.example)');
    expect(fetched).toEqual([]);
  });

  it('fetches discovery over https (the request reaches customFetch)', async () => {
    const { app, response, fetched } = await signInWith({ issuer: 'https://idp.example' });
    expectRefusalRedirect(response, app.url, { page: 'signin', error: 'OAuthSignInError' });
    expect(fetched).toEqual(['https://idp.example/.well-known/openid-configuration']);
  });

  it('refuses an OAuth 1.0a endpoint over http to a name that starts with 127.', async () => {
    const app = await startScaffoldApp({
      providers: [
        Microblog({
          version: '1.0A',
          clientId: 'consumer',
          clientSecret: 'consumer-secret',
          requestTokenUrl: 'http://127.attacker.example/oauth/request_token',
        }),
      ],
    });
    apps.push(app);
    const jar = createJar();
    const response = await jar.fetch(`${app.url}${MOUNT}/signin/microblog`, { method: 'POST', ...formBody({ csrfToken: await csrfToken(app.url, jar) }) });
    expectRefusalRedirect(response, app.url, { page: 'error', error: 'Configuration' });
    expect(app.log.errors[0]!.message).toBe('Provider "microblog": the request token URL must use https (got http://127.attacker.example)');
  });
});

describe('the JWKS URL', () => {
  let standIn: OidcStandIn;
  let app: ScaffoldApp;
  const fetched: string[] = [];

  beforeAll(async () => {
    standIn = await startOidcStandIn();
    const record: CustomFetch = (input, init) => {
      fetched.push(input instanceof Request ? input.url : String(input));
      return fetch(input, init);
    };
    app = await startScaffoldApp({
      providers: [OIDC({ issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret, [customFetch]: record })],
    });
  });
  afterAll(async () => {
    await app?.close();
    await standIn?.close();
  });
  beforeEach(() => app.log.clear());

  it('refuses a jwks_uri over http to a remote host without fetching it, and so the ID token', async () => {
    standIn.behaviour = { metadata: (metadata) => ({ ...metadata, jwks_uri: 'http://keys.attacker.example/jwks' }) };
    const jar = createJar();
    const response = await jar.fetch(await pendingCallbackViaStandIn(app.url, jar, 'oidc'));
    expectRefusalRedirect(response, app.url, { page: 'signin', error: 'OAuthCallbackError' });
    await expectNoSession(app.url, jar, response);
    const cause = (app.log.errors[0] as Error & { cause?: { err?: Error } }).cause?.err;
    expect(cause?.message).toBe('the jwks_uri must be an https URL, or http to localhost/127.0.0.1/[::1] (got http://keys.attacker.example)');
    expect(fetched.filter((url) => url.includes('attacker'))).toEqual([]);
  });
});
