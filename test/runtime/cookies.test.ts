import { describe, expect, it } from 'vitest';
import {
  chunkCookie,
  clearChunkedCookie,
  defaultCookies,
  findCookie,
  mergeCookies,
  parseCookieHeader,
  readChunkedCookie,
  serializeCookie,
} from '../../templates/runtime/http/cookies.js';

describe('cookie names', () => {
  it('uses the Auth.js names on HTTP', () => {
    const cookies = defaultCookies(false);
    expect(Object.values(cookies).map((cookie) => cookie.name)).toEqual([
      'authjs.session-token',
      'authjs.callback-url',
      'authjs.csrf-token',
      'authjs.pkce.code_verifier',
      'authjs.state',
      'authjs.nonce',
      'authjs.challenge',
    ]);
  });

  it('prefixes __Secure- on HTTPS, and __Host- for the CSRF cookie', () => {
    const cookies = defaultCookies(true);
    expect(cookies.sessionToken.name).toBe('__Secure-authjs.session-token');
    expect(cookies.csrfToken.name).toBe('__Host-authjs.csrf-token');
    expect(cookies.pkceCodeVerifier.name).toBe('__Secure-authjs.pkce.code_verifier');
    expect(Object.values(cookies).every((cookie) => cookie.options.secure && cookie.options.httpOnly && cookie.options.sameSite === 'lax')).toBe(true);
  });

  it('merges overrides without changing the defaults', () => {
    const defaults = defaultCookies(false);
    const merged = mergeCookies(defaults, { sessionToken: { name: 'my-session', options: { domain: 'example.test' } } });
    expect(merged.sessionToken).toEqual({ name: 'my-session', options: { ...defaults.sessionToken.options, domain: 'example.test' } });
    expect(defaults.sessionToken.name).toBe('authjs.session-token');
  });
});

describe('cookie header parsing', () => {
  it('reads pairs, trims spaces, decodes values and keeps the first of duplicates', () => {
    const cookies = parseCookieHeader('a=1; b=hello%20world;a=2; broken; =x; c="quoted"');
    expect([...cookies]).toEqual([
      ['a', '1'],
      ['b', 'hello world'],
      ['c', 'quoted'],
    ]);
  });

  it('keeps a value whose percent-encoding is malformed as it is', () => {
    expect(parseCookieHeader('a=%E0%A4%A').get('a')).toBe('%E0%A4%A');
  });

  it('finds one cookie in the header as the full parse reads it', () => {
    const headers = ['a=1; b=hello%20world;a=2; broken; =x; c="quoted"', ' b = 2 ;', 'ab=1; b=3', 'x=%E0%A4%A; b', '=b; b=4;', 'b=5=6;;'];
    for (const header of headers) {
      const parsed = parseCookieHeader(header);
      for (const name of ['a', 'b', 'c', 'x', 'ab', 'broken', '']) expect(findCookie(header, name), `${name} in ${header}`).toBe(parsed.get(name));
    }
  });
});

describe('chunking', () => {
  const option = defaultCookies(true).sessionToken;

  it('writes a small value as one cookie', () => {
    const cookies = chunkCookie(new Map(), option, 'small');
    expect(cookies.map((cookie) => cookie.name)).toEqual(['__Secure-authjs.session-token']);
  });

  it('splits a large value into name.0, name.1, … each below 4096 bytes', () => {
    const value = 'x'.repeat(10_000);
    const cookies = chunkCookie(new Map(), option, value, { expires: new Date(Date.now() + 1000) });
    expect(cookies.map((cookie) => cookie.name)).toEqual([
      '__Secure-authjs.session-token.0',
      '__Secure-authjs.session-token.1',
      '__Secure-authjs.session-token.2',
    ]);
    for (const cookie of cookies) expect(Buffer.byteLength(serializeCookie(cookie))).toBeLessThan(4096);
    const read = new Map(cookies.map((cookie) => [cookie.name, cookie.value]));
    expect(readChunkedCookie(read, option.name)).toBe(value);
  });

  it('deletes chunks the request held that the new value does not use', () => {
    const held = new Map([
      [`${option.name}.0`, 'a'],
      [`${option.name}.1`, 'b'],
      [`${option.name}.2`, 'c'],
    ]);
    const cookies = chunkCookie(held, option, 'small');
    expect(cookies.map((cookie) => [cookie.name, cookie.options.maxAge ?? null])).toEqual([
      [option.name, null],
      [`${option.name}.0`, 0],
      [`${option.name}.1`, 0],
      [`${option.name}.2`, 0],
    ]);
  });

  it('reads chunks in index order and stops at the first gap', () => {
    const held = new Map([
      [`${option.name}.1`, 'world'],
      [`${option.name}.0`, 'hello '],
      [`${option.name}.3`, 'ignored'],
    ]);
    expect(readChunkedCookie(held, option.name)).toBe('hello world');
    expect(readChunkedCookie(new Map([[`${option.name}.1`, 'orphan']]), option.name)).toBeUndefined();
  });

  it('clears every chunk it finds', () => {
    const held = new Map([
      [option.name, 'whole'],
      [`${option.name}.0`, 'a'],
      ['unrelated', 'keep'],
    ]);
    expect(clearChunkedCookie(held, option).map((cookie) => cookie.name)).toEqual([option.name, `${option.name}.0`]);
  });
});

describe('serializing', () => {
  it('writes Max-Age, Path, HttpOnly, Secure and SameSite=Lax, in Auth.js\'s order', () => {
    const header = serializeCookie({ name: 'n', value: 'v', options: { httpOnly: true, secure: true, sameSite: 'lax', path: '/', maxAge: 900 } });
    expect(header).toBe('n=v; Max-Age=900; Path=/; HttpOnly; Secure; SameSite=Lax');
  });

  it('encodes characters a cookie value cannot carry', () => {
    const header = serializeCookie({ name: 'n', value: 'https://app.test/a b;c', options: { httpOnly: true, secure: false, sameSite: 'lax', path: '/' } });
    expect(header.startsWith('n=https%3A%2F%2Fapp.test%2Fa%20b%3Bc;')).toBe(true);
  });

  // Values that encodeURIComponent leaves as they are skip it: the value written is its answer all the same.
  it('writes every value as encodeURIComponent does, the characters it keeps and those it encodes', () => {
    const characters = [...Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)), 'é', '€', '😀'];
    const options = { httpOnly: true, secure: false, sameSite: 'lax' as const, path: '/' };
    const values = [...characters, 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0..abc_DEF-123.xyz~*!()\'', ''];
    for (let sample = 0; sample < 2_000; sample += 1) values.push(Array.from({ length: 1 + (sample % 40) }, () => characters[Math.floor(Math.random() * characters.length)]).join(''));
    for (const value of values) expect(serializeCookie({ name: 'n', value, options }), JSON.stringify(value)).toBe(`n=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Lax`);
  });
});
