// The built-in pages as HTML over HTTP (what the browser tests in test/browser/ then look at): what each page
// contains, the readable button colours, the error texts and codes, the Content-Security-Policy, and `pages`
// overrides that send the browser to the app's own routes with `error`, `code` and `callbackUrl`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import { resolveConfig, resolveConfigOnce } from '../../templates/runtime/config.js';
import { readableTextColor } from '../../templates/runtime/pages/color.js';
import { pageContentSecurityPolicy } from '../../templates/runtime/pages/csp.js';
import { safeUrl } from '../../templates/runtime/pages/html.js';
import { displayableCode, pageMessages } from '../../templates/runtime/pages/messages.js';
import Auth0 from '../../templates/runtime/providers/auth0.js';
import Discord from '../../templates/runtime/providers/discord.js';
import Email from '../../templates/runtime/providers/email.js';
import GitHub from '../../templates/runtime/providers/github.js';
import GitLab from '../../templates/runtime/providers/gitlab.js';
import Google from '../../templates/runtime/providers/google.js';
import Keycloak from '../../templates/runtime/providers/keycloak.js';
import Microblog from '../../templates/runtime/providers/microblog.js';
import MicrosoftEntraID from '../../templates/runtime/providers/microsoft-entra-id.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import { errorResponses, errorTypes } from '../../templates/runtime/errors.js';

/** The texts of the core's error types: an app without features shows these. */
const { signIn: signInErrorMessages, errorPage: errorPageMessages } = pageMessages(errorResponses);
import { createJar, formBody } from '../support/cookie-jar.js';
import type { RunningApp } from '../support/listen.js';
import { SECRET, credentialsConfig, passwordProvider, signIn, startApp } from './helpers.js';

const client = { clientId: 'client-id', clientSecret: 'client-secret' };

describe('button colours', () => {
  it.each([
    ['#fff', { red: 255, green: 255, blue: 255 }],
    ['#24292f', { red: 36, green: 41, blue: 47 }],
    ['#3451b2cc', { red: 52, green: 81, blue: 178 }],
    ['rgb(255, 0, 0)', { red: 255, green: 0, blue: 0 }],
    ['rgba(0 128 0 / 50%)', { red: 0, green: 128, blue: 0 }],
    ['hsl(0, 0%, 100%)', { red: 255, green: 255, blue: 255 }],
    ['Navy', { red: 0, green: 0, blue: 128 }],
  ])('parses %s', (color, rgb) => {
    // Read through readableTextColor: the colour must be measured, and measured as its RGB value is, against text
    // of every lightness around the 4.5:1 thresholds.
    const hex = `#${[rgb.red, rgb.green, rgb.blue].map((channel) => channel.toString(16).padStart(2, '0')).join('')}`;
    const texts = ['#000000', '#3b3b3b', '#595959', '#767676', '#949494', '#b3b3b3', '#d4d4d4', '#ffffff'];
    expect(readableTextColor(color)).toBeDefined();
    expect(readableTextColor(color)).toBe(readableTextColor(hex));
    expect(texts.map((text) => readableTextColor(color, text))).toEqual(texts.map((text) => readableTextColor(hex, text)));
  });

  it.each(['rebeccapurple', 'var(--x)', '#12', 'rgb(1,2)', ''])('does not parse %j', (color) => {
    expect(readableTextColor(color)).toBeUndefined();
    expect(readableTextColor('#fff', color)).toBe(color);
  });

  it('measures WCAG contrast ratios: 21:1 for black on white, #767676 on white reaches 4.5:1 and #777 (4.48:1) does not', () => {
    expect(readableTextColor('#fff', '#000')).toBe('#000');
    expect(readableTextColor('#000', '#fff')).toBe('#fff');
    expect(readableTextColor('#fff', '#767676')).toBe('#767676');
    expect(readableTextColor('#fff', '#777')).toBe('#000000');
  });

  it('keeps a configured text colour that is readable on the brand colour', () => {
    expect(readableTextColor('#24292f', '#fff')).toBe('#fff');
  });

  it('replaces a configured text colour below 4.5:1 with black or white', () => {
    expect(readableTextColor('#fc6d26', '#fff')).toBe('#000000');
    expect(readableTextColor('#ffffff', '#eeeeee')).toBe('#000000');
  });

  it('picks black or white when no text colour is configured', () => {
    expect(readableTextColor('#facc15')).toBe('#000000');
    expect(readableTextColor('#1e3a8a')).toBe('#ffffff');
  });

  it('keeps the configured text colour when a colour cannot be measured', () => {
    expect(readableTextColor('rebeccapurple', '#fff')).toBe('#fff');
    expect(readableTextColor('#000', 'rebeccapurple')).toBe('rebeccapurple');
    expect(readableTextColor('rebeccapurple')).toBeUndefined();
  });

  it('gives every catalog provider a button text of at least 4.5:1 on its brand colour', () => {
    const catalog = [Auth0(), Discord(), GitHub(), GitLab(), Google(), Keycloak(), MicrosoftEntraID(), Microblog(), OIDC()];
    for (const provider of catalog) {
      const { brandColor, text } = provider.style!;
      const shown = readableTextColor(brandColor!, text)!;
      // readableTextColor keeps a measured text colour only at 4.5:1 or more.
      expect(readableTextColor(brandColor!), provider.name).toBeDefined();
      expect(readableTextColor(brandColor!, shown), provider.name).toBe(shown);
    }
  });
});

