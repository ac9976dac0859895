/**
 * Sessions users can manage (issue 17): the list of a user's database sessions and ending one, the others or all,
 * through `<mount>/sessions` (JSON and the page) and the exported helpers, with an OIDC sign-in per browser.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import { type SessionSummary, endAllSessions, endOtherSessions, endSession, listSessions, sessionIdOf } from '../../templates/runtime/features/database/session-management.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { type CookieJar, createJar, formBody } from '../support/cookie-jar.js';
import { loginThroughProvider, startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { AppRegistry, type AuthApp, csrfTokenOf, sessionOf, startSignIn } from './oauth-harness.js';

let op: RunningOidcProvider;
const apps = new AppRegistry();
let clients = 0;

beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(async () => {
  await apps.closeAll();
  await op?.close();
});

const json = { accept: 'application/json' };
const page = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

/** A form POST that also sends `headers` (formBody brings its own Content-Type). */
function post(fields: Record<string, string>, headers: Record<string, string>): RequestInit {
  const form = formBody(fields);
  return { method: 'POST', body: form.body, headers: { ...form.headers, ...headers } };
}

/** An app with database sessions on `adapter`, and routes that call the exported helpers. */
async function startApp(config: Omit<FrameworkAuthConfig, 'providers'>): Promise<AuthApp> {
  const clientId = `manage-${++clients}`;
  const app = await apps.start(
    { ...config, providers: [OIDC({ issuer: op.issuer, clientId, clientSecret: `${clientId}-secret` })] },
    {
      routes(express, full) {
        express.get('/helpers/list', async (req, res) => void res.json(await listSessions(req, full)));
        express.post('/helpers/end/:id', async (req, res) => void res.json(await endSession(req, req.params.id, full)));
        express.post('/helpers/end-others', async (req, res) => void res.json(await endOtherSessions(req, full)));
        express.post('/helpers/end-all', async (req, res) => void res.json(await endAllSessions(req, full)));
      },
    },
  );
  await op.setClient({ client_id: clientId, redirect_uris: [app.redirectUri()] });
  return app;
}

/** One browser: its own cookie jar and User-Agent, signed in through the provider. */
async function signedInBrowser(app: AuthApp, userAgent: string): Promise<CookieJar> {
  const jar = createJar();
  const started = await startSignIn(app, jar);
  const callback = await loginThroughProvider(jar, started.authorizationUrl);
  const response = await app.fetch(jar, callback, { headers: { 'user-agent': userAgent } });
  expect(response.status).toBe(302);
  return jar;
}

async function listed(app: AuthApp, jar: CookieJar): Promise<SessionSummary[]> {
  const response = await app.fetch(jar, `${app.mount}/sessions`, { headers: json });
  expect(response.status).toBe(200);
  return ((await response.json()) as { sessions: SessionSummary[] }).sessions;
}

async function end(app: AuthApp, jar: CookieJar, fields: Record<string, string>): Promise<Response> {
  const csrfToken = await csrfTokenOf(app, jar);
  return app.fetch(jar, `${app.mount}/sessions`, post({ csrfToken, ...fields }, json));
}

