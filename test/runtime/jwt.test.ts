import { decode as authjsDecode, encode as authjsEncode } from '@auth/core/jwt';
import { hkdfSync } from 'node:crypto';
import { CompactEncrypt, EncryptJWT, base64url, calculateJwkThumbprint, decodeProtectedHeader } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decode, encode } from '../../templates/runtime/session/jwt.js';

const secret = 'a-test-secret-that-is-long-enough-0123456789';
const oldSecret = 'an-old-secret-that-was-rotated-out-987654321';
const salt = 'authjs.session-token';

/** A token made with jose directly, keyed as Auth.js keys it, to reach header and claim combinations encode() never makes. */
async function joseToken(options: { enc?: 'A256CBC-HS512' | 'A256GCM'; kid?: boolean; claims?: Record<string, unknown>; notBefore?: number }): Promise<string> {
  const enc = options.enc ?? 'A256CBC-HS512';
  const key = new Uint8Array(hkdfSync('sha256', secret, salt, `Auth.js Generated Encryption Key (${salt})`, enc === 'A256GCM' ? 32 : 64));
  const kid = await calculateJwkThumbprint({ kty: 'oct', k: base64url.encode(key) }, enc === 'A256GCM' ? 'sha256' : 'sha512');
  const jwt = new EncryptJWT(options.claims ?? { sub: 'user-1' })
    .setProtectedHeader({ alg: 'dir', enc, ...(options.kid !== false && { kid }) })
    .setIssuedAt()
    .setExpirationTime('1h');
  if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
  return jwt.encrypt(key);
}