describe('configured URLs and codes', () => {
  it.each(['https://cdn.example.test/logo.svg', '/logo.png', 'data:image/png;base64,iVBORw0KGgo=', 'data:image/svg+xml,%3Csvg%3E'])('accepts the logo %s', (url) => {
    expect(safeUrl(url)).toBe(url);
  });

  it.each(['javascript:alert(1)', '//evil.test/logo.png', 'data:text/html,<script>alert(1)</script>', 'data:image/svg', 'ftp://x.test/a.png'])(
    'drops the logo %s',
    (url) => {
      expect(safeUrl(url)).toBeUndefined();
    },
  );

  it.each(['credentials', 'account_locked', 'E-42', 'auth.locked:2'])('shows the code %j', (code) => {
    expect(displayableCode(code)).toBe(code);
  });

  it.each(['', 'two words', '<b>', 'Call 555-0100 now!', 'x'.repeat(65)])('does not show the code %j', (code) => {
    expect(displayableCode(code)).toBeUndefined();
  });

  it('has a sign-in message and an error page entry for every client-safe error type', () => {
    // The client-safe types: those the table shows as themselves.
    for (const type of errorTypes.filter((type) => errorResponses[type].shownAs === type)) {
      expect(Object.hasOwn(signInErrorMessages, type), type).toBe(true);
      expect(Object.hasOwn(errorPageMessages, type), type).toBe(true);
    }
  });
});

