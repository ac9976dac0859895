/**
 * Email addresses typed into the sign-in form, made into one plain address or refused. The address becomes a mail
 * header (`To:`) and the key of the user, so anything that could name a second recipient or inject a header is
 * refused rather than repaired.
 */
import { domainToASCII } from 'node:url';

/** Why an address was refused; the message is safe to show and to log (it never repeats the address). */
export class InvalidEmailAddress extends Error {
  override name = 'InvalidEmailAddress';
}

/** RFC 5322 `atext` without `%` (old source-routing tricks such as `user%host@relay`). */
const localPartPattern = /^[a-z0-9!#$&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$&'*+/=?^_`{|}~-]+)*$/;
const domainLabelPattern = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** C0 and C1 control characters (CR and LF among them) and the Unicode line separators. */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) return true;
  }
  return false;
}

/**
 * Checks that a value is exactly one bare address: one `@`, no whitespace, line breaks, quotes, brackets, commas or
 * semicolons. Run on every identifier, including those of a custom `normalizeIdentifier`.
 */
export function assertSingleAddress(address: string): void {
  if (hasControlCharacter(address)) throw new InvalidEmailAddress('The email address contains a line break or a control character.');
  if (/[\s,;<>"()[\]\\:]/.test(address)) throw new InvalidEmailAddress('Enter a single email address, without a name, spaces or separators.');
  if (address.split('@').length !== 2) throw new InvalidEmailAddress('An email address has exactly one "@".');
}

/**
 * The default `normalizeIdentifier`: Unicode NFKC (so a full-width `＠` cannot pass as text and later become an
 * `@`), comments such as `ada(work)@example.com` and the whitespace around the address and its `@` removed,
 * lower-cased, the domain in its ASCII (punycode) form. Throws `InvalidEmailAddress` for anything that is not one
 * plain address: several addresses, a display name (`Ada <ada@example.com>`), quoted local parts, line breaks
 * (header injection), IP-literal domains, or a domain without a dot.
 * @example normalizeEmailAddress(' Ada.Lovelace(work)@Example.COM ') === 'ada.lovelace@example.com'
 */
export function normalizeEmailAddress(input: string): string {
  if (typeof input !== 'string' || input.trim() === '') throw new InvalidEmailAddress('Enter an email address.');
  if (input.length > 512) throw new InvalidEmailAddress('The email address is too long.');
  const normalised = input.normalize('NFKC');
  if (hasControlCharacter(normalised)) {
    throw new InvalidEmailAddress('The email address contains a line break or a control character.');
  }
  // Comments are dropped (RFC 5322 §3.2.2); nested or unbalanced parentheses are refused, not guessed at.
  const withoutComments = normalised.replace(/\([^()]*\)/g, ' ');
  if (/[()]/.test(withoutComments)) throw new InvalidEmailAddress('The email address has unbalanced parentheses.');
  const parts = withoutComments.split('@');
  if (parts.length !== 2) throw new InvalidEmailAddress('Enter a single email address with exactly one "@".');
  const local = parts[0]!.trim().toLowerCase();
  const domainText = parts[1]!.trim().toLowerCase().replace(/\.$/, '');
  if (!local || !domainText) throw new InvalidEmailAddress('An email address needs a name before and a domain after the "@".');
  if (local.length > 64 || !localPartPattern.test(local)) throw new InvalidEmailAddress('The part before the "@" is not a plain email name.');
  const domain = domainToASCII(domainText);
  const labels = domain.split('.');
  if (!domain || domain.length > 253 || labels.length < 2 || !labels.every((label) => domainLabelPattern.test(label)) || /^\d+$/.test(labels.at(-1)!)) {
    throw new InvalidEmailAddress('The part after the "@" is not a valid domain name.');
  }
  const address = `${local}@${domain}`;
  if (address.length > 254) throw new InvalidEmailAddress('The email address is too long.');
  return address;
}

/**
 * An address with its local part hidden but for its first character (`m•••@example.com`): enough for its owner to
 * recognise it in a message or on a page another person may see, too little to learn it from.
 */
export function maskedAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '•••';
  return `${Array.from(address.slice(0, at))[0]}•••${address.slice(at)}`;
}
