import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../templates/runtime/contracts.js';
import { safeCallbackParam } from '../../templates/runtime/http/redirect.js';

const origin = 'http://app.test:3000';

/** A `callbackUrl` parameter through the same-origin check every redirect passes (null when refused). */
function sameOriginUrl(url: string, appOrigin: string): string | null {
  return safeCallbackParam({ origin: appOrigin } as RequestContext, url) ?? null;
}

describe('same-origin redirects', () => {
  it.each([
    ['/dashboard', 'http://app.test:3000/dashboard'],
    ['/dashboard?tab=1#top', 'http://app.test:3000/dashboard?tab=1#top'],
    ['http://app.test:3000/me', 'http://app.test:3000/me'],
    ['me', 'http://app.test:3000/me'],
  ])('keeps %s', (input, expected) => {
    expect(sameOriginUrl(input, origin)).toBe(expected);
  });

  it.each([
    '//evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    'https:evil.example',
    'https://evil.example/path',
    'HTTPS://EVIL.EXAMPLE',
    'http://app.test:3000@evil.example/',
    'http://app.test:4000/',
    'https://app.test:3000/',
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    '/%0a/evil.example',
    '\t//evil.example',
    'http://app.test:3000\n.evil.example',
  ])('refuses %s', (input) => {
    const result = sameOriginUrl(input, origin);
    // Either refused outright, or resolved to a path of this origin: never another origin.
    expect(result === null ? origin : new URL(result).origin).toBe(origin);
  });

  it('refuses URLs with control characters outright', () => {
    expect(sameOriginUrl('/ok\r\nSet-Cookie: x=1', origin)).toBeNull();
  });
});
