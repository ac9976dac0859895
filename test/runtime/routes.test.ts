import express4 from 'express4';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar, formBody } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { FrameworkAuth } from '../../templates/runtime/index.js';
import { credentialsConfig, signIn, startApp } from './helpers.js';

describe('routes below the mount', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(credentialsConfig());
  });
  afterAll(() => app.close());

  it('lists providers as an object keyed by id', async () => {
    const response = await fetch(`${app.url}/auth/providers`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      credentials: {
        id: 'credentials',
        name: 'Credentials',
        type: 'credentials',
        signinUrl: `${app.url}/auth/signin/credentials`,
        callbackUrl: `${app.url}/auth/callback/credentials`,
      },
    });
  });

  it('answers the JSON literal null for /session without a session', async () => {
    const response = await fetch(`${app.url}/auth/session`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.text()).toBe('null');
  });

  it('sets the CSRF cookie once and keeps the same token while the cookie is valid', async () => {
    const jar = createJar();
    const first = await jar.fetch(`${app.url}/auth/csrf`);
    expect(first.headers.getSetCookie()[0]).toMatch(/^authjs\.csrf-token=[0-9a-f]{64}%7C[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Lax$/);
    const second = await jar.fetch(`${app.url}/auth/csrf`);
    expect(second.headers.getSetCookie()).toEqual([]);
    expect(((await first.json()) as { csrfToken: string }).csrfToken).toBe(((await second.json()) as { csrfToken: string }).csrfToken);
  });

  it('answers 405 with an Allow header for methods other than GET and POST', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const response = await fetch(`${app.url}/auth/session`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, POST');
    }
  });

  it('explains a refused method on a page route instead of showing a server error', async () => {
    const response = await fetch(`${app.url}/auth/signin`, { method: 'PUT', headers: { accept: 'text/html' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
    const page = await response.text();
    expect(page).toContain('PUT is not allowed here; use GET or POST');
    expect(page).not.toContain('Server error');
  });

  it('answers 405 for POST to a GET-only route', async () => {
    const response = await fetch(`${app.url}/auth/providers`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });

  it('answers an unknown action with 404 naming it', async () => {
    const response = await fetch(`${app.url}/auth/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'UnknownAction', message: 'There is no auth route "nope"' });
  });

  it('answers an unknown provider with 404 naming the configured ones', async () => {
    const jar = createJar();
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const response = await jar.fetch(`${app.url}/auth/signin/nope`, { method: 'POST', ...formBody({ csrfToken }), headers: { ...formBody({}).headers, accept: 'application/json' } });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'InvalidProvider', message: 'Unknown provider "nope"; configured providers: credentials' });
  });

  it('answers HEAD like GET', async () => {
    const response = await fetch(`${app.url}/auth/providers`, { method: 'HEAD' });
    expect(response.status).toBe(200);
  });

  it('answers a malformed percent-encoding in the path with 400', async () => {
    const response = await fetch(`${app.url}/auth/callback/%E0%A4%A`);
    expect(response.status).toBe(400);
  });

  it('sends a Content-Type with every redirect', async () => {
    const { response } = await signIn(app.url);
    expect(response.status).toBe(302);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('turns a redirect into 200 { url } with X-Auth-Return-Redirect', async () => {
    const jar = createJar();
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const form = formBody({ csrfToken, username: 'ada', password: 'correct horse', callbackUrl: '/me' });
    const response = await jar.fetch(`${app.url}/auth/callback/credentials`, { method: 'POST', body: form.body, headers: { ...form.headers, 'X-Auth-Return-Redirect': '1' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ url: `${app.url}/me` });
  });

  it('refuses a body over 64 KiB with 413', async () => {
    const response = await fetch(`${app.url}/auth/callback/credentials`, {
      method: 'POST',
      ...formBody({ csrfToken: 'x', username: 'a'.repeat(70_000) }),
    });
    expect(response.status).toBe(413);
  });

  it('refuses malformed JSON bodies with 400', async () => {
    const response = await fetch(`${app.url}/auth/signout`, { method: 'POST', body: '{not json', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
  });
});

describe('mounting', () => {
  const apps: RunningApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  async function providersOf(url: string): Promise<{ status: number; callbackUrl?: string }> {
    const response = await fetch(url);
    if (response.status !== 200) return { status: response.status };
    const body = (await response.json()) as Record<string, { callbackUrl: string }>;
    return { status: 200, callbackUrl: body.credentials!.callbackUrl };
  }

  it('works on Express 5 with app.use("/auth/*splat") (regression: @auth/express answers 400 for every request)', async () => {
    const app = await startApp(credentialsConfig());
    apps.push(app);
    expect(await providersOf(`${app.url}/auth/providers`)).toEqual({ status: 200, callbackUrl: `${app.url}/auth/callback/credentials` });
    const { response } = await signIn(app.url);
    expect(response.headers.get('location')).toBe(`${app.url}/`);
  });

  it('works on Express 5 with app.use("/auth")', async () => {
    const config = credentialsConfig();
    const server = express();
    server.use('/auth', FrameworkAuth(config));
    const app = await listen(server);
    apps.push(app);
    expect(await providersOf(`${app.url}/auth/providers`)).toEqual({ status: 200, callbackUrl: `${app.url}/auth/callback/credentials` });
  });

  it('works on Express 4 with app.use("/auth/*")', async () => {
    const config = credentialsConfig();
    const server = express4();
    server.use('/auth/*', FrameworkAuth(config));
    const app = await listen(server);
    apps.push(app);
    expect(await providersOf(`${app.url}/auth/providers`)).toEqual({ status: 200, callbackUrl: `${app.url}/auth/callback/credentials` });
    const { response } = await signIn(app.url);
    expect(response.status).toBe(302);
    expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith('authjs.session-token='))).toBe(true);
  });

  it('works on Express 4 with app.use("/auth")', async () => {
    const config = credentialsConfig();
    const server = express4();
    server.use('/auth', FrameworkAuth(config));
    const app = await listen(server);
    apps.push(app);
    expect(await providersOf(`${app.url}/auth/providers`)).toEqual({ status: 200, callbackUrl: `${app.url}/auth/callback/credentials` });
  });

  it('routes a mount path that contains an action name (regression: /providers/auth/* breaks @auth/express)', async () => {
    const app = await startApp(credentialsConfig(), '/providers/auth');
    apps.push(app);
    expect(await providersOf(`${app.url}/providers/auth/providers`)).toEqual({ status: 200, callbackUrl: `${app.url}/providers/auth/callback/credentials` });
    const { jar, response } = await signIn(app.url, '/providers/auth');
    expect(response.status).toBe(302);
    const session = (await (await jar.fetch(`${app.url}/providers/auth/session`)).json()) as { user: { name: string } };
    expect(session.user.name).toBe('ada');
  });

  it('moves every URL with a custom mount path', async () => {
    const app = await startApp(credentialsConfig(), '/api/auth');
    apps.push(app);
    expect(await providersOf(`${app.url}/api/auth/providers`)).toEqual({ status: 200, callbackUrl: `${app.url}/api/auth/callback/credentials` });
    const page = await (await fetch(`${app.url}/api/auth/signin`)).text();
    expect(page).toContain('action="/api/auth/callback/credentials"');
  });

  it('honours an explicit basePath and leaves other paths to the next handler', async () => {
    const config = credentialsConfig({ basePath: '/auth' });
    const server = express();
    server.use(FrameworkAuth(config));
    server.get('/hello', (_req, res) => {
      res.send('next handler');
    });
    const app = await listen(server);
    apps.push(app);
    expect(await providersOf(`${app.url}/auth/providers`)).toEqual({ status: 200, callbackUrl: `${app.url}/auth/callback/credentials` });
    expect(await (await fetch(`${app.url}/hello`)).text()).toBe('next handler');
  });
});
