/**
 * Email and password accounts, owned and complete: sign-up with a confirmed address, sign-in, password reset by
 * email and password change, under NIST SP 800-63B-4's rules (length, not composition; common passwords refused),
 * with argon2id hashes. Needs an `adapter` (users, password hashes and single-use links live in the database) and an
 * email transport: `AUTH_EMAIL_SERVER` (an SMTP URL) and `AUTH_EMAIL_FROM`. Outside production, without a server,
 * the messages are printed on the server's console. See features/password/index.ts for the routes.
 * @example
 * Password()                                  // SMTP settings from AUTH_EMAIL_SERVER / AUTH_EMAIL_FROM
 * Password({ minLength: 12, breachedPasswords: true })
 * Password({ async sendMessage({ to, subject, text, html }) { await myMailApi.send({ to, subject, text, html }) } })
 */
import { type PasswordConfig, passwordFlow } from '../features/password/index.js';
import { providerFlow } from '../contracts.js';

export type { BreachedPasswordCheck, PasswordConfig, PasswordMessage, PasswordMessageKind, PasswordMessageSender } from '../features/password/index.js';

/** The fields of `Password()`: all optional. */
export type PasswordUserConfig = Partial<Omit<PasswordConfig, 'type' | typeof providerFlow>>;

/** The email and password provider, id `password`. */
export default function Password(options: PasswordUserConfig = {}): PasswordConfig {
  return { id: 'password', name: 'Email and password', ...options, type: 'credentials', [providerFlow]: passwordFlow };
}
