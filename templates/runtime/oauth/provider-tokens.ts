/** The provider tokens a JWT session keeps for `getAccessToken`: its `providerTokens` claim (see `ProviderTokens`). */
import type { Account, JWT, ProviderTokens } from '../types.js';

/** The token fields a JWT session keeps of an account (everything `getAccessToken` needs; no ID token). */
const keptFields = ['access_token', 'refresh_token', 'expires_at', 'token_type', 'scope'] as const;

/** The record a JWT session keeps of an OAuth/OIDC sign-in's account, or undefined when it brought no access token. */
export function providerTokensOf(account: Account | null | undefined): ProviderTokens | undefined {
  if (!account || (account.type !== 'oauth' && account.type !== 'oidc') || typeof account.access_token !== 'string') return undefined;
  const record: Record<string, unknown> = { providerAccountId: account.providerAccountId };
  for (const field of keptFields) {
    if (account[field] !== undefined && account[field] !== null) record[field] = account[field];
  }
  return record as unknown as ProviderTokens;
}

/** `'RefreshTokenError'` when a JWT session holds a refused provider's record. */
export function refreshErrorOfToken(token: JWT): 'RefreshTokenError' | undefined {
  const records = token.providerTokens;
  if (!records || typeof records !== 'object') return undefined;
  return Object.values(records).some((record) => record?.error === 'RefreshTokenError') ? 'RefreshTokenError' : undefined;
}
