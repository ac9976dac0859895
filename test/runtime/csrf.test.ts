import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCsrfToken, safeEqual, verifyCsrfCookie } from '../../templates/runtime/http/csrf.js';

const secret = 'a-test-secret-that-is-long-enough-0123456789';

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
