/**
 * The password policy of NIST SP 800-63B-4 (§3.1.1.2): length, not composition. The minimum is counted in the code
 * points typed (and again after NFKC normalisation; the lesser counts), leaving out those that show nothing or only
 * change the character before them: default-ignorable code points such as U+200B ZERO WIDTH SPACE, and combining
 * marks. So neither one character that NFKC expands (U+FDFA becomes 18 code points) nor invisible padding makes a
 * password long enough. A password must hold at least `minLength` such characters (15 by default, never fewer than
 * 8) and at most 256 code points after NFKC.
 *
 * It is compared after NFKC normalisation, lower-cased and with those invisible and combining code points removed
 * (to the common list and the address, also with them kept), and refused, with the reason said, when it is:
 * - a common password, or one repeated, or one with digits, a sequence or a repeated character added before or after
 *   it (`password1234567`, `iloveyouiloveyou`): the bundled list leaves such variants out, as zxcvbn, where it comes
 *   from, finds them by pattern;
 * - holding the account's address or its local part;
 * - one character repeated (`aaaa…`);
 * - one ascending or descending run (`abcdef…`, `98765…`);
 * - a walk along the keys of a QWERTY, QWERTZ or AZERTY keyboard (`qwertyuiopasdf…`, `1q2w3e4r…`, `zaq12wsx…`);
 * - long enough only thanks to a sequence or a repeated character at either end (`my secret 123456789`).
 * There are no composition rules (no "one digit, one symbol"), as the standard asks. The list of common passwords is
 * given by the caller, so that where it comes from is decided in one place.
 */

/** Why a password is refused; `message` is what the form shows next to the field. */
export interface PasswordProblem {
  code: 'too-short' | 'too-long' | 'common' | 'contains-address' | 'repeated' | 'sequence' | 'keyboard-walk' | 'padded';
  message: string;
}

