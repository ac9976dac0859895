// Proves test/support works on its own: a real oidc-provider driven by oauth4webapi as the client, and the
// cookie jar against a tiny local server.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createJar, formBody } from '../support/cookie-jar.js';
import { findForm } from '../support/html-form.js';
import { loginThroughProvider, startOidcProvider } from '../support/oidc-provider.js';
import type { OidcTestClient, RunningOidcProvider } from '../support/oidc-provider.js';

// Nothing listens here: the flow stops at the redirect back to the client, like a browser handing over to the app.
const REDIRECT_URI = 'http://127.0.0.1:9/auth/callback/oidc';
const insecure = { [oauth.allowInsecureRequests]: true };

describe('startOidcProvider + loginThroughProvider', () => {
  let op: RunningOidcProvider;
  let as: oauth.AuthorizationServer;

  beforeAll(async () => {
    op = await startOidcProvider({
      clients: [
        { client_id: 'basic-client', client_secret: 'basic-secret', redirect_uris: [REDIRECT_URI] },
        {
          client_id: 'post-client',
          client_secret: 'post-secret',
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'client_secret_post',
        },
        { client_id: 'public-client', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
        { client_id: 'es-client', redirect_uris: [REDIRECT_URI], id_token_signed_response_alg: 'ES256' },
      ],
    });
    const issuer = new URL(op.issuer);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  });
  afterAll(() => op.close());

  /** Authorization request → provider login → token request, the way an RP using oauth4webapi does it. */
  async function codeFlow(
    clientId: string,
    clientAuth: oauth.ClientAuth,
    { pkce = true, login }: { pkce?: boolean; login?: string } = {},
  ) {
    const client: oauth.Client = { client_id: clientId };
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid profile email',
      state,
      nonce,
      ...(pkce ? { code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' } : {}),
    }).toString();

    const callback = new URL(await loginThroughProvider(createJar(), url, login === undefined ? {} : { login }));
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('iss')).toBe(op.issuer);

    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      REDIRECT_URI,
      pkce ? verifier : oauth.nopkce,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    return { client, tokens, claims: oauth.getValidatedIdTokenClaims(tokens)!, params, verifier };
  }

  it('runs authorization code + PKCE with client_secret_basic; profile and email claims reach id_token and userinfo', async () => {
    const { client, tokens, claims } = await codeFlow('basic-client', oauth.ClientSecretBasic('basic-secret'));

    expect(claims).toMatchObject({
      iss: op.issuer,
      aud: 'basic-client',
      sub: 'alice-sub',
      name: 'Alice Example',
      email: 'alice@example.test',
      email_verified: true,
    });
    // The signature checks out against the published test JWKS.
    const { payload, protectedHeader } = await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(op.endpoints.jwks_uri)), {
      issuer: op.issuer,
      audience: 'basic-client',
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.sub).toBe('alice-sub');

    const userinfo = await oauth.processUserInfoResponse(
      as,
      client,
      claims.sub,
      await oauth.userInfoRequest(as, client, tokens.access_token, insecure),
    );
    expect(userinfo).toMatchObject({ sub: 'alice-sub', name: 'Alice Example', email: 'alice@example.test' });
  });

  it('authenticates a client_secret_post client, state only (PKCE not required for confidential clients)', async () => {
    const { claims } = await codeFlow('post-client', oauth.ClientSecretPost('post-secret'), { pkce: false });
    expect(claims).toMatchObject({ aud: 'post-client', sub: 'alice-sub', email: 'alice@example.test' });
    const tokenRequest = op.requests.filter((r) => r.method === 'POST' && r.url === '/token').at(-1);
    expect(tokenRequest?.status).toBe(200);
  });

  it('serves a public client (none) with PKCE', async () => {
    const { claims } = await codeFlow('public-client', oauth.None());
    expect(claims).toMatchObject({ aud: 'public-client', sub: 'alice-sub', name: 'Alice Example' });
  });

  it('refuses a public client that sends no code_challenge', async () => {
    const url = new URL(op.endpoints.authorization_endpoint);
    url.search = new URLSearchParams({
      client_id: 'public-client',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid',
      state: 's',
    }).toString();
    const callback = new URL(await loginThroughProvider(createJar(), url));
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('state')).toBe('s');
  });

  it('requires PKCE from every client when settings.pkceRequired is on', async () => {
    op.settings.pkceRequired = true;
    try {
      const callback = new URL(await loginThroughProvider(createJar(), authorizationUrl(op, 'basic-client')));
      expect(callback.searchParams.get('error')).toBe('invalid_request');
      expect(callback.searchParams.get('error_description')).toMatch(/PKCE/);
    } finally {
      op.settings.pkceRequired = undefined;
    }
  });

  it('refuses a replayed authorization code and revokes the tokens it issued', async () => {
    const { client, tokens, params, verifier } = await codeFlow('basic-client', oauth.ClientSecretBasic('basic-secret'));
    const replay = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic('basic-secret'),
      params,
      REDIRECT_URI,
      verifier,
      insecure,
    );
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    expect(op.errors.at(-1)).toMatchObject({ event: 'grant.error', error: 'invalid_grant' });
    const userinfo = await oauth.userInfoRequest(as, client, tokens.access_token, insecure);
    expect(userinfo.status).toBe(401);
  });

  it('signs ID tokens with the algorithm a client registered', async () => {
    const { tokens } = await codeFlow('es-client', oauth.ClientSecretBasic('es-client-secret'));
    const { protectedHeader } = await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(op.endpoints.jwks_uri)), {
      issuer: op.issuer,
      audience: 'es-client',
    });
    expect(protectedHeader.alg).toBe('ES256');
  });

  it('exposes explicit endpoints for plain OAuth 2 configuration', () => {
    expect(op.endpoints).toMatchObject({
      issuer: op.issuer,
      authorization_endpoint: `${op.issuer}/auth`,
      token_endpoint: `${op.issuer}/token`,
      userinfo_endpoint: `${op.issuer}/me`,
      jwks_uri: `${op.issuer}/jwks`,
    });
    expect(op.issuer).toBe(`http://127.0.0.1:${op.port}`);
  });

  it('signs in other accounts, refuses unknown logins, and forgets removed accounts', async () => {
    op.setAccount('bob', { sub: 'bob-sub', name: 'Bob', email: 'bob@example.test', email_verified: false });
    const { claims } = await codeFlow('basic-client', oauth.ClientSecretBasic('basic-secret'), { login: 'bob' });
    expect(claims).toMatchObject({ sub: 'bob-sub', email: 'bob@example.test', email_verified: false });

    const refused = new URL(await loginThroughProvider(createJar(), authorizationUrl(op, 'basic-client'), { login: 'mallory' }));
    expect(Object.fromEntries(refused.searchParams)).toMatchObject({
      error: 'access_denied',
      error_description: "unknown login 'mallory'",
      state: 'st',
    });

    // Removing an account invalidates what was issued for it.
    const { client, tokens } = await codeFlow('basic-client', oauth.ClientSecretBasic('basic-secret'), { login: 'bob' });
    op.removeAccount('bob');
    const userinfo = await oauth.userInfoRequest(as, client, tokens.access_token, insecure);
    expect(userinfo.status).toBe(401);
    expect(op.errors.at(-1)).toMatchObject({ event: 'userinfo.error', error: 'invalid_token' });
  });

  it('returns access_denied when the user cancels', async () => {
    const callback = new URL(await loginThroughProvider(createJar(), authorizationUrl(op, 'basic-client'), { abort: true }));
    expect(callback.searchParams.get('error')).toBe('access_denied');
  });

  it('reuses the provider session: the second authorization needs no form', async () => {
    const jar = createJar();
    await loginThroughProvider(jar, authorizationUrl(op, 'basic-client'));
    const before = op.requests.length;
    const callback = new URL(await loginThroughProvider(jar, authorizationUrl(op, 'basic-client')));
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(op.requests.slice(before).map((r) => r.method)).toEqual(['GET']);
  });

  it('signs out through end_session (the confirmation form is submittable as is)', async () => {
    const jar = createJar();
    await loginThroughProvider(jar, authorizationUrl(op, 'basic-client'));
    const logoutUrl = `${op.endpoints.end_session_endpoint}?client_id=basic-client`;
    const page = await jar.follow(logoutUrl);
    const form = findForm(await page.response.text(), page.url, 'xsrf');
    expect(form?.fields).toMatchObject({ logout: 'yes' });
    const done = await jar.follow(form!.action, { method: 'POST', ...formBody(form!.fields) });
    expect(await done.response.text()).toContain('Signed out');

    // No provider session any more: the next authorization shows the login form again.
    const before = op.requests.length;
    await loginThroughProvider(jar, authorizationUrl(op, 'basic-client'));
    expect(op.requests.slice(before).some((r) => r.method === 'POST' && r.url.startsWith('/interaction/'))).toBe(true);
  });

  it('submits the consent form when autoConsent is off', async () => {
    op.settings.autoConsent = false;
    try {
      const { claims } = await codeFlow('basic-client', oauth.ClientSecretBasic('basic-secret'));
      expect(claims.email).toBe('alice@example.test');
      expect(op.requests.filter((r) => r.method === 'POST' && r.url.startsWith('/interaction/')).length).toBeGreaterThanOrEqual(2);
    } finally {
      op.settings.autoConsent = true;
    }
  });

  it('throws with the provider error for an unregistered redirect_uri, and records it', async () => {
    const url = authorizationUrl(op, 'basic-client', 'http://127.0.0.1:9/elsewhere');
    await expect(loginThroughProvider(createJar(), url)).rejects.toThrow(/400.*redirect_uri/);
    expect(op.errors.at(-1)).toMatchObject({ event: 'authorization.error', error: 'invalid_redirect_uri' });
  });

  it('registers clients after start (e.g. once the app port is known)', async () => {
    const registered = await op.setClient({ client_id: 'late-client', redirect_uris: [REDIRECT_URI] });
    expect(registered.client_secret).toBe('late-client-secret');
    const callback = new URL(await loginThroughProvider(createJar(), authorizationUrl(op, 'late-client')));
    expect(callback.searchParams.get('code')).toBeTruthy();
    await expect(op.setClient({ client_id: 'bad', redirect_uris: ['not a url'] } as OidcTestClient)).rejects.toThrow();
  });
});

