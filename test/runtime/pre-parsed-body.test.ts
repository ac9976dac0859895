// Issue 36 item 4: the handler behind body parsers mounted before it, as express-generator lays out its app
// (`express.json()`, then `express.urlencoded({ extended: false })`, then `cookie-parser`, then the routes), on Express
// 4 (body-parser 1.x, which sets `req.body = {}` on every request) and Express 5 (body-parser 2.x, which leaves it
// undefined unless it parsed a body). The handler reads the Cookie header itself, whatever cookie-parser did.
import express4 from 'express4';
import express from 'express';
import cookieParser from 'cookie-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { createJar, formBody } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { FrameworkAuth, createRequireAuth, createSessionLocals } from '../../templates/runtime/index.js';
import { credentialsConfig } from './helpers.js';

const apps: RunningApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
});

const expressMajors = [
  ['Express 4', express4, '/auth/*'],
  ['Express 5', express, '/auth/*splat'],
] as const;

type Parsers = 'json' | 'urlencoded' | 'cookies';

/**
 * An app laid out as express-generator's: express.json(), express.urlencoded() and cookie-parser first, then the auth
 * handler, then a guarded route.
 */
async function startGeneratorApp(createApp: typeof express, pattern: string, parsers: readonly Parsers[] = ['json', 'urlencoded', 'cookies']): Promise<RunningApp> {
  const config = credentialsConfig();
  const app = createApp();
  if (parsers.includes('json')) app.use(createApp.json());
  if (parsers.includes('urlencoded')) app.use(createApp.urlencoded({ extended: false }));
  if (parsers.includes('cookies')) app.use(cookieParser());
  app.set('trust proxy', 'loopback');
  app.use(pattern, FrameworkAuth(config));
  app.use(createSessionLocals(config));
  app.get('/me', createRequireAuth(config), (_req, res) => {
    res.json({ user: (res.locals.session as { user: unknown }).user });
  });
  const running = await listen(app);
  apps.push(running);
  return running;
}

async function csrfToken(jar: CookieJar, url: string): Promise<string> {
  return ((await (await jar.fetch(`${url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

async function sessionUser(jar: CookieJar, url: string): Promise<unknown> {
  const session = (await (await jar.fetch(`${url}/auth/session`)).json()) as { user?: { name?: string } } | null;
  return session?.user?.name ?? null;
}

describe.each(expressMajors)('behind express.json() and express.urlencoded() on %s', (_name, createApp, pattern) => {
  it('signs in with a form the urlencoded parser read, and signs out with a form', async () => {
    const { url } = await startGeneratorApp(createApp as typeof express, pattern);
    const jar = createJar();
    const signIn = await jar.fetch(`${url}/auth/callback/credentials`, { method: 'POST', ...formBody({ csrfToken: await csrfToken(jar, url), username: 'ada', password: 'correct horse' }) });
    expect(signIn.status).toBe(302);
    expect(await sessionUser(jar, url)).toBe('ada');
    expect((await (await jar.fetch(`${url}/me`)).json()) as unknown).toMatchObject({ user: { name: 'ada' } });

    const signOut = await jar.fetch(`${url}/auth/signout`, { method: 'POST', ...formBody({ csrfToken: await csrfToken(jar, url) }) });
    expect(signOut.status).toBe(302);
    expect(await sessionUser(jar, url)).toBeNull();
  });

  it('signs in with a JSON body the json parser read', async () => {
    const { url } = await startGeneratorApp(createApp as typeof express, pattern);
    const jar = createJar();
    const body = JSON.stringify({ csrfToken: await csrfToken(jar, url), username: 'ada', password: 'correct horse' });
    const signIn = await jar.fetch(`${url}/auth/callback/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(signIn.status).toBe(302);
    expect(await sessionUser(jar, url)).toBe('ada');
  });

  it('reads a repeated csrfToken field, which the urlencoded parser made an array, by its first value', async () => {
    const { url } = await startGeneratorApp(createApp as typeof express, pattern);
    const jar = createJar();
    const token = await csrfToken(jar, url);
    const body = new URLSearchParams([['csrfToken', token], ['csrfToken', 'forged'], ['username', 'ada'], ['password', 'correct horse']]);
    const signIn = await jar.fetch(`${url}/auth/callback/credentials`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
    expect(signIn.status).toBe(302);
    expect(await sessionUser(jar, url)).toBe('ada');
  });

  it('refuses a sign-out whose parsed form has no csrfToken, keeping the session', async () => {
    const { url } = await startGeneratorApp(createApp as typeof express, pattern);
    const jar = createJar();
    await jar.fetch(`${url}/auth/callback/credentials`, { method: 'POST', ...formBody({ csrfToken: await csrfToken(jar, url), username: 'ada', password: 'correct horse' }) });
    const signOut = await jar.fetch(`${url}/auth/signout`, { method: 'POST', ...formBody({ callbackUrl: '/' }) });
    expect(signOut.headers.get('location') ?? '').toContain('error=MissingCSRF');
    expect(await sessionUser(jar, url)).toBe('ada');
  });

  it('signs in with a form behind express.json() alone, which leaves Express 4\'s req.body = {} unread (issue 36)', async () => {
    const { url } = await startGeneratorApp(createApp as typeof express, pattern, ['json']);
    const jar = createJar();
    const signIn = await jar.fetch(`${url}/auth/callback/credentials`, { method: 'POST', ...formBody({ csrfToken: await csrfToken(jar, url), username: 'ada', password: 'correct horse' }) });
    expect(signIn.status).toBe(302);
    expect(await sessionUser(jar, url)).toBe('ada');
  });
});
