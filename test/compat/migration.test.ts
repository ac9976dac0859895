/**
 * Migrating from @auth/express (issue 17): an app on `@auth/express` 0.12.3 is stopped and the same app on our
 * runtime starts on the same port, as a deploy would swap them; the browser (one cookie jar) keeps its cookies.
 * Users stay signed in across the switch: with JWT sessions (the cookie is the session, same secret) and with
 * database sessions on `@auth/pg-adapter`'s documented tables (the same adapter passed to our config). And back.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import AuthJsPostgresAdapter from '@auth/pg-adapter';
import { ExpressAuth, getSession as getAuthJsSession } from '@auth/express';
import type { ExpressAuthConfig } from '@auth/express';
import AuthJsCredentials from '@auth/express/providers/credentials';
import express from 'express';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrameworkAuth, getSession } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Credentials from '../../templates/runtime/providers/credentials.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { documentedSchema } from '../adapters/authjs-pg-schema.js';
import { type CookieJar, createJar, formBody } from '../support/cookie-jar.js';
import { loginThroughProvider, startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { createTestPool, startPostgres, type RunningPostgres } from '../support/postgres.js';
import { SECRET } from '../runtime/helpers.js';
import { database } from '../../templates/runtime/features/database/index.js';

/** The same user check in both apps, as a user's own `authorize` would be. */
async function checkPassword(credentials: Partial<Record<string, unknown>>): Promise<{ id: string; name: string; email: string } | null> {
  return credentials['username'] === 'ada' && credentials['password'] === 'correct horse' ? { id: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.test' } : null;
}

const quiet = { error: () => {}, warn: () => {}, debug: () => {} };

/** One app on a port: @auth/express (`app.use('/auth', ExpressAuth(config))`, as its docs) or ours. */
interface Deployed {
  url: string;
  stop(): Promise<void>;
}

function deploy(app: express.Express, port: number): Promise<Deployed> {
  return new Promise((resolve) => {
    const server: Server = app.listen(port, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({
        url,
        // The client's keep-alive sockets see the close before the next app takes the port (a short pause lets the
        // fetch pool drop them, as a browser would reconnect).
        stop: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => setTimeout(done, 100));
          }),
      });
    });
  });
}

function authJsApp(config: ExpressAuthConfig, port: number): Promise<Deployed> {
  const app = express();
  app.use('/auth', ExpressAuth(config));
  app.get('/me', async (req, res) => void res.json({ session: await getAuthJsSession(req, config) }));
  return deploy(app, port);
}

function ourApp(config: FrameworkAuthConfig, port: number): Promise<Deployed> {
  const app = express();
  app.use('/auth/*splat', FrameworkAuth(config));
  app.get('/me', async (req, res) => void res.json({ session: await getSession(req, config) }));
  return deploy(app, port);
}

const portOf = (deployed: Deployed): number => Number(new URL(deployed.url).port);

