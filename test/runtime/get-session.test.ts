import { randomUUID } from 'node:crypto';
import { encode as authjsEncode } from '@auth/core/jwt';
import type { Request, Response } from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRequireAuth, createSessionLocals, getSession } from '../../templates/runtime/index.js';
import { encode } from '../../templates/runtime/session/jwt.js';
import { SECRET, credentialsConfig } from './helpers.js';

function fakeRequest(cookie?: string): Request {
  return { headers: cookie === undefined ? {} : { cookie }, originalUrl: '/private', url: '/private' } as unknown as Request;
}

function fakeResponse(): Response & { sent: { status?: number; headers: Record<string, unknown> } } {
  const sent: { status?: number; headers: Record<string, unknown> } = { headers: {} };
  return {
    sent,
    locals: {},
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return this;
    },
    setHeader(name: string, value: unknown) {
      sent.headers[name.toLowerCase()] = value;
      return this;
    },
    getHeader: (name: string) => sent.headers[name.toLowerCase()],
    end() {
      return this;
    },
  } as unknown as Response & { sent: { status?: number; headers: Record<string, unknown> } };
}

describe('issue 8: requests without a session cookie cost no read', () => {
  it('sessionLocals stores null and calls next synchronously when there is no cookie', () => {
    const next = vi.fn();
    const res = fakeResponse();
    const returned = createSessionLocals(credentialsConfig())(fakeRequest(), res, next);
    expect(returned).toBeUndefined();
    expect(next).toHaveBeenCalledWith();
    expect(res.locals['session']).toBeNull();
    expect(res.sent.headers['set-cookie']).toBeUndefined();
  });

  it('sessionLocals stores null and calls next synchronously when only other cookies are sent', () => {
    const next = vi.fn();
    const res = fakeResponse();
    expect(createSessionLocals(credentialsConfig())(fakeRequest('theme=dark; authjs.csrf-token=abc'), res, next)).toBeUndefined();
    expect(next).toHaveBeenCalledOnce();
    expect(res.locals['session']).toBeNull();
  });

  it('sessionLocals reads the session when a session cookie is sent', async () => {
    const next = vi.fn();
    const res = fakeResponse();
    const returned = createSessionLocals(credentialsConfig())(fakeRequest('authjs.session-token=not-a-token'), res, next);
    expect(returned).toBeInstanceOf(Promise);
    await returned;
    expect(next).toHaveBeenCalledOnce();
    expect(res.locals['session']).toBeNull();
  });

  it('requireAuth redirects synchronously when there is no cookie', () => {
    const next = vi.fn();
    const res = fakeResponse();
    expect(createRequireAuth(credentialsConfig())(fakeRequest(), res, next)).toBeUndefined();
    expect(next).not.toHaveBeenCalled();
    expect(res.sent.status).toBe(302);
    expect(res.sent.headers['location']).toBe('/auth/signin?callbackUrl=%2Fprivate');
  });

  it('requireAuth checks a chunked session cookie', async () => {
    const next = vi.fn();
    const res = fakeResponse();
    const returned = createRequireAuth(credentialsConfig())(fakeRequest('authjs.session-token.0=part'), res, next);
    expect(returned).toBeInstanceOf(Promise);
    await returned;
    expect(res.sent.status).toBe(302);
  });
});

