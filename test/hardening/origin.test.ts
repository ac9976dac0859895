// Issue 14, origin from configuration: no client can choose where a link, code or redirect goes. An attacker controls
// Host and X-Forwarded-Host (the scaffold's app trusts a loopback proxy, which the tests' client is); the emailed
// sign-in link, the verify-request redirect and the redirect proxy's target stay on AUTH_URL or an allow-listed host.
import { afterAll, describe, expect, it } from 'vitest';

import { FrameworkAuth, UntrustedHost, decode, encode, resolveConfig } from '../../templates/runtime/index.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Email from '../../templates/runtime/providers/email.js';
import { isTrustedOrigin, parseTrustedHosts } from '../../templates/runtime/http/origin.js';
import { createJar, formBody } from '../support/cookie-jar.js';

import { rawRequest } from './support/raw-http.js';
import { MOUNT, SECRET, csrfToken, passwordProvider, startScaffoldApp } from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';
import { acme } from './support/explicit-provider.js';

const attacker = 'attacker.example';
const hostile = { host: attacker, 'x-forwarded-host': attacker };
const apps: ScaffoldApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
});

/** An app with the email provider whose messages are kept, started as the scaffold's. */
async function emailApp(config: Partial<FrameworkAuthConfig>, env: Record<string, string> = {}): Promise<ScaffoldApp & { links: string[] }> {
  const links: string[] = [];
  const app = await startScaffoldApp(
    { adapter: MemoryAdapter(), providers: [Email({ sendVerificationRequest: ({ url }) => void links.push(url) })], ...config },
    { env },
  );
  apps.push(app);
  return Object.assign(app, { links });
}

/** POST /auth/signin/email for `email` with the hostile headers: the raw answer. */
async function requestLinkWithHostileHost(app: ScaffoldApp, email: string) {
  const jar = createJar();
  const token = await csrfToken(app.url, jar);
  // With an https AUTH_URL the cookies are Secure (and prefixed); the test's plain-HTTP client still sends them.
  const cookie = jar.header(app.url, { secure: true });
  return rawRequest(app.url, {
    method: 'POST',
    path: `${MOUNT}/signin/email`,
    headers: { ...hostile, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrfToken: token, email }).toString(),
  });
}

describe('magic-link poisoning', () => {
  it('refuses to start an email provider with trustHost: true and no AUTH_URL, naming AUTH_URL', () => {
    const config: FrameworkAuthConfig = { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [Email({ sendVerificationRequest: () => {} })] };
    expect(() => FrameworkAuth(config)).toThrow(UntrustedHost);
    expect(() => FrameworkAuth({ ...config })).toThrow(/set AUTH_URL/);
  });

  it('refuses to start with AUTH_TRUST_HOST=true and NODE_ENV unset, the setup the old error message suggested', () => {
    const config: FrameworkAuthConfig = { secret: SECRET, adapter: MemoryAdapter(), providers: [Email({ sendVerificationRequest: () => {} })] };
    expect(() => resolveConfig(config, { AUTH_TRUST_HOST: 'true' })).toThrow(/AUTH_URL/);
    expect(() => resolveConfig(config, {})).toThrow(/AUTH_URL/);
  });

  it('emails a link on AUTH_URL whatever Host and X-Forwarded-Host say, and redirects to verify-request there', async () => {
    const app = await emailApp({ trustHost: true }, { AUTH_URL: 'https://app.example.test' });
    const response = await requestLinkWithHostileHost(app, 'victim@example.test');
    expect(response.status).toBe(302);
    expect(app.links).toHaveLength(1);
    expect(new URL(app.links[0]!).origin).toBe('https://app.example.test');
    expect(app.links[0]).not.toContain(attacker);
    expect(new URL(String(response.headers.location)).origin).toBe('https://app.example.test');
  });

  it('with a trustHost list, refuses a request for a host not on it and sends no email', async () => {
    const app = await emailApp({ trustHost: ['127.0.0.1'] });
    const response = await requestLinkWithHostileHost(app, 'victim@example.test');
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.headers)).not.toContain(attacker);
    expect(app.links).toHaveLength(0);
  });

  it('with a trustHost list, builds the link on the listed host the request came to, and it signs the user in', async () => {
    const app = await emailApp({ trustHost: ['127.0.0.1'] });
    const jar = createJar();
    const token = await csrfToken(app.url, jar);
    const sent = await jar.fetch(`${app.url}${MOUNT}/signin/email`, { method: 'POST', ...formBody({ csrfToken: token, email: 'ada@example.test' }) });
    expect(sent.status).toBe(302);
    expect(new URL(app.links[0]!).origin).toBe(app.url);
    const used = await jar.fetch(app.links[0]!);
    expect(used.status).toBe(302);
    const me = await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } });
    expect(await me.json()).toMatchObject({ user: { email: 'ada@example.test' } });
  });

  it('reads AUTH_TRUST_HOST as a comma-separated list of hosts', async () => {
    const app = await emailApp({ trustHost: undefined }, { AUTH_TRUST_HOST: 'app.example.test, 127.0.0.1' });
    const response = await requestLinkWithHostileHost(app, 'victim@example.test');
    expect(response.status).toBe(400);
    expect(app.links).toHaveLength(0);
  });
});

