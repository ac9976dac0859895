/**
 * Email (magic link) sign-in, the feature `Email()` brings: the provider's flow (email-sign-in.ts holds the sign-in,
 * the link's callback and the form), its limits, and the emailed links' page and errors (features/email/). The links
 * are the core adapter's verification tokens: no table of its own.
 */
import type { Feature } from '../../contracts.js';
import { UntrustedHost } from '../../errors.js';
import { normalizeEmailAddress } from '../../email-address.js';
import type { ProviderFlow } from '../../flow.js';
import { formStyles } from '../../pages/form-styles.js';
import { assertAdapterFor } from '../database/adapter-needs.js';
import { emailLinks } from '../email/index.js';
import { recipientLimits } from '../email/recipient-limits.js';
import { rateLimits } from '../rate-limit/index.js';
import { DEFAULT_EMAIL_MAX_AGE, type EmailConfig, type ResolvedEmailProvider, emailCallback, emailForm, emailSignIn } from './email-sign-in.js';

declare module '../rate-limit/rate-limit.js' {
  interface RateLimitRules {
    /**
     * Sign-in emails (POST `<mount>/signin/<email provider>`) per address, as the provider normalises it.
     * @default { window: 900, max: 3 }
     */
    emailPerAddress: true;
    /**
     * Sign-in emails per client.
     * @default { window: 900, max: 10 }
     */
    emailPerClient: true;
  }
}

/** The limits of email sign-in, which only `Email()` brings. */
const emailSignInLimits: Feature = { id: 'email-sign-in', rateLimits: { emailPerAddress: { window: 15 * 60, max: 3 }, emailPerClient: { window: 15 * 60, max: 10 } } };

/** The flow of an email provider. */
export const emailFlow: ProviderFlow<ResolvedEmailProvider> = {
  resolve(config, { env, envPrefix: prefix }) {
    const provider = config as EmailConfig;
    const names = { server: `${prefix}_SERVER`, from: `${prefix}_FROM` };
    if (typeof provider.sendVerificationRequest !== 'function') {
      throw new TypeError(`Email provider "${provider.id}" needs a sendVerificationRequest function: create it with Email() from providers/email.ts, or pass your own sender`);
    }
    const maxAge = provider.maxAge ?? DEFAULT_EMAIL_MAX_AGE;
    if (!Number.isFinite(maxAge) || maxAge <= 0) throw new TypeError(`Email provider "${provider.id}": maxAge must be a positive number of seconds (got ${String(maxAge)})`);
    return {
      id: provider.id,
      name: provider.name,
      type: 'email',
      server: provider.server ?? (env[names.server] || env['AUTH_EMAIL_SERVER'] || undefined),
      from: provider.from ?? (env[names.from] || env['AUTH_EMAIL_FROM'] || undefined),
      maxAge,
      secret: provider.secret,
      sendVerificationRequest: provider.sendVerificationRequest,
      generateVerificationToken: provider.generateVerificationToken,
      normalizeIdentifier: provider.normalizeIdentifier ?? normalizeEmailAddress,
      env: names,
      flow: emailFlow,
    };
  },
  features: [rateLimits, emailLinks, recipientLimits, emailSignInLimits],
  check(provider, config) {
    assertAdapterFor(provider, config.adapter, config.strategy, {
      what: 'Email sign-in stores its single-use links',
      methods: ['createVerificationToken', 'useVerificationToken', 'getUserByEmail', 'createUser', 'updateUser'],
    });
    // The link carries a sign-in secret: its origin must come from configuration, never from a request's Host.
    if (!config.originConfigured) {
      throw new UntrustedHost(
        `Provider "${provider.id}" emails sign-in links, which must point at this app: set AUTH_URL to the URL users reach it at (e.g. AUTH_URL=https://app.example.com), or list its hosts in trustHost / AUTH_TRUST_HOST.`,
      );
    }
  },
  signIn: emailSignIn,
  callback: (context, provider) => emailCallback(context, provider),
  signInForm: emailForm,
  pageStyles: formStyles,
};
