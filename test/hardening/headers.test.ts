// Headers: without `trust proxy`, X-Forwarded-Host/Proto (and Forwarded) change nothing — every URL the app builds
// keeps the real host and scheme, cookies stay plain; with AUTH_URL, even a spoofed Host changes nothing; in
// production without AUTH_URL the Host is not trusted at all. Oversized cookies, URLs and bodies get a 4xx
// (431, 413, 415), never a 5xx or a crash, and the app keeps serving. Every answer of the runtime says
// `X-Content-Type-Options: nosniff`, and the pages' forms may go only to this origin and the providers (review 5, A6).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import GitHub from '../../templates/runtime/providers/github.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { createJar, formBody } from '../support/cookie-jar.js';

import { rawRequest } from './support/raw-http.js';
import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn } from './support/oidc-stand-in.js';
import { MOUNT, SESSION_COOKIE, credentialsSignIn, csrfToken, expectStillServing, passwordProvider, signedInJar, startScaffoldApp } from './support/scaffold-app.js';
import type { AuthorizeCall, ScaffoldApp } from './support/scaffold-app.js';

let standIn: OidcStandIn;
/** No `trust proxy`, Host trusted (development default). */
let untrusted: ScaffoldApp;
/** The scaffold's `trust proxy`, AUTH_URL set to a public origin. */
let withAuthUrl: ScaffoldApp;
/** NODE_ENV=production, no AUTH_URL, no AUTH_TRUST_HOST. */
let production: ScaffoldApp;
const calls: AuthorizeCall[] = [];
const publicOrigin = 'https://app.example.test';
const spoofed = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', forwarded: 'host=evil.example;proto=https', 'x-forwarded-port': '443' };

beforeAll(async () => {
  standIn = await startOidcStandIn();
  const providers = () => [passwordProvider(calls), OIDC({ id: 'standin', issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret })];
  untrusted = await startScaffoldApp({ providers: providers() }, { trustProxy: false });
  withAuthUrl = await startScaffoldApp({ providers: providers(), trustHost: undefined }, { env: { AUTH_URL: publicOrigin } });
  production = await startScaffoldApp({ providers: providers(), trustHost: undefined }, { env: { NODE_ENV: 'production' } });
});
afterAll(async () => {
  await Promise.all([untrusted, withAuthUrl, production].map((app) => app?.close()));
  await standIn?.close();
});
beforeEach(() => {
  calls.length = 0;
});

type ProviderList = Record<string, { signinUrl: string; callbackUrl: string }>;

