/**
 * Sign-in with passkeys (WebAuthn), on @simplewebauthn/server. The built-in sign-in page gets "Sign in with Passkey"
 * and "Create a passkey" buttons; registration and sign-in go through `<mount>/webauthn-options/passkey` and
 * `<mount>/callback/passkey` (see webauthn.ts for the rules). Needs an `adapter` with the authenticator methods.
 * As Auth.js's Passkey provider: discoverable credentials (resident keys) and user verification are required.
 * Pages must be served from a secure context: https, or http://localhost in development.
 * @example
 * Passkey()
 * Passkey({ relayingParty: { id: 'example.com', name: 'Example', origin: 'https://app.example.com' } })
 */
import {
  type AuthenticationResponseJSON,
  type GenerateAuthenticationOptionsOpts,
  type GenerateRegistrationOptionsOpts,
  type RegistrationResponseJSON,
  type VerifyAuthenticationResponseOpts,
  type VerifyRegistrationResponseOpts,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { WebAuthnCeremonies, WebAuthnConfig } from '../features/passkey/webauthn.js';
import { webAuthnFlow } from '../features/passkey/index.js';
import { providerFlow } from '../contracts.js';

export type {
  WebAuthnCeremonies,
  WebAuthnCeremonyOptions,
  WebAuthnConfig,
  WebAuthnCredentialDescriptor,
  WebAuthnRegisteredCredential,
} from '../features/passkey/webauthn.js';
export type { AdapterAuthenticator } from '../features/passkey/storage.js';

/** Five minutes for the user to answer their authenticator, as Auth.js. */
export const DEFAULT_WEBAUTHN_TIMEOUT = 5 * 60 * 1000;

/** Options of `Passkey()`: the provider's fields, plus extra options for each @simplewebauthn/server call. */
export interface PasskeyUserConfig extends Partial<Omit<WebAuthnConfig, 'type' | 'ceremonies' | typeof providerFlow>> {
  /** Merged into `generateRegistrationOptions` (attestation, algorithms, authenticatorSelection, …). */
  registrationOptions?: Partial<Omit<GenerateRegistrationOptionsOpts, 'rpID' | 'rpName' | 'userName' | 'excludeCredentials'>>;
  /** Merged into `generateAuthenticationOptions`. */
  authenticationOptions?: Partial<Omit<GenerateAuthenticationOptionsOpts, 'rpID' | 'allowCredentials'>>;
  /** Merged into `verifyRegistrationResponse`. @default { requireUserVerification: true } */
  verifyRegistrationOptions?: Partial<Pick<VerifyRegistrationResponseOpts, 'requireUserVerification' | 'requireUserPresence' | 'supportedAlgorithmIDs'>>;
  /** Merged into `verifyAuthenticationResponse`. @default { requireUserVerification: true } */
  verifyAuthenticationOptions?: Partial<Pick<VerifyAuthenticationResponseOpts, 'requireUserVerification' | 'advancedFIDOConfig'>>;
}

/**
 * The WebAuthn ceremonies on @simplewebauthn/server. The library checks the response structure itself, so the
 * browser's JSON is passed on as it came.
 */
export function simpleWebAuthnCeremonies(options: PasskeyUserConfig = {}): WebAuthnCeremonies {
  return {
    async registrationOptions({ rpID, rpName, userName, userDisplayName, excludeCredentials }) {
      const generated = await generateRegistrationOptions({
        timeout: DEFAULT_WEBAUTHN_TIMEOUT,
        ...options.registrationOptions,
        authenticatorSelection: { residentKey: 'required', userVerification: 'required', ...options.registrationOptions?.authenticatorSelection },
        rpID,
        rpName,
        userName,
        ...(userDisplayName !== undefined && { userDisplayName }),
        excludeCredentials: excludeCredentials.map(({ id, transports }) => (transports ? { id, transports } : { id })),
      });
      return { challenge: generated.challenge, options: generated };
    },
    async verifyRegistration({ response, expectedChallenge, expectedOrigin, expectedRPID }) {
      const verification = await verifyRegistrationResponse({
        requireUserVerification: true,
        ...options.verifyRegistrationOptions,
        response: response as RegistrationResponseJSON,
        expectedChallenge,
        expectedOrigin,
        expectedRPID,
      });
      if (!verification.verified) throw new Error('The registration response did not verify');
      const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
      return {
        id: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: credential.transports,
        deviceType: credentialDeviceType,
        backedUp: credentialBackedUp,
      };
    },
    async authenticationOptions({ rpID, allowCredentials }) {
      const generated = await generateAuthenticationOptions({
        timeout: DEFAULT_WEBAUTHN_TIMEOUT,
        userVerification: 'required',
        ...options.authenticationOptions,
        rpID,
        allowCredentials: allowCredentials.map(({ id, transports }) => (transports ? { id, transports } : { id })),
      });
      return { challenge: generated.challenge, options: generated };
    },
    async verifyAuthentication({ response, expectedChallenge, expectedOrigin, expectedRPID, credential }) {
      const verification = await verifyAuthenticationResponse({
        requireUserVerification: true,
        ...options.verifyAuthenticationOptions,
        response: response as AuthenticationResponseJSON,
        expectedChallenge,
        expectedOrigin,
        expectedRPID,
        credential: {
          id: credential.id,
          publicKey: new Uint8Array(credential.publicKey),
          counter: credential.counter,
          ...(credential.transports && { transports: credential.transports }),
        },
      });
      if (!verification.verified) throw new Error('The authentication response did not verify');
      return { newCounter: verification.authenticationInfo.newCounter };
    },
  };
}

/**
 * The passkey provider, id `passkey` (type `webauthn`).
 * @see https://authjs.dev/getting-started/authentication/webauthn
 */
export default function Passkey(options: PasskeyUserConfig = {}): WebAuthnConfig {
  const { registrationOptions: _registration, authenticationOptions: _authentication, verifyRegistrationOptions: _verifyRegistration, verifyAuthenticationOptions: _verifyAuthentication, ...config } = options;
  return { id: 'passkey', name: 'Passkey', ...config, type: 'webauthn', ceremonies: simpleWebAuthnCeremonies(options), [providerFlow]: webAuthnFlow };
}
