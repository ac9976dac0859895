// Issue 46 (security review 5, A2): one place computes when a session authenticated and when it ends for good, for JWT
// and database sessions; an unknown authentication time is never recent. The Auth.js adapter half over HTTP is in
// test/adapters/authjs-adapter-auth-time.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { createRequireRecentAuth } from '../../templates/runtime/features/database/recent-auth.js';
import { decode, encode } from '../../templates/runtime/index.js';
import { impersonationToken } from '../../templates/runtime/features/admin/impersonation.js';
import { databaseClock, newSessionToken } from '../../templates/runtime/features/database/session-token.js';
import { jwtTimes, sessionClock } from '../../templates/runtime/session/session-clock.js';

const jwtSessionClock = (claims: Parameters<typeof jwtTimes>[0], absoluteMaxAge: number, now: number) => sessionClock(...jwtTimes(claims, now), absoluteMaxAge);
const databaseSessionClock = databaseClock;
import type { RunningApp } from '../support/listen.js';
import { SECRET, credentialsConfig, startApp } from './helpers.js';

const HOUR = 60 * 60;
const running: RunningApp[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(running.splice(0).map((app) => app.close()));
});

describe('the session clock', () => {
  it('reads a JWT\'s auth_time as its authentication and its start', () => {
    expect(jwtSessionClock({ auth_time: 1_000, iat: 5_000 }, HOUR, 6_000)).toEqual({ authTime: 1_000, startedAt: 1_000, endsAt: 1_000 + HOUR });
  });

  it('gives a JWT without auth_time (issued by Auth.js) no authentication time, and starts it at its iat', () => {
    expect(jwtSessionClock({ iat: 5_000 }, HOUR, 6_000)).toEqual({ authTime: undefined, startedAt: 5_000, endsAt: 5_000 + HOUR });
  });

  it('starts a re-issued JWT of unknown authentication at its session_start, not at its newer iat', () => {
    expect(jwtSessionClock({ iat: 5_000, session_start: 2_000 }, HOUR, 6_000)).toEqual({ authTime: undefined, startedAt: 2_000, endsAt: 2_000 + HOUR });
  });

  it('reads the authentication time a database session token carries, before the row\'s createdAt', () => {
    const token = newSessionToken('0b7c6e5a-2f7e-4c55-9d3f-1f2e3d4c5b6a', new Date(1_700_000_000_900));
    expect(token).toBe('0b7c6e5a-2f7e-4c55-9d3f-1f2e3d4c5b6a~t1700000000');
    expect(databaseSessionClock(token, { createdAt: new Date(1_800_000_000_000) }, HOUR)).toMatchObject({ authTime: 1_700_000_000, endsAt: 1_700_000_000 + HOUR });
  });

  it('falls back to the row\'s createdAt for a token without a time (a built-in adapter\'s row from before)', () => {
    expect(databaseSessionClock('plain-token', { createdAt: new Date(1_700_000_000_500) }, HOUR)).toEqual({ authTime: 1_700_000_000, startedAt: 1_700_000_000.5, endsAt: 1_700_000_000.5 + HOUR });
  });

  it('knows no authentication time and no absolute end for a bare token without createdAt (an Auth.js adapter\'s row)', () => {
    expect(databaseSessionClock('plain-token', {}, HOUR)).toEqual({ authTime: undefined, startedAt: undefined, endsAt: Number.POSITIVE_INFINITY });
  });

  it.each(['token~t', 'token~tabc', 'token~t12.5', 'token~t-1', 'token~t1234567890123'])('reads no time from %s', (token) => {
    expect(databaseSessionClock(token, {}, HOUR)).toEqual({ authTime: undefined, startedAt: undefined, endsAt: Number.POSITIVE_INFINITY });
  });

  it('ends an impersonation\'s session at the time its token carries, and never counts it as a recent authentication (issue 49)', () => {
    const token = impersonationToken('0b7c6e5a-2f7e-4c55-9d3f-1f2e3d4c5b6a', new Date(1_700_003_600_000));
    expect(token).toBe('0b7c6e5a-2f7e-4c55-9d3f-1f2e3d4c5b6a~i1700003600');
    expect(databaseSessionClock(token, { createdAt: new Date(1_700_000_000_000) }, 90 * 24 * HOUR)).toEqual({ authTime: undefined, startedAt: undefined, endsAt: 1_700_003_600 });
  });
});

describe('a JWT session cookie issued by Auth.js (no auth_time)', () => {
  async function start(): Promise<RunningApp> {
    const config = credentialsConfig({ adapter: MemoryAdapter(), session: { strategy: 'jwt', updateAge: 0 } });
    const app = await startApp(config, '/auth', (express) => {
      express.post('/billing', createRequireRecentAuth({ ...config, secret: SECRET }), (_req, res) => void res.json({ paid: true }));
    });
    running.push(app);
    return app;
  }

  /** A session cookie as @auth/express issues it (no auth_time), issued at `iat`. */
  async function authJsCookie(iat: number): Promise<string> {
    vi.useFakeTimers({ toFake: ['Date'], now: iat * 1000 });
    try {
      return await encode({ token: { sub: 'user-1', name: 'Ada', email: 'ada@example.test' }, secret: SECRET, salt: 'authjs.session-token', maxAge: 30 * 24 * HOUR });
    } finally {
      vi.useRealTimers();
    }
  }

  it('is a session, but never a recent authentication, even when issued a second ago', async () => {
    const app = await start();
    const cookie = `authjs.session-token=${await authJsCookie(Math.floor(Date.now() / 1000) - 1)}`;
    const session = await (await fetch(`${app.url}/auth/session`, { headers: { cookie } })).json();
    expect(session).toMatchObject({ user: { email: 'ada@example.test' } });
    const answer = await fetch(`${app.url}/billing`, { method: 'POST', headers: { cookie, accept: 'application/json' } });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ error: 'reauthentication_required' });
  });

  it('is re-issued with its first iat as session_start and no auth_time, so that a re-issue neither restarts nor authenticates it', async () => {
    const app = await start();
    const iat = Math.floor(Date.now() / 1000) - 10;
    const response = await fetch(`${app.url}/auth/session`, { headers: { cookie: `authjs.session-token=${await authJsCookie(iat)}` } });
    const reissued = response.headers.getSetCookie().find((cookie) => cookie.startsWith('authjs.session-token='))!;
    const claims = await decode({ token: reissued.slice('authjs.session-token='.length).split(';')[0]!, secret: SECRET, salt: 'authjs.session-token' });
    expect(claims).toMatchObject({ session_start: iat });
    expect(claims?.auth_time).toBeUndefined();
    expect(claims!.iat).toBeGreaterThan(iat);
  });
});