describe('session tokens', () => {
  it('encrypts with alg dir, enc A256CBC-HS512 and a kid', async () => {
    const token = await encode({ token: { sub: 'user-1' }, secret, salt });
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'dir', enc: 'A256CBC-HS512' });
    expect(header.kid).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(token.split('.')).toHaveLength(5);
  });

  it('encrypts every token with a fresh random IV', async () => {
    const ivs = new Set<string>();
    for (let index = 0; index < 20; index++) ivs.add((await encode({ token: { sub: 'user-1' }, secret, salt })).split('.')[2]!);
    expect(ivs.size).toBe(20);
  });

  it('refuses to encode a non-finite expiry', async () => {
    await expect(encode({ token: { sub: 'user-1' }, secret, salt, maxAge: Number.POSITIVE_INFINITY })).rejects.toThrow(/finite/);
  });

  it('decodes what it encoded, with iat, exp and jti added', async () => {
    const token = await encode({ token: { sub: 'user-1', name: 'Ada' }, secret, salt, maxAge: 60 });
    const payload = await decode({ token, secret, salt });
    expect(payload).toMatchObject({ sub: 'user-1', name: 'Ada' });
    expect(payload!.exp! - payload!.iat!).toBe(60);
    expect(payload!.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('decodes a token made by @auth/core encode()', async () => {
    const token = await authjsEncode({ token: { sub: 'from-authjs', email: 'a@example.test' }, secret, salt });
    expect(await decode({ token, secret, salt })).toMatchObject({ sub: 'from-authjs', email: 'a@example.test' });
  });

  it('makes tokens that @auth/core decode() reads', async () => {
    const token = await encode({ token: { sub: 'from-us', picture: 'https://img.example/a.png' }, secret, salt });
    expect(await authjsDecode({ token, secret, salt })).toMatchObject({ sub: 'from-us', picture: 'https://img.example/a.png' });
  });

  it('interoperates with @auth/core under the __Secure- cookie name too', async () => {
    const secureSalt = '__Secure-authjs.session-token';
    const token = await authjsEncode({ token: { sub: 'secure' }, secret: [secret, oldSecret], salt: secureSalt });
    expect(await decode({ token, secret: [oldSecret, secret], salt: secureSalt })).toMatchObject({ sub: 'secure' });
  });

  it('refuses a tampered token', async () => {
    const token = await encode({ token: { sub: 'user-1' }, secret, salt });
    const parts = token.split('.');
    const ciphertext = parts[3]!;
    parts[3] = (ciphertext[0] === 'A' ? 'B' : 'A') + ciphertext.slice(1);
    await expect(decode({ token: parts.join('.'), secret, salt })).rejects.toThrow();
  });

  it('refuses an expired token', async () => {
    const token = await encode({ token: { sub: 'user-1' }, secret, salt, maxAge: -60 });
    await expect(decode({ token, secret, salt })).rejects.toThrow(/exp/);
  });

  it('refuses a token made with another secret', async () => {
    const token = await encode({ token: { sub: 'user-1' }, secret: oldSecret, salt });
    await expect(decode({ token, secret, salt })).rejects.toThrow();
  });

  it('refuses a token made for another cookie name', async () => {
    const token = await encode({ token: { sub: 'user-1' }, secret, salt: 'authjs.state' });
    await expect(decode({ token, secret, salt })).rejects.toThrow();
  });

  it('signs with the newest secret and still reads tokens of older ones during rotation', async () => {
    const old = await encode({ token: { sub: 'old' }, secret: oldSecret, salt });
    const rotated = [secret, oldSecret];
    expect(await decode({ token: old, secret: rotated, salt })).toMatchObject({ sub: 'old' });
    const fresh = await encode({ token: { sub: 'new' }, secret: rotated, salt });
    expect(await decode({ token: fresh, secret, salt })).toMatchObject({ sub: 'new' });
    await expect(decode({ token: fresh, secret: oldSecret, salt })).rejects.toThrow();
  });

  it('decodes an A256GCM token, which Auth.js also reads', async () => {
    expect(await decode({ token: await joseToken({ enc: 'A256GCM' }), secret, salt })).toMatchObject({ sub: 'user-1' });
  });

  it('decodes a token without kid with the newest secret', async () => {
    expect(await decode({ token: await joseToken({ kid: false }), secret: [secret, oldSecret], salt })).toMatchObject({ sub: 'user-1' });
  });

  it('refuses a token whose authentication tag was changed', async () => {
    const parts = (await encode({ token: { sub: 'user-1' }, secret, salt })).split('.');
    parts[4] = (parts[4]![0] === 'A' ? 'B' : 'A') + parts[4]!.slice(1);
    await expect(decode({ token: parts.join('.'), secret, salt })).rejects.toThrow(/decryption operation failed/);
  });

  it('refuses a token whose header names another algorithm', async () => {
    const parts = (await encode({ token: { sub: 'user-1' }, secret, salt })).split('.');
    parts[0] = Buffer.from(JSON.stringify({ ...decodeProtectedHeader(parts.join('.')), alg: 'A256KW' })).toString('base64url');
    await expect(decode({ token: parts.join('.'), secret, salt })).rejects.toThrow(/"alg"/);
  });

  it('refuses a token with characters outside base64url', async () => {
    const parts = (await encode({ token: { sub: 'user-1' }, secret, salt })).split('.');
    parts[3] = `${parts[3]!.slice(0, -1)}+`;
    await expect(decode({ token: parts.join('.'), secret, salt })).rejects.toThrow(/base64url/);
  });

  it('refuses a token that is not valid yet', async () => {
    const token = await joseToken({ notBefore: Math.floor(Date.now() / 1000) + 3600 });
    await expect(decode({ token, secret, salt })).rejects.toThrow(/nbf/);
  });

  it('refuses a token with an encrypted key, which alg dir never has', async () => {
    const parts = (await encode({ token: { sub: 'user-1' }, secret, salt })).split('.');
    parts[1] = 'AAAA';
    await expect(decode({ token: parts.join('.'), secret, salt })).rejects.toThrow(/Encrypted Key/);
  });

  it('refuses a token whose claims are not a JSON object', async () => {
    const key = new Uint8Array(hkdfSync('sha256', secret, salt, `Auth.js Generated Encryption Key (${salt})`, 64));
    const token = await new CompactEncrypt(new TextEncoder().encode('["user-1"]')).setProtectedHeader({ alg: 'dir', enc: 'A256CBC-HS512' }).encrypt(key);
    await expect(decode({ token, secret, salt })).rejects.toThrow(/JSON object/);
  });

  it('answers null for an empty token', async () => {
    expect(await decode({ token: '', secret, salt })).toBeNull();
  });
});

describe('issue 8: remembered tokens', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Decodes `token` twice: a token is remembered the second time it is verified (issue 39), so later reads are hits. */
  async function remembered(token: string, options: { secret: string | string[]; salt: string } = { secret, salt }): Promise<void> {
    for (let read = 0; read < 2; read++) expect(await decode({ token, ...options })).toMatchObject({ sub: 'user-1' });
  }

  it('refuses a remembered token once its secret is rotated out', async () => {
    const token = await encode({ token: { sub: 'user-1' }, secret, salt });
    await remembered(token, { secret: [secret, oldSecret], salt });
    expect(await decode({ token, secret, salt })).toMatchObject({ sub: 'user-1' });
    await expect(decode({ token, secret: [oldSecret], salt })).rejects.toThrow();
  });

  it('refuses a remembered token without kid once a newer secret is first', async () => {
    const token = await joseToken({ kid: false });
    await remembered(token);
    await expect(decode({ token, secret: [oldSecret, secret], salt })).rejects.toThrow();
  });

  it('refuses a remembered token under another cookie name', async () => {
    const token = await encode({ token: { sub: 'user-1' }, secret, salt });
    await remembered(token);
    await expect(decode({ token, secret, salt: '__Secure-authjs.session-token' })).rejects.toThrow();
  });

  it('refuses a remembered token once it expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const token = await encode({ token: { sub: 'user-1' }, secret, salt, maxAge: 60 });
    await remembered(token);
    vi.setSystemTime(Date.now() + 76_000);
    await expect(decode({ token, secret, salt })).rejects.toThrow(/exp/);
  });

  it('gives each decode its own copy of the claims', async () => {
    const token = await encode({ token: { sub: 'user-1', name: 'Ada' }, secret, salt });
    for (let read = 0; read < 3; read++) {
      const claims = await decode({ token, secret, salt });
      expect(claims).toMatchObject({ name: 'Ada' });
      claims!.name = 'changed by a callback';
    }
  });

  it('keeps refusing a tampered copy of a remembered token, which ends as the remembered one does', async () => {
    const token = await encode({ token: { sub: 'user-1' }, secret, salt });
    await remembered(token);
    // The ciphertext changed, the tag kept: the copy is found by the tag's fingerprint and must still be refused.
    const parts = token.split('.');
    parts[3] = (parts[3]![0] === 'A' ? 'B' : 'A') + parts[3]!.slice(1);
    await expect(decode({ token: parts.join('.'), secret, salt })).rejects.toThrow();
    expect(await decode({ token, secret, salt })).toMatchObject({ sub: 'user-1' });
  });

  it('gives each decode its own copy of nested claims too', async () => {
    const token = await encode({ token: { sub: 'user-1', roles: ['reader'], profile: { plan: 'free' } }, secret, salt });
    await remembered(token);
    for (let read = 0; read < 3; read++) {
      const claims = (await decode({ token, secret, salt })) as { roles: string[]; profile: { plan: string }; auth_time?: number };
      expect(claims).toMatchObject({ roles: ['reader'], profile: { plan: 'free' } });
      expect(claims.auth_time).toBeUndefined();
      claims.roles.push('admin');
      claims.profile.plan = 'paid';
      claims.auth_time = 1;
    }
  });

  it('gives a token with a __proto__ claim the claims JSON.parse gives, on every hit', async () => {
    const token = await encode({ token: JSON.parse('{"sub":"user-1","__proto__":null}') as Record<string, unknown>, secret, salt });
    await remembered(token);
    for (let read = 0; read < 2; read++) {
      const claims = (await decode({ token, secret, salt }))!;
      expect(Object.hasOwn(claims, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(claims)).toBe(Object.prototype);
    }
  });

  it('copies a flat token\'s claims per decode: a claim added to one is not in the next', async () => {
    const token = await encode({ token: { sub: 'user-1', name: 'Ada' }, secret, salt });
    await remembered(token);
    const first = (await decode({ token, secret, salt }))!;
    first.auth_time = 1;
    first.name = 'changed';
    const second = (await decode({ token, secret, salt }))!;
    expect(second).toMatchObject({ sub: 'user-1', name: 'Ada' });
    expect(second.auth_time).toBeUndefined();
    expect(second).not.toBe(first);
  });
});
