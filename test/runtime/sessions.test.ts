import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningApp } from '../support/listen.js';
import { createSessionLocals, encode, getSession } from '../../templates/runtime/index.js';
import { OTHER_SECRET, SECRET, credentialsConfig, setCookieNames, signIn, startApp } from './helpers.js';

const cookieName = 'authjs.session-token';

async function sessionWith(url: string, cookie: string): Promise<Response> {
  return fetch(`${url}/auth/session`, { headers: { cookie } });
}

describe('JWT sessions fail closed', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(credentialsConfig());
  });
  afterAll(() => app.close());

  it('reads a valid session', async () => {
    const token = await encode({ token: { sub: 'u1', name: 'Ada' }, secret: SECRET, salt: cookieName });
    expect(await (await sessionWith(app.url, `${cookieName}=${token}`)).json()).toMatchObject({ user: { id: 'u1', name: 'Ada' } });
  });

  it('answers null for a tampered session cookie and clears it', async () => {
    const token = await encode({ token: { sub: 'u1' }, secret: SECRET, salt: cookieName });
    const tampered = token.slice(0, -3) + (token.endsWith('A') ? 'BBB' : 'AAA');
    const response = await sessionWith(app.url, `${cookieName}=${tampered}`);
    expect(await response.text()).toBe('null');
    expect(response.headers.getSetCookie()).toEqual([`${cookieName}=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax`]);
  });

  it('answers null for an expired session cookie', async () => {
    const token = await encode({ token: { sub: 'u1' }, secret: SECRET, salt: cookieName, maxAge: -120 });
    expect(await (await sessionWith(app.url, `${cookieName}=${token}`)).text()).toBe('null');
  });

  it('answers null for a session made with another secret', async () => {
    const token = await encode({ token: { sub: 'u1' }, secret: OTHER_SECRET, salt: cookieName });
    expect(await (await sessionWith(app.url, `${cookieName}=${token}`)).text()).toBe('null');
  });

  it('answers null for a token made for another cookie name', async () => {
    const token = await encode({ token: { sub: 'u1' }, secret: SECRET, salt: 'authjs.pkce.code_verifier' });
    expect(await (await sessionWith(app.url, `${cookieName}=${token}`)).text()).toBe('null');
  });

  it('answers null for truncated chunks', async () => {
    const token = await encode({ token: { sub: 'u1' }, secret: SECRET, salt: cookieName });
    const half = Math.floor(token.length / 2);
    expect(await (await sessionWith(app.url, `${cookieName}.0=${token.slice(0, half)}`)).text()).toBe('null');
    expect(await (await sessionWith(app.url, `${cookieName}.1=${token.slice(half)}`)).text()).toBe('null');
  });

  it('getSession(req, config) returns null for a garbage cookie instead of throwing (regression)', async () => {
    const response = await fetch(`${app.url}/whoami`, { headers: { cookie: `${cookieName}=not-a-jwe` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('null');
  });

  it('the guard redirects a tampered session to the sign-in page', async () => {
    const response = await fetch(`${app.url}/me`, { redirect: 'manual', headers: { cookie: `${cookieName}=garbage` } });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/auth/signin?callbackUrl=%2Fme');
  });

  it('the guard answers 401 JSON to a client that prefers JSON', async () => {
    const response = await fetch(`${app.url}/me`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'Unauthorized', message: 'Sign in to access this resource.' });
  });
});

describe('secret rotation', () => {
  it('keeps sessions of the old secret readable while it is listed, and drops them once it is removed', async () => {
    const oldToken = await encode({ token: { sub: 'kept' }, secret: OTHER_SECRET, salt: cookieName });
    const rotating = await startApp(credentialsConfig({ secret: [SECRET, OTHER_SECRET] }));
    const removed = await startApp(credentialsConfig({ secret: SECRET }));
    try {
      expect(await (await sessionWith(rotating.url, `${cookieName}=${oldToken}`)).json()).toMatchObject({ user: { id: 'kept' } });
      expect(await (await sessionWith(removed.url, `${cookieName}=${oldToken}`)).text()).toBe('null');
    } finally {
      await rotating.close();
      await removed.close();
    }
  });

  it('issues new sessions with the newest secret', async () => {
    const rotating = await startApp(credentialsConfig({ secret: [SECRET, OTHER_SECRET] }));
    const newestOnly = await startApp(credentialsConfig({ secret: SECRET }));
    try {
      const { jar } = await signIn(rotating.url);
      const cookie = jar.header(rotating.url);
      expect(await (await sessionWith(newestOnly.url, cookie)).json()).toMatchObject({ user: { name: 'ada' } });
    } finally {
      await rotating.close();
      await newestOnly.close();
    }
  });
});

