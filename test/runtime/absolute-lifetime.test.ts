// Issue 27: a session ends `session.absoluteMaxAge` after its sign-in (default 90 days), however often it is renewed:
// the sign-in time travels in the JWT (`auth_time`) across re-issues, and is the row's createdAt for database
// sessions. The clock is injected (Date faked); jose and our cookie decryption read the same clock.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { decode, encode } from '../../templates/runtime/index.js';
import type { RunningApp } from '../support/listen.js';
import { SECRET, credentialsConfig, signIn, startApp } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;
const running: RunningApp[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(running.splice(0).map((app) => app.close()));
});

async function start(config: Parameters<typeof startApp>[0]): Promise<RunningApp> {
  const app = await startApp(config);
  running.push(app);
  return app;
}

describe('the absolute lifetime of JWT sessions', () => {
  it('renews a session every day for 89 days, then ends it at 90 days from the sign-in', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T00:00:00Z') });
    const signedInAt = Date.now();
    const app = await start(credentialsConfig());
    const { jar } = await signIn(app.url);
    for (let day = 1; day <= 89; day++) {
      vi.setSystemTime(signedInAt + day * DAY);
      const response = await jar.fetch(`${app.url}/auth/session`);
      const session = (await response.json()) as { expires: string } | null;
      expect(session, `day ${day}`).not.toBeNull();
      // Renewed (updateAge is a day), never past the 90th day.
      expect(Date.parse(session!.expires)).toBeLessThanOrEqual(signedInAt + 90 * DAY);
    }
    const token = jar.get('authjs.session-token', app.url)!;
    const claims = await decode({ token, secret: SECRET, salt: 'authjs.session-token' });
    expect(claims?.auth_time).toBe(signedInAt / 1000);

    // The browser drops the cookie at its expiry, the 90th day; the server refuses the token itself too (a stolen copy).
    vi.setSystemTime(signedInAt + 90 * DAY);
    expect(await (await jar.fetch(`${app.url}/auth/session`)).json()).toBeNull();
    // A token whose exp is still weeks away but whose sign-in was 90 days ago.
    const renewed = await encode({ token: { ...claims, auth_time: signedInAt / 1000 }, secret: SECRET, salt: 'authjs.session-token', maxAge: 30 * 24 * 60 * 60 });
    const stolen = await fetch(`${app.url}/auth/session`, { headers: { cookie: `authjs.session-token=${renewed}` } });
    expect(await stolen.json()).toBeNull();
    expect(stolen.headers.getSetCookie().some((cookie) => cookie.startsWith('authjs.session-token=;'))).toBe(true);
  });

  it('keeps the sign-in time through a jwt callback that returns a token of its own', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T00:00:00Z') });
    const signedInAt = Date.now();
    const app = await start(credentialsConfig({ session: { absoluteMaxAge: 3 * 24 * 60 * 60 }, callbacks: { jwt: ({ token }) => ({ sub: token.sub, name: token.name }) } }));
    const { jar } = await signIn(app.url);
    vi.setSystemTime(signedInAt + 2 * DAY);
    expect(await (await jar.fetch(`${app.url}/auth/session`)).json()).not.toBeNull();
    vi.setSystemTime(signedInAt + 3 * DAY);
    expect(await (await jar.fetch(`${app.url}/auth/session`)).json()).toBeNull();
  });

  it('honours a shorter absoluteMaxAge, and a session cookie of Auth.js (no auth_time) counts from its iat', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T00:00:00Z') });
    const app = await start(credentialsConfig({ session: { absoluteMaxAge: 60 * 60, updateAge: 0 } }));
    const { jar } = await signIn(app.url);
    const first = (await (await jar.fetch(`${app.url}/auth/session`)).json()) as { expires: string };
    expect(Date.parse(first.expires)).toBe(Date.now() + 60 * 60 * 1000);
    vi.setSystemTime(Date.now() + 60 * 60 * 1000);
    expect(await (await jar.fetch(`${app.url}/auth/session`)).json()).toBeNull();
  });

  it.each([0, -1, Number.NaN])('refuses session.absoluteMaxAge %s at startup', async (absoluteMaxAge) => {
    await expect(startApp(credentialsConfig({ session: { absoluteMaxAge } })).then((app) => app.close())).rejects.toThrow('session.absoluteMaxAge must be a positive number of seconds');
  });
});

describe('the absolute lifetime of database sessions', () => {
  async function databaseApp() {
    const adapter = MemoryAdapter();
    const app = await start({ secret: SECRET, adapter, providers: [] });
    const user = await adapter.createUser!({ id: '', email: 'ada@example.test', emailVerified: null });
    return { adapter, app, userId: user.id };
  }

  it('ends a session whose row was created 90 days ago, even though its expiry was renewed, and deletes the row', async () => {
    const { adapter, app, userId } = await databaseApp();
    const now = Date.now();
    await adapter.createSession!({ sessionToken: 'old-session', userId, expires: new Date(now + 10 * DAY), createdAt: new Date(now - 90 * DAY), lastSeenAt: new Date(now), userAgent: null });
    const response = await fetch(`${app.url}/auth/session`, { headers: { cookie: 'authjs.session-token=old-session' } });
    expect(await response.json()).toBeNull();
    expect(await adapter.getSessionAndUser!('old-session')).toBeNull();
  });

  it('renews a row no further than 90 days after its creation', async () => {
    const { adapter, app, userId } = await databaseApp();
    const now = Date.now();
    const createdAt = new Date(now - 89 * DAY);
    await adapter.createSession!({ sessionToken: 'aging-session', userId, expires: new Date(now + 60_000), createdAt, lastSeenAt: new Date(now), userAgent: null });
    const response = await fetch(`${app.url}/auth/session`, { headers: { cookie: 'authjs.session-token=aging-session' } });
    const session = (await response.json()) as { expires: string };
    expect(Date.parse(session.expires)).toBe(createdAt.valueOf() + 90 * DAY);
    expect((await adapter.getSessionAndUser!('aging-session'))?.session.expires.valueOf()).toBe(createdAt.valueOf() + 90 * DAY);
  });
});
