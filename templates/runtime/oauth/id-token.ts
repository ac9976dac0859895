/**
 * ID token signatures, verified with jose against the provider's JSON Web Key Set. oauth4webapi validates the
 * claims (`iss`, `aud`, `azp`, `exp`, `iat`, `nonce`, `sub`) but, as OpenID Connect Core §3.1.3.7 allows for a
 * token that came straight from the token endpoint over TLS, not the signature; this checks it too, so that a
 * token endpoint answer altered in transit (a TLS-intercepting proxy, a `customFetch` gone wrong) or an ID token
 * handed over by a custom `token.request` is refused unless the provider's own key signed it.
 * @see https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 */
import { type JWTVerifyGetKey, compactVerify, createRemoteJWKSet, customFetch } from 'jose';
import type * as oauth from 'oauth4webapi';
import type { ResolvedOAuthProvider } from '../contracts.js';
import { PROVIDER_TIMEOUT_MS, describeUrl, isSecureOrLoopback } from './server.js';

/** How long a fetched key set is used before it is fetched again (jose's default, 10 minutes). */
const JWKS_MAX_AGE_MS = 10 * 60 * 1000;

/** One key set per configured provider (dying with it), replaced when discovery names another `jwks_uri`. */
const keySets = new WeakMap<ResolvedOAuthProvider, { jwksUri: string; keys: JWTVerifyGetKey }>();

function keySetOf(provider: ResolvedOAuthProvider, jwksUri: string): JWTVerifyGetKey {
  const cached = keySets.get(provider);
  if (cached?.jwksUri === jwksUri) return cached.keys;
  if (!isSecureOrLoopback(jwksUri)) {
    throw new Error(`the jwks_uri must be an https URL, or http to localhost/127.0.0.1/[::1] (got ${describeUrl(jwksUri)})`);
  }
  const keys = createRemoteJWKSet(new URL(jwksUri), {
    timeoutDuration: PROVIDER_TIMEOUT_MS,
    cacheMaxAge: JWKS_MAX_AGE_MS,
    // An ID token whose `kid` is not in the cached set makes jose fetch the set again (the provider rotated its
    // keys). Without a cooldown that refetch happens for every such token; ID tokens only ever come from the
    // provider's own token endpoint after a code exchange, so the provider alone can cause them, one per sign-in.
    cooldownDuration: 0,
    ...(provider.customFetch && { [customFetch]: provider.customFetch }),
  });
  keySets.set(provider, { jwksUri, keys });
  return keys;
}

/**
 * The signing algorithms an ID token of this provider may use: the client's `id_token_signed_response_alg`, else the
 * provider's `id_token_signing_alg_values_supported`, else RS256 (as oauth4webapi decides). `none` and the HMAC
 * algorithms are never accepted: an unsigned token proves nothing, and a MAC cannot be checked with a public key set.
 */
function idTokenAlgorithms(as: oauth.AuthorizationServer, client: oauth.Client): string[] {
  const configured = client.id_token_signed_response_alg ?? as.id_token_signing_alg_values_supported ?? ['RS256'];
  const algorithms = typeof configured === 'string' ? [configured] : configured;
  return algorithms.filter((alg) => alg !== 'none' && !/^HS\d+$/.test(alg));
}

/**
 * Verifies the signature of `idToken` (already validated by oauth4webapi) with the provider's JWKS. Key selection
 * is jose's: the key whose `kid` matches the header; without a `kid`, the one key of the set usable for the
 * token's `alg`. Several usable keys and no `kid` is refused (no key is tried in turn). Throws when the token is
 * not signed by a key of the set, or the set cannot be fetched.
 */
export async function verifyIdTokenSignature(
  provider: ResolvedOAuthProvider,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  idToken: string,
): Promise<void> {
  const algorithms = idTokenAlgorithms(as, client);
  if (algorithms.length === 0) {
    throw new Error('the provider announces no ID token signing algorithm that can be verified with its public keys (none and HS* are refused)');
  }
  if (!as.jwks_uri) throw new Error('the provider has no jwks_uri (set jwks_endpoint, or use discovery) to verify its ID token signatures with');
  await compactVerify(idToken, keySetOf(provider, as.jwks_uri), { algorithms });
}
