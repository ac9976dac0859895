/**
 * Two-factor authentication (TOTP, RFC 6238): add `TwoFactor()` to the config's `features`. A user who turned it on
 * enters a code after every first factor (a password, an email or confirmation link, an OAuth provider unless it opts
 * out with `twoFactor: false`, credentials with `twoFactor: true`); a passkey, which verifies the user itself, needs none.
 * The code (from an authenticator app, or a recovery code) is entered at `<mount>/two-factor`, where signed-in users
 * also turn it on and off after a recent authentication.
 * Needs an adapter with the two-factor methods (the built-in adapters have them) and a `password` provider, or a
 * `credentials` provider with `twoFactor: true` and database sessions.
 * @example
 * features: [TwoFactor()]
 * features: [TwoFactor({ issuer: 'Example' })]
 */
import { assertAdapterFor } from '../database/adapter-needs.js';
import type { Feature } from '../../contracts.js';
import { twoFactorAccountPart } from './account.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import { rateLimits } from '../rate-limit/index.js';
import { twoFactorStorage } from './storage.js';
import { type ResolvedTwoFactor, type TwoFactorOptions, TwoFactorSignIn, challenge, twoFactorRoute } from './two-factor.js';

export type { TwoFactorOptions } from './two-factor.js';

/** The adapter methods two-factor calls. */
const neededMethods = [
  'getUser',
  'getTwoFactor',
  'setTwoFactor',
  'deleteTwoFactor',
  'acceptTwoFactorStep',
  'setRecoveryCodes',
  'useRecoveryCode',
  'createVerificationToken',
  'useVerificationToken',
] as const;

declare module '../../contracts.js' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- merged into OAuthConfig<P>, whose declarations must name the same parameter
  interface OAuthConfig<P> {
    /**
     * Whether a user who turned two-factor on (`TwoFactor()`) enters their code after signing in with this provider,
     * as after every other first factor but a passkey. Set it to false only for a provider that asks its own second
     * factor of every user (an identity provider that enforces MFA): its sign-in then counts as both.
     * @default true
     */
    twoFactor?: boolean;
  }
}

declare module '../rate-limit/rate-limit.js' {
  interface RateLimitRules {
    /**
     * Two-factor codes (and recovery codes) per pending sign-in: the sixth attempt is refused and ends the pending
     * sign-in, so five wrong codes mean signing in again.
     * @default { window: 300, max: 5 }
     */
    twoFactorPerSignIn: true;
    /**
     * Two-factor codes per user, across pending sign-ins and the enrollment page; a right code clears the count.
     * @default { window: 900, max: 10 }
     */
    twoFactorPerUser: true;
  }
}

/** The two-factor feature: its route, error, limits, startup check, the second factor the core asks, and its tables. */
export function TwoFactor(options: TwoFactorOptions = {}): Feature {
  if (options.issuer !== undefined && (typeof options.issuer !== 'string' || options.issuer.trim() === '' || options.issuer.includes(':'))) {
    throw new TypeError('TwoFactor({ issuer }) must be a non-empty name without ":" (authenticator apps show it beside the account)');
  }
  const settings: ResolvedTwoFactor = { issuer: options.issuer?.trim(), now: options.now ?? Date.now };
  return {
    id: 'two-factor',
    routes: { 'two-factor': { methods: ['GET', 'POST'], provider: 'none', errors: 'page', run: (context, route) => twoFactorRoute(context, route, settings) } },
    errors: [TwoFactorSignIn],
    secondFactor: { challenge },
    storage: twoFactorStorage,
    account: twoFactorAccountPart,
    securityEventLabels: { 'two-factor-on': 'Two-factor turned on', 'two-factor-off': 'Two-factor turned off', 'recovery-code-used': 'Recovery code used' },
    rateLimits: { twoFactorPerSignIn: { window: 5 * 60, max: 5 }, twoFactorPerUser: { window: 15 * 60, max: 10 } },
    check(resolved) {
      assertAdapterFor({ id: 'two-factor', type: 'feature' }, resolved.adapter, resolved.session.strategy, { what: 'Two-factor authentication keeps secrets, recovery codes and pending sign-ins', methods: neededMethods });
      const asking = resolved.providers.filter((provider) => !isOAuthProvider(provider) && provider.type === 'credentials');
      if (asking.length === 0) throw new TypeError('TwoFactor() asks for a code after a password: add the Password() provider (or Credentials({ twoFactor: true, … }) with database sessions).');
      rateLimits.check?.(resolved);
    },
  };
}