describe('the Content-Security-Policy of the pages', () => {
  it('allows no script without a hash, and images from this origin, https and data URIs', () => {
    expect(pageContentSecurityPolicy("'self' https://github.com")).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; form-action 'self' https://github.com; base-uri 'none'; frame-ancestors 'none'",
    );
  });

  it('allows the scripts whose hashes it is given, and fetches to this origin', () => {
    expect(pageContentSecurityPolicy("'self'", ['sha256-abc='])).toMatch(/; script-src 'sha256-abc='; connect-src 'self'$/);
  });

  it('is sent with the error page of a refused request (405 as HTML)', async () => {
    const config = credentialsConfig();
    const app = await startApp(config);
    try {
      const response = await fetch(`${app.url}/auth/signin`, { method: 'PUT', headers: { accept: 'text/html' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toBe(pageContentSecurityPolicy(resolveConfigOnce(config).formAction));
    } finally {
      await app.close();
    }
  });
});

describe("form-action's sources (review 5, A6)", () => {
  const sourcesOf = (providers: FrameworkAuthConfig['providers'], env: Record<string, string> = {}): string =>
    resolveConfig({ secret: SECRET, adapter: MemoryAdapter(), providers }, env).formAction;

  it("is only 'self' without OAuth providers and AUTH_URL", () => {
    expect(sourcesOf([passwordProvider(), Passkey()])).toBe("'self'");
  });

  it("names AUTH_URL's origin, on which every redirect is built", () => {
    expect(sourcesOf([passwordProvider(), GitHub(client)], { AUTH_URL: 'https://app.example.test/base' })).toBe("'self' https://app.example.test https://github.com");
  });

  it("names each configured authorization endpoint's origin once, never its path", () => {
    expect(sourcesOf([GitHub(client), Discord(client), GitLab(client), GitHub({ ...client, id: 'github-2' })])).toBe("'self' https://github.com https://discord.com https://gitlab.com");
  });

  it("names the issuer's origin of a provider whose endpoint only discovery knows", () => {
    expect(sourcesOf([Google(client), Keycloak({ ...client, issuer: 'https://sso.example.test:8443/realms/main' })])).toBe("'self' https://accounts.google.com https://sso.example.test:8443");
  });

  it("names the wellKnown document's origin of a provider without an issuer", () => {
    expect(sourcesOf([OIDC({ ...client, issuer: undefined, wellKnown: 'https://login.example.test/.well-known/openid-configuration' })])).toBe("'self' https://login.example.test");
  });

  it('prefers a configured authorization URL to the issuer', () => {
    expect(sourcesOf([OIDC({ ...client, issuer: 'https://cognito-idp.example.test/pool', authorization: { url: 'https://pool.auth.example.test/oauth2/authorize' } })])).toBe("'self' https://pool.auth.example.test");
  });

  it('leaves out what a CSP source cannot say: a malformed URL, a non-http scheme, an IPv6 literal, a host with ";"', () => {
    const issuers = ['not a url', 'file:///issuer', 'http://[::1]:8080', 'https://a;b.example.test'];
    expect(sourcesOf(issuers.map((issuer, index) => OIDC({ ...client, id: `oidc-${index}`, issuer })))).toBe("'self'");
  });
});

describe('the sign-in page', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({
      secret: SECRET,
      trustHost: ['127.0.0.1'],
      adapter: MemoryAdapter(),
      session: { strategy: 'jwt' },
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      providers: [passwordProvider(), GitHub(client), Email({ sendVerificationRequest: () => {} }), GitLab(client), Passkey()],
    });
  });
  afterAll(() => app.close());

  async function page(query = ''): Promise<string> {
    return (await fetch(`${app.url}/auth/signin${query}`)).text();
  }

  it('puts the provider buttons first, together, then the forms in configured order with "or" between groups', async () => {
    const html = await page();
    const order = [...html.matchAll(/Sign in with (\w+)|class="divider"|Create a passkey/g)].map((match) => match[1] ?? match[0]);
    expect(order).toEqual(['GitHub', 'GitLab', 'class="divider"', 'Credentials', 'class="divider"', 'Email', 'class="divider"', 'Passkey', 'Create a passkey']);
  });

  it('shows each provider button in its brand colour with readable text', async () => {
    const html = await page();
    expect(html).toContain('style="--button-bg:#24292f;--button-text:#fff"');
    // GitLab's configured white text is 2.9:1 on its orange.
    expect(html).toContain('style="--button-bg:#fc6d26;--button-text:#000000"');
  });

  it('labels every credentials field and suggests autocomplete values', async () => {
    const html = await page();
    expect(html).toContain('<label for="input-credentials-username">User name</label><input id="input-credentials-username" name="username" type="text" autocomplete="username" required>');
    expect(html).toContain('<label for="input-credentials-password">Password</label><input id="input-credentials-password" name="password" type="password" autocomplete="current-password" required>');
  });

  it('puts the CSRF token into every form', async () => {
    const html = await page();
    const forms = html.match(/<form[\s\S]*?<\/form>/g) ?? [];
    expect(forms).toHaveLength(5);
    for (const form of forms) expect(form).toMatch(/<input type="hidden" name="csrfToken" value="[0-9a-f]{64}">/);
  });

  it('renders the passkey buttons disabled, with a note for browsers without JavaScript', async () => {
    const html = await page();
    expect(html).toContain('<button type="submit" data-webauthn-action="authenticate" disabled>Sign in with Passkey</button>');
    expect(html).toContain('<button type="submit" class="secondary" data-webauthn-action="register" disabled>Create a passkey</button>');
    expect(html).toContain('data-webauthn-status>Passkey sign-in needs JavaScript. Turn it on, or use another way to sign in.</p>');
  });

  it('shows the code of a CredentialsSignin error', async () => {
    const html = await page('?error=CredentialsSignin&code=account_locked');
    expect(html).toContain(
      '<div class="error" role="alert"><p>Sign-in failed. Check the details you provided are correct.</p><p class="code">Error code: <code>account_locked</code></p></div>',
    );
  });

  it('does not show a code with other error types', async () => {
    const html = await page('?error=OAuthCallbackError&code=account_locked');
    expect(html).toContain('<p>Sign-in with this provider did not complete. Try again.</p></div>');
    expect(html).not.toContain('account_locked');
  });

  it('does not show a code that is not a code', async () => {
    const html = await page(`?error=CredentialsSignin&code=${encodeURIComponent('Your account is locked, call 555-0100')}`);
    expect(html).toContain('Sign-in failed.');
    expect(html).not.toContain('555-0100');
  });

  it('re-posts the callbackUrl normalised and escaped', async () => {
    const html = await page(`?callbackUrl=${encodeURIComponent('/after?a=1&b="><script>alert(1)</script>')}`);
    expect(html).toContain(`name="callbackUrl" value="${app.url}/after?a=1&amp;b=%22%3E%3Cscript%3Ealert(1)%3C/script%3E"`);
    expect(html).not.toContain('<script>alert');
  });

  it('escapes credentials labels and placeholders from configuration', async () => {
    const hostile = await startApp(
      credentialsConfig({
        providers: [
          {
            ...passwordProvider(),
            credentials: { username: { label: '<b>User</b>', placeholder: '" onfocus="alert(1)' } },
          },
        ],
      }),
    );
    try {
      const html = await (await fetch(`${hostile.url}/auth/signin`)).text();
      expect(html).toContain('>&lt;b&gt;User&lt;/b&gt;</label>');
      expect(html).toContain('placeholder="&quot; onfocus=&quot;alert(1)"');
    } finally {
      await hostile.close();
    }
  });
});

