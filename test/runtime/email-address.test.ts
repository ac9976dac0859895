import { describe, expect, it } from 'vitest';
import { InvalidEmailAddress, assertSingleAddress, normalizeEmailAddress } from '../../templates/runtime/email-address.js';

describe('normalizeEmailAddress', () => {
  it.each([
    ['ada@example.com', 'ada@example.com'],
    ['  Ada@Example.COM  ', 'ada@example.com'],
    ['ada.lovelace(work)@example.com', 'ada.lovelace@example.com'],
    ['(note) ada@example.com (home)', 'ada@example.com'],
    ['ada @ example.com', 'ada@example.com'],
    ['ada+tag@example.com', 'ada+tag@example.com'],
    ['ada@example.com.', 'ada@example.com'],
    ['ada＠example.com', 'ada@example.com'],
    ['ada@bücher.example', 'ada@xn--bcher-kva.example'],
  ])('makes %j into %j', (input, expected) => {
    expect(normalizeEmailAddress(input)).toBe(expected);
  });

  it.each([
    ['an empty string', '', 'Enter an email address.'],
    ['blanks', '   ', 'Enter an email address.'],
    ['no "@"', 'ada.example.com', 'exactly one "@"'],
    ['two "@"', 'ada@example.com@evil.com', 'exactly one "@"'],
    ['a full-width "@" that makes a second one', 'ada@example.com＠evil.com', 'exactly one "@"'],
    ['a list with a comma', 'ada@example.com,eve@evil.com', 'exactly one "@"'],
    ['a list with a semicolon', 'ada@example.com;eve@evil.com', 'exactly one "@"'],
    ['a CRLF header injection', 'ada@example.com\r\nBcc: eve@evil.com', 'line break'],
    ['a bare LF', 'ada@example.com\nCc: eve', 'line break'],
    ['a NUL', 'ada\u0000@example.com', 'control character'],
    ['a display name', 'Ada <ada@example.com>', 'not a plain email name'],
    ['a quoted local part', '"ada@x"@example.com', 'exactly one "@"'],
    ['a space inside the name', 'a da@example.com', 'not a plain email name'],
    ['a percent route', 'ada%evil.com@example.com', 'not a plain email name'],
    ['a leading dot', '.ada@example.com', 'not a plain email name'],
    ['two dots', 'ada..l@example.com', 'not a plain email name'],
    ['unbalanced parentheses', 'ada(x@example.com', 'unbalanced'],
    ['a domain without a dot', 'ada@localhost', 'not a valid domain'],
    ['an IP literal', 'ada@[127.0.0.1]', 'not a valid domain'],
    ['a numeric top-level domain', 'ada@127.0.0.1', 'not a valid domain'],
    ['a label starting with "-"', 'ada@-example.com', 'not a valid domain'],
    ['an overlong name', `${'a'.repeat(65)}@example.com`, 'not a plain email name'],
    ['an overlong input', `${'a'.repeat(600)}@example.com`, 'too long'],
  ])('refuses %s', (_name, input, reason) => {
    expect(() => normalizeEmailAddress(input)).toThrow(InvalidEmailAddress);
    expect(() => normalizeEmailAddress(input)).toThrow(reason);
  });

  it('never repeats the address in its message', () => {
    try {
      normalizeEmailAddress('secret-name@@example.com');
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain('secret-name');
    }
  });
});

describe('assertSingleAddress', () => {
  it('accepts one bare address', () => {
    expect(() => assertSingleAddress('ada@example.com')).not.toThrow();
  });

  it.each(['ada@example.com\r\nBcc: eve@evil.com', 'ada@example.com, eve@evil.com', 'Ada <ada@example.com>', 'ada@x@y.com', 'ada'])('refuses %j', (value) => {
    expect(() => assertSingleAddress(value)).toThrow(InvalidEmailAddress);
  });
});
