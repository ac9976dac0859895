import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import type { Request } from 'express';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { CredentialsSignin, FrameworkAuth, createRequireAuth, createSessionLocals, getSession } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Credentials from '../../templates/runtime/providers/credentials.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import type { Adapter } from '../../templates/runtime/contracts.js';

export const SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
export const OTHER_SECRET = 'another-secret-9876543210-zyxwvutsrqponmlkjihgfedcba';

/** A logger that keeps what it is given, so tests stay quiet and can assert on errors. */
export function recordingLogger() {
  const errors: Error[] = [];
  return { errors, logger: { error: (error: Error) => errors.push(error), warn: () => {}, debug: () => {} } };
}

/** Thrown by authorize() for a locked account: a custom, generic code. */
export class AccountLocked extends CredentialsSignin {
  override code = 'account_locked';
}

/** A credentials provider: password "correct horse" signs in; "locked" throws a custom code; "boom" throws. */
export function passwordProvider() {
  return Credentials({
    credentials: { username: { label: 'User name' }, password: { label: 'Password', type: 'password' } },
    authorize: async (credentials: Partial<Record<'username' | 'password', unknown>>, _request: Request) => {
      if (credentials.password === 'locked') throw new AccountLocked();
      if (credentials.password === 'boom') throw new Error('database exploded with password hunter2');
      if (credentials.password !== 'correct horse') return null;
      return { id: `id-${String(credentials.username)}`, name: String(credentials.username), email: `${String(credentials.username)}@example.test` };
    },
  });
}

export function credentialsConfig(overrides: Partial<FrameworkAuthConfig> = {}): FrameworkAuthConfig {
  return { secret: SECRET, providers: [passwordProvider()], logger: recordingLogger().logger, ...overrides };
}

/** An Express 5 app with the handler on `<mount>/*splat`, sessionLocals, `/me` guarded and `/whoami` via getSession. */
export async function startApp(config: FrameworkAuthConfig, mount = '/auth', setup?: (app: express.Express) => void): Promise<RunningApp> {
  const app = express();
  app.set('trust proxy', true);
  setup?.(app);
  app.use(`${mount}/*splat`, FrameworkAuth(config));
  app.use(createSessionLocals(config));
  app.get('/me', createRequireAuth(config), (_req, res) => {
    res.json({ user: (res.locals.session as { user: unknown }).user });
  });
  app.get('/whoami', async (req, res) => {
    res.json(await getSession(req, config));
  });
  return listen(app);
}

/** Signs in through the credentials provider; returns the jar and the callback response. */
export async function signIn(url: string, mount = '/auth', fields: Record<string, string> = {}): Promise<{ jar: CookieJar; response: Response }> {
  const jar = createJar();
  const { csrfToken } = (await (await jar.fetch(`${url}${mount}/csrf`)).json()) as { csrfToken: string };
  const response = await jar.fetch(`${url}${mount}/callback/credentials`, {
    method: 'POST',
    ...formBody({ csrfToken, username: 'ada', password: 'correct horse', ...fields }),
  });
  return { jar, response };
}

/** The value of a cookie in a response's Set-Cookie headers. */
export function setCookieNames(response: Response): string[] {
  return response.headers.getSetCookie().map((cookie) => cookie.split('=')[0]!);
}

/** A fresh adapter, and the SQLite adapter's temp folder (its file and WAL; absent for memory). */
export interface MadeAdapter {
  adapter: Adapter;
  folder: string | undefined;
}

/** The adapters a feature's HTTP tests run against (`describe.each`): memory, and SQLite in a temp file. */
export const memoryAndSqlite: readonly [name: string, make: () => Promise<MadeAdapter>][] = [
  ['MemoryAdapter', async () => ({ adapter: MemoryAdapter(), folder: undefined })],
  [
    'SqliteAdapter',
    async () => {
      const folder = await mkdtemp(join(tmpdir(), 'framework-auth-feature-'));
      return { adapter: SqliteAdapter({ url: `file:${join(folder, 'auth.db')}` }), folder };
    },
  ],
];