describe('the theme', () => {
  async function pageWith(theme: FrameworkAuthConfig['theme']): Promise<string> {
    const app = await startApp(credentialsConfig({ theme }));
    try {
      return await (await fetch(`${app.url}/auth/signin`)).text();
    } finally {
      await app.close();
    }
  }

  it('uses buttonText on brandColor when it is readable there', async () => {
    expect(await pageWith({ brandColor: '#1e3a8a', buttonText: '#fde68a' })).toContain(':root{--brand:#1e3a8a;--brand-text:#fde68a}');
  });

  it('replaces a buttonText that is unreadable on brandColor', async () => {
    expect(await pageWith({ brandColor: '#facc15', buttonText: '#ffffff' })).toContain(':root{--brand:#facc15;--brand-text:#000000}');
  });

  it('fixes the colour scheme with colorScheme light or dark, and follows the browser with auto', async () => {
    expect(await pageWith({ colorScheme: 'light' })).toContain('<html lang="en" data-theme="light">');
    expect(await pageWith({ colorScheme: 'dark' })).toContain('<html lang="en" data-theme="dark">');
    const auto = await pageWith({ colorScheme: 'auto' });
    expect(auto).toContain('<html lang="en"><head>');
    expect(auto).toContain('@media (prefers-color-scheme:dark)');
  });
});

describe('the other pages', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(credentialsConfig());
  });
  afterAll(() => app.close());

  it('asks before signing out, with a way back to the callbackUrl', async () => {
    const html = await (await fetch(`${app.url}/auth/signout?callbackUrl=%2Fme`)).text();
    expect(html).toContain('<p class="muted center">Are you sure you want to sign out?</p>');
    expect(html).toMatch(/<form action="\/auth\/signout" method="POST"><input type="hidden" name="csrfToken" value="[0-9a-f]{64}">/);
    expect(html).toContain(`<input type="hidden" name="callbackUrl" value="${app.url}/me">`);
    expect(html).toContain(`<a href="${app.url}/me">Stay signed in</a>`);
  });

  it('sends a sign-out page without callbackUrl back to /', async () => {
    const html = await (await fetch(`${app.url}/auth/signout`)).text();
    expect(html).toContain('<a href="/">Stay signed in</a>');
  });

  it.each(Object.entries(errorPageMessages).filter(([type]) => type !== 'default'))('shows the heading, message and status of %s', async (type, entry) => {
    const response = await fetch(`${app.url}/auth/error?error=${type}`);
    expect(response.status).toBe(entry.status);
    const html = await response.text();
    expect(html).toContain(`<h1>${entry.heading}</h1><p>${entry.message}</p>`);
    expect(html).toContain('<a class="button" href="/auth/signin">Sign in</a>');
  });

  it('shows the code of a CredentialsSignin error on the error page', async () => {
    const html = await (await fetch(`${app.url}/auth/error?error=CredentialsSignin&code=account_locked`)).text();
    expect(html).toContain('<p class="muted">Error code: <code>account_locked</code></p>');
  });

  it('tells the user to check their email, with a link back to the site (a route the email provider brings)', async () => {
    expect((await fetch(`${app.url}/auth/verify-request`)).status).toBe(404);
    const emailApp = await startApp({
      secret: SECRET,
      trustHost: ['127.0.0.1'],
      adapter: MemoryAdapter(),
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      providers: [Email({ sendVerificationRequest: () => {} })],
    });
    try {
      const html = await (await fetch(`${emailApp.url}/auth/verify-request?provider=email&type=email`)).text();
      expect(html).toContain('<h1>Check your email</h1>');
      expect(html).toContain(`<a href="${emailApp.url}">Back to ${new URL(emailApp.url).host}</a>`);
      // The email feature's error types come with it: its texts are shown here, the default where it is absent.
      const expired = 'The sign-in link is no longer valid.';
      expect(await (await fetch(`${emailApp.url}/auth/error?error=Verification`)).text()).toContain(expired);
      expect(await (await fetch(`${app.url}/auth/error?error=Verification`)).text()).not.toContain(expired);
    } finally {
      await emailApp.close();
    }
  });
});