describe('the redirect proxy', () => {
  const proxyOrigin = 'https://auth.example.test';
  const previewOrigin = 'https://pr-7.preview.example.test';
  // Both apps are on https AUTH_URLs: the state is encrypted with the Secure cookie's name as salt.
  const secureStateCookie = '__Secure-authjs.state';

  it('refuses to start a provider behind the redirect proxy without a configured origin', () => {
    expect(() => resolveConfig({ secret: SECRET, trustHost: true, providers: [acme()], redirectProxyUrl: `${proxyOrigin}/auth` }, {})).toThrow(/AUTH_URL/);
  });

  it('puts AUTH_URL, not the Host header, into the state the proxy forwards by', async () => {
    const preview = await startScaffoldApp({ trustHost: true, providers: [acme()], redirectProxyUrl: `${proxyOrigin}/auth` }, { env: { AUTH_URL: previewOrigin } });
    apps.push(preview);
    const jar = createJar();
    const token = await csrfToken(preview.url, jar);
    const response = await rawRequest(preview.url, {
      method: 'POST',
      path: `${MOUNT}/signin/acme`,
      headers: { ...hostile, cookie: jar.header(preview.url, { secure: true }), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken: token }).toString(),
    });
    const authorization = new URL(String(response.headers.location));
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${proxyOrigin}/auth/callback/acme`);
    const state = await decode({ token: authorization.searchParams.get('state') ?? '', secret: SECRET, salt: secureStateCookie });
    expect(state?.['origin']).toBe(`${previewOrigin}/auth/callback/acme`);
  });

  async function proxyCallback(trustHost: string[], target: string) {
    const proxy = await startScaffoldApp({ trustHost, providers: [acme()] }, { env: { AUTH_URL: proxyOrigin } });
    apps.push(proxy);
    const state = await encode({ token: { random: 'r', origin: `${target}/auth/callback/acme` }, secret: SECRET, salt: secureStateCookie, maxAge: 900 });
    return rawRequest(proxy.url, { path: `${MOUNT}/callback/acme?code=the-code&state=${encodeURIComponent(state)}` });
  }

  it('forwards a code to an origin on its trustHost list', async () => {
    const response = await proxyCallback(['*.preview.example.test'], previewOrigin);
    expect(response.status).toBe(302);
    const location = new URL(String(response.headers.location));
    expect(location.origin).toBe(previewOrigin);
    expect(location.searchParams.get('code')).toBe('the-code');
  });

  it('never forwards a code to an origin that is not on the list, even in a state made with the shared secret', async () => {
    const response = await proxyCallback(['*.preview.example.test'], `https://${attacker}`);
    expect(response.status).toBe(302);
    const location = String(response.headers.location);
    expect(location).not.toContain(attacker);
    expect(location).not.toContain('the-code');
    expect(new URL(location).origin).toBe(proxyOrigin);
    expect(new URL(location).searchParams.get('error')).toBe('OAuthCallbackError');
  });

  it('never forwards to plain http on a remote host, even one the list names without a scheme', async () => {
    const response = await proxyCallback(['*.preview.example.test'], 'http://pr-7.preview.example.test');
    expect(String(response.headers.location)).not.toContain('the-code');
  });
});

