/**
 * The password group: email and password sign-in in our runtime (`Password()`, SQLite, database sessions) and in
 * Better Auth (`emailAndPassword`, SQLite, its database sessions). Each sign-in here is the one request a browser
 * sends from the sign-in page: ours POST /auth/callback/password (form, with the CSRF token and cookie the page gave,
 * fetched once per app from GET /auth/csrf), Better Auth's POST /api/auth/sign-in/email (JSON, with the Origin a
 * browser sends). Both end with a session cookie; anything else is a failure. The floor (an Express route that only
 * checks the hash) is signed in to the same way as ours, without the CSRF token. Also: sign-ins started at a
 * fixed rate (not waiting for each other), and a paced latency probe of one URL over keep-alive connections.
 */
import { Agent, request } from 'node:http';
import { formBody } from '../../test/support/cookie-jar.js';
import { PASSWORD_USER } from '../servers/password-user.js';
import type { LoadResult } from './load.js';
import { Samples } from './stats.js';

/** The session cookie each app sets. */
export const OUR_SESSION_COOKIE = 'authjs.session-token';
export const BETTER_AUTH_SESSION_COOKIE = 'better-auth.session_token';

function cookiePairs(response: Response): string[] {
  return response.headers.getSetCookie().map((header) => header.slice(0, header.indexOf(';')));
}

function sessionPair(response: Response, name: string): string | undefined {
  return cookiePairs(response).find((pair) => pair.startsWith(`${name}=`) && pair.length > name.length + 1);
}

const csrfByApp = new Map<string, Promise<{ token: string; cookie: string }>>();

/** The CSRF token and cookie of an app, as its sign-in page gives them to a browser: fetched once. */
function csrfOf(baseUrl: string): Promise<{ token: string; cookie: string }> {
  let found = csrfByApp.get(baseUrl);
  if (!found) {
    found = fetch(`${baseUrl}/auth/csrf`).then(async (response) => ({ token: ((await response.json()) as { csrfToken: string }).csrfToken, cookie: cookiePairs(response).join('; ') }));
    csrfByApp.set(baseUrl, found);
  }
  return found;
}

/** One sign-in with our `Password()` provider; resolves to the session cookie (`name=value`). */
export async function ourPasswordSignIn(baseUrl: string): Promise<string> {
  const csrf = await csrfOf(baseUrl);
  const { body, headers } = formBody({ csrfToken: csrf.token, email: PASSWORD_USER.email, password: PASSWORD_USER.password });
  const callback = await fetch(`${baseUrl}/auth/callback/password`, {
    method: 'POST',
    redirect: 'manual',
    body,
    headers: { ...headers, cookie: csrf.cookie },
  });
  await callback.arrayBuffer();
  const location = callback.headers.get('location') ?? '';
  const session = sessionPair(callback, OUR_SESSION_COOKIE);
  if (callback.status !== 302 || location.includes('error=') || !session) throw new Error(`password sign-in answered ${callback.status} ${location}`);
  return session;
}

/** One sign-in at the floor server (bench/servers/express-hash.ts): the same form without a CSRF token. */
export async function floorSignIn(baseUrl: string): Promise<string> {
  const { body, headers } = formBody({ email: PASSWORD_USER.email, password: PASSWORD_USER.password });
  const callback = await fetch(`${baseUrl}/auth/callback/password`, { method: 'POST', redirect: 'manual', body, headers });
  await callback.arrayBuffer();
  const session = sessionPair(callback, OUR_SESSION_COOKIE);
  if (callback.status !== 302 || callback.headers.get('location') !== '/' || !session) throw new Error(`the floor's sign-in answered ${callback.status} ${callback.headers.get('location') ?? ''}`);
  return session;
}

/** One sign-in with Better Auth's email and password; resolves to the session cookie (`name=value`). */
export async function betterAuthSignIn(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/sign-in/email`, {
    method: 'POST',
    body: JSON.stringify({ email: PASSWORD_USER.email, password: PASSWORD_USER.password }),
    headers: { 'content-type': 'application/json', origin: baseUrl },
  });
  const text = await response.text();
  const session = sessionPair(response, BETTER_AUTH_SESSION_COOKIE);
  if (response.status !== 200 || !session) throw new Error(`sign-in/email answered ${response.status} ${text.slice(0, 200)}`);
  return session;
}

/** Sign-ins started at a fixed rate. */
export interface PacedSignIns {
  started: number;
  completed: number;
  failures: number;
  firstFailure?: string;
  /** From the first start to the last completion. */
  seconds: number;
  /** The rate reached: completed sign-ins over those seconds. */
  perSecond: number;
}

/**
 * Starts one `signIn` every 1/`perSecond` s (whether or not the earlier ones are done) until `stop()` is called, then
 * waits for those in flight.
 */
export function startPacedSignIns(signIn: () => Promise<unknown>, perSecond: number): { stop(): Promise<PacedSignIns> } {
  const interval = 1000 / perSecond;
  const begin = performance.now();
  const inFlight = new Set<Promise<void>>();
  let started = 0;
  let completed = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    if (stopped) return;
    // Catch up on the starts that are due (a late timer does not lower the rate).
    while (begin + started * interval <= performance.now()) {
      started++;
      const run = signIn().then(
        () => void completed++,
        (error: unknown) => {
          failures++;
          firstFailure ??= error instanceof Error ? error.message : String(error);
        },
      );
      inFlight.add(run);
      void run.finally(() => inFlight.delete(run));
    }
    timer = setTimeout(tick, Math.max(0, begin + started * interval - performance.now()));
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(inFlight);
      const seconds = (performance.now() - begin) / 1000;
      return { started, completed, failures, ...(firstFailure !== undefined && { firstFailure }), seconds, perSecond: completed / seconds };
    },
  };
}

/**
 * GETs `url` at `perSecond` for `seconds`, each request sent when it is due (open loop: a slow answer does not delay
 * the next request, so queueing shows in the latencies), over keep-alive connections. Latency: from sending to the
 * end of the body.
 */
export async function probeLatency(options: { url: string; headers: Record<string, string>; perSecond: number; seconds: number }): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const samples = new Samples();
  const statuses: Record<string, number> = {};
  let errors = 0;
  const total = Math.max(1, Math.round(options.perSecond * options.seconds));
  const interval = 1000 / options.perSecond;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const req = request(options.url, { agent, headers: options.headers }, (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          samples.add(performance.now() - t0);
          const status = String(res.statusCode);
          statuses[status] = (statuses[status] ?? 0) + 1;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end();
    });
  const pending: Promise<void>[] = [];
  const begin = performance.now();
  for (let index = 0; index < total; index++) {
    const due = begin + index * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(one());
  }
  await Promise.all(pending);
  const seconds = (performance.now() - begin) / 1000;
  agent.destroy();
  return { requests: samples.count, seconds, requestsPerSecond: samples.count / seconds, p50: samples.percentile(50), p99: samples.percentile(99), statuses, errors, samples };
}