describe('pages overrides', () => {
  const pages: FrameworkAuthConfig['pages'] = { signIn: '/login', signOut: '/bye', error: '/oops', verifyRequest: '/check-email', newUser: '/welcome' };
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(credentialsConfig({ pages }));
  });
  afterAll(() => app.close());

  async function location(path: string): Promise<string | null> {
    return (await fetch(`${app.url}${path}`, { redirect: 'manual' })).headers.get('location');
  }

  it('sends the sign-in page to pages.signIn with error, code and callbackUrl', async () => {
    expect(await location('/auth/signin?error=CredentialsSignin&code=account_locked&callbackUrl=%2Fme')).toBe(
      `${app.url}/login?callbackUrl=${encodeURIComponent(`${app.url}/me`)}&error=CredentialsSignin&code=account_locked`,
    );
  });

  it('drops a callbackUrl to another origin on the way to pages.signIn', async () => {
    expect(await location('/auth/signin?callbackUrl=https%3A%2F%2Fevil.test%2F')).toBe(`${app.url}/login`);
  });

  it('sends a failed credentials sign-in to pages.signIn with error and code', async () => {
    const { response } = await signIn(app.url, '/auth', { password: 'locked' });
    expect(response.headers.get('location')).toBe(`${app.url}/login?error=CredentialsSignin&code=account_locked`);
  });

  it('sends the sign-out page to pages.signOut with callbackUrl', async () => {
    expect(await location('/auth/signout?callbackUrl=%2Fme')).toBe(`${app.url}/bye?callbackUrl=${encodeURIComponent(`${app.url}/me`)}`);
  });

  it('sends the error page to pages.error with error and code', async () => {
    expect(await location('/auth/error?error=CredentialsSignin&code=account_locked')).toBe(`${app.url}/oops?error=CredentialsSignin&code=account_locked`);
  });

  it('sends a sign-in form posted without its CSRF token to pages.signIn with MissingCSRF', async () => {
    const jar = createJar();
    const response = await jar.fetch(`${app.url}/auth/callback/credentials`, { method: 'POST', redirect: 'manual', ...formBody({ csrfToken: 'forged', password: 'x' }) });
    expect(response.headers.get('location')).toBe(`${app.url}/login?error=MissingCSRF`);
  });

  it('sends a sign-in refused by the signIn callback to pages.error with AccessDenied', async () => {
    const refusing = await startApp(credentialsConfig({ pages, callbacks: { signIn: () => false } }));
    try {
      const { response } = await signIn(refusing.url);
      expect(response.headers.get('location')).toBe(`${refusing.url}/oops?error=AccessDenied`);
    } finally {
      await refusing.close();
    }
  });

  it('sends a new user to pages.newUser with the callbackUrl, after the email link', async () => {
    const links: string[] = [];
    const emailApp = await startApp({
      secret: SECRET,
      trustHost: ['127.0.0.1'],
      adapter: MemoryAdapter(),
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      providers: [Email({ sendVerificationRequest: ({ url }) => void links.push(url) })],
      pages,
    });
    try {
      const jar = createJar();
      const { csrfToken } = (await (await jar.fetch(`${emailApp.url}/auth/csrf`)).json()) as { csrfToken: string };
      const sent = await jar.fetch(`${emailApp.url}/auth/signin/email`, {
        method: 'POST',
        redirect: 'manual',
        ...formBody({ csrfToken, email: 'new@example.test', callbackUrl: '/dashboard' }),
      });
      expect(sent.headers.get('location')).toBe(`${emailApp.url}/auth/verify-request?provider=email&type=email`);
      const verify = await jar.fetch(sent.headers.get('location')!, { redirect: 'manual' });
      expect(verify.headers.get('location')).toBe(`${emailApp.url}/check-email?provider=email&type=email`);
      const signedIn = await jar.fetch(links[0]!, { redirect: 'manual' });
      expect(signedIn.headers.get('location')).toBe(`${emailApp.url}/welcome?callbackUrl=${encodeURIComponent(`${emailApp.url}/dashboard`)}`);
    } finally {
      await emailApp.close();
    }
  });
});