describe('listing sessions', () => {
  it("lists the user's live sessions with their browser and dates, the current one first, and never a session token", async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const laptop = await signedInBrowser(app, 'Laptop Browser/1.0');
    const phone = await signedInBrowser(app, 'Phone Browser/2.0');
    const response = await app.fetch(phone, `${app.mount}/sessions`, { headers: json });
    const body = await response.text();
    expect(response.headers.get('cache-control')).toContain('no-store');
    const { sessions } = JSON.parse(body) as { sessions: SessionSummary[] };
    expect(sessions.map((session) => [session.userAgent, session.current])).toEqual([
      ['Phone Browser/2.0', true],
      ['Laptop Browser/1.0', false],
    ]);
    for (const session of sessions) {
      expect(Date.parse(session.createdAt!)).toBeGreaterThan(Date.now() - 60_000);
      expect(session.lastSeenAt).toBe(session.createdAt);
      expect(Date.parse(session.expires)).toBeGreaterThan(Date.now());
    }
    // The ids are digests: neither browser's token appears in the answer.
    const tokens = [laptop, phone].map((jar) => jar.get('authjs.session-token', app.url)!);
    for (const token of tokens) expect(body).not.toContain(token);
    expect(sessions.map((session) => session.id).sort()).toEqual(tokens.map(sessionIdOf).sort());
    // The same list through the exported helper, from the laptop this time.
    const helper = (await (await app.fetch(laptop, '/helpers/list')).json()) as SessionSummary[];
    expect(helper.map((session) => [session.userAgent, session.current])).toEqual([
      ['Laptop Browser/1.0', true],
      ['Phone Browser/2.0', false],
    ]);
  });

  it('leaves out expired sessions and sessions of other users', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const jar = await signedInBrowser(app, 'Only/1.0');
    const me = (await sessionOf(app, jar))!.user!.id!;
    await adapter.createSession!({ sessionToken: 'expired-row', userId: me, expires: new Date(Date.now() - 1000) });
    const other = await adapter.createUser!({ id: 'someone-else', email: 'else@example.test', emailVerified: null });
    await adapter.createSession!({ sessionToken: 'other-user-row', userId: other.id, expires: new Date(Date.now() + 60_000) });
    expect((await listed(app, jar)).map((session) => session.userAgent)).toEqual(['Only/1.0']);
  });

  it('answers 401 JSON without a session, and sends a browser to the sign-in page with a way back', async () => {
    const app = await startApp({ adapter: MemoryAdapter() });
    const jar = createJar();
    const unauthorized = await app.fetch(jar, `${app.mount}/sessions`, { headers: json });
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toMatchObject({ error: 'Unauthorized' });
    const browser = await app.fetch(jar, `${app.mount}/sessions`, { headers: page });
    expect(browser.status).toBe(302);
    const location = new URL(browser.headers.get('location')!);
    expect(location.pathname).toBe(`${app.mount}/signin`);
    expect(location.searchParams.get('callbackUrl')).toBe(`${app.publicOrigin}${app.mount}/sessions`);
  });

  it('is refused, with a message naming the fix, for JWT sessions and for an adapter that cannot list sessions', async () => {
    const jwtApp = await startApp({ adapter: MemoryAdapter(), session: { strategy: 'jwt' } });
    const jwtJar = await signedInBrowser(jwtApp, 'Jwt/1.0');
    const jwtAnswer = await jwtApp.fetch(jwtJar, `${jwtApp.mount}/sessions`, { headers: page });
    expect(jwtAnswer.status).toBe(400);
    expect(jwtApp.errors.map((error) => error.message).join('\n')).toContain('needs database sessions');

    // An Auth.js adapter has no listSessionsByUserId: its createSession is given only Auth.js's three fields.
    const memory = MemoryAdapter();
    const { listSessionsByUserId: _ignored, ...authJsShaped } = memory;
    const createSession = vi.fn(memory.createSession!);
    const app = await startApp({ adapter: { ...authJsShaped, createSession } as Adapter });
    const jar = await signedInBrowser(app, 'AuthJs/1.0');
    expect(Object.keys(createSession.mock.calls[0]![0]).sort()).toEqual(['expires', 'sessionToken', 'userId']);
    expect((await app.fetch(jar, `${app.mount}/sessions`, { headers: page })).status).toBe(400);
    expect(app.errors.map((error) => error.message).join('\n')).toContain('listSessionsByUserId');
    expect(await sessionOf(app, jar)).toMatchObject({ user: { email: 'alice@example.test' } });
  });
});

describe('an app without the database feature', () => {
  it('answers 404 at <mount>/sessions: the route comes with the feature, which a scaffold without an adapter does not copy', async () => {
    const app = await apps.start({ providers: [] });
    const response = await app.fetch(createJar(), `${app.mount}/sessions`, { headers: json });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('There is no auth route \\"sessions\\"');
  });
});

