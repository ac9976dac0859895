/**
 * Sessions users can manage, across processes (issue 17): three app processes share one PostgreSQL behind a
 * round-robin proxy on loopback, as a load balancer would spread a user's requests. A session ended through one
 * process must be gone on every process from the very next request.
 */
import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../templates/runtime/features/database/session-management.js';
import { type CookieJar, createJar, formBody } from '../support/cookie-jar.js';
import { loginThroughProvider, startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { startPostgres, type RunningPostgres } from '../support/postgres.js';
import { AppProcesses } from '../support/postgres-app-processes.js';

let op: RunningOidcProvider;
let postgres: RunningPostgres;
let proxy: Server;
let origin: string;
/** Which app process answered each request through the proxy, in order. */
const served: number[] = [];

let processes: AppProcesses;

/** One app process (test/support/postgres-app.ts). */
async function startProcess(): Promise<URL> {
  return new URL(await processes.start());
}

/** A round-robin HTTP proxy: each request goes to the next process; `X-Served-By` tells which. */
async function startProxy(backends: readonly URL[]): Promise<string> {
  let next = 0;
  proxy = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const index = next++ % backends.length;
    served.push(index);
    const backend = backends[index]!;
    const forwarded = request(
      { hostname: backend.hostname, port: backend.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-served-by': String(index) });
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  [op, postgres] = await Promise.all([startOidcProvider(), startPostgres()]);
  processes = new AppProcesses({ databaseUrl: postgres.url, issuer: op.issuer, clientId: 'three-rp', clientSecret: 'three-rp-secret' });
  // One process first, so that the tables are created once; the other two find them.
  const first = await startProcess();
  const rest = await Promise.all([startProcess(), startProcess()]);
  origin = await startProxy([first, ...rest]);
  await op.setClient({ client_id: 'three-rp', redirect_uris: [`${origin}/auth/callback/oidc`] });
}, 60_000);

afterAll(async () => {
  processes?.stopAll();
  proxy?.close();
  await op?.close();
  await postgres?.stop();
});

async function csrfToken(jar: CookieJar): Promise<string> {
  return ((await (await jar.fetch(`${origin}/auth/csrf`)).json()) as { csrfToken: string }).csrfToken;
}

/** A browser signing in through the proxy: each step of the flow may land on a different process. */
async function signedInBrowser(userAgent: string): Promise<CookieJar> {
  const jar = createJar();
  const started = await jar.fetch(`${origin}/auth/signin/oidc`, { method: 'POST', ...formBody({ csrfToken: await csrfToken(jar), callbackUrl: '/me' }) });
  expect(started.status).toBe(302);
  const callback = await loginThroughProvider(jar, started.headers.get('location')!);
  expect((await jar.fetch(callback, { headers: { 'user-agent': userAgent } })).status).toBe(302);
  return jar;
}

/** GET /me (getSession) through the proxy: the session seen and the process that answered. */
async function me(jar: CookieJar): Promise<{ email: string | null; process: number }> {
  const response = await jar.fetch(`${origin}/me`);
  const { session } = (await response.json()) as { session: { user: { email: string } } | null };
  return { email: session?.user.email ?? null, process: Number(response.headers.get('x-served-by')) };
}

/** The next three requests of `jar`, one on each process. */
async function onEveryProcess(jar: CookieJar): Promise<{ email: string | null; process: number }[]> {
  const seen = [await me(jar), await me(jar), await me(jar)];
  expect(seen.map((each) => each.process).sort()).toEqual([0, 1, 2]);
  return seen;
}

async function endSessions(jar: CookieJar, fields: Record<string, string>): Promise<{ ended: number; process: number }> {
  const form = formBody({ csrfToken: await csrfToken(jar), ...fields });
  const response = await jar.fetch(`${origin}/auth/sessions`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: 'application/json' } });
  expect(response.status).toBe(200);
  return { ...((await response.json()) as { ended: number }), process: Number(response.headers.get('x-served-by')) };
}

describe('three app processes behind a round-robin proxy, one PostgreSQL', () => {
  it('lists the sessions made on any process, and a session ended on one process is gone on all three at the next request', async () => {
    const laptop = await signedInBrowser('Laptop/1.0');
    const phone = await signedInBrowser('Phone/1.0');
    const tablet = await signedInBrowser('Tablet/1.0');
    for (const jar of [laptop, phone, tablet]) {
      expect((await onEveryProcess(jar)).map((each) => each.email)).toEqual(['alice@example.test', 'alice@example.test', 'alice@example.test']);
    }

    const listing = await laptop.fetch(`${origin}/auth/sessions`, { headers: { accept: 'application/json' } });
    const { sessions } = (await listing.json()) as { sessions: SessionSummary[] };
    expect(sessions.map((session) => [session.userAgent, session.current])).toEqual([
      ['Laptop/1.0', true],
      ['Tablet/1.0', false],
      ['Phone/1.0', false],
    ]);

    // The laptop ends the phone's session on one process; the phone's next request, on the next process, has none,
    // and so do the two after it, on the other two.
    const phoneId = sessions.find((session) => session.userAgent === 'Phone/1.0')!.id;
    const startedAt = performance.now();
    const endedPhone = await endSessions(laptop, { action: 'end', id: phoneId });
    const endedAt = performance.now();
    expect(endedPhone.ended).toBe(1);
    const phoneAfter = await onEveryProcess(phone);
    const checkedAt = performance.now();
    expect(phoneAfter[0]!.process).toBe((endedPhone.process + 1) % 3);
    expect(phoneAfter.map((each) => each.email)).toEqual([null, null, null]);
    expect((await onEveryProcess(tablet)).map((each) => each.email)).toEqual(['alice@example.test', 'alice@example.test', 'alice@example.test']);

    // "Sign out other devices" from the tablet: the laptop is out everywhere, the tablet stays in everywhere.
    expect((await endSessions(tablet, { action: 'end-others' })).ended).toBe(1);
    expect((await onEveryProcess(laptop)).map((each) => each.email)).toEqual([null, null, null]);
    expect((await onEveryProcess(tablet)).map((each) => each.email)).toEqual(['alice@example.test', 'alice@example.test', 'alice@example.test']);

    // "Sign out everywhere" from a new browser ends the tablet and itself.
    const desktop = await signedInBrowser('Desktop/1.0');
    expect((await endSessions(desktop, { action: 'end-all' })).ended).toBe(2);
    for (const jar of [tablet, desktop]) expect((await onEveryProcess(jar)).map((each) => each.email)).toEqual([null, null, null]);
    expect(new Set(served)).toEqual(new Set([0, 1, 2]));
    console.log(
      `[revocation] 3 processes, ${served.length} requests through the proxy: ending a session on process ${endedPhone.process} took ${(endedAt - startedAt).toFixed(1)} ms; ` +
        `its next 3 requests (processes ${phoneAfter.map((each) => each.process).join(', ')}) all had no session, ${(checkedAt - endedAt).toFixed(1)} ms in all`,
    );
  }, 120_000);
});
