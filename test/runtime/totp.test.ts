// TOTP (RFC 6238) as features/two-factor/totp.ts computes it: the RFC's SHA-1 test vectors, the ±1-step window at
// its edges with an injected clock, base32 both ways, and the otpauth URI authenticator apps read.
import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, matchingTotpStep, otpauthUri, totpCode, totpStep } from '../../templates/runtime/features/two-factor/totp.js';

/** RFC 6238 appendix B: the SHA-1 seed and the 8-digit codes of each time. */
const seed = Buffer.from('12345678901234567890', 'ascii');
const vectors: [seconds: number, code: string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(vectors)('gives the RFC test vector at T = %i s', (seconds, code) => {
    expect(totpCode(seed, totpStep(seconds * 1000), 8)).toBe(code);
    // Six digits are the last six of the same truncation.
    expect(totpCode(seed, totpStep(seconds * 1000))).toBe(code.slice(2));
  });

  it('accepts the code of the current step and of one step either side, and refuses two steps away', () => {
    const now = 1_700_000_015_000; // mid-step
    const step = totpStep(now);
    for (const offset of [-1, 0, 1]) expect(matchingTotpStep(seed, totpCode(seed, step + offset), now)).toBe(step + offset);
    for (const offset of [-2, 2]) expect(matchingTotpStep(seed, totpCode(seed, step + offset), now)).toBeUndefined();
  });

  it('holds the window at the edges of a step: the last and the first millisecond', () => {
    const start = totpStep(1_700_000_000_000) * 30_000;
    const last = start + 29_999;
    const step = totpStep(start);
    expect(totpStep(last)).toBe(step);
    expect(matchingTotpStep(seed, totpCode(seed, step + 1), last)).toBe(step + 1);
    expect(matchingTotpStep(seed, totpCode(seed, step - 2), start)).toBeUndefined();
    expect(matchingTotpStep(seed, totpCode(seed, step - 1), start)).toBe(step - 1);
    expect(matchingTotpStep(seed, totpCode(seed, step + 2), last)).toBeUndefined();
  });

  it('refuses anything but six digits', () => {
    const now = Date.now();
    const code = totpCode(seed, totpStep(now));
    for (const bad of ['', '12345', '1234567', 'abcdef', `${code} `, `0x${code.slice(2)}`, '１２３４５６']) expect(matchingTotpStep(seed, bad, now)).toBeUndefined();
  });

  it('encodes base32 as RFC 4648 (unpadded) and reads it back, case and spaces ignored', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('mzxw 6ytb oi').toString()).toBe('foobar');
    expect(base32Encode(seed)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(() => base32Decode('not base32!')).toThrow('not base32');
  });

  it('writes the otpauth URI with the issuer in the label and as a parameter', () => {
    const uri = new URL(otpauthUri({ secret: 'JBSWY3DPEHPK3PXP', issuer: 'Example App', account: 'ada@example.test' }));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Example App:ada@example.test');
    expect(Object.fromEntries(uri.searchParams)).toEqual({ secret: 'JBSWY3DPEHPK3PXP', issuer: 'Example App', algorithm: 'SHA1', digits: '6', period: '30' });
  });
});
