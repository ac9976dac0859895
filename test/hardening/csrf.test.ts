// CSRF: every state-changing POST (credentials sign-in, OAuth sign-in, sign-out, session update) needs the
// csrfToken of this browser's signed CSRF cookie. Each forgery is refused with a 4xx or the sign-in page, never
// a 500, never a session, and authorize() is not even called.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import OIDC from '../../templates/runtime/providers/oidc.js';
import { createJar, formBody } from '../support/cookie-jar.js';

import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn } from './support/oidc-stand-in.js';
import {
  MOUNT,
  OLD_SECRET,
  csrfToken,
  expectNoSession,
  expectPageRenders,
  expectRefusalRedirect,
  passwordProvider,
  sessionCookiesSet,
  sessionOf,
  signedInJar,
  startScaffoldApp,
} from './support/scaffold-app.js';
import type { AuthorizeCall, ScaffoldApp } from './support/scaffold-app.js';

let app: ScaffoldApp;
let standIn: OidcStandIn;
const calls: AuthorizeCall[] = [];
const credentialsPath = `${MOUNT}/callback/credentials`;
const goodFields = { username: 'ada', password: 'correct horse battery staple' };

beforeAll(async () => {
  standIn = await startOidcStandIn();
  app = await startScaffoldApp({
    providers: [passwordProvider(calls), OIDC({ id: 'standin', issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret })],
  });
});
afterAll(async () => {
  await app?.close();
  await standIn?.close();
});
beforeEach(() => {
  calls.length = 0;
  app.log.clear();
});

/** The CSRF refusal of a form post: back to the sign-in page with error=MissingCSRF, whose page renders. */
async function expectCsrfRefusal(response: Response, jar: ReturnType<typeof createJar>): Promise<void> {
  const location = expectRefusalRedirect(response, app.url, { page: 'signin', error: 'MissingCSRF' });
  await expectNoSession(app.url, jar, response);
  await expectPageRenders(jar, location, 'Your sign-in form expired');
  expect(app.log.types()).toContain('MissingCSRF');
}