describe('issue 39: a remembered JWT session is answered in the same turn', () => {
  const salt = 'authjs.session-token';
  const claims = { sub: 'user-39', name: 'Ada', email: 'ada@example.test' };

  /** A fresh session cookie of `claims`, read twice through getSession so that it is remembered (jwt.ts). */
  async function rememberedCookie(config = credentialsConfig(), maxAge?: number): Promise<string> {
    const cookie = `${salt}=${await encode({ token: { ...claims, auth_time: Math.floor(Date.now() / 1000) }, secret: SECRET, salt, ...(maxAge && { maxAge }) })}`;
    for (let read = 0; read < 2; read++) expect(await getSession(fakeRequest(cookie), config)).toMatchObject({ user: { id: 'user-39' } });
    return cookie;
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  it('requireAuth and sessionLocals call next before returning, with no promise, once the token is remembered', async () => {
    const config = credentialsConfig();
    const cookie = await rememberedCookie(config);
    for (const middleware of [createRequireAuth(config), createSessionLocals(config)]) {
      const next = vi.fn();
      const res = fakeResponse();
      expect(middleware(fakeRequest(cookie), res, next)).toBeUndefined();
      expect(next).toHaveBeenCalledWith();
      expect(res.locals['session']).toMatchObject({ user: { id: 'user-39', name: 'Ada', email: 'ada@example.test' } });
      expect((res.locals['session'] as { expires: string }).expires).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
  });

  it('answers a token never seen before in the same turn too once its key is derived, and refuses a tampered one in the same turn', async () => {
    // A secret this process has not derived a key of: the tokens are made by Auth.js, not by our encode().
    const secret = `fresh-${randomUUID()}-${randomUUID()}`;
    const config = credentialsConfig({ secret });
    const tokenOf = (sub: string) => authjsEncode({ token: { ...claims, sub }, secret, salt });
    const first = createRequireAuth(config)(fakeRequest(`${salt}=${await tokenOf('user-first')}`), fakeResponse(), vi.fn());
    expect(first, 'the first token waits for its key (HKDF, then the thumbprint): a promise').toBeInstanceOf(Promise);
    await first;
    for (const [index, middleware] of [createRequireAuth(config), createSessionLocals(config)].entries()) {
      const next = vi.fn();
      const res = fakeResponse();
      expect(middleware(fakeRequest(`${salt}=${await tokenOf(`user-${index}`)}`), res, next), 'a token never seen before').toBeUndefined();
      expect(next).toHaveBeenCalledWith();
      expect(res.locals['session']).toMatchObject({ user: { id: `user-${index}`, name: 'Ada', email: 'ada@example.test' } });
    }
    const token = await tokenOf('user-tampered');
    // A character of the ciphertext (the fourth part) changed: the MAC no longer matches.
    const at = token.split('.').slice(0, 3).join('.').length + 5;
    const tampered = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    const next = vi.fn();
    const res = fakeResponse();
    expect(createSessionLocals(config)(fakeRequest(`${salt}=${tampered}`), res, next)).toBeUndefined();
    expect(next).toHaveBeenCalledOnce();
    expect(res.locals['session']).toBeNull();
    expect(String(res.sent.headers['set-cookie'])).toMatch(/^authjs\.session-token=; Max-Age=0/);
  });

  it('still re-issues a remembered cookie once session.updateAge has passed', async () => {
    const config = credentialsConfig({ session: { updateAge: 60 } });
    const cookie = await rememberedCookie(config);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    const next = vi.fn();
    const res = fakeResponse();
    const returned = createSessionLocals(config)(fakeRequest(cookie), res, next);
    expect(returned).toBeInstanceOf(Promise);
    await returned;
    expect(next).toHaveBeenCalledOnce();
    expect(String(res.sent.headers['set-cookie'])).toMatch(/^authjs\.session-token=/);
  });

  it('refuses a remembered token once it expires, and clears it', async () => {
    const config = credentialsConfig();
    const cookie = await rememberedCookie(config, 60);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 76_000 });
    const next = vi.fn();
    const res = fakeResponse();
    expect(createSessionLocals(config)(fakeRequest(cookie), res, next)).toBeUndefined();
    expect(res.locals['session']).toBeNull();
    expect(String(res.sent.headers['set-cookie'])).toMatch(/^authjs\.session-token=; Max-Age=0/);
  });

  it('refuses a remembered token once its secret is rotated out', async () => {
    const cookie = await rememberedCookie();
    const res = fakeResponse();
    await createRequireAuth(credentialsConfig({ secret: 'r'.repeat(40) }))(fakeRequest(cookie), res, vi.fn());
    expect(res.sent.status).toBe(302);
  });

  it('runs the app\'s callbacks and the session event on every request, remembered or not', async () => {
    const jwt = vi.fn(({ token }: { token: Record<string, unknown> }) => ({ ...token, role: 'admin' }));
    const session = vi.fn(({ session: value, token }: { session: Record<string, unknown>; token: Record<string, unknown> }) => ({ ...value, role: token['role'] }));
    const onSession = vi.fn();
    const config = credentialsConfig({ callbacks: { jwt, session } as never, events: { session: onSession } });
    const cookie = await rememberedCookie(config);
    for (let request = 0; request < 3; request++) {
      const res = fakeResponse();
      await createRequireAuth(config)(fakeRequest(cookie), res, vi.fn());
      expect(res.locals['session']).toMatchObject({ role: 'admin', user: { id: 'user-39' } });
    }
    expect(jwt).toHaveBeenCalledTimes(5);
    expect(session).toHaveBeenCalledTimes(5);
    expect(onSession).toHaveBeenCalledTimes(5);
  });
});
