/**
 * `@auth/express`'s own integration scenario ("log in with credentials, then getSession"), restated here step for
 * step and run against both implementations with only the imports changed, as a user swapping one for the other
 * would: Express 4 with `app.use('/auth/*', handler)` as in their test, a credentials provider that accepts any user
 * name, no body parser. The client is as naive as theirs: it takes the CSRF token from the `authjs.csrf-token`
 * cookie by cutting the value at the first `%` (Auth.js writes `token%7Chash`), sends the CSRF and callback-url
 * cookies back by hand, posts JSON, and reads `session.user.name` through `getSession` in a route of its own.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExpressAuth, getSession as getAuthJsSession } from '@auth/express';
import AuthJsCredentials from '@auth/express/providers/credentials';
import express4 from 'express4';
import express5 from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameworkAuth, getSession as getOurSession } from '../../templates/runtime/index.js';
import OurCredentials from '../../templates/runtime/providers/credentials.js';
import { SECRET } from '../runtime/helpers.js';

/** Any user name signs in, as "name" with an address made from it. */
async function authorize(credentials: Partial<Record<string, unknown>>): Promise<{ name: string; email: string } | null> {
  const name = credentials['username'];
  return typeof name === 'string' ? { name, email: `${name.replace(' ', '')}@example.com` } : null;
}

const credentials = { username: { label: 'Username' } };
const quiet = { error: () => {}, warn: () => {}, debug: () => {} };

/** What differs between the two: the imports and the config object. Everything the scenario does is the same. */
const implementations = [
  {
    name: '@auth/express 0.12.3',
    // It reads its base path from req.params[0], which Express 5's named wildcard (`/auth/*splat`) does not set.
    express5Mount: '/auth',
    config: { secret: SECRET, logger: quiet, providers: [AuthJsCredentials({ credentials, authorize })] },
    handler: (config: object) => ExpressAuth(config as Parameters<typeof ExpressAuth>[0]),
    getSession: (req: never, config: object) => getAuthJsSession(req, config as Parameters<typeof getAuthJsSession>[1]),
  },
  {
    name: 'create-framework-auth',
    express5Mount: '/auth/*splat',
    config: { secret: SECRET, logger: quiet, providers: [OurCredentials({ credentials, authorize })] },
    handler: (config: object) => FrameworkAuth(config as Parameters<typeof FrameworkAuth>[0]),
    getSession: (req: never, config: object) => getOurSession(req, config as Parameters<typeof getOurSession>[1]),
  },
] as const;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

function listenOn(app: { listen(port: number, host: string, callback: () => void): Server }): Promise<string> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    servers.push(server);
  });
}

/** `name=value` of the Set-Cookie header that sets `name` (their helper's cut: everything up to the first `;`). */
function cookiePair(response: Response, name: string): string {
  const header = response.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));
  if (!header) throw new Error(`no ${name} cookie in ${JSON.stringify(response.headers.getSetCookie())}`);
  return header.split(';')[0]!;
}

/** The scenario: the sign-in page, a credentials sign-in with the cookies sent back by hand, then getSession. */
async function logInThenGetSession(url: string, seen: { session?: unknown }): Promise<void> {
  const signInPage = await fetch(`${url}/auth/signin`, { headers: { 'x-test-header': 'foo', accept: 'application/json' } });
  const csrfCookie = cookiePair(signInPage, 'authjs.csrf-token');
  const callbackCookie = cookiePair(signInPage, 'authjs.callback-url');
  const csrfToken = csrfCookie.split('%')[0]!.split('=')[1]!;

  const signedIn = await fetch(`${url}/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: [csrfCookie, callbackCookie].join('; '), 'content-type': 'application/json' },
    body: JSON.stringify({ csrfToken, username: 'johnsmith' }),
  });
  const sessionCookie = cookiePair(signedIn, 'authjs.session-token');

  await fetch(`${url}/test`, { method: 'POST', headers: { 'x-test-header': 'foo', accept: 'application/json', cookie: sessionCookie } });
  expect(seen.session).toBeDefined();
}

describe.each(implementations)("@auth/express's login-then-getSession scenario on $name", ({ config, handler, getSession, express5Mount }) => {
  it('returns the session with the user name after logging in (Express 4, /auth/*)', async () => {
    const app = express4();
    const seen: { session?: unknown } = {};
    app.use('/auth/*', handler(config));
    app.post('/test', async (req, res) => {
      seen.session = await getSession(req as never, config);
      res.send('OK');
    });
    await logInThenGetSession(await listenOn(app), seen);
    expect((seen.session as { user?: { name?: string } } | null)?.user?.name).toBe('johnsmith');
    expect((seen.session as { user?: { email?: string } } | null)?.user?.email).toBe('johnsmith@example.com');
  });

  it('does the same on Express 5, mounted where each documents it', async () => {
    const app = express5();
    const seen: { session?: unknown } = {};
    app.use(express5Mount, handler(config));
    app.post('/test', async (req, res) => {
      seen.session = await getSession(req as never, config);
      res.send('OK');
    });
    await logInThenGetSession(await listenOn(app), seen);
    expect((seen.session as { user?: { name?: string } } | null)?.user?.name).toBe('johnsmith');
  });
});

describe('the cookies the scenario reads', () => {
  it('are written alike by both: the CSRF cookie as token%7Chash, the callback-url cookie as the encoded origin', async () => {
    const shapes: string[][] = [];
    for (const implementation of implementations) {
      const app = express4();
      app.use('/auth/*', implementation.handler(implementation.config));
      const url = await listenOn(app);
      const page = await fetch(`${url}/auth/signin`, { headers: { accept: 'application/json' } });
      const csrf = cookiePair(page, 'authjs.csrf-token');
      const callback = cookiePair(page, 'authjs.callback-url');
      expect(csrf).toMatch(/^authjs\.csrf-token=[0-9a-f]{64}%7C[0-9a-f]{64}$/);
      shapes.push([callback.replace(encodeURIComponent(url), '<origin>')]);
    }
    expect(shapes[1]).toEqual(shapes[0]);
    expect(shapes[0]).toEqual(['authjs.callback-url=<origin>']);
  });
});
