// The password policy of NIST SP 800-63B-4 (issue 25, item 3): length in code points after NFKC, 15 by default and
// never below 8, at most 256; refused with a reason: a common password, the address or its local part, one
// character repeated, one ascending or descending run. No composition rules.
import { describe, expect, it } from 'vitest';
import { passwordProblem } from '../../templates/runtime/features/password/policy.js';

const policy = { commonPasswords: new Set(['passwordpassword', 'correcthorsebatterystaple']) };
const codeOf = (password: string, email?: string, overrides = {}) => passwordProblem(password, email, { ...policy, ...overrides })?.code;

describe('the password policy', () => {
  it('asks for 15 code points by default, counted after NFKC, and takes a configured minimum of 8 or more', () => {
    expect(codeOf('fourteen chars')).toBe('too-short');
    expect(codeOf('fifteen chars!!')).toBeUndefined();
    // Each emoji is one code point (two UTF-16 units): fourteen of them and a space are 15.
    expect(codeOf(`${'🐢🦊'.repeat(7)} `)).toBeUndefined();
    expect(codeOf('short one', undefined, { minLength: 8 })).toBeUndefined();
    expect(() => codeOf('whatever it is', undefined, { minLength: 7 })).toThrow('minLength must be a whole number from 8 to 256');
  });

  it('accepts 64 and 256 code points and refuses 257, with the reason', () => {
    const words = (count: number) => 'river stone '.repeat(30).slice(0, count);
    expect(codeOf(words(64))).toBeUndefined();
    expect(codeOf(words(256))).toBeUndefined();
    expect(passwordProblem(`${words(256)}x`, undefined, policy)).toEqual({ code: 'too-long', message: 'Use at most 256 characters.' });
  });

  it('refuses a common password in any case and in its full-width form (NFKC), and has no composition rule', () => {
    expect(codeOf('PasswordPassword')).toBe('common');
    expect(codeOf('ｐａｓｓｗｏｒｄｐａｓｓｗｏｒｄ')).toBe('common');
    expect(codeOf('all lower case words only')).toBeUndefined();
  });

  it('refuses the address or its local part of four characters or more, case-insensitively', () => {
    expect(codeOf('my ada.lovelace secret words', 'Ada.Lovelace@example.test')).toBe('contains-address');
    expect(codeOf('prefix-ADA.LOVELACE@EXAMPLE.TEST', 'ada.lovelace@example.test')).toBe('contains-address');
    // A local part of three characters is too common a string to refuse.
    expect(codeOf('bob is my uncle forever', 'bob@example.test')).toBeUndefined();
  });

  it('refuses one character repeated and one ascending or descending run, not a repeated pattern', () => {
    expect(codeOf('aaaaaaaaaaaaaaaa')).toBe('repeated');
    expect(codeOf('abcdefghijklmnop')).toBe('sequence');
    expect(codeOf('zyxwvutsrqponmlk')).toBe('sequence');
    expect(codeOf('123456789', undefined, { minLength: 8 })).toBe('sequence');
    expect(codeOf('9876543210zyxwvu')).toBeUndefined();
    expect(codeOf('abababababababab')).toBeUndefined();
  });
});
