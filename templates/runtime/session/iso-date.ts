/**
 * `date.toISOString()` written out in JavaScript: V8's own formats through `vsnprintf`, some 7,000 instructions, on
 * every session read. Years outside 0–9999 and invalid dates are left to `toISOString` (test/runtime/iso-date.test.ts).
 */
export function isoDate(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) return date.toISOString();
  const milliseconds = date.getUTCMilliseconds();
  return `${year < 1000 ? String(year).padStart(4, '0') : year}-${twoDigits(date.getUTCMonth() + 1)}-${twoDigits(date.getUTCDate())}T${twoDigits(date.getUTCHours())}:${twoDigits(date.getUTCMinutes())}:${twoDigits(date.getUTCSeconds())}.${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z`;
}

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}
