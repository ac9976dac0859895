// isoDate (session/iso-date.ts) against Date.prototype.toISOString, which it stands in for on every session read.
import { describe, expect, it } from 'vitest';
import { isoDate } from '../../templates/runtime/session/iso-date.js';

describe('isoDate', () => {
  it('writes what toISOString writes, for the edges of each field and of the years it formats itself', () => {
    const edges = [
      '0000-01-01T00:00:00.000Z',
      '0009-12-31T23:59:59.999Z',
      '0999-06-15T12:30:45.050Z',
      '1970-01-01T00:00:00.000Z',
      '1999-12-31T23:59:59.009Z',
      '2024-02-29T09:05:07.123Z',
      '2026-11-29T23:59:59.990Z',
      '9999-12-31T23:59:59.999Z',
    ];
    for (const text of edges) expect(isoDate(new Date(text))).toBe(text);
  });

  it('writes what toISOString writes for 100,000 random times from year 0 to 9999', () => {
    // Date.UTC reads years 0–99 as 1900–1999: the ends are parsed instead.
    const first = Date.parse('0000-01-01T00:00:00.000Z');
    const last = Date.parse('9999-12-31T23:59:59.999Z');
    for (let sample = 0; sample < 100_000; sample += 1) {
      const date = new Date(first + Math.floor(Math.random() * (last - first)));
      expect(isoDate(date)).toBe(date.toISOString());
      expect(isoDate(date.getTime())).toBe(date.toISOString());
    }
  });

  it('leaves years outside 0–9999 to toISOString (a sign and six digits), and throws its RangeError for an invalid date', () => {
    for (const date of [new Date(Date.UTC(-1, 0, 1)), new Date(Date.UTC(10_000, 0, 1)), new Date(8.64e15), new Date(-8.64e15)]) {
      expect(isoDate(date)).toBe(date.toISOString());
      expect(isoDate(date)).toMatch(/^[+-]\d{6}-/);
    }
    expect(() => isoDate(new Date(Number.NaN))).toThrow(RangeError);
    for (const time of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15 + 1]) expect(() => isoDate(time)).toThrow(RangeError);
  });
});
