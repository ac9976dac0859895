/**
 * The browser's side of an OAuth sign-in against the scaffold-shaped app: start (csrf → POST /auth/signin/<id>),
 * the provider (oidc-provider's login pages, or the stand-in's instant approval), and the callback back to the app.
 */
import { expect } from 'vitest';

import { formBody } from '../../support/cookie-jar.js';
import type { CookieJar } from '../../support/cookie-jar.js';
import { loginThroughProvider } from '../../support/oidc-provider.js';

import { MOUNT, csrfToken } from './scaffold-app.js';

/** POST /auth/signin/<provider>: returns the provider's authorization URL the app redirected to. */
export async function startOAuthSignIn(url: string, jar: CookieJar, providerId: string, callbackUrl = '/me'): Promise<URL> {
  const token = await csrfToken(url, jar);
  const response = await jar.fetch(`${url}${MOUNT}/signin/${providerId}`, { method: 'POST', ...formBody({ csrfToken: token, callbackUrl }) });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!);
}

/** Logs in at oidc-provider (as `login`) and returns its redirect back to the app, not yet delivered. */
export async function pendingCallbackViaOidcProvider(url: string, jar: CookieJar, providerId: string, login = 'alice'): Promise<URL> {
  const authorizationUrl = await startOAuthSignIn(url, jar, providerId);
  return new URL(await loginThroughProvider(jar, authorizationUrl, { login }));
}

/** The stand-in approves at once: its redirect back to the app, not yet delivered. */
export async function pendingCallbackViaStandIn(url: string, jar: CookieJar, providerId: string, callbackUrl = '/me'): Promise<URL> {
  const authorizationUrl = await startOAuthSignIn(url, jar, providerId, callbackUrl);
  const answer = await jar.fetch(authorizationUrl);
  expect(answer.status, 'the stand-in approves').toBe(302);
  return new URL(answer.headers.get('location')!);
}
