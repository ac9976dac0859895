/**
 * The rate-limit feature, which every flow that lets a client try a secret or send a message brings: no route, its
 * error (which the pages show by type), its counters' table (storage.ts), the rules of sign-ins with a secret (the
 * other features declare their own, `Feature.rateLimits`), and at startup the app's limiter, so that a bad
 * `rateLimit` option fails when the app starts, not at the first sign-in (and production warns about counters in
 * memory). The counting is in rate-limit.ts.
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
    'rate-limit-store-full':
      'the rate-limit counters in memory of one rule reached MemoryRateLimitStore\'s maxKeys (10,000 by default, a flood or a busy app): from now on counts are forgotten, the oldest first. Count in the database (SqliteAdapter or PostgresAdapter) or raise maxKeys.',
    'rate-limit-counters-in-memory':
      'NODE_ENV is production and the rate-limit counters live in this process\'s memory: each process counts alone, a restart forgets them and a flood can fill them. Use the counters of SqliteAdapter or PostgresAdapter (their rate_limits table), or a shared rateLimit.store.',
  },
  check: (options) => void rateLimiterOf(options),
};
