// Recovery codes at rest (security review 4, F13): stored as HMAC-SHA-256 under a key derived from AUTH_SECRET, so
// that a copy of the database alone cannot test guesses against them, as link tokens are; codes stored before, as the
// plain SHA-256 of the code, are still recognised.
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import type { Adapter } from '../../templates/runtime/index.js';
import { hmacRecoveryCode, newRecoveryCodes, normalizeRecoveryCode, recoveryCodeHashes } from '../../templates/runtime/features/two-factor/secrets.js';
import { OTHER_SECRET, SECRET } from './helpers.js';
import { withAllFeatures } from '../support/all-features.js';

const code = 'gc3wb-nm5ee';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The HMAC as the runtime should compute it, written out here so that a change of construction shows. */
const expectedHmac = (text: string, secret: string) =>
  createHmac('sha256', new Uint8Array(hkdfSync('sha256', secret, '', 'framework-auth recovery code v1', 32))).update(text).digest('hex');

describe('the stored form of a recovery code (security review 4, F13)', () => {
  it('is HMAC-SHA-256 of the code under a key derived from the newest secret', () => {
    expect(hmacRecoveryCode(code, [SECRET, OTHER_SECRET])).toBe(expectedHmac('gc3wbnm5ee', SECRET));
  });

  it('is not the SHA-256 of the code, with or without its dash', () => {
    const stored = hmacRecoveryCode(code, [SECRET]);
    expect(stored).not.toBe(sha256('gc3wbnm5ee'));
    expect(stored).not.toBe(sha256(code));
  });

  it('differs from one secret to another', () => {
    expect(hmacRecoveryCode(code, [SECRET])).not.toBe(hmacRecoveryCode(code, [OTHER_SECRET]));
  });

  it('is the same for the code typed with capitals, spaces or without the dash', () => {
    const stored = hmacRecoveryCode(code, [SECRET]);
    expect(hmacRecoveryCode('GC3WB NM5EE', [SECRET])).toBe(stored);
    expect(hmacRecoveryCode('gc3wbnm5ee', [SECRET])).toBe(stored);
  });

  it('holds neither the code nor its SHA-256 for any of ten new codes', () => {
    for (const fresh of newRecoveryCodes()) {
      const stored = hmacRecoveryCode(fresh, [SECRET]);
      expect(stored).toMatch(/^[0-9a-f]{64}$/);
      expect(stored).not.toContain(normalizeRecoveryCode(fresh));
      expect(stored).not.toBe(sha256(normalizeRecoveryCode(fresh)!));
    }
  });
});

describe('the stored forms a typed recovery code is looked up by', () => {
  it('are the HMAC under each secret, newest first, then the SHA-256 of codes stored before the HMAC', () => {
    expect(recoveryCodeHashes(code, [SECRET, OTHER_SECRET])).toEqual([expectedHmac('gc3wbnm5ee', SECRET), expectedHmac('gc3wbnm5ee', OTHER_SECRET), sha256('gc3wbnm5ee')]);
  });

  it('find a code stored before the HMAC (plain SHA-256) in an adapter, once', async () => {
    const adapter = withAllFeatures(MemoryAdapter()) as Required<Adapter>;
    const user = await adapter.createUser({ id: 'u1', email: 'ada@example.test', emailVerified: null });
    await adapter.setRecoveryCodes(user.id, [sha256('gc3wbnm5ee')]);
    const use = async () => {
      for (const codeHash of recoveryCodeHashes('GC3WB-NM5EE', [SECRET])) if (await adapter.useRecoveryCode(user.id, codeHash)) return true;
      return false;
    };
    expect(await use()).toBe(true);
    expect(await use()).toBe(false);
  });

  it('find a code stored under a secret since rotated out of first place', async () => {
    const adapter = withAllFeatures(MemoryAdapter()) as Required<Adapter>;
    const user = await adapter.createUser({ id: 'u1', email: 'ada@example.test', emailVerified: null });
    await adapter.setRecoveryCodes(user.id, [hmacRecoveryCode(code, [OTHER_SECRET])]);
    const found = [];
    for (const codeHash of recoveryCodeHashes(code, [SECRET, OTHER_SECRET])) found.push(await adapter.useRecoveryCode(user.id, codeHash));
    expect(found).toEqual([false, true, false]);
  });

  it('do not find a code stored under a secret no longer given', () => {
    expect(recoveryCodeHashes(code, [SECRET])).not.toContain(hmacRecoveryCode(code, [OTHER_SECRET]));
  });
});