describe('ending sessions', () => {
  it('ends another session by id: its next request, with the same cookie, has no session and its cookie is cleared', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const laptop = await signedInBrowser(app, 'Laptop/1.0');
    const phone = await signedInBrowser(app, 'Phone/1.0');
    const phoneId = (await listed(app, laptop)).find((session) => !session.current)!.id;
    const answer = await end(app, laptop, { action: 'end', id: phoneId });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ ended: 1 });
    const after = await app.fetch(phone, `${app.mount}/session`);
    expect(await after.text()).toBe('null');
    expect(after.headers.getSetCookie().join('\n')).toMatch(/authjs\.session-token=; .*Max-Age=0/);
    expect(await sessionOf(app, laptop)).toMatchObject({ user: { email: 'alice@example.test' } });
    expect((await listed(app, laptop)).map((session) => session.userAgent)).toEqual(['Laptop/1.0']);
  });

  it("ends nothing for an unknown id or another user's session id", async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const jar = await signedInBrowser(app, 'Mine/1.0');
    const other = await adapter.createUser!({ id: 'victim', email: 'victim@example.test', emailVerified: null });
    await adapter.createSession!({ sessionToken: 'victim-session', userId: other.id, expires: new Date(Date.now() + 60_000) });
    expect(await (await end(app, jar, { action: 'end', id: sessionIdOf('victim-session') })).json()).toEqual({ ended: 0 });
    expect(await (await end(app, jar, { action: 'end', id: 'no-such-id' })).json()).toEqual({ ended: 0 });
    // A token in place of an id is not an id either.
    expect(await (await end(app, jar, { action: 'end', id: 'victim-session' })).json()).toEqual({ ended: 0 });
    expect(await adapter.getSessionAndUser!('victim-session')).not.toBeNull();
    expect(await (await app.fetch(jar, '/helpers/end/' + sessionIdOf('victim-session'), { method: 'POST' })).json()).toBe(false);
    expect(await adapter.getSessionAndUser!('victim-session')).not.toBeNull();
  });

  it('ends all other sessions and keeps this one; ends all, this one included, and clears this cookie', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const browsers = [await signedInBrowser(app, 'One/1.0'), await signedInBrowser(app, 'Two/1.0'), await signedInBrowser(app, 'Three/1.0')];
    expect(await (await end(app, browsers[0]!, { action: 'end-others' })).json()).toEqual({ ended: 2 });
    expect(await sessionOf(app, browsers[1]!)).toBeNull();
    expect(await sessionOf(app, browsers[2]!)).toBeNull();
    expect(await sessionOf(app, browsers[0]!)).not.toBeNull();

    const again = await signedInBrowser(app, 'Four/1.0');
    const answer = await end(app, browsers[0]!, { action: 'end-all' });
    expect(await answer.json()).toEqual({ ended: 2 });
    expect(answer.headers.getSetCookie().join('\n')).toMatch(/authjs\.session-token=; .*Max-Age=0/);
    expect(await sessionOf(app, again)).toBeNull();
    const me = await adapter.getUserByEmail!('alice@example.test');
    expect(await adapter.listSessionsByUserId!(me!.id)).toEqual([]);
  });

  it('does the same through the exported helpers', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const [one, two, three] = [await signedInBrowser(app, 'One/1.0'), await signedInBrowser(app, 'Two/1.0'), await signedInBrowser(app, 'Three/1.0')];
    const twoId = sessionIdOf(two.get('authjs.session-token', app.url)!);
    expect(await (await app.fetch(one, `/helpers/end/${twoId}`, { method: 'POST' })).json()).toBe(true);
    expect(await sessionOf(app, two)).toBeNull();
    expect(await (await app.fetch(one, '/helpers/end-others', { method: 'POST' })).json()).toBe(1);
    expect(await sessionOf(app, three)).toBeNull();
    expect(await (await app.fetch(one, '/helpers/end-all', { method: 'POST' })).json()).toBe(1);
    expect(await sessionOf(app, one)).toBeNull();
    expect(await (await app.fetch(createJar(), '/helpers/list')).json()).toBeNull();
  });

  it('emits the signOut event once per ended session, with its row', async () => {
    const adapter = MemoryAdapter();
    const signOut = vi.fn();
    const app = await startApp({ adapter, events: { signOut } });
    const one = await signedInBrowser(app, 'One/1.0');
    const two = await signedInBrowser(app, 'Two/1.0');
    const tokens = [one, two].map((jar) => jar.get('authjs.session-token', app.url)!).sort();
    await end(app, one, { action: 'end-all' });
    const ended = signOut.mock.calls.map(([message]) => (message as { session: { sessionToken: string } }).session.sessionToken).sort();
    expect(ended).toEqual(tokens);
  });

  it('needs the CSRF token, and names the valid actions for an unknown one', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const one = await signedInBrowser(app, 'One/1.0');
    await signedInBrowser(app, 'Two/1.0');
    const forged = await app.fetch(one, `${app.mount}/sessions`, post({ action: 'end-all' }, json));
    expect(forged.status).toBe(403);
    const wrongToken = await app.fetch(one, `${app.mount}/sessions`, post({ action: 'end-all', csrfToken: 'guess' }, json));
    expect(wrongToken.status).toBe(403);
    expect(await listed(app, one)).toHaveLength(2);
    const unknown = await end(app, one, { action: 'drop-table' });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('action=end-others');
    expect(await listed(app, one)).toHaveLength(2);
  });
});