describe('large sessions', () => {
  it('chunks a session cookie over 4096 bytes and reads it back', async () => {
    const big = 'x'.repeat(6000);
    const app = await startApp(credentialsConfig({ callbacks: { jwt: ({ token }) => ({ ...token, big }), session: ({ session, token }) => ({ ...session, big: token.big }) as never } }));
    try {
      const { jar, response } = await signIn(app.url);
      const names = setCookieNames(response).filter((name) => name.startsWith(cookieName));
      expect(names).toEqual([`${cookieName}.0`, `${cookieName}.1`, `${cookieName}.2`]);
      for (const header of response.headers.getSetCookie()) expect(Buffer.byteLength(header)).toBeLessThan(4096);
      expect(((await (await jar.fetch(`${app.url}/auth/session`)).json()) as { big: string }).big).toBe(big);
    } finally {
      await app.close();
    }
  });
});

describe('rolling sessions', () => {
  it('sessionLocals writes no cookie for a request without a session cookie', async () => {
    const app = await startApp(credentialsConfig());
    try {
      const response = await fetch(`${app.url}/public-nothing`, { headers: { cookie: 'unrelated=1' } });
      expect(response.headers.getSetCookie()).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('re-issues the session cookie once updateAge has passed, through sessionLocals (regression: refreshed cookie dropped)', async () => {
    const config = credentialsConfig({ session: { updateAge: 0 } });
    const server = express();
    server.use(createSessionLocals(config));
    server.get('/page', (_req, res) => {
      res.json(res.locals.session);
    });
    const app = await listen(server);
    try {
      const token = await encode({ token: { sub: 'u1' }, secret: SECRET, salt: cookieName, maxAge: 60 });
      const response = await fetch(`${app.url}/page`, { headers: { cookie: `${cookieName}=${token}` } });
      const session = (await response.json()) as { expires: string };
      const refreshed = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${cookieName}=`));
      expect(refreshed).toBeDefined();
      expect(Date.parse(session.expires) - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);
    } finally {
      await app.close();
    }
  });

  it('does not re-issue a fresh session before updateAge', async () => {
    const app = await startApp(credentialsConfig());
    try {
      const { jar } = await signIn(app.url);
      const response = await jar.fetch(`${app.url}/auth/session`);
      expect(response.headers.getSetCookie()).toEqual([]);
      const session = (await response.json()) as { expires: string };
      expect(Date.parse(session.expires)).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
    } finally {
      await app.close();
    }
  });

  it('re-issues the cookie when the jwt callback changes the token', async () => {
    let counter = 0;
    const app = await startApp(credentialsConfig({ callbacks: { jwt: ({ token }) => ({ ...token, counter: ++counter }) } }));
    try {
      const { jar } = await signIn(app.url);
      const response = await jar.fetch(`${app.url}/auth/session`);
      expect(setCookieNames(response)).toEqual([cookieName]);
    } finally {
      await app.close();
    }
  });

  it('updates the session through POST /session with trigger "update"', async () => {
    const app = await startApp(
      credentialsConfig({
        callbacks: {
          jwt: ({ token, trigger, session }) => (trigger === 'update' ? { ...token, name: (session as { name: string }).name } : token),
        },
      }),
    );
    try {
      const { jar } = await signIn(app.url);
      const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
      const response = await jar.fetch(`${app.url}/auth/session`, {
        method: 'POST',
        body: JSON.stringify({ csrfToken, data: { name: 'Ada Lovelace' } }),
        headers: { 'content-type': 'application/json' },
      });
      expect(await response.json()).toMatchObject({ user: { name: 'Ada Lovelace' } });
      expect(await (await jar.fetch(`${app.url}/auth/session`)).json()).toMatchObject({ user: { name: 'Ada Lovelace' } });
    } finally {
      await app.close();
    }
  });
});

describe('getSession', () => {
  it('returns null without reading anything when there is no cookie header', async () => {
    const config = credentialsConfig();
    const request = { headers: {}, protocol: 'http' } as never;
    expect(await getSession(request, config)).toBeNull();
  });

  it("reads the session from the request's cookie header alone", async () => {
    const config = credentialsConfig();
    const token = await encode({ token: { sub: 'u2', email: 'u2@example.test' }, secret: SECRET, salt: cookieName });
    const request = { headers: { cookie: `${cookieName}=${token}` }, protocol: 'http' } as never;
    expect(await getSession(request, config)).toMatchObject({ user: { id: 'u2', email: 'u2@example.test' } });
  });
});
