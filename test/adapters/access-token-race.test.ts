/**
 * Two app processes refresh one account's access token at once (issue 17). Each process is test/support/token-app.ts
 * with database sessions on one shared database (a SQLite file, or PostgreSQL); a user signs in through the first,
 * and the same session cookie then asks both for the access token, four requests to each, all at once, while the
 * token is due for a refresh. oidc-provider on 127.0.0.1 rotates refresh tokens and, when a consumed one is used
 * again, revokes the whole grant.
 *
 * - With the database lease (SqliteAdapter and PostgresAdapter have `hitRateLimit`): the provider gets one refresh
 *   request; all eight answers carry its access token; the row holds its tokens; the grant stays usable.
 * - Without it (an adapter lacking `hitRateLimit`), and with both processes' refresh requests held until both are
 *   ready: the provider gets two requests with the same refresh token. The compare-and-set write keeps the row equal
 *   to the tokens of the one successful refresh, never a mix, never the old ones, and not withdrawn by the other
 *   process's refusal. oidc-provider answers the second use of the token with invalid_grant and revokes the whole
 *   grant, so the stored tokens are dead at the provider all the same: the lease is what avoids that.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import type { Pool } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter, AdapterAccount } from '../../templates/runtime/features/database/adapter.js';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { createJar, type CookieJar } from '../support/cookie-jar.js';
import { DEFAULT_ACCOUNTS, loginThroughProvider, refreshingConfiguration, startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { createTestPool, startPostgres, type RunningPostgres } from '../support/postgres.js';
import { formBody } from '../support/cookie-jar.js';
import { SECRET } from '../runtime/helpers.js';

const alice = DEFAULT_ACCOUNTS.alice!;
const sessionCookie = 'authjs.session-token';

let postgres: RunningPostgres;
let admin: Pool;
let op: RunningOidcProvider;
let folder: string;
let databases = 0;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  [postgres, folder, op] = await Promise.all([
    startPostgres(),
    mkdtemp(join(tmpdir(), 'framework-auth-token-race-')),
    startOidcProvider({ configuration: refreshingConfiguration() }),
  ]);
  admin = createTestPool({ connectionString: postgres.url });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await admin?.end();
  await postgres?.stop();
  await op?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** A database no other test uses: its URL for the app processes, and an adapter on it for the test's own reads. */
interface SharedDatabase {
  url: string;
  adapter: Adapter;
}

async function postgresDatabase(): Promise<SharedDatabase> {
  const name = `token_race_${++databases}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(postgres.url);
  url.pathname = `/${name}`;
  const pool = createTestPool({ connectionString: url.href });
  cleanups.push(() => pool.end());
  return { url: url.href, adapter: PostgresAdapter({ pool }) };
}

async function sqliteDatabase(): Promise<SharedDatabase> {
  const url = `file:${join(folder, `race-${++databases}.db`)}`;
  return { url, adapter: SqliteAdapter({ url }) };
}

/** A refresh token request one app process sent, as it reported it (hashes of the tokens). */
interface ReportedRefresh {
  status: number;
  sent: string;
  access?: string;
  refresh?: string;
  error?: string;
}

interface AppProcess {
  url: string;
  refreshes: ReportedRefresh[];
}

/**
 * The barrier of the processes' refresh requests (see token-app.ts): a GET is answered once two have arrived, or
 * after a second for one alone (with the lease, the second process never asks the provider).
 */
async function startBarrier(): Promise<string> {
  const waiting: (() => void)[] = [];
  const server = createServer((_req, res) => {
    const release = (): void => void res.end('go');
    waiting.push(release);
    if (waiting.length >= 2) waiting.splice(0).forEach((go) => go());
    else setTimeout(() => waiting.includes(release) && waiting.splice(waiting.indexOf(release), 1) && release(), 1000);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}/arrive`;
}