describe('X-Forwarded-* without trust proxy', () => {
  it('keeps the real host and scheme in every URL of /auth/providers', async () => {
    const response = await rawRequest(untrusted.url, { path: `${MOUNT}/providers`, headers: spoofed });
    expect(response.status).toBe(200);
    const providers = JSON.parse(response.body) as ProviderList;
    for (const provider of Object.values(providers)) {
      expect(new URL(provider.signinUrl).origin).toBe(untrusted.url);
      expect(new URL(provider.callbackUrl).origin).toBe(untrusted.url);
    }
  });

  it('sends the real callback URL as redirect_uri to the provider', async () => {
    const jar = createJar();
    const token = await csrfToken(untrusted.url, jar);
    const response = await jar.fetch(`${untrusted.url}${MOUNT}/signin/standin`, {
      method: 'POST',
      body: formBody({ csrfToken: token }).body,
      headers: { ...spoofed, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(302);
    const authorization = new URL(response.headers.get('location')!);
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${untrusted.url}${MOUNT}/callback/standin`);
  });

  it('neither marks cookies Secure nor gives them __Secure-/__Host- prefixes', async () => {
    const response = await rawRequest(untrusted.url, { path: `${MOUNT}/csrf`, headers: spoofed });
    expect(response.status).toBe(200);
    expect(response.setCookies).toHaveLength(1);
    expect(response.setCookies[0]).toMatch(/^authjs\.csrf-token=/);
    expect(response.setCookies[0]).not.toMatch(/Secure/);
  });

  it('redirects after sign-in to the real host', async () => {
    const jar = createJar();
    const token = await csrfToken(untrusted.url, jar);
    const response = await jar.fetch(`${untrusted.url}${MOUNT}/callback/credentials`, {
      method: 'POST',
      body: formBody({ csrfToken: token, username: 'ada', password: 'correct horse battery staple', callbackUrl: '/me' }).body,
      headers: { ...spoofed, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${untrusted.url}/me`);
    expect(response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`))).not.toMatch(/Secure/);
  });

  it('refuses a sign-in whose callbackUrl names the spoofed host', async () => {
    const jar = createJar();
    const token = await csrfToken(untrusted.url, jar);
    const response = await jar.fetch(`${untrusted.url}${MOUNT}/callback/credentials`, {
      method: 'POST',
      body: formBody({ csrfToken: token, username: 'ada', password: 'correct horse battery staple', callbackUrl: 'https://evil.example/me' }).body,
      headers: { ...spoofed, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.headers.get('location')).toBe(`${untrusted.url}/`);
  });
});

describe('Host spoofing', () => {
  it('keeps AUTH_URL in every URL whatever Host and X-Forwarded-Host say', async () => {
    const response = await rawRequest(withAuthUrl.url, { path: `${MOUNT}/providers`, headers: { ...spoofed, host: 'evil.example' } });
    expect(response.status).toBe(200);
    for (const provider of Object.values(JSON.parse(response.body) as ProviderList)) {
      expect(new URL(provider.signinUrl).origin).toBe(publicOrigin);
      expect(new URL(provider.callbackUrl).origin).toBe(publicOrigin);
    }
  });

  it('redirects after sign-out to the AUTH_URL origin whatever Host says', async () => {
    const csrf = await rawRequest(withAuthUrl.url, { path: `${MOUNT}/csrf`, headers: { host: 'evil.example' } });
    const { csrfToken: token } = JSON.parse(csrf.body) as { csrfToken: string };
    const cookie = csrf.setCookies[0]!.split(';')[0]!;
    const response = await rawRequest(withAuthUrl.url, {
      method: 'POST',
      path: `${MOUNT}/signout`,
      headers: { host: 'evil.example', cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-host': 'evil.example' },
      body: new URLSearchParams({ csrfToken: token, callbackUrl: '/bye' }).toString(),
    });
    expect(response.status).toBe(302);
    expect(response.headers['location']).toBe(`${publicOrigin}/bye`);
  });

  it('answers 400 UntrustedHost in production without AUTH_URL, building no URL on the Host', async () => {
    const response = await rawRequest(production.url, { path: `${MOUNT}/providers`, headers: { host: 'evil.example' } });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ error: 'UntrustedHost' });
    expect(response.body).not.toContain('evil.example');
    expect(production.log.types()).toContain('UntrustedHost');
  });

  it.each(['evil.example/path', 'user@evil.example', 'evil.example:99999999', 'evil example'])(
    'answers a 400 to the malformed Host %j',
    async (host) => {
      const response = await rawRequest(untrusted.url, { path: `${MOUNT}/providers`, headers: { host } });
      expect(response.status).toBe(400);
      expect(response.body).not.toContain('evil');
    },
  );
});

describe('oversized requests', () => {
  it('answers 431 to a 32 KiB Cookie header and keeps serving', async () => {
    const response = await rawRequest(untrusted.url, { path: '/me', headers: { cookie: `${SESSION_COOKIE}=${'x'.repeat(32 * 1024)}` } });
    expect(response.status).toBe(431);
    await expectStillServing(untrusted.url);
  });

  it('answers 431 (or 414) to a 32 KiB URL and keeps serving', async () => {
    const response = await rawRequest(untrusted.url, { path: `${MOUNT}/signin?callbackUrl=${'a'.repeat(32 * 1024)}` });
    expect([414, 431]).toContain(response.status);
    await expectStillServing(untrusted.url);
  });

  it('reads no session from 150 session-token chunks in one header (within the header limit), without a 5xx', async () => {
    const cookie = Array.from({ length: 150 }, (_, index) => `${SESSION_COOKIE}.${index}=${'A'.repeat(40)}`).join('; ');
    const response = await rawRequest(untrusted.url, { path: `${MOUNT}/session`, headers: { cookie } });
    expect(response.status).toBe(200);
    expect(response.body).toBe('null');
    expect(response.setCookies).toHaveLength(150);
  });

  it('answers 413 to a 1 MiB credentials form declared by Content-Length, without calling authorize()', async () => {
    const response = await rawRequest(untrusted.url, {
      method: 'POST',
      path: `${MOUNT}/callback/credentials`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=ada&password=${'x'.repeat(1024 * 1024)}`,
    });
    expect(response.status).toBe(413);
    expect(calls).toEqual([]);
    await expectStillServing(untrusted.url);
  });

  it('answers 413 to a 1 MiB chunked upload without Content-Length', async () => {
    const piece = `a=${'x'.repeat(64 * 1024)}&`;
    const response = await rawRequest(untrusted.url, {
      method: 'POST',
      path: `${MOUNT}/signin/standin`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      chunks: Array.from({ length: 16 }, () => piece),
    });
    expect(response.status).toBe(413);
    await expectStillServing(untrusted.url);
  });

  it('answers 413 to a 1 MiB JSON body on sign-out', async () => {
    const response = await rawRequest(untrusted.url, {
      method: 'POST',
      path: `${MOUNT}/signout`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ csrfToken: 'x', padding: 'y'.repeat(1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    await expectStillServing(untrusted.url);
  });

  it.each(['text/plain', 'multipart/form-data; boundary=x', 'application/xml'])('answers 415 to a %s body', async (contentType) => {
    const response = await rawRequest(untrusted.url, {
      method: 'POST',
      path: `${MOUNT}/callback/credentials`,
      headers: { 'content-type': contentType },
      body: 'username=ada&password=correct+horse+battery+staple',
    });
    expect(response.status).toBe(415);
    expect(calls).toEqual([]);
  });
});

describe('X-Content-Type-Options (review 5, A6)', () => {
  it('is nosniff on a page', async () => {
    const response = await fetch(`${untrusted.url}${MOUNT}/signin`);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('is nosniff on a JSON answer', async () => {
    const response = await fetch(`${untrusted.url}${MOUNT}/providers`);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('is nosniff on a redirect', async () => {
    const jar = createJar();
    const token = await csrfToken(untrusted.url, jar);
    const response = await jar.fetch(`${untrusted.url}${MOUNT}/signin/standin`, { method: 'POST', ...formBody({ csrfToken: token }) });
    expect(response.status).toBe(302);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('is nosniff on an error page', async () => {
    const response = await fetch(`${untrusted.url}${MOUNT}/signin`, { method: 'PUT', headers: { accept: 'text/html' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('is nosniff on a 429', async () => {
    const jar = createJar();
    for (let attempt = 0; attempt < 5; attempt++) await credentialsSignIn(untrusted.url, jar, { username: 'load-7', password: 'wrong' });
    const response = await credentialsSignIn(untrusted.url, jar, { username: 'load-7', password: 'wrong' });
    expect(response.status).toBe(429);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("is nosniff on requireAuth()'s 401", async () => {
    const response = await fetch(`${untrusted.url}/me`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('leaves the answers of the app alone: none on the routes sessionLocals and requireAuth() let through', async () => {
    const jar = await signedInJar(untrusted.url);
    for (const path of ['/', '/me']) {
      const response = await jar.fetch(`${untrusted.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('x-content-type-options'), path).toBeNull();
    }
  });
});

describe("the pages' form-action (review 5, A6)", () => {
  let app: ScaffoldApp;
  beforeAll(async () => {
    app = await startScaffoldApp({
      providers: [passwordProvider(), OIDC({ id: 'standin', issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret }), GitHub({ clientId: 'id', clientSecret: 'secret' })],
    });
  });
  afterAll(() => app?.close());

  /** The sources of the page's `form-action` directive. */
  async function formAction(path: string, init?: RequestInit): Promise<string[]> {
    const policy = (await fetch(`${app.url}${MOUNT}/${path}`, init)).headers.get('content-security-policy') ?? '';
    return /(?:^|; )form-action ([^;]*)/.exec(policy)?.[1]?.split(' ') ?? [];
  }

  it("lists exactly 'self' and the configured providers' origins, and no scheme source", async () => {
    expect(await formAction('signin')).toEqual(["'self'", new URL(standIn.issuer).origin, 'https://github.com']);
  });

  it('lists the same on the error page of a refused request', async () => {
    expect(await formAction('signin', { method: 'PUT', headers: { accept: 'text/html' } })).toEqual(["'self'", new URL(standIn.issuer).origin, 'https://github.com']);
  });

  it('lets the sign-in form reach the provider: the redirect after the POST goes to an origin form-action lists', async () => {
    const jar = createJar();
    const token = await csrfToken(app.url, jar);
    const response = await jar.fetch(`${app.url}${MOUNT}/signin/standin`, { method: 'POST', ...formBody({ csrfToken: token }) });
    expect(response.status).toBe(302);
    expect(await formAction('signin')).toContain(new URL(response.headers.get('location')!).origin);
  });
});