describe('the trustHost list', () => {
  it('matches host names on any port, host:port exactly, *.domain below the domain only, and origins by scheme', () => {
    const rules = parseTrustedHosts(['app.example.test', 'api.example.test:8443', '*.preview.example.test', 'http://127.0.0.1:3000']);
    expect(isTrustedOrigin(rules, 'https://app.example.test')).toBe(true);
    expect(isTrustedOrigin(rules, 'https://app.example.test:444')).toBe(true);
    expect(isTrustedOrigin(rules, 'https://api.example.test:8443')).toBe(true);
    expect(isTrustedOrigin(rules, 'https://api.example.test')).toBe(false);
    expect(isTrustedOrigin(rules, 'https://a.preview.example.test')).toBe(true);
    expect(isTrustedOrigin(rules, 'https://preview.example.test')).toBe(false);
    expect(isTrustedOrigin(rules, 'https://evilpreview.example.test')).toBe(false);
    expect(isTrustedOrigin(rules, 'http://app.example.test')).toBe(false);
    expect(isTrustedOrigin(rules, 'http://127.0.0.1:3000')).toBe(true);
    expect(isTrustedOrigin(rules, 'http://127.0.0.1:3001')).toBe(false);
    expect(isTrustedOrigin(rules, 'https://app.example.test.attacker.example')).toBe(false);
  });

  it.each(['https://app.example.test/path', 'ftp://app.example.test', 'app.*.example.test', 'user@app.example.test', 'app.example.test/x', ''])(
    'refuses the entry %j at startup with a TypeError that names it',
    (entry) => {
      expect(() => FrameworkAuth({ secret: SECRET, trustHost: [entry], providers: [passwordProvider()] })).toThrow(TypeError);
    },
  );
});

describe('malformed Host headers', () => {
  it.each(['localhost:99999', '[::::]', 'a b', 'app.example.test:65536', '[::1', 'user@host'])(
    'answers %j with a 4xx, also with custom sign-in and error pages (no 5xx, no stack trace)',
    async (host) => {
      const app = await startScaffoldApp({ trustHost: true, providers: [passwordProvider()], pages: { signIn: '/login', error: '/oops' } });
      apps.push(app);
      for (const path of [`${MOUNT}/signin`, `${MOUNT}/error?error=Configuration`, `${MOUNT}/providers`]) {
        const response = await rawRequest(app.url, { path, headers: { host } }).catch((error: Error) => ({ status: 400, body: error.message, headers: {} }));
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(response.body).not.toMatch(/\bat \S+ \(|node_modules|TypeError/);
      }
      expect(app.expressErrors).toEqual([]);
    },
  );
});

describe('Cache-Control on responses that set or show a session', () => {
  it('marks /auth/session, the sign-in redirect and a page behind sessionLocals private and no-store', async () => {
    const app = await startScaffoldApp({ providers: [passwordProvider()] });
    apps.push(app);
    const jar = createJar();
    const token = await csrfToken(app.url, jar);
    const signedIn = await jar.fetch(`${app.url}${MOUNT}/callback/credentials`, {
      method: 'POST',
      ...formBody({ csrfToken: token, username: 'ada', password: 'correct horse battery staple' }),
    });
    expect(signedIn.headers.get('set-cookie')).toContain('authjs.session-token');
    for (const response of [signedIn, await jar.fetch(`${app.url}${MOUNT}/session`), await jar.fetch(`${app.url}/me`)]) {
      const cacheControl = response.headers.get('cache-control') ?? '';
      expect(cacheControl).toContain('private');
      expect(cacheControl).toContain('no-store');
    }
  });
});