async function startProcess(adapter: 'postgres' | 'sqlite', database: SharedDatabase, clientId: string, lease: boolean, barrier: string): Promise<AppProcess> {
  const child: ChildProcess = spawn(join(process.cwd(), 'node_modules/.bin/tsx'), ['test/support/token-app.ts'], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      TOKEN_APP_ADAPTER: adapter,
      TOKEN_APP_LEASE: lease ? 'on' : 'off',
      DATABASE_URL: database.url,
      AUTH_SECRET: SECRET,
      OIDC_ISSUER: op.issuer,
      OIDC_CLIENT_ID: clientId,
      TOKEN_APP_BARRIER: barrier,
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  cleanups.push(async () => {
    child.stdin?.end();
    if (child.exitCode === null) await once(child, 'exit');
  });
  const refreshes: ReportedRefresh[] = [];
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve) => {
    lines.on('line', (line) => {
      if (line.startsWith('http://')) resolve(line.trim());
      else if (line.startsWith('{')) refreshes.push((JSON.parse(line) as { refresh: ReportedRefresh }).refresh);
    });
  });
  return { url, refreshes };
}

const sha256 = (value: string | undefined): string | undefined => (value === undefined ? undefined : createHash('sha256').update(value).digest('hex'));

/** Signs alice in through `app`: csrf, POST signin, the provider's login and consent, the callback. */
async function signIn(app: AppProcess, jar: CookieJar): Promise<void> {
  const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
  const started = await jar.fetch(`${app.url}/auth/signin/oidc`, { method: 'POST', ...formBody({ csrfToken, callbackUrl: '/' }), redirect: 'manual' });
  expect(started.status).toBe(302);
  const callback = await loginThroughProvider(jar, started.headers.get('location')!);
  const finished = await jar.fetch(callback, { redirect: 'manual' });
  expect(finished.status).toBe(302);
  expect(jar.get(sessionCookie, app.url)).toBeTruthy();
}

async function accountOf(database: SharedDatabase): Promise<AdapterAccount> {
  const user = await database.adapter.getUserByAccount!({ provider: 'oidc', providerAccountId: alice.sub });
  const [account] = await database.adapter.listAccountsByUserId!(user!.id);
  return account!;
}

/** POSTs to the provider's token endpoint directly: whether the grant behind `refreshToken` still refreshes. */
async function refreshStatus(clientId: string, refreshToken: string): Promise<number> {
  const response = await fetch(op.endpoints.token_endpoint, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  });
  await response.arrayBuffer();
  return response.status;
}

async function userinfoStatus(accessToken: string): Promise<number> {
  const response = await fetch(op.endpoints.userinfo_endpoint, { headers: { authorization: `Bearer ${accessToken}` } });
  await response.arrayBuffer();
  return response.status;
}

interface Race {
  clientId: string;
  database: SharedDatabase;
  before: AdapterAccount;
  answers: { status: number; accessToken?: string; type?: string; reason?: string }[];
  /** POST /token requests the provider answered during the race. */
  tokenEndpointHits: number;
  refreshes: ReportedRefresh[];
}

/**
 * Two processes on one database; alice signs in through the first (her access token lives 2 seconds, so it is due
 * at once; refreshed ones live an hour); then four requests to each process, all at once, with her session cookie.
 */
async function race(adapter: 'postgres' | 'sqlite', createDatabase: () => Promise<SharedDatabase>, lease: boolean): Promise<Race> {
  const database = await createDatabase();
  const clientId = `first-race-${databases}`;
  const barrier = await startBarrier();
  const [first, second] = await Promise.all([startProcess(adapter, database, clientId, lease, barrier), startProcess(adapter, database, clientId, lease, barrier)]);
  await op.setClient({
    client_id: clientId,
    redirect_uris: [`${first.url}/auth/callback/oidc`, `${second.url}/auth/callback/oidc`],
    grant_types: ['authorization_code', 'refresh_token'],
  });
  const jar = createJar();
  await signIn(first, jar);
  // The same browser session on the second process's origin (the jar keeps cookies per port).
  jar.set(second.url, `${sessionCookie}=${jar.get(sessionCookie, first.url)!}; Path=/`);
  const before = await accountOf(database);
  // The second process discovers the provider's endpoints before the race, as the first did at sign-in, so that
  // both are as far along when the requests come.
  const warmUp = createJar();
  const { csrfToken } = (await (await warmUp.fetch(`${second.url}/auth/csrf`)).json()) as { csrfToken: string };
  expect((await warmUp.fetch(`${second.url}/auth/signin/oidc`, { method: 'POST', ...formBody({ csrfToken }), redirect: 'manual' })).status).toBe(302);

  const hitsBefore = op.requests.filter((request) => request.method === 'POST' && request.url === '/token').length;
  const answers = await Promise.all(
    Array.from({ length: 8 }, async (_, index) => {
      const response = await jar.fetch(`${(index % 2 === 0 ? first : second).url}/token`);
      return { status: response.status, ...((await response.json()) as { accessToken?: string; type?: string; reason?: string }) };
    }),
  );
  const tokenEndpointHits = op.requests.filter((request) => request.method === 'POST' && request.url === '/token').length - hitsBefore;
  // Each process prints its refresh before it answers; the lines may still be on their way through the pipe.
  await expect.poll(() => first.refreshes.length + second.refreshes.length).toBe(tokenEndpointHits);
  return { clientId, database, before, answers, tokenEndpointHits, refreshes: [...first.refreshes, ...second.refreshes] };
}

