/**
 * Messages with a link, counted per recipient: a sign-up confirmation, a password reset, an email sign-in link and an
 * address change's confirmation all count against the address they go to, whichever feature sends them and whoever
 * asks. Each feature's own rule (`passwordEmailPerAddress`, `emailPerAddress`, `accountEmailPerUser`) still counts
 * its requests; these two cap what one mailbox receives from the app, also when many accounts or clients ask.
 */
import type { Feature, ResolvedConfig } from '../../contracts.js';
import { consumeRateLimit } from '../rate-limit/rate-limit.js';

declare module '../rate-limit/rate-limit.js' {
  interface RateLimitRules {
    /**
     * Messages with a link (sign-up confirmation, password reset, email sign-in, address change) per recipient
     * address, normalised, across every feature that sends them, whoever asks.
     * @default { window: 900, max: 5 }
     */
    emailPerRecipient: true;
    /**
     * The same messages per recipient address in a day.
     * @default { window: 86400, max: 20 }
     */
    emailPerRecipientDaily: true;
  }
}

/** The rules every feature that mails a link brings (listed in its `features`). */
export const recipientLimits: Feature = {
  id: 'email-recipient-limits',
  rateLimits: { emailPerRecipient: { window: 15 * 60, max: 5 }, emailPerRecipientDaily: { window: 24 * 60 * 60, max: 20 } },
};

/**
 * Counts one message with a link to `address` (normalised as the sending feature normalises it) under
 * `emailPerRecipient` and `emailPerRecipientDaily`; throws `RateLimited` past either. Call it before looking the
 * address up, so that the answer is the same whether or not it has an account.
 */
export async function consumeRecipientRateLimit(options: ResolvedConfig, address: string): Promise<void> {
  await consumeRateLimit(options, 'emailPerRecipient', address);
  await consumeRateLimit(options, 'emailPerRecipientDaily', address);
}
