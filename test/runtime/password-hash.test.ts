// The password hashes of features/password/hash.ts: argon2id PHC strings with a 16-byte salt, checked in constant time
// by the library, a rehash flagged when the parameters changed, and one hash's work for a user without one.
import { availableParallelism } from 'node:os';
import * as argon2 from '@node-rs/argon2';
import { describe, expect, it, vi } from 'vitest';
import { PASSWORD_HASH, hashPassword, verifyPassword } from '../../templates/runtime/features/password/hash.js';

vi.mock('@node-rs/argon2', async (original) => {
  const actual = await original<typeof argon2>();
  return { ...actual, verify: vi.fn(actual.verify), hash: vi.fn(actual.hash) };
});

const PASSWORD = 'violet staple orbit lantern';

describe('password hashes', () => {
  it('are argon2id PHC strings with OWASP parameters, a 16-byte salt and a 32-byte hash, salted afresh each time', async () => {
    const first = await hashPassword(PASSWORD);
    const second = await hashPassword(PASSWORD);
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(first).not.toBe(second);
    expect(Buffer.from(first.split('$')[4]!, 'base64')).toHaveLength(16);
    expect(PASSWORD_HASH).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1 });
  });

  it('accept the password, refuse any other, and compare after NFKC (a full-width form is the same password)', async () => {
    const stored = await hashPassword('ｌａｎｔｅｒｎ orbit violet staple');
    expect(await verifyPassword('lantern orbit violet staple', stored)).toEqual({ valid: true, needsRehash: false });
    expect(await verifyPassword('lantern orbit violet staplE', stored)).toEqual({ valid: false, needsRehash: false });
  });

  it('ask for a rehash of a valid password stored with other parameters, never of a wrong one', async () => {
    const old = await hashPassword(PASSWORD, { memoryCost: 8192, timeCost: 3, parallelism: 1 });
    expect(await verifyPassword(PASSWORD, old)).toEqual({ valid: true, needsRehash: true });
    expect(await verifyPassword('another password entirely', old)).toEqual({ valid: false, needsRehash: false });
  });

  it('never match an unreadable or foreign hash', async () => {
    for (const stored of ['', 'plaintext', '$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaA', '$scrypt$ln=14,r=8,p=5$c2FsdA$aGFzaA', '$argon2id$v=19$m=19456,t=2,p=1$!!$!!']) {
      expect(await verifyPassword(PASSWORD, stored)).toEqual({ valid: false, needsRehash: false });
    }
  });

  it('run at most one per core but one at a time, the rest waiting in a queue', async () => {
    const hash = vi.mocked(argon2.hash);
    const actual = hash.getMockImplementation()!;
    let running = 0;
    let most = 0;
    hash.mockImplementation(async (...args) => {
      running += 1;
      most = Math.max(most, running);
      try {
        return await actual(...args);
      } finally {
        running -= 1;
      }
    });
    try {
      const hashes = await Promise.all(Array.from({ length: 6 }, () => hashPassword(PASSWORD)));
      expect(new Set(hashes).size).toBe(6);
      expect(most).toBe(Math.min(6, Math.max(1, availableParallelism() - 1)));
    } finally {
      hash.mockImplementation(actual);
    }
  });

  it('cost one argon2id verification for a user without a hash, as for one with a hash', async () => {
    const verify = vi.mocked(argon2.verify);
    const stored = await hashPassword(PASSWORD);
    verify.mockClear();
    await verifyPassword(PASSWORD, stored);
    expect(verify).toHaveBeenCalledTimes(1);
    verify.mockClear();
    await verifyPassword(PASSWORD, null);
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify.mock.calls[0]![0]).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});