const adapters = [
  ['sqlite', sqliteDatabase],
  ['postgres', postgresDatabase],
] as const;

describe.each(adapters)('two app processes refreshing one token on a shared %s database', (name, createDatabase) => {
  it('send one refresh request with the lease, and every answer carries its access token', async () => {
    const result = await race(name, createDatabase, true);
    expect(result.tokenEndpointHits).toBe(1);
    const [refresh] = result.refreshes;
    expect(refresh).toMatchObject({ status: 200, sent: sha256(result.before.refresh_token) });
    expect(result.answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(new Set(result.answers.map((answer) => sha256(answer.accessToken)))).toEqual(new Set([refresh!.access]));

    const after = await accountOf(result.database);
    expect(sha256(after.access_token)).toBe(refresh!.access);
    expect(sha256(after.refresh_token)).toBe(refresh!.refresh);
    // Nothing was reused, so the provider revoked nothing: the token works and the stored refresh token refreshes.
    expect(await userinfoStatus(after.access_token!)).toBe(200);
    expect(await refreshStatus(result.clientId, after.refresh_token!)).toBe(200);
  }, 60_000);

  it('keep the stored tokens equal to one successful refresh without the lease', async () => {
    const result = await race(name, createDatabase, false);
    expect(result.tokenEndpointHits).toBeGreaterThanOrEqual(1);
    expect(result.tokenEndpointHits).toBeLessThanOrEqual(2);
    expect(result.refreshes.every((refresh) => refresh.sent === sha256(result.before.refresh_token))).toBe(true);
    const succeeded = result.refreshes.filter((refresh) => refresh.status === 200);
    expect(succeeded.length).toBeGreaterThanOrEqual(1);

    const after = await accountOf(result.database);
    const stored = { access: sha256(after.access_token), refresh: sha256(after.refresh_token) };
    expect(succeeded.map((refresh) => ({ access: refresh.access, refresh: refresh.refresh }))).toContainEqual(stored);
    // Every process answered with the access token it stored, or with the one the other process stored first.
    for (const answer of result.answers) {
      if (answer.status === 200) expect(succeeded.map((refresh) => refresh.access)).toContain(sha256(answer.accessToken));
      else expect(answer).toMatchObject({ status: 401, type: 'RefreshTokenError' });
    }
    // What the provider did with the second use: oidc-provider refuses it and revokes the grant, so the stored
    // tokens, though the right ones, no longer work there.
    const atUserinfo = await userinfoStatus(after.access_token!);
    if (result.refreshes.some((refresh) => refresh.error === 'invalid_grant')) expect(atUserinfo).toBe(401);
    console.info(
      `[token race, ${name}, no lease] token endpoint hits: ${result.tokenEndpointHits}; provider answers: ${result.refreshes.map((refresh) => refresh.error ?? refresh.status).join(', ')}; ` +
        `app answers: ${result.answers.map((answer) => answer.status).join(' ')}; stored access token at userinfo: ${atUserinfo}`,
    );
  }, 60_000);
});
