import { expect } from 'vitest';
import type { CookieJar } from '../../support/cookie-jar.js';
import { formBody } from '../../support/cookie-jar.js';
import { loginThroughProvider } from '../../support/oidc-provider.js';

/** GET `<mount>/csrf` → the token (and its cookie in the jar). */
export async function fetchCsrfToken(jar: CookieJar, appUrl: string, mount: string): Promise<string> {
  const response = await jar.fetch(`${appUrl}${mount}/csrf`);
  expect(response.status).toBe(200);
  const { csrfToken } = (await response.json()) as { csrfToken: string };
  expect(typeof csrfToken).toBe('string');
  return csrfToken;
}

/**
 * The whole browser dance of an OIDC sign-in against the app: CSRF token, POST `<mount>/signin/oidc`, the
 * provider's login pages, the callback. Returns where the app finally sent the user.
 */
export async function signInWithOidc(jar: CookieJar, appUrl: string, mount: string, callbackUrl: string): Promise<string> {
  const csrfToken = await fetchCsrfToken(jar, appUrl, mount);
  const start = await jar.fetch(`${appUrl}${mount}/signin/oidc`, { method: 'POST', ...formBody({ csrfToken, callbackUrl }) });
  expect(start.status).toBe(302);
  const authorizationUrl = start.headers.get('location') ?? '';
  const authorization = new URL(authorizationUrl);
  expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
  const callback = await loginThroughProvider(jar, authorizationUrl);
  expect(callback.startsWith(`${appUrl}${mount}/callback/oidc?`)).toBe(true);
  const finish = await jar.fetch(callback);
  expect(finish.status).toBe(302);
  return new URL(finish.headers.get('location') ?? '', appUrl).href;
}

/** GET `<mount>/csrf`, then POST `<mount>/signout` with the token. */
export async function signOut(jar: CookieJar, appUrl: string, mount: string): Promise<Response> {
  const csrfToken = await fetchCsrfToken(jar, appUrl, mount);
  return jar.fetch(`${appUrl}${mount}/signout`, { method: 'POST', ...formBody({ csrfToken }) });
}
