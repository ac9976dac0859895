/**
 * Emailed links, shared by the email provider (sign-in links, features/email-sign-in/) and the password provider
 * (confirmation and reset links): the "check your email" page at `<mount>/verify-request` (verify-request-route.ts),
 * the errors of a link that failed to send or no longer works (errors.ts), single-use link tokens stored as the core
 * adapter's verification tokens (link-token.ts), the SMTP transport (smtp.ts), and the limits on links mailed to one
 * recipient, which the account's address change counts under too (recipient-limits.ts).
 */
import type { Feature } from '../../contracts.js';
import { EmailSignInError, Verification } from './errors.js';
import { verifyRequestRoute } from './verify-request-route.js';

/** Emailed links: the "check your email" page, and the errors of a link that failed to send or no longer works. */
export const emailLinks: Feature = {
  id: 'email',
  routes: { 'verify-request': { methods: ['GET'], provider: 'none', errors: 'page', run: verifyRequestRoute } },
  errors: [EmailSignInError, Verification],
};
