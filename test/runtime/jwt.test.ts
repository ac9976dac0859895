import { decode as authjsDecode, encode as authjsEncode } from '@auth/core/jwt';
import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { decode, encode } from '../../templates/runtime/jwt.js';

const secret = 'a-test-secret-that-is-long-enough-0123456789';
const oldSecret = 'an-old-secret-that-was-rotated-out-987654321';
const salt = 'authjs.session-token';

describe('session tokens', () => {
  it('encrypts with alg dir, enc A256CBC-HS512 and a kid', async () => {
    const token = await encode({ token: { sub: 'user-1' }, secret, salt });
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'dir', enc: 'A256CBC-HS512' });
    expect(header.kid).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(token.split('.')).toHaveLength(5);
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

  it('answers null for an empty token', async () => {
    expect(await decode({ token: '', secret, salt })).toBeNull();
  });
});
