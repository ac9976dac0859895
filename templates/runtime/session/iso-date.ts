/**
 * `date.toISOString()` written out in JavaScript, from the time in milliseconds: V8's own formats through `vsnprintf`
 * (some 7,000 instructions) and each `getUTC…` call looks the date up again, on every session read. The calendar date
 * comes from the day number by integer arithmetic (Howard Hinnant's `civil_from_days`). Years outside 0–9999 and
 * invalid times are left to `toISOString` (test/runtime/iso-date.test.ts).
 */
export function isoDate(time: Date | number): string {
  const milliseconds = typeof time === 'number' ? time : time.getTime();
  const days = Math.floor(milliseconds / 86_400_000);
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (!(year >= 0 && year <= 9999)) return new Date(milliseconds).toISOString();
  const ofDay = milliseconds - days * 86_400_000;
  const seconds = Math.floor(ofDay / 1000);
  return (
    `${year < 1000 ? String(year).padStart(4, '0') : year}-${twoDigits[month]}-${twoDigits[dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1]}` +
    `T${twoDigits[Math.floor(seconds / 3600)]}:${twoDigits[Math.floor(seconds / 60) % 60]}:${twoDigits[seconds % 60]}.${threeDigits(ofDay - seconds * 1000)}Z`
  );
}

/** '00' to '99'. */
const twoDigits = Array.from({ length: 100 }, (_, value) => String(value).padStart(2, '0'));

function threeDigits(value: number): string {
  return value < 10 ? `00${value}` : value < 100 ? `0${value}` : `${value}`;
}
