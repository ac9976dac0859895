/**
 * The loopback OpenID provider of the tests: the one the CLI ships for `framework-auth dev-idp`
 * (src/dev-idp/oidc-provider.ts), plus the steps a user's browser takes at its login page.
 *
 * How a test signs in: the app under test redirects to the provider's authorization endpoint; pass that URL to
 * `loginThroughProvider(jar, url)`, which drives oidc-provider's built-in development login page (any password is
 * accepted; the login name picks the account) and returns the redirect back to the app's callback (with `code`,
 * `state` and `iss`) without following it.
 */
import { defaultTtl } from '../../src/dev-idp/oidc-provider.js';
import type { OidcProviderOptions } from '../../src/dev-idp/oidc-provider.js';
import type { CookieJar } from './cookie-jar.js';
import { formBody } from './cookie-jar.js';
import { findForm, parseLinks } from './html-form.js';

export { DEFAULT_ACCOUNTS, startOidcProvider } from '../../src/dev-idp/oidc-provider.js';
export type {
  AccountClaims,
  OidcEndpoints,
  OidcProviderOptions,
  OidcTestClient,
  ProviderErrorEvent,
  ProviderRequest,
  RunningOidcProvider,
} from '../../src/dev-idp/oidc-provider.js';

/**
 * oidc-provider configuration for the refresh tests (issue 17): access tokens of clients whose id starts with
 * `short-` live 2 seconds; those of `first-…` clients too when issued at sign-in, and an hour once refreshed; the
 * others an hour. Every refresh rotates the refresh token, and reusing a consumed one revokes the whole grant (as
 * oidc-provider does). Clients get refresh tokens with `grant_types: ['authorization_code', 'refresh_token']`, the
 * `offline_access` scope and `prompt=consent`.
 */
export function refreshingConfiguration(): OidcProviderOptions['configuration'] {
  return {
    ttl: {
      ...defaultTtl,
      AccessToken: (_ctx: unknown, token: { gty?: string }, client: { clientId: string }) =>
        client.clientId.startsWith('short-') || (client.clientId.startsWith('first-') && !token.gty?.includes('refresh_token')) ? 2 : 3600,
    },
    rotateRefreshToken: true,
  };
}

export interface LoginThroughProviderOptions {
  /** Login name, i.e. the key in `accounts` (default 'alice'). */
  login?: string;
  /** Submitted but ignored: oidc-provider's development login page accepts any password. */
  password?: string;
  /** Press "Cancel" on the first provider page instead: the client gets `error=access_denied`. */
  abort?: boolean;
}

/**
 * Plays the user at the provider: follows `authorizationUrl` through oidc-provider's interaction pages, submits
 * the login form (and the consent form when `autoConsent` is off), and returns the redirect URL that leaves the
 * provider, normally `<redirect_uri>?code=…&state=…&iss=…`, without requesting it. When the jar already holds a
 * provider session the provider answers straight away and no form is submitted.
 *
 * An unknown `login` comes back as `<redirect_uri>?error=access_denied&…`. Throws when the provider shows an error
 * page instead of redirecting (e.g. for an unregistered redirect_uri).
 */
export async function loginThroughProvider(
  jar: CookieJar,
  authorizationUrl: string | URL,
  { login = 'alice', password = 'any', abort = false }: LoginThroughProviderOptions = {},
): Promise<string> {
  const providerOrigin = new URL(authorizationUrl).origin;
  const stopAt = (next: URL): boolean => next.origin !== providerOrigin;
  let step = await jar.follow(authorizationUrl, {}, { stopAt });
  let loginSubmitted = false;

  for (let pages = 0; pages < 5; pages++) {
    if (step.stoppedAt !== undefined) return step.stoppedAt;
    const { response, url } = step;
    const html = await response.text();
    const form = findForm(html, url, 'prompt');
    const prompt = form?.fields.prompt;
    if (!response.ok || !form || (prompt !== 'login' && prompt !== 'consent')) {
      throw new Error(`oidc-provider answered ${response.status} at ${url}: ${pageText(html)}`);
    }

    if (abort) {
      const cancel = parseLinks(html, url).find((href) => new URL(href).pathname.endsWith('/abort'));
      if (!cancel) throw new Error(`no Cancel link on the oidc-provider ${prompt} page at ${url}`);
      step = await jar.follow(cancel, {}, { stopAt });
      continue;
    }

    let fields = form.fields;
    if (prompt === 'login') {
      if (loginSubmitted) throw new Error(`oidc-provider asked for a login again after '${login}' signed in`);
      loginSubmitted = true;
      fields = { ...fields, login, password };
    }
    step = await jar.follow(form.action, { method: form.method, ...formBody(fields) }, { stopAt });
  }
  throw new Error('oidc-provider kept showing interaction pages');
}

function pageText(html: string): string {
  return html
    .replace(/<(style|script)\b[\s\S]*?<\/\1>/gi, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}
