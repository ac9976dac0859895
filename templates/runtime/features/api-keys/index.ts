/**
 * API keys (SPEC §11): add `ApiKeys()` to the config's `features`. Signed-in users create keys at `<mount>/api-keys`
 * (after a recent authentication) and send them as `Authorization: Bearer <key>`; `getSession(req)` is then the key's
 * user with `session.apiKey: { id, scopes }`, `requireAuth()` passes it and `requireAuth({ scopes })` checks its
 * scopes. A wrong, expired or revoked key is answered 401 `invalid_token`, never redirected. A key cannot manage the
 * account (keys, password, two-factor, sessions). Needs an adapter with the API-key methods (the built-in ones have
 * them; `migrate` adds the `api_keys` table).
 * @example
 * features: [ApiKeys({ scopes: ['read', 'write'] })]
 * app.get('/api/orders', requireAuth({ scopes: ['read'] }), listOrders)
 */
import { assertAdapterFor } from '../database/adapter-needs.js';
import type { Feature } from '../../contracts.js';
import { apiKeysAccountPart } from './account.js';
import { rateLimits } from '../rate-limit/index.js';
import { type ApiKeysOptions, apiKeysRoute, authenticateApiKey, resolveApiKeys, useApiKeys } from './api-keys.js';
import { apiKeyStorage } from './storage.js';
import { bearerAuthentication } from './bearer.js';

export { createApiKey } from './api-keys.js';
export type { ApiKeysOptions, CreatedApiKey, NewApiKey } from './api-keys.js';
export type { ApiKeyRecord } from './storage.js';

/** The adapter methods API keys call. */
const neededMethods = ['getUser', 'createApiKey', 'listApiKeys', 'getApiKeyAndUser', 'deleteApiKey', 'touchApiKey'] as const;

declare module '../../types.js' {
  interface DefaultSession {
    /** Set when the request came with an API key (`Authorization: Bearer`): the key, and the scopes it holds. */
    apiKey?: {
      id: string;
      scopes: string[];
      /** The organization the key was made for (features/organizations/), where alone it acts; absent otherwise. */
      organizationId?: string;
    };
  }
}

declare module '../rate-limit/rate-limit.js' {
  interface RateLimitRules {
    /**
     * Requests with a wrong, expired or revoked API key per client: past the limit they are answered 429 instead of
     * 401, until the window ends. Requests with a good key are never counted.
     * @default { window: 300, max: 30 }
     */
    apiKeyFailuresPerClient: true;
  }
}

/** The API-keys feature: its route, the bearer credential the core asks, its limit, its table and its startup check. */
export function ApiKeys(options: ApiKeysOptions = {}): Feature {
  const settings = resolveApiKeys(options);
  return {
    id: 'api-keys',
    routes: { 'api-keys': { methods: ['GET', 'POST'], provider: 'none', errors: 'page', run: apiKeysRoute } },
    bearer: bearerAuthentication(authenticateApiKey),
    storage: apiKeyStorage,
    account: apiKeysAccountPart,
    securityEventLabels: { 'api-key-created': 'API key created', 'api-key-revoked': 'API key revoked' },
    rateLimits: { apiKeyFailuresPerClient: { window: 5 * 60, max: 30 } },
    check(resolved) {
      assertAdapterFor({ id: 'api-keys', type: 'feature' }, resolved.adapter, resolved.session.strategy, { what: 'API keys are kept', methods: neededMethods });
      useApiKeys(resolved, settings);
      rateLimits.check?.(resolved);
    },
  };
}
