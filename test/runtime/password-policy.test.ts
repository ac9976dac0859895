// The password policy of NIST SP 800-63B-4 (issue 25, item 3): length in characters typed, 15 by default and never
// below 8, at most 256 code points; refused with a reason: a common password (also repeated or padded), the address
// or its local part, one character repeated, one ascending or descending run, a keyboard walk, a length reached only
// by padding. No composition rules.
import { describe, expect, it } from 'vitest';
import { commonPasswords } from '../../templates/runtime/features/password/common-passwords.js';
import { passwordProblem } from '../../templates/runtime/features/password/policy.js';

const policy = { commonPasswords: new Set(['passwordpassword', 'correcthorsebatterystaple']) };
const codeOf = (password: string, email?: string, overrides = {}) => passwordProblem(password, email, { ...policy, ...overrides })?.code;

describe('the password policy', () => {
  it('asks for 15 characters by default and takes a configured minimum of 8 or more', () => {
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
    expect(codeOf('abababababababab')).toBeUndefined();
  });
});

// Security review 4, F6: the minimum counted one character that NFKC expands (U+FDFA becomes 18 code points) and
// invisible padding; the bundled list holds few long entries, so long common passwords passed the default minimum.
describe('the minimum length counts what was typed (security review 4, F6)', () => {
  it('refuses one character that NFKC expands to 18 code points (U+FDFA)', () => {
    expect(passwordProblem('\uFDFA', undefined, policy)).toEqual({ code: 'too-short', message: 'Use at least 15 characters.' });
  });

  it('does not count zero-width spaces towards the minimum ("password" and seven U+200B)', () => {
    expect(codeOf(`password${'\u200B'.repeat(7)}`)).toBe('too-short');
  });

  it('does not count combining marks towards the minimum', () => {
    // U+20D2 composes with no letter, so NFKC keeps all four.
    expect(codeOf(`river stone${'\u20D2'.repeat(4)}`)).toBe('too-short');
    // An accented letter typed as a letter and its mark counts once, as it shows.
    expect(codeOf('rive\u0301r stone kettle')).toBeUndefined();
  });

  it('refuses a common password with zero-width spaces or combining marks inside as common', () => {
    expect(codeOf('pass\u200Bword\u200Cpass\u200Dword')).toBe('common');
    expect(codeOf('passwordpassword\u0338')).toBe('common');
  });

  it('still counts the maximum in code points: 256 four-byte emoji are accepted, 257 refused', () => {
    const emoji = [...'🐢🦊🌵🍄'];
    const typed = (count: number) => Array.from({ length: count }, (_, index) => emoji[index % emoji.length]).join('');
    expect(codeOf(typed(256))).toBeUndefined();
    expect(codeOf(typed(257))).toBe('too-long');
  });
});

describe('long common passwords (security review 4, F6)', () => {
  const bundled = { commonPasswords };
  const problemOf = (password: string) => passwordProblem(password, undefined, bundled);
  const variantOfCommon = {
    code: 'common',
    message: 'This password is a commonly used one, repeated or with digits, a sequence or a repeated character added. Choose another.',
  };

  it('refuses "password1234567": a common password with a sequence added', () => {
    expect(problemOf('password1234567')).toEqual(variantOfCommon);
  });

  it('refuses "iloveyouiloveyou": a common password repeated', () => {
    expect(problemOf('iloveyouiloveyou')).toEqual(variantOfCommon);
  });

  it('refuses "123456789012345": a common password with digits added', () => {
    expect(problemOf('123456789012345')).toEqual(variantOfCommon);
  });

  it('refuses "qwertyuiopasdfghjkl": a walk along the rows of the keyboard', () => {
    expect(problemOf('qwertyuiopasdfghjkl')).toEqual({
      code: 'keyboard-walk',
      message: 'The password may not be a walk along the keyboard such as "qwerty…" or "1q2w3e…".',
    });
  });

  it('refuses "1q2w3e4r5t6y7u8i9o0p": a zigzag along the keyboard', () => {
    expect(problemOf('1q2w3e4r5t6y7u8i9o0p')?.code).toBe('keyboard-walk');
  });

  it('refuses walks in columns, with Shift, and on QWERTZ and AZERTY keyboards', () => {
    expect(problemOf('zaq12wsxcde34rfv')?.code).toBe('keyboard-walk');
    expect(problemOf('!QAZ@WSX#EDC$RFV%TGB')?.code).toBe('keyboard-walk');
    expect(problemOf('qwertzuiopasdfghjkl')?.code).toBe('keyboard-walk');
    expect(problemOf('azertyuiopqsdfghjklm')?.code).toBe('keyboard-walk');
  });

  it('refuses a password long enough only thanks to a sequence or a repeated character at an end ("my secret 123456789")', () => {
    expect(problemOf('my secret 123456789')).toEqual({
      code: 'padded',
      message: 'A sequence such as "1234…" or a repeated character such as "!!!!" does not count towards the length: use at least 15 characters besides it.',
    });
    expect(problemOf('!!!!!!!!my secret')?.code).toBe('padded');
    expect(problemOf('9876543210zyxwvu')?.code).toBe('padded');
  });

  it('accepts ordinary long passphrases', () => {
    for (const password of [
      'correct horse battery staple',
      'my cat eats 3 kinds of cheese',
      'correcthorsebatterystaple',
      'safety comes first',
      'the year was 1987 and we met',
      'river stone kettle 4821',
      'Tr0ub4dor&3 lantern oak',
      'we were there as a tree',
      // Back and forth between two neighbouring keys is a repeated pattern, not a walk.
      'lolololololololo',
    ]) {
      expect(problemOf(password), password).toBeUndefined();
    }
  });
});