describe('CSRF on the credentials sign-in', () => {
  it('refuses a credentials POST without a csrfToken, before authorize() runs', async () => {
    const jar = createJar();
    await csrfToken(app.url, jar);
    const response = await jar.fetch(`${app.url}${credentialsPath}`, { method: 'POST', ...formBody(goodFields) });
    await expectCsrfRefusal(response, jar);
    expect(calls).toEqual([]);
  });

  it('refuses a credentials POST without the CSRF cookie', async () => {
    const jar = createJar();
    const token = await csrfToken(app.url, createJar());
    const response = await jar.fetch(`${app.url}${credentialsPath}`, { method: 'POST', ...formBody({ ...goodFields, csrfToken: token }) });
    await expectCsrfRefusal(response, jar);
    expect(calls).toEqual([]);
  });

  it('refuses a credentials POST with a wrong csrfToken', async () => {
    const jar = createJar();
    const token = await csrfToken(app.url, jar);
    const wrong = token.replace(/^./, (character) => (character === 'a' ? 'b' : 'a'));
    const response = await jar.fetch(`${app.url}${credentialsPath}`, { method: 'POST', ...formBody({ ...goodFields, csrfToken: wrong }) });
    await expectCsrfRefusal(response, jar);
    expect(calls).toEqual([]);
  });

  it('refuses a credentials POST carrying the csrfToken of another browser', async () => {
    const victim = createJar();
    await csrfToken(app.url, victim);
    const attackerToken = await csrfToken(app.url, createJar());
    const response = await victim.fetch(`${app.url}${credentialsPath}`, { method: 'POST', ...formBody({ ...goodFields, csrfToken: attackerToken }) });
    await expectCsrfRefusal(response, victim);
    expect(calls).toEqual([]);
  });

  it('refuses a CSRF cookie the browser forged itself (token|hash without the secret)', async () => {
    const jar = createJar();
    const token = 'f'.repeat(64);
    jar.set(app.url, `authjs.csrf-token=${token}%7C${'0'.repeat(64)}; Path=/`);
    const response = await jar.fetch(`${app.url}${credentialsPath}`, { method: 'POST', ...formBody({ ...goodFields, csrfToken: token }) });
    await expectCsrfRefusal(response, jar);
    expect(calls).toEqual([]);
  });

  it('refuses a CSRF cookie signed with a secret the app no longer has', async () => {
    const jar = createJar();
    // A cookie as http/csrf.ts signs it (token|sha256hex(token + secret)), with the rotated-out secret.
    const token = 'e'.repeat(64);
    const stale = { token, cookieValue: `${token}|${createHash('sha256').update(`${token}${OLD_SECRET}`).digest('hex')}` };
    jar.set(app.url, `authjs.csrf-token=${encodeURIComponent(stale.cookieValue)}; Path=/`);
    const response = await jar.fetch(`${app.url}${credentialsPath}`, { method: 'POST', ...formBody({ ...goodFields, csrfToken: stale.token }) });
    await expectCsrfRefusal(response, jar);
    expect(calls).toEqual([]);
  });

  it('refuses a csrfToken sent in the query string instead of the body', async () => {
    const jar = createJar();
    const token = await csrfToken(app.url, jar);
    const response = await jar.fetch(`${app.url}${credentialsPath}?csrfToken=${token}`, { method: 'POST', ...formBody(goodFields) });
    await expectCsrfRefusal(response, jar);
    expect(calls).toEqual([]);
  });

  it('refuses a csrfToken given as a JSON array or object instead of a string', async () => {
    const jar = createJar();
    const token = await csrfToken(app.url, jar);
    for (const forged of [{ token }, [[token]], 1]) {
      const response = await jar.fetch(`${app.url}${credentialsPath}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...goodFields, csrfToken: forged }),
      });
      await expectCsrfRefusal(response, jar);
    }
    expect(calls).toEqual([]);
  });

  it('answers GET on the credentials callback with 405 and Allow: POST, without calling authorize()', async () => {
    const jar = createJar();
    const token = await csrfToken(app.url, jar);
    const query = new URLSearchParams({ ...goodFields, csrfToken: token });
    const response = await jar.fetch(`${app.url}${credentialsPath}?${query}`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    await expectNoSession(app.url, jar, response);
    expect(calls).toEqual([]);
  });
});

describe('CSRF on OAuth sign-in', () => {
  it('refuses POST /signin/<provider> without a csrfToken: no redirect to the provider, no check cookies', async () => {
    const jar = createJar();
    await csrfToken(app.url, jar);
    const before = standIn.requests.length;
    const response = await jar.fetch(`${app.url}${MOUNT}/signin/standin`, { method: 'POST', ...formBody({ callbackUrl: '/me' }) });
    await expectCsrfRefusal(response, jar);
    expect(response.headers.getSetCookie().filter((cookie) => /authjs\.(pkce|state|nonce)/.test(cookie))).toEqual([]);
    expect(standIn.requests.slice(before)).toEqual([]);
  });

  it('refuses POST /signin/<provider> with the csrfToken of another browser', async () => {
    const victim = createJar();
    await csrfToken(app.url, victim);
    const token = await csrfToken(app.url, createJar());
    const response = await victim.fetch(`${app.url}${MOUNT}/signin/standin`, { method: 'POST', ...formBody({ csrfToken: token }) });
    await expectCsrfRefusal(response, victim);
  });

  it('shows the sign-in page, and starts nothing, for GET /signin/<provider>', async () => {
    const jar = createJar();
    const token = await csrfToken(app.url, jar);
    const before = standIn.requests.length;
    const response = await jar.fetch(`${app.url}${MOUNT}/signin/standin?csrfToken=${token}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('location')).toBeNull();
    expect(standIn.requests.slice(before)).toEqual([]);
    await expectNoSession(app.url, jar, response);
  });
});

describe('CSRF on sign-out and session update', () => {
  it('refuses a sign-out POST without a csrfToken: the session survives', async () => {
    const jar = await signedInJar(app.url);
    const response = await jar.fetch(`${app.url}${MOUNT}/signout`, { method: 'POST', ...formBody({ callbackUrl: '/' }) });
    expect(response.status).toBeLessThan(500);
    expect(response.headers.getSetCookie().filter((cookie) => /^authjs\.session-token=;/.test(cookie))).toEqual([]);
    expect(await sessionOf(app.url, jar)).toMatchObject({ user: { id: 'user-ada' } });
  });

  it('refuses a sign-out POST with the csrfToken of another browser: the session survives', async () => {
    const jar = await signedInJar(app.url);
    const token = await csrfToken(app.url, createJar());
    const response = await jar.fetch(`${app.url}${MOUNT}/signout`, { method: 'POST', ...formBody({ csrfToken: token }) });
    expect(response.status).toBeLessThan(500);
    expect(response.headers.getSetCookie().filter((cookie) => /^authjs\.session-token=;/.test(cookie))).toEqual([]);
    expect(await sessionOf(app.url, jar)).toMatchObject({ user: { id: 'user-ada' } });
  });

  it('answers GET /signout with the confirmation page and keeps the session', async () => {
    const jar = await signedInJar(app.url);
    const token = await csrfToken(app.url, jar);
    const response = await jar.fetch(`${app.url}${MOUNT}/signout?csrfToken=${token}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Are you sure you want to sign out?');
    expect(await sessionOf(app.url, jar)).toMatchObject({ user: { id: 'user-ada' } });
  });

  it('refuses a session update POST without a csrfToken with a 403 and leaves the session as it was', async () => {
    const jar = await signedInJar(app.url);
    const response = await jar.fetch(`${app.url}${MOUNT}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: { name: 'Mallory' } }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: 'MissingCSRF' });
    expect(sessionCookiesSet(response)).toEqual([]);
    expect(await sessionOf(app.url, jar)).toMatchObject({ user: { id: 'user-ada', name: 'Ada' } });
  });
});
