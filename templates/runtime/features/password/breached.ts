/**
 * The optional breached-password check (NIST SP 800-63B-4 asks for one against known breaches): the k-anonymity
 * range API of Have I Been Pwned's Pwned Passwords. Only the first five hex digits of the password's SHA-1 leave
 * the server; the answer lists every known suffix with that prefix (padded, so its size says nothing), and the
 * match is made here. The check fails open: when the API cannot be reached in time, the password is accepted and a
 * line is logged, so that an outage elsewhere never stops sign-ups.
 */
import { createHash } from 'node:crypto';

/** The `breachedPasswords` option of `Password()`. */
export interface BreachedPasswordCheck {
  /** The range API, to which `/<first five hex digits>` is appended. @default 'https://api.pwnedpasswords.com/range' */
  url?: string;
  /** Milliseconds to wait for the answer before accepting the password. @default 2000 */
  timeout?: number;
}

export const DEFAULT_BREACHED_PASSWORDS_URL = 'https://api.pwnedpasswords.com/range';

/** How long a range's answer is kept, and how many ranges at most (about 30 KB each). */
const RANGE_CACHE_MS = 10 * 60_000;
const RANGE_CACHE_SIZE = 64;
/** Known suffixes by `<url>/<prefix>`, so that passwords sharing a prefix within minutes ask the API once. */
const ranges = new Map<string, { suffixes: ReadonlySet<string>; until: number }>();

/** The suffixes the range API lists with a count above zero (padding lines have 0), or undefined when it fails. */
async function suffixesOf(url: string, check: Required<BreachedPasswordCheck>): Promise<ReadonlySet<string> | undefined> {
  const now = Date.now();
  const cached = ranges.get(url);
  if (cached && cached.until > now) return cached.suffixes;
  try {
    const response = await fetch(url, { headers: { 'Add-Padding': 'true' }, signal: AbortSignal.timeout(check.timeout), redirect: 'error' });
    if (!response.ok) return undefined;
    const suffixes = new Set<string>();
    for (const line of (await response.text()).split('\n')) {
      const [candidate, count] = line.trim().split(':');
      if (candidate && Number(count) > 0) suffixes.add(candidate.toUpperCase());
    }
    ranges.delete(url);
    if (ranges.size >= RANGE_CACHE_SIZE) ranges.delete(ranges.keys().next().value!);
    ranges.set(url, { suffixes, until: now + RANGE_CACHE_MS });
    return suffixes;
  } catch {
    return undefined;
  }
}

/**
 * Whether the password appears in the breach corpus: true or false, or undefined when the API did not answer (the
 * caller accepts the password and logs `warn`'s line). A range's answer is kept for ten minutes.
 */
export async function isBreachedPassword(password: string, check: Required<BreachedPasswordCheck>): Promise<boolean | undefined> {
  const digest = createHash('sha1').update(password.normalize('NFKC')).digest('hex').toUpperCase();
  const suffixes = await suffixesOf(`${check.url.replace(/\/+$/, '')}/${digest.slice(0, 5)}`, check);
  return suffixes === undefined ? undefined : suffixes.has(digest.slice(5));
}
