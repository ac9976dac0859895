import type { Request, Response } from 'express';
import { describe, expect, it, vi } from 'vitest';
import { createRequireAuth, createSessionLocals } from '../../templates/runtime/index.js';
import { credentialsConfig } from './helpers.js';

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
