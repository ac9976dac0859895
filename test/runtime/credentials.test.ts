import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar, formBody } from '../support/cookie-jar.js';
import type { RunningApp } from '../support/listen.js';
import { credentialsConfig, recordingLogger, setCookieNames, signIn, startApp } from './helpers.js';

describe('credentials sign-in', () => {
  let app: RunningApp;
  const { errors, logger } = recordingLogger();
  const signIns: unknown[] = [];
  beforeAll(async () => {
    app = await startApp(credentialsConfig({ logger, events: { signIn: (message) => void signIns.push(message) } }));
  });
  afterAll(() => app.close());

  it('signs in, sets the session cookie and redirects to the callbackUrl', async () => {
    const { jar, response } = await signIn(app.url, '/auth', { callbackUrl: '/me' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${app.url}/me`);
    expect(setCookieNames(response)).toContain('authjs.session-token');
    const me = await jar.fetch(`${app.url}/me`);
    expect(await me.json()).toEqual({ user: { id: 'id-ada', name: 'ada', email: 'ada@example.test' } });
  });

  it('uses the id returned by authorize() as providerAccountId and fires events.signIn', async () => {
    signIns.length = 0;
    await signIn(app.url);
    expect(signIns).toEqual([
      expect.objectContaining({ account: { provider: 'credentials', type: 'credentials', providerAccountId: 'id-ada' }, isNewUser: false }),
    ]);
  });

  it('makes the session visible to getSession(req, config)', async () => {
    const { jar } = await signIn(app.url);
    expect(await (await jar.fetch(`${app.url}/whoami`)).json()).toMatchObject({ user: { id: 'id-ada', name: 'ada' } });
  });

  it('redirects a wrong password to the sign-in page with error=CredentialsSignin&code=credentials', async () => {
    const { jar, response } = await signIn(app.url, '/auth', { password: 'wrong' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(location.pathname).toBe('/auth/signin');
    expect(location.search).toBe('?error=CredentialsSignin&code=credentials');
    expect(setCookieNames(response)).not.toContain('authjs.session-token');
    expect(await (await jar.fetch(`${app.url}/auth/session`)).text()).toBe('null');
    expect(errors.at(-1)).toMatchObject({ type: 'CredentialsSignin' });
  });

  it('puts the configurable code of a CredentialsSignin subclass in the redirect', async () => {
    const { response } = await signIn(app.url, '/auth', { password: 'locked' });
    expect(new URL(response.headers.get('location')!).search).toBe('?error=CredentialsSignin&code=account_locked');
  });

  it('sends any other error thrown by authorize() to the error page without its details', async () => {
    const { response } = await signIn(app.url, '/auth', { password: 'boom' });
    const location = response.headers.get('location')!;
    expect(new URL(location).pathname).toBe('/auth/error');
    expect(new URL(location).search).toBe('?error=Configuration');
    expect(location).not.toContain('hunter2');
    const page = await fetch(location);
    expect(page.status).toBe(400);
    expect(await page.text()).not.toContain('hunter2');
  });

  it('refuses a GET to the credentials callback with 405', async () => {
    const response = await fetch(`${app.url}/auth/callback/credentials`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('shows the CredentialsSignin message on the sign-in page after a failure', async () => {
    const page = await (await fetch(`${app.url}/auth/signin?error=CredentialsSignin&code=credentials`)).text();
    expect(page).toContain('Sign-in failed. Check the details you provided are correct.');
  });
});

describe('CSRF on every POST', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(credentialsConfig());
  });
  afterAll(() => app.close());

  async function expectRefused(response: Response, jar = createJar()) {
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(location.pathname).toBe('/auth/signin');
    expect(location.searchParams.get('error')).toBe('MissingCSRF');
    expect(setCookieNames(response)).not.toContain('authjs.session-token');
    expect(await (await jar.fetch(`${app.url}/auth/session`)).text()).toBe('null');
  }

  it('refuses a credentials callback without csrfToken', async () => {
    const jar = createJar();
    await jar.fetch(`${app.url}/auth/csrf`);
    await expectRefused(await jar.fetch(`${app.url}/auth/callback/credentials`, { method: 'POST', ...formBody({ username: 'ada', password: 'correct horse' }) }), jar);
  });

  it('refuses a credentials callback with a wrong csrfToken', async () => {
    const jar = createJar();
    await jar.fetch(`${app.url}/auth/csrf`);
    await expectRefused(await jar.fetch(`${app.url}/auth/callback/credentials`, { method: 'POST', ...formBody({ csrfToken: 'f'.repeat(64), username: 'ada', password: 'correct horse' }) }), jar);
  });

  it('refuses a csrfToken that belongs to another browser', async () => {
    const attacker = createJar();
    const { csrfToken } = (await (await attacker.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const victim = createJar();
    await victim.fetch(`${app.url}/auth/csrf`);
    await expectRefused(await victim.fetch(`${app.url}/auth/callback/credentials`, { method: 'POST', ...formBody({ csrfToken, username: 'ada', password: 'correct horse' }) }), victim);
  });

  it('refuses a csrfToken without the CSRF cookie', async () => {
    const { csrfToken } = (await (await fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    await expectRefused(await fetch(`${app.url}/auth/callback/credentials`, { method: 'POST', redirect: 'manual', ...formBody({ csrfToken, username: 'ada', password: 'correct horse' }) }));
  });

  it('refuses a forged CSRF cookie whose hash was not made with the secret', async () => {
    const token = 'a'.repeat(64);
    const response = await fetch(`${app.url}/auth/callback/credentials`, {
      method: 'POST',
      redirect: 'manual',
      body: formBody({ csrfToken: token, username: 'ada', password: 'correct horse' }).body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `authjs.csrf-token=${token}|${'b'.repeat(64)}` },
    });
    await expectRefused(response);
  });

  it('refuses sign-in to a provider without csrfToken', async () => {
    const jar = createJar();
    await jar.fetch(`${app.url}/auth/csrf`);
    await expectRefused(await jar.fetch(`${app.url}/auth/signin/credentials`, { method: 'POST', ...formBody({ username: 'ada', password: 'correct horse' }) }), jar);
  });

  it('refuses sign-out without csrfToken and keeps the session', async () => {
    const { jar } = await signIn(app.url);
    const response = await jar.fetch(`${app.url}/auth/signout`, { method: 'POST', ...formBody({}) });
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('MissingCSRF');
    expect(setCookieNames(response)).not.toContain('authjs.session-token');
    expect(await (await jar.fetch(`${app.url}/auth/session`)).json()).toMatchObject({ user: { name: 'ada' } });
  });

  it('accepts the csrfToken in a JSON body too', async () => {
    const jar = createJar();
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const response = await jar.fetch(`${app.url}/auth/callback/credentials`, {
      method: 'POST',
      body: JSON.stringify({ csrfToken, username: 'ada', password: 'correct horse' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(setCookieNames(response)).toContain('authjs.session-token');
  });
});

describe('sign-out', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(credentialsConfig(), '/auth');
  });
  afterAll(() => app.close());

  it('shows a confirmation page whose form posts to <mount>/signout with the csrfToken', async () => {
    const jar = createJar();
    const page = await (await jar.fetch(`${app.url}/auth/signout`)).text();
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    expect(page).toContain('action="/auth/signout" method="POST"');
    expect(page).toContain(`name="csrfToken" value="${csrfToken}"`);
  });

  it('ends the session and redirects to the callbackUrl, never to /auth/signout/signout (regression)', async () => {
    const { jar } = await signIn(app.url);
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const response = await jar.fetch(`${app.url}/auth/signout`, { method: 'POST', ...formBody({ csrfToken, callbackUrl: '/goodbye' }) });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${app.url}/goodbye`);
    expect(response.headers.getSetCookie().find((cookie) => cookie.startsWith('authjs.session-token='))).toMatch(/Max-Age=0/);
    expect(await (await jar.fetch(`${app.url}/auth/session`)).text()).toBe('null');
  });

  it('redirects to the origin after sign-out without a callbackUrl', async () => {
    const { jar } = await signIn(app.url);
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const response = await jar.fetch(`${app.url}/auth/signout`, { method: 'POST', ...formBody({ csrfToken }) });
    expect(response.headers.get('location')).toBe(`${app.url}/`);
  });
});
