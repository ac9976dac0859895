/**
 * Every feature that keeps data, for tests that use an adapter without a config: a config gives the adapter its
 * features when it is resolved (`Adapter[storeFeatures]`), a bare adapter has only the core's tables and methods.
 */
import type { Adapter, Feature } from '../../templates/runtime/contracts.js';
import { storeFeatures } from '../../templates/runtime/features/database/adapter.js';
import { TwoFactor } from '../../templates/runtime/features/two-factor/index.js';
import { ApiKeys } from '../../templates/runtime/features/api-keys/index.js';
import { Account } from '../../templates/runtime/features/account/index.js';
import { SecurityEvents } from '../../templates/runtime/features/security-events/index.js';
import { Organizations } from '../../templates/runtime/features/organizations/index.js';
import { Admin } from '../../templates/runtime/features/admin/index.js';
import { adminStorage } from '../../templates/runtime/features/admin/storage.js';
import { webAuthnFlow } from '../../templates/runtime/features/passkey/index.js';
import { passwordFlow } from '../../templates/runtime/features/password/index.js';
import { emailFlow } from '../../templates/runtime/features/email-sign-in/index.js';
import { credentialsFlow } from '../../templates/runtime/features/credentials/index.js';
import { database } from '../../templates/runtime/features/database/index.js';
import type { RateLimitRule, RateLimitRuleName } from '../../templates/runtime/features/rate-limit/rate-limit.js';

/** Administration's tables, columns and methods (features/admin/storage.ts), as `Admin()` brings them. */
export const adminStorageFeature: Feature = { id: 'admin', storage: adminStorage };

/** Every feature of the runtime, each once (as `featuresOf` lists a config's). */
export const allFeatures: readonly Feature[] = [
  ...new Map(
    [database, ...[webAuthnFlow, passwordFlow, emailFlow, credentialsFlow].flatMap((flow) => flow.features ?? []), TwoFactor(), ApiKeys(), Account({ sendMessage: () => {} }), SecurityEvents, Organizations(), Admin({ sendMessage: () => {} }, {})].map((feature) => [feature.id, feature]),
  ).values(),
];

/** The default of every rate-limit rule, as the features that count under them declare it (`Feature.rateLimits`). */
export const allRateLimitDefaults = Object.assign({}, ...allFeatures.map((feature) => feature.rateLimits)) as Record<RateLimitRuleName, RateLimitRule>;

/** The adapter with the tables and methods of every feature, as a config with all of them would make it. */
export function withAllFeatures<A extends Adapter>(adapter: A): A {
  adapter[storeFeatures]?.(allFeatures);
  return adapter;
}
