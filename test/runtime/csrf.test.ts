import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../templates/runtime/contracts.js';
import { csrfTokenOf } from '../../templates/runtime/http/csrf.js';
import { safeEqual } from '../../templates/runtime/http/safe-equal.js';

const secret = 'a-test-secret-that-is-long-enough-0123456789';

/** The part of a request context that csrfTokenOf reads and writes: the CSRF cookie, the secrets, the cookies out. */
function contextWith(secrets: string[], cookieValue?: string): RequestContext {
  const cookies = new Map<string, string>(cookieValue === undefined ? [] : [['csrf', cookieValue]]);
  return { cookies, cookieOptions: { csrfToken: { name: 'csrf', options: {} } }, options: { secrets }, outgoing: [] } as unknown as RequestContext;
}

/** The token and cookie value that csrfTokenOf issues to a request without a CSRF cookie. */
function createCsrfToken(signingSecret: string): { token: string; cookieValue: string } {
  const context = contextWith([signingSecret]);
  const token = csrfTokenOf(context);
  return { token, cookieValue: context.outgoing[0]!.value };
}

/** The token of a CSRF cookie that csrfTokenOf accepts (it issues no new cookie then), or null. */
function verifyCsrfCookie(cookieValue: string | undefined, secrets: string[]): string | null {
  const context = contextWith(secrets, cookieValue);
  const token = csrfTokenOf(context);
  return context.outgoing.length === 0 ? token : null;
}

describe('CSRF double-submit cookie', () => {
  it('stores token|sha256hex(token + secret), as Auth.js does', () => {
    const { token, cookieValue } = createCsrfToken(secret);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(cookieValue).toBe(`${token}|${createHash('sha256').update(`${token}${secret}`).digest('hex')}`);
  });

  it('accepts its own cookie and returns the token', () => {
    const { token, cookieValue } = createCsrfToken(secret);
    expect(verifyCsrfCookie(cookieValue, [secret])).toBe(token);
  });

  it('accepts a cookie signed with an older secret during rotation', () => {
    const older = 'an-old-secret-that-was-rotated-out-987654321';
    const { token, cookieValue } = createCsrfToken(older);
    expect(verifyCsrfCookie(cookieValue, [secret, older])).toBe(token);
  });

  it('refuses a cookie whose hash was made with another secret', () => {
    const { cookieValue } = createCsrfToken('some-other-secret-which-is-also-long-enough');
    expect(verifyCsrfCookie(cookieValue, [secret])).toBeNull();
  });

  it('refuses a cookie whose token was changed', () => {
    const { cookieValue } = createCsrfToken(secret);
    const changed = `${cookieValue[0] === '0' ? '1' : '0'}${cookieValue.slice(1)}`;
    expect(verifyCsrfCookie(changed, [secret])).toBeNull();
  });

  it('refuses malformed cookies', () => {
    expect(verifyCsrfCookie(undefined, [secret])).toBeNull();
    expect(verifyCsrfCookie('', [secret])).toBeNull();
    expect(verifyCsrfCookie('no-separator', [secret])).toBeNull();
    expect(verifyCsrfCookie('|hash-only', [secret])).toBeNull();
  });

  it('compares strings of different lengths as unequal without throwing', () => {
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('abc', 'abc')).toBe(true);
  });
});
