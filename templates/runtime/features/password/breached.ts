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

/**
 * Whether the password appears in the breach corpus: true or false, or undefined when the API did not answer (the
 * caller accepts the password and logs `warn`'s line).
 */
export async function isBreachedPassword(password: string, check: Required<BreachedPasswordCheck>): Promise<boolean | undefined> {
  const digest = createHash('sha1').update(password.normalize('NFKC')).digest('hex').toUpperCase();
  const prefix = digest.slice(0, 5);
  const suffix = digest.slice(5);
  try {
    const response = await fetch(`${check.url.replace(/\/+$/, '')}/${prefix}`, {
      headers: { 'Add-Padding': 'true' },
      signal: AbortSignal.timeout(check.timeout),
      redirect: 'error',
    });
    if (!response.ok) return undefined;
    const body = await response.text();
    return body.split('\n').some((line) => {
      const [candidate, count] = line.trim().split(':');
      return candidate?.toUpperCase() === suffix && Number(count) > 0;
    });
  } catch {
    return undefined;
  }
}
