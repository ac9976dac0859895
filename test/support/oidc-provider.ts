/**
 * The loopback OpenID provider of the tests: the one the CLI ships for `framework-auth dev-idp`
 * (src/dev-idp/oidc-provider.ts), plus the steps a user's browser takes at its login page.
 *
 * How a test signs in: the app under test redirects to the provider's authorization endpoint; pass that URL to
 * `loginThroughProvider(jar, url)`, which drives oidc-provider's built-in development login page (any password is
 * accepted; the login name picks the account) and returns the redirect back to the app's callback (with `code`,
 * `state` and `iss`) without following it.
 */
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
