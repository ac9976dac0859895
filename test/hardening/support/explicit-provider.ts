import type { ProviderInput } from '../../../templates/runtime/index.js';

/** An OAuth provider with explicit endpoints (no discovery): starting a sign-in needs no network. */
export function acme(extra: Record<string, unknown> = {}): ProviderInput {
  return {
    id: 'acme',
    name: 'Acme',
    type: 'oauth',
    authorization: 'https://idp.example.test/authorize',
    token: 'https://idp.example.test/token',
    userinfo: 'https://idp.example.test/userinfo',
    clientId: 'client',
    clientSecret: 'client-secret',
    ...extra,
  } as ProviderInput;
}
