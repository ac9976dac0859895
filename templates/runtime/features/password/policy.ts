/**
 * The password policy of NIST SP 800-63B-4 (§3.1.1.2): length, not composition. A password is compared after NFKC
 * normalisation and counted in code points; it must hold at least `minLength` of them (15 by default, never fewer
 * than 8) and at most 256, and is refused, with the reason said, when it is a common password, contains the account's
 * address or its local part, is one character repeated, or is one ascending or descending run (`abcdef…`, `98765…`).
 * There are no composition rules (no "one digit, one symbol"), as the standard asks. The list of common passwords is
 * given by the caller, so that where it comes from is decided in one place.
 */

/** Why a password is refused; `message` is what the form shows next to the field. */
export interface PasswordProblem {
  code: 'too-short' | 'too-long' | 'common' | 'contains-address' | 'repeated' | 'sequence';
  message: string;
}

/** The policy's settings. */
export interface PasswordPolicy {
  /** The fewest code points a password may have. @default 15 (never below 8) */
  minLength?: number;
  /** Common passwords, lower-cased and NFKC-normalised: a password equal to one (ignoring case) is refused. */
  commonPasswords: ReadonlySet<string>;
}

/** The longest password accepted, in code points: long passphrases are welcome, unbounded input is not. */
export const MAX_PASSWORD_LENGTH = 256;

/** The default and the lowest `minLength`. */
export const DEFAULT_MIN_PASSWORD_LENGTH = 15;
export const LOWEST_MIN_PASSWORD_LENGTH = 8;

/** The shortest local part of an address that a password may not contain (shorter ones are too common to refuse). */
const MIN_ADDRESS_PART = 4;

/** The `minLength` a policy uses; a value below 8 or not a whole number is a configuration error. */
export function minPasswordLength(policy: Pick<PasswordPolicy, 'minLength'>): number {
  const value = policy.minLength ?? DEFAULT_MIN_PASSWORD_LENGTH;
  if (!Number.isInteger(value) || value < LOWEST_MIN_PASSWORD_LENGTH || value > MAX_PASSWORD_LENGTH) {
    throw new TypeError(`minLength must be a whole number from ${LOWEST_MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} (got ${String(value)})`);
  }
  return value;
}

/** The password as compared and stored: NFKC, so that look-alike forms of one password are the same password. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** Whether every code point is the one before it plus `step` (1: ascending, -1: descending). */
function isRun(codePoints: readonly number[], step: 1 | -1): boolean {
  return codePoints.every((point, index) => index === 0 || point - codePoints[index - 1]! === step);
}

/**
 * The first reason `password` is refused for the account of `email` (undefined when there is none). The address
 * counts whole and by its local part, case-insensitively.
 */
export function passwordProblem(password: string, email: string | undefined, policy: PasswordPolicy): PasswordProblem | undefined {
  const normalized = normalizePassword(password);
  const codePoints = [...normalized].map((character) => character.codePointAt(0)!);
  const minLength = minPasswordLength(policy);
  if (codePoints.length < minLength) return { code: 'too-short', message: `Use at least ${minLength} characters.` };
  if (codePoints.length > MAX_PASSWORD_LENGTH) return { code: 'too-long', message: `Use at most ${MAX_PASSWORD_LENGTH} characters.` };
  const lower = normalized.toLowerCase();
  if (policy.commonPasswords.has(lower)) return { code: 'common', message: 'This password is on a list of commonly used passwords. Choose another.' };
  const address = email?.normalize('NFKC').toLowerCase();
  const localPart = address?.split('@')[0];
  if (address && (lower.includes(address) || (localPart !== undefined && localPart.length >= MIN_ADDRESS_PART && lower.includes(localPart)))) {
    return { code: 'contains-address', message: 'The password may not contain your email address or its name part.' };
  }
  if (codePoints.every((point) => point === codePoints[0])) return { code: 'repeated', message: 'The password may not be one character repeated.' };
  if (isRun(codePoints, 1) || isRun(codePoints, -1)) return { code: 'sequence', message: 'The password may not be a sequence such as "abcd…" or "9876…".' };
  return undefined;
}
