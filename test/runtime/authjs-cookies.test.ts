// Set-Cookie values as Auth.js writes them (issue 17, SPEC §5 wire details): the same request answered by
// @auth/core's own `Auth()` and by our handler gives cookies with the same name, the same value encoding (the CSRF
// cookie as `token%7Chash`) and the same attributes in the same order. Random parts (tokens, dates) are compared by
// shape; everything else byte for byte.
import { Auth } from '@auth/core';
import AuthjsCredentials from '@auth/core/providers/credentials';
import { afterAll, describe, expect, it } from 'vitest';
import { serializeCookie } from '../../templates/runtime/http/cookies.js';
import { createJar, formBody } from '../support/cookie-jar.js';
import { SECRET, credentialsConfig, startApp } from './helpers.js';
import type { RunningApp } from '../support/listen.js';

const apps: RunningApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
});

/** @auth/core configured as the test app: one credentials provider that accepts "correct horse". */
function authjs(request: Request): Promise<Response> {
  return Auth(request, {
    secret: SECRET,
    trustHost: true,
    basePath: '/auth',
    providers: [
      AuthjsCredentials({
        credentials: { username: {}, password: {} },
        authorize: (credentials) =>
          credentials.password === 'correct horse' ? { id: `id-${String(credentials.username)}`, name: String(credentials.username), email: `${String(credentials.username)}@example.test` } : null,
      }),
    ],
  });
}

/** A Set-Cookie value with its random parts replaced: the value's shape, and Expires' date. */
function shapeOf(header: string): string {
  return header
    .replace(/^([^=]+)=[0-9a-f]{64}%7C[0-9a-f]{64};/, '$1=<token>%7C<hash>;')
    .replace(/^([^=]+)=[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+;/, '$1=<jwe>;')
    .replace(/Expires=[^;]+/, 'Expires=<date>');
}

function cookieNamed(headers: Headers, name: string): string {
  const found = headers.getSetCookie().find((header) => header.startsWith(`${name}=`));
  expect(found, `a Set-Cookie for ${name}`).toBeDefined();
  return found!;
}

describe('Set-Cookie values, byte-compatible with Auth.js', () => {
  it('writes the CSRF cookie as Auth.js does: token%7Chash, the same attributes in the same order', async () => {
    const theirs = cookieNamed((await authjs(new Request('http://localhost/auth/csrf'))).headers, 'authjs.csrf-token');
    const app = await startApp(credentialsConfig());
    apps.push(app);
    const ours = cookieNamed((await fetch(`${app.url}/auth/csrf`)).headers, 'authjs.csrf-token');
    expect(shapeOf(ours)).toBe(shapeOf(theirs));
    expect(shapeOf(ours)).toBe('authjs.csrf-token=<token>%7C<hash>; Path=/; HttpOnly; SameSite=Lax');
  });

  it('writes the session cookie of a credentials sign-in as Auth.js does', async () => {
    const csrf = await authjs(new Request('http://localhost/auth/csrf'));
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const csrfCookie = cookieNamed(csrf.headers, 'authjs.csrf-token').split(';')[0]!;
    const signedIn = await authjs(
      new Request('http://localhost/auth/callback/credentials', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
        body: new URLSearchParams({ csrfToken, username: 'ada', password: 'correct horse' }),
      }),
    );
    const theirs = cookieNamed(signedIn.headers, 'authjs.session-token');

    const app = await startApp(credentialsConfig());
    apps.push(app);
    const jar = createJar();
    const token = ((await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
    const response = await jar.fetch(`${app.url}/auth/callback/credentials`, { method: 'POST', ...formBody({ csrfToken: token, username: 'ada', password: 'correct horse' }) });
    const ours = cookieNamed(response.headers, 'authjs.session-token');
    expect(shapeOf(ours)).toBe(shapeOf(theirs));
  });

  it('reads a CSRF cookie in either form: Auth.js clients send token%7Chash, older ones token|hash', async () => {
    const app = await startApp(credentialsConfig());
    apps.push(app);
    const first = await fetch(`${app.url}/auth/csrf`);
    const { csrfToken } = (await first.json()) as { csrfToken: string };
    const encoded = cookieNamed(first.headers, 'authjs.csrf-token').split(';')[0]!;
    for (const cookie of [encoded, decodeURIComponent(encoded)]) {
      const response = await fetch(`${app.url}/auth/callback/credentials`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ csrfToken, username: 'ada', password: 'correct horse' }),
      });
      expect(response.headers.get('location')).toBe(`${app.url}/`);
    }
  });

  it('URL-encodes every value, as Auth.js\'s serializer does, and orders Max-Age, Domain, Path, Expires, HttpOnly, Secure, SameSite', () => {
    const expires = new Date('2030-01-02T03:04:05.000Z');
    expect(
      serializeCookie({
        name: '__Secure-authjs.callback-url',
        value: 'https://app.example.test/a b?c=d|e',
        options: { maxAge: 900, domain: 'example.test', path: '/', expires, httpOnly: true, secure: true, sameSite: 'lax' },
      }),
    ).toBe(
      '__Secure-authjs.callback-url=https%3A%2F%2Fapp.example.test%2Fa%20b%3Fc%3Dd%7Ce; Max-Age=900; Domain=example.test; Path=/; Expires=Wed, 02 Jan 2030 03:04:05 GMT; HttpOnly; Secure; SameSite=Lax',
    );
  });
});
