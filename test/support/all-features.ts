/**
 * Every feature that keeps data, for tests that use an adapter without a config: a config gives the adapter its
 * features when it is resolved (`Adapter[storeFeatures]`), a bare adapter has only the core's tables and methods.
 */
import { type Adapter, type Feature, storeFeatures } from '../../templates/runtime/contracts.js';
import { TwoFactor } from '../../templates/runtime/features/two-factor/index.js';
import { webAuthnFlow } from '../../templates/runtime/features/passkey/webauthn.js';
import { passwordFlow } from '../../templates/runtime/features/password/password-sign-in.js';

export const allFeatures: readonly Feature[] = [...(webAuthnFlow.features ?? []), ...(passwordFlow.features ?? []), TwoFactor()];

/** The adapter with the tables and methods of every feature, as a config with all of them would make it. */
export function withAllFeatures<A extends Adapter>(adapter: A): A {
  adapter[storeFeatures]?.(allFeatures);
  return adapter;
}
