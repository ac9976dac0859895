/**
 * The rate-limit feature, which every flow that lets a client try a secret or send a message brings: no route, its
 * error (which the pages show by type), its counters' table (storage.ts), the rules of sign-ins with a secret (the
 * other features declare their own, `Feature.rateLimits`), and at startup the app's limiter, so that a bad
 * `rateLimit` option fails when the app starts, not at the first sign-in. The counting is in rate-limit.ts.
 */
import type { Feature } from '../../contracts.js';
import { RateLimited, rateLimiterOf, signInRateLimits } from './rate-limit.js';
import { rateLimitStorage } from './storage.js';

export const rateLimits: Feature = {
  id: 'rate-limit',
  errors: [RateLimited],
  rateLimits: signInRateLimits,
  storage: rateLimitStorage,
  warnings: {
    'untrusted-proxy':
      'requests carry X-Forwarded-For from a proxy that `trust proxy` does not trust, so every client counts as that proxy for rate limits. Set TRUST_PROXY in .env (its hop count or addresses).',
  },
  check: (options) => void rateLimiterOf(options),
};