/** The policy's settings. */
export interface PasswordPolicy {
  /**
   * The fewest characters a password may have: code points as typed (and after NFKC, the lesser counts), without
   * default-ignorable code points (such as U+200B) and combining marks. @default 15 (never below 8)
   */
  minLength?: number;
  /**
   * Common passwords, lower-cased and NFKC-normalised: a password equal to one (ignoring case), one repeated, or one
   * with digits, a sequence or a repeated character added at either end is refused.
   */
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

/** Code points that show nothing, or only change the character before them: they do not count towards the minimum. */
const INVISIBLE_OR_COMBINING = /[\p{Default_Ignorable_Code_Point}\p{M}]/gu;

/**
 * The characters of `text` that count towards `minLength`: its code points, without the default-ignorable ones
 * (U+200B ZERO WIDTH SPACE, U+FE0F VARIATION SELECTOR-16, …) and combining marks.
 */
export function countedLength(text: string): number {
  return [...text.replace(INVISIBLE_OR_COMBINING, '')].length;
}

/**
 * The fewest code points of a run (one character repeated, or steps of +1 or -1: `!!!!`, `1234`, `abcd`) at either
 * end that does not count towards the minimum. Four, as a shorter run (`rst` ending `first`, `765` in random digits)
 * is too often part of a good password to discount.
 */
const MIN_PADDING_RUN = 4;
/** Around a common password, a shorter run is padding too (`iloveyou!!!`): there it only helps to find the password. */
const MIN_RUN_AROUND_COMMON = 3;

/** How many code points at the start of `points` make one run: one character repeated, or steps of +1 or of -1. */
function runLength(points: readonly number[]): number {
  if (points.length < 2) return points.length;
  const step = points[1]! - points[0]!;
  if (Math.abs(step) > 1) return 1;
  let length = 2;
  while (length < points.length && points[length]! - points[length - 1]! === step) length++;
  return length;
}

/**
 * How many characters at the start of `characters` are padding: runs of `shortestRun` or more, one after another,
 * and, when `digits` is set, any digits (`1987`).
 */
function paddingLength(characters: readonly string[], shortestRun: number, digits: boolean): number {
  let length = 0;
  while (length < characters.length) {
    const rest = characters.slice(length);
    const run = runLength(rest.map((character) => character.codePointAt(0)!));
    let digitCount = 0;
    while (digits && digitCount < rest.length && /\p{Nd}/u.test(rest[digitCount]!)) digitCount++;
    const piece = Math.max(run >= shortestRun ? run : 0, digitCount);
    if (piece === 0) break;
    length += piece;
  }
  return length;
}

/** The shortest part that `characters` repeats, at least twice (`abcabcab` repeats `abc`); undefined when none. */
function repeatedUnit(characters: readonly string[]): readonly string[] | undefined {
  for (let period = 1; period * 2 <= characters.length; period++) {
    if (characters.every((character, index) => index < period || character === characters[index - period])) return characters.slice(0, period);
  }
  return undefined;
}

/** Whether `characters` are a common password repeated, or with digits or runs added at either end. */
function isCommonVariant(characters: readonly string[], commonPasswords: ReadonlySet<string>): boolean {
  const leading = paddingLength(characters, MIN_RUN_AROUND_COMMON, true);
  const trailing = paddingLength([...characters].reverse(), MIN_RUN_AROUND_COMMON, true);
  let longestCommon = 0;
  for (const common of commonPasswords) longestCommon = Math.max(longestCommon, common.length);
  const text = characters.join('');
  // Where each character starts in `text`, and where it ends, so that a part is a slice of one string.
  const offsets = [0];
  for (const character of characters) offsets.push(offsets.at(-1)! + character.length);
  // Every cut within the padding, not only its inner edge, as a run may begin inside the common password (in
  // "passwordefgh" the run is "defgh"); no part longer than the longest common password, to bound the work.
  for (let start = 0; start <= leading; start++) {
    for (let end = Math.max(start + 1, characters.length - trailing); end <= characters.length; end++) {
      if (offsets[end]! - offsets[start]! > longestCommon) break;
      if (commonPasswords.has(text.slice(offsets[start], offsets[end]))) return true;
    }
  }
  const core = characters.slice(leading, Math.max(leading, characters.length - trailing));
  return [characters, core].some((part) => {
    const unit = repeatedUnit(part);
    return unit !== undefined && commonPasswords.has(unit.join(''));
  });
}

/**
 * Keyboard layouts, as their rows of keys from the digits down, unshifted (AZERTY's digits as typed with Shift). Each
 * row sits half a key to the right of the one above, as on a keyboard: q between 1 and 2, a between q and w, z between
 * a and s. A space holds the place of a key that types no character (Tab, Caps Lock).
 */
const KEYBOARD_LAYOUTS: readonly (readonly string[])[] = [
  ['`1234567890-=', ' qwertyuiop[]\\', " asdfghjkl;'", ' zxcvbnm,./'],
  ['^1234567890ß', ' qwertzuiopü+', ' asdfghjklöä#', '<yxcvbnm,.-'],
  [' 1234567890)=', ' azertyuiop^$', ' qsdfghjklmù*', '<wxcvbn,;:!'],
];

/** Where a key is: its row, and how far across in keys. */
interface KeyPosition {
  row: number;
  across: number;
}

const KEYBOARDS: readonly ReadonlyMap<string, KeyPosition>[] = KEYBOARD_LAYOUTS.map((rows) => {
  const keys = new Map<string, KeyPosition>();
  rows.forEach((keysOfRow, row) => {
    [...keysOfRow].forEach((key, column) => {
      if (key !== ' ') keys.set(key, { row, across: column + row / 2 });
    });
  });
  return keys;
});

/** The characters Shift types on a US keyboard, and the key of each (at the same index): `!QAZ` is the walk `1qaz`. */
const SHIFTED = '~!@#$%^&*()_+{}|:"<>?';
const UNSHIFTED = '`1234567890-=[]\\;\',./';

/** Whether two keys are neighbours: side by side in a row, or touching in the row above or below. */
function areNeighbours(first: KeyPosition | undefined, second: KeyPosition | undefined): boolean {
  if (!first || !second) return false;
  const apart = Math.abs(first.across - second.across);
  return (first.row === second.row && apart === 1) || (Math.abs(first.row - second.row) === 1 && apart === 0.5);
}

/**
 * The fewest different keys in each stretch of neighbouring keys for a password to be a keyboard walk (`1qaz2wsx` is
 * two stretches of four). Different keys: going back and forth between two (`lololo`) is a repeated pattern, which
 * the policy does not refuse, not a walk.
 */
const MIN_WALK_STRETCH = 3;

/** Whether `characters` are, on one of KEYBOARD_LAYOUTS, stretches of neighbouring keys of MIN_WALK_STRETCH or more. */
function isKeyboardWalk(characters: readonly string[]): boolean {
  return KEYBOARDS.some((keyboard) => {
    const keys = characters.map((character) => keyboard.get(character) ?? keyboard.get(UNSHIFTED[SHIFTED.indexOf(character)] ?? ''));
    let start = 0;
    for (let index = 1; index <= keys.length; index++) {
      if (index < keys.length && areNeighbours(keys[index - 1], keys[index])) continue;
      if (new Set(keys.slice(start, index)).size < MIN_WALK_STRETCH) return false;
      start = index;
    }
    return true;
  });
}

/**
 * The first reason `password` is refused for the account of `email` (undefined when there is none). The address
 * counts whole and by its local part, case-insensitively.
 */
export function passwordProblem(password: string, email: string | undefined, policy: PasswordPolicy): PasswordProblem | undefined {
  const minLength = minPasswordLength(policy);
  const normalized = normalizePassword(password);
  // Counted as typed, so that one character NFKC expands (U+FDFA is 18 code points) does not pass for many, and after
  // NFKC too, so that conjoining parts it composes (Hangul jamo) count as the one character they show.
  if (Math.min(countedLength(password), countedLength(normalized)) < minLength) {
    return { code: 'too-short', message: `Use at least ${minLength} characters.` };
  }
  if ([...normalized].length > MAX_PASSWORD_LENGTH) return { code: 'too-long', message: `Use at most ${MAX_PASSWORD_LENGTH} characters.` };
  const lower = normalized.toLowerCase();
  // The password without what does not show: "pass\u200Bword" is "password".
  const plain = lower.replace(INVISIBLE_OR_COMBINING, '');
  const characters = [...plain];
  if (policy.commonPasswords.has(lower) || policy.commonPasswords.has(plain)) {
    return { code: 'common', message: 'This password is on a list of commonly used passwords. Choose another.' };
  }
  if (isCommonVariant(characters, policy.commonPasswords)) {
    return { code: 'common', message: 'This password is a commonly used one, repeated or with digits, a sequence or a repeated character added. Choose another.' };
  }
  const address = email?.normalize('NFKC').toLowerCase();
  const localPart = address?.split('@')[0];
  const containsAddress = (form: string) => address !== undefined && (form.includes(address) || (localPart !== undefined && localPart.length >= MIN_ADDRESS_PART && form.includes(localPart)));
  if (containsAddress(lower) || containsAddress(plain)) {
    return { code: 'contains-address', message: 'The password may not contain your email address or its name part.' };
  }
  if (repeatedUnit(characters)?.length === 1) return { code: 'repeated', message: 'The password may not be one character repeated.' };
  if (runLength(characters.map((character) => character.codePointAt(0)!)) === characters.length) {
    return { code: 'sequence', message: 'The password may not be a sequence such as "abcd…" or "9876…".' };
  }
  if (isKeyboardWalk(characters)) return { code: 'keyboard-walk', message: 'The password may not be a walk along the keyboard such as "qwerty…" or "1q2w3e…".' };
  const padding = paddingLength(characters, MIN_PADDING_RUN, false) + paddingLength([...characters].reverse(), MIN_PADDING_RUN, false);
  if (characters.length - padding < minLength) {
    return {
      code: 'padded',
      message: `A sequence such as "1234…" or a repeated character such as "!!!!" does not count towards the length: use at least ${minLength} characters besides it.`,
    };
  }
  return undefined;
}
