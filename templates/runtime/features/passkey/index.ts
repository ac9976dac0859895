/**
 * Passkeys (WebAuthn), the feature `Passkey()` brings: the provider's flow (webauthn.ts holds its ceremonies, the
 * options route and the callback), the options route below the mount, its errors (errors.ts), its limit, and the
 * `authenticators` table with the adapter methods over it (storage.ts).
 */
import type { Feature } from '../../contracts.js';
import { passkeyAccountPart } from './account.js';
import type { ProviderFlow } from '../../flow.js';
import { formStyles } from '../../pages/form-styles.js';
import { assertAdapterFor } from '../database/adapter-needs.js';
import { rateLimits } from '../rate-limit/index.js';
import { MissingWebAuthnAutocomplete, WebAuthnVerificationError } from './errors.js';
import { passkeyScript, passkeyScriptHash } from './passkey-script.js';
import { passkeyStorage } from './storage.js';
import { type ResolvedWebAuthnProvider, type WebAuthnCeremonies, type WebAuthnConfig, passkeyForm, webAuthnCallback, webauthnOptionsRoute } from './webauthn.js';

declare module '../rate-limit/rate-limit.js' {
  interface RateLimitRules {
    /**
     * Passkey options (GET `<mount>/webauthn-options/<id>`) per client.
     * @default { window: 60, max: 30 }
     */
    passkeyOptionsPerClient: true;
  }
}

/**
 * The passkey feature, which `Passkey()` brings to a config. Outside a config, a built-in adapter takes it for the
 * `authenticators` table and Auth.js's authenticator methods (`createAuthenticator`, `getAuthenticator`,
 * `listAuthenticatorsByUserId`, `updateAuthenticatorCounter`), as `@auth/express` with its Passkey provider needs them.
 * @example SqliteAdapter({ features: [passkeys] })
 */
export const passkeys: Feature = {
  id: 'passkey',
  routes: { 'webauthn-options': { methods: ['GET'], provider: 'required', errors: 'json', run: webauthnOptionsRoute } },
  errors: [WebAuthnVerificationError, MissingWebAuthnAutocomplete],
  rateLimits: { passkeyOptionsPerClient: { window: 60, max: 30 } },
  storage: passkeyStorage,
  account: passkeyAccountPart,
  securityEventLabels: { 'passkey-added': 'Passkey added', 'passkey-removed': 'Passkey removed' },
};

/** The flow of a WebAuthn (passkey) provider. */
export const webAuthnFlow: ProviderFlow<ResolvedWebAuthnProvider> = {
  resolve(config) {
    const provider = config as WebAuthnConfig;
    const ceremonies = provider.ceremonies as WebAuthnCeremonies | undefined;
    if (!ceremonies || typeof ceremonies.verifyAuthentication !== 'function') {
      throw new TypeError(`WebAuthn provider "${provider.id}" has no ceremonies: create it with Passkey() from providers/passkey.ts`);
    }
    return { id: provider.id, name: provider.name, type: 'webauthn', relayingParty: { ...provider.relayingParty }, ceremonies, flow: webAuthnFlow };
  },
  check(provider, config) {
    assertAdapterFor(provider, config.adapter, config.strategy, {
      what: 'Passkey sign-in stores its authenticators',
      methods: ['getAuthenticator', 'createAuthenticator', 'listAuthenticatorsByUserId', 'updateAuthenticatorCounter', 'getAccount', 'getUser', 'getUserByAccount', 'createUser', 'linkAccount'],
    });
  },
  callback: webAuthnCallback,
  features: [rateLimits, passkeys],
  signInForm: passkeyForm,
  pageStyles: formStyles,
  pageScript: { source: passkeyScript, hash: passkeyScriptHash },
};