describe('the sessions page', () => {
  it('shows each session with its browser escaped, marks this one, and its forms end sessions without JavaScript', async () => {
    const adapter = MemoryAdapter();
    const app = await startApp({ adapter });
    const mine = await signedInBrowser(app, 'Mine/1.0');
    const hostile = await signedInBrowser(app, '<script>alert(1)</script> Evil/6.6');
    const response = await app.fetch(mine, `${app.mount}/sessions`, { headers: page });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toContain('Mine/1.0</strong> <span class="muted">(this browser)</span>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Evil/6.6');
    expect(html).not.toContain('<script>');
    const hostileId = sessionIdOf(hostile.get('authjs.session-token', app.url)!);
    expect(html).toContain(`name="id" value="${hostileId}"`);
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(html)![1]!;

    const posted = await app.fetch(mine, `${app.mount}/sessions`, post({ csrfToken, action: 'end', id: hostileId }, page));
    expect(posted.status).toBe(302);
    expect(posted.headers.get('location')).toBe(`${app.publicOrigin}${app.mount}/sessions`);
    expect(await sessionOf(app, hostile)).toBeNull();

    const everywhere = await app.fetch(mine, `${app.mount}/sessions`, post({ csrfToken, action: 'end-all' }, page));
    expect(everywhere.status).toBe(302);
    expect(everywhere.headers.get('location')).toBe(`${app.publicOrigin}/`);
    expect(await sessionOf(app, mine)).toBeNull();
  });
});

describe('last seen', () => {
  it('is written when a request reads a session last seen more than the interval ago, and not more often', async () => {
    const adapter = MemoryAdapter();
    const updateSession = vi.spyOn(adapter, 'updateSession');
    const app = await startApp({ adapter });
    const jar = await signedInBrowser(app, 'Seen/1.0');
    const sessionToken = jar.get('authjs.session-token', app.url)!;
    await sessionOf(app, jar);
    await sessionOf(app, jar);
    expect(updateSession).not.toHaveBeenCalled();

    // Older than the five minutes between two writes of a session's "last seen" (features/database/session.ts).
    const stale = new Date(Date.now() - 5 * 60_000 - 1000);
    await adapter.updateSession!({ sessionToken, lastSeenAt: stale });
    updateSession.mockClear();
    await app.fetch(jar, '/me');
    expect(updateSession).toHaveBeenCalledTimes(1);
    expect(updateSession.mock.calls[0]![0]).toEqual({ sessionToken, lastSeenAt: expect.any(Date) });
    const [session] = await listed(app, jar);
    expect(Date.parse(session!.lastSeenAt!)).toBeGreaterThan(Date.now() - 60_000);
    await sessionOf(app, jar);
    expect(updateSession).toHaveBeenCalledTimes(1);
  });
});