async function csrfToken(jar: CookieJar, url: string): Promise<string> {
  return ((await (await jar.fetch(`${url}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

async function me(jar: CookieJar, url: string): Promise<{ user?: Record<string, unknown>; expires?: string } | null> {
  return ((await (await jar.fetch(`${url}/me`)).json()) as { session: { user?: Record<string, unknown> } | null }).session;
}

describe('JWT sessions: @auth/express → ours → @auth/express, one secret', () => {
  const authJsConfig: ExpressAuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: quiet,
    providers: [AuthJsCredentials({ credentials: { username: {}, password: {} }, authorize: checkPassword })],
  };
  const ourConfig: FrameworkAuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger: quiet,
    providers: [Credentials({ credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } }, authorize: checkPassword })],
  };

  it('keeps a user signed in on @auth/express signed in after the switch, and the reverse', async () => {
    const jar = createJar();
    const before = await authJsApp(authJsConfig, 0);
    const port = portOf(before);
    const signedIn = await jar.fetch(`${before.url}/auth/callback/credentials`, {
      method: 'POST',
      ...formBody({ csrfToken: await csrfToken(jar, before.url), username: 'ada', password: 'correct horse' }),
    });
    expect(signedIn.status).toBe(302);
    const theirs = await me(jar, before.url);
    expect(theirs?.user).toEqual({ name: 'Ada Lovelace', email: 'ada@example.test' });
    await before.stop();

    const after = await ourApp(ourConfig, port);
    expect(after.url).toBe(before.url);
    const ours = await me(jar, after.url);
    // The same user, with the id Auth.js kept in the token's `sub`.
    expect(ours?.user).toEqual({ id: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.test' });
    expect(Date.parse(ours!.expires!)).toBeGreaterThan(Date.now());
    // Whatever our session route sets (a rolling session re-issues the cookie when due) still reads on @auth/express.
    expect(((await (await jar.fetch(`${after.url}/auth/session`)).json()) as { user: unknown }).user).toMatchObject({ email: 'ada@example.test' });

    // Signing out and in again on ours, then rolling back to @auth/express: the user stays signed in there too.
    const fresh = createJar();
    const ourSignIn = await fresh.fetch(`${after.url}/auth/callback/credentials`, {
      method: 'POST',
      ...formBody({ csrfToken: await csrfToken(fresh, after.url), username: 'ada', password: 'correct horse' }),
    });
    expect(ourSignIn.status).toBe(302);
    await after.stop();
    const back = await authJsApp(authJsConfig, port);
    expect((await me(fresh, back.url))?.user).toEqual({ name: 'Ada Lovelace', email: 'ada@example.test' });
    expect((await me(jar, back.url))?.user).toEqual({ name: 'Ada Lovelace', email: 'ada@example.test' });
    await back.stop();
  });
});

describe('database sessions on @auth/pg-adapter tables: @auth/express → ours with the same adapter', () => {
  let op: RunningOidcProvider;
  let postgres: RunningPostgres;
  let pool: Pool;

  beforeAll(async () => {
    [op, postgres] = await Promise.all([startOidcProvider(), startPostgres()]);
    pool = createTestPool({ connectionString: postgres.url });
    await pool.query(documentedSchema);
  });
  afterAll(async () => {
    await pool?.end();
    await op?.close();
    await postgres?.stop();
  });

  it('keeps the session row: ours reads it for the same user, and signing out on ours deletes it', async () => {
    const client = { clientId: 'migrating-app', clientSecret: 'migrating-app-secret' };
    const authJsConfig: ExpressAuthConfig = {
      secret: SECRET,
      trustHost: true,
      logger: quiet,
      adapter: AuthJsPostgresAdapter(pool),
      providers: [
        {
          id: 'oidc',
          name: 'OpenID Connect',
          type: 'oidc',
          issuer: op.issuer,
          ...client,
          authorization: { params: { scope: 'openid profile email' } },
        },
      ],
    };
    const jar = createJar();
    const before = await authJsApp(authJsConfig, 0);
    const port = portOf(before);
    await op.setClient({ client_id: client.clientId, client_secret: client.clientSecret, redirect_uris: [`${before.url}/auth/callback/oidc`] });
    const started = await jar.fetch(`${before.url}/auth/signin/oidc`, { method: 'POST', ...formBody({ csrfToken: await csrfToken(jar, before.url), callbackUrl: `${before.url}/me` }) });
    expect(started.status).toBe(302);
    const callback = await loginThroughProvider(jar, started.headers.get('location')!);
    expect((await jar.fetch(callback)).status).toBe(302);
    const theirs = await me(jar, before.url);
    expect(theirs?.user).toMatchObject({ name: 'Alice Example', email: 'alice@example.test' });
    const token = jar.get('authjs.session-token', before.url)!;
    const { rows: [row] } = await pool.query<{ userId: number }>('SELECT "userId" FROM sessions WHERE "sessionToken" = $1', [token]);
    expect(row).toBeDefined();
    await before.stop();

    const after = await ourApp(
      { secret: SECRET, trustHost: true, logger: quiet, adapter: AuthJsPostgresAdapter(pool), features: [database], providers: [OIDC({ issuer: op.issuer, ...client })] },
      port,
    );
    const ours = await me(jar, after.url);
    expect(ours?.user).toEqual({ id: String(row!.userId), name: 'Alice Example', email: 'alice@example.test', image: 'https://example.test/alice.png' });

    // A second sign-in on ours with the same provider account finds the same user (the account row Auth.js wrote).
    const second = createJar();
    const again = await second.fetch(`${after.url}/auth/signin/oidc`, { method: 'POST', ...formBody({ csrfToken: await csrfToken(second, after.url), callbackUrl: '/me' }) });
    expect((await second.fetch(await loginThroughProvider(second, again.headers.get('location')!))).status).toBe(302);
    expect((await me(second, after.url))?.user?.['id']).toBe(String(row!.userId));
    expect((await pool.query('SELECT 1 FROM users')).rowCount).toBe(1);

    const signOut = await jar.fetch(`${after.url}/auth/signout`, { method: 'POST', ...formBody({ csrfToken: await csrfToken(jar, after.url) }) });
    expect(signOut.status).toBe(302);
    expect((await pool.query('SELECT 1 FROM sessions WHERE "sessionToken" = $1', [token])).rowCount).toBe(0);
    expect(await me(jar, after.url)).toBeNull();
    await after.stop();
  });
});