function authorizationUrl(op: RunningOidcProvider, clientId: string, redirectUri = REDIRECT_URI): URL {
  const url = new URL(op.endpoints.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email',
    state: 'st',
  }).toString();
  return url;
}

describe('cookie jar', () => {
  it('scopes cookies by path, defaulting to the directory of the request path', () => {
    const jar = createJar();
    jar.set('http://127.0.0.1:3000/', 'root=1; Path=/');
    jar.set('http://127.0.0.1:3000/', 'scoped=2; Path=/auth');
    jar.set('http://127.0.0.1:3000/x/y/z', 'dflt=3');

    expect(jar.header('http://127.0.0.1:3000/auth/callback')).toBe('scoped=2; root=1');
    expect(jar.header('http://127.0.0.1:3000/auth')).toBe('scoped=2; root=1');
    expect(jar.header('http://127.0.0.1:3000/authx')).toBe('root=1');
    expect(jar.header('http://127.0.0.1:3000/x/y/other')).toBe('dflt=3; root=1');
    expect(jar.get('dflt', 'http://127.0.0.1:3000/x/')).toBeUndefined();
    expect(jar.get('dflt')).toBe('3');
  });

  it('keeps cookies apart by port', () => {
    const jar = createJar();
    jar.set('http://127.0.0.1:3000/', 'session=app');
    jar.set('http://127.0.0.1:4000/', 'session=idp');
    expect(jar.get('session', 'http://127.0.0.1:3000/')).toBe('app');
    expect(jar.get('session', 'http://127.0.0.1:4000/')).toBe('idp');
    expect(jar.header('http://127.0.0.1:5000/')).toBe('');
  });

  it('expires cookies by Max-Age and Expires, and deletes on Max-Age=0 or a past Expires', () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const jar = createJar({ now: () => now });
    const site = 'http://127.0.0.1:3000/';
    jar.set(site, 'short=1; Max-Age=60');
    jar.set(site, `dated=2; Expires=${new Date(now + 120_000).toUTCString()}`);
    jar.set(site, 'both=3; Max-Age=300; Expires=Thu, 01 Jan 1970 00:00:00 GMT'); // Max-Age wins
    jar.set(site, 'a=1');
    jar.set(site, 'b=1');
    expect(jar.all().map((c) => c.name).sort()).toEqual(['a', 'b', 'both', 'dated', 'short']);

    now += 61_000;
    expect(jar.get('short', site)).toBeUndefined();
    expect(jar.get('dated', site)).toBe('2');
    now += 60_000;
    expect(jar.get('dated', site)).toBeUndefined();
    expect(jar.get('both', site)).toBe('3');

    jar.set(site, 'a=; Max-Age=0');
    jar.set(site, 'b=; Expires=Thu, 01 Jan 1970 00:00:00 GMT');
    expect(jar.header(site)).toBe('both=3');
  });

  it('replaces a cookie with the same name and path, keeping others of the same name on other paths', () => {
    const jar = createJar();
    jar.set('http://127.0.0.1:3000/', 't=1; Path=/');
    jar.set('http://127.0.0.1:3000/', 't=2; Path=/a');
    jar.set('http://127.0.0.1:3000/', 't=3; Path=/');
    expect(jar.header('http://127.0.0.1:3000/a/b')).toBe('t=2; t=3');
  });

  it('sends Secure cookies to https, with assumeHttps, or with X-Forwarded-Proto: https', () => {
    const jar = createJar();
    jar.set('http://127.0.0.1:3000/', 's=1; Secure; HttpOnly; SameSite=Lax');
    expect(jar.header('http://127.0.0.1:3000/')).toBe('');
    expect(jar.header('https://127.0.0.1:3000/')).toBe('s=1');
    expect(jar.header('http://127.0.0.1:3000/', { secure: true })).toBe('s=1');
    expect(jar.all()[0]).toMatchObject({ secure: true, httpOnly: true, sameSite: 'lax' });

    const pretending = createJar({ assumeHttps: true });
    pretending.set('http://127.0.0.1:3000/', 's=1; Secure');
    expect(pretending.header('http://127.0.0.1:3000/')).toBe('s=1');
  });

  it('rejects a Domain the host does not belong to, and honours one it does', () => {
    const jar = createJar();
    jar.set('http://app.example.test:3000/', 'x=1; Domain=other.test');
    jar.set('http://app.example.test:3000/', 'y=1; Domain=example.test');
    expect(jar.header('http://api.example.test:3000/')).toBe('y=1');
    expect(jar.header('http://app.example.test:3000/')).toBe('y=1');
  });

  it('formBody builds a urlencoded body', () => {
    const { body, headers } = formBody({ a: 'x y', n: 1, list: ['p', 'q'], skip: undefined });
    expect(body.toString()).toBe('a=x+y&n=1&list=p&list=q');
    expect(headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  describe('against a server', () => {
    let server: Server;
    let base: string;

    beforeAll(async () => {
      server = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://x');
        switch (url.pathname) {
          case '/set':
            res.setHeader('set-cookie', ['one=1; Path=/', 'two=2; Path=/; HttpOnly', 'sec=3; Path=/; Secure']);
            res.end('ok');
            break;
          case '/form':
            // A POST answered with 303, like a sign-in form.
            res.writeHead(303, { location: '/hop', 'set-cookie': 'posted=yes; Path=/' }).end();
            break;
          case '/hop':
            res.writeHead(302, { location: '/echo', 'set-cookie': 'hop=1; Path=/' }).end();
            break;
          case '/away':
            res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere?x=1' }).end();
            break;
          case '/loop':
            res.writeHead(302, { location: '/loop' }).end();
            break;
          case '/echo':
            res.setHeader('content-type', 'application/json');
            res.end(
              JSON.stringify({
                method: req.method,
                cookie: req.headers.cookie ?? '',
                contentType: req.headers['content-type'] ?? null,
                xfp: req.headers['x-forwarded-proto'] ?? null,
              }),
            );
            break;
          default:
            res.writeHead(404).end();
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('stores every Set-Cookie header of a response', async () => {
      const jar = createJar();
      await (await jar.fetch(`${base}/set`)).text();
      expect(jar.all().map((c) => c.name)).toEqual(['one', 'two', 'sec']);
      const echo = (await (await jar.fetch(`${base}/echo`)).json()) as { cookie: string };
      expect(echo.cookie).toBe('one=1; two=2');
    });

    it('sends Secure cookies over http when the request says X-Forwarded-Proto: https', async () => {
      const jar = createJar();
      await (await jar.fetch(`${base}/set`)).text();
      const echo = (await (await jar.fetch(`${base}/echo`, { headers: { 'x-forwarded-proto': 'https' } })).json()) as {
        cookie: string;
      };
      expect(echo.cookie).toBe('one=1; two=2; sec=3');
    });

    it('never follows redirects in fetch()', async () => {
      const response = await createJar().fetch(`${base}/hop`);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('/echo');
    });

    it('follow() switches POST to GET on 303, keeps same-origin headers, and carries cookies set along the way', async () => {
      const jar = createJar();
      const { response, urls, url } = await jar.follow(`${base}/form`, {
        method: 'POST',
        ...formBody({ a: '1' }),
        headers: { ...formBody({}).headers, 'x-forwarded-proto': 'https' },
      });
      expect(urls).toEqual([`${base}/form`, `${base}/hop`, `${base}/echo`]);
      expect(url).toBe(`${base}/echo`);
      expect(await response.json()).toEqual({ method: 'GET', cookie: 'posted=yes; hop=1', contentType: null, xfp: 'https' });
    });

    it('follow() stops before a redirect when stopAt says so, and limits hops', async () => {
      const jar = createJar();
      const stopped = await jar.follow(`${base}/away`, {}, { stopAt: (next) => next.origin !== base });
      expect(stopped.response.status).toBe(302);
      expect(stopped.stoppedAt).toBe('http://127.0.0.1:9/elsewhere?x=1');

      await expect(jar.follow(`${base}/loop`, {}, 3)).rejects.toThrow(/more than 3 redirects/);
    });
  });
});

describe('findForm', () => {
  it('reads action, method and hidden fields, decoding entities', () => {
    const html = `<form autocomplete="off" action="/interaction/abc?x=1&amp;y=2" method="post">
      <input type="hidden" name="prompt" value="login"/><input required type="text" name="login" autofocus="on">
      <input type="checkbox" name="remember" value="yes"><input name="q" value='&quot;hi&#39;'></form>`;
    const form = findForm(html, 'http://127.0.0.1:4000/interaction/abc', 'login');
    expect(form).toMatchObject({
      action: 'http://127.0.0.1:4000/interaction/abc?x=1&y=2',
      method: 'POST',
      fields: { prompt: 'login', q: `"hi'` },
      inputNames: ['prompt', 'login', 'remember', 'q'],
    });
  });
});
