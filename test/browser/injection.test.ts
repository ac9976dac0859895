// Script injection through everything a built-in page shows that someone else chose: provider names, field labels
// and styles from configuration, and `error`, `code`, `callbackUrl` (and the verify-request parameters) from the
// URL, which any link can set. Every payload calls `__pwned()`, a function the browser exposes to this test; it must
// never be called — with the pages' Content-Security-Policy, and without it (escaping alone must hold). Control
// tests prove the trap fires when the same markup does run, and that the CSP blocks inline scripts by itself.
import express from 'express';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { FrameworkAuth } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Credentials from '../../templates/runtime/providers/credentials.js';
import Email from '../../templates/runtime/providers/email.js';
import GitHub from '../../templates/runtime/providers/github.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import { listen } from '../support/listen.js';
import { SECRET } from '../runtime/helpers.js';
import { launchChromium } from './helpers.js';

let browser: Browser;
let url: string;
let closeApp: () => Promise<void>;

/** Markup that calls the trap with `where` when a browser runs it. */
function payloads(where: string): string[] {
  return [
    `<img src=x onerror="__pwned('${where}')">`,
    `"><script>__pwned('${where}')</script>`,
    `'><svg onload=__pwned('${where}')>`,
  ];
}
const payload = (where: string) => payloads(where).join('');

function hostileProviders(): FrameworkAuthConfig['providers'] {
  const github = GitHub({ clientId: 'client-id', clientSecret: 'client-secret' });
  return [
    {
      ...github,
      name: payload('oauth-name'),
      style: { brandColor: `red;}</style>${payload('brand-color')}`, text: `#fff" onmouseover="__pwned('text')`, logo: `javascript:__pwned('logo')` },
    },
    Credentials({
      name: payload('credentials-name'),
      credentials: {
        username: { label: payload('label'), placeholder: `" autofocus onfocus="__pwned('placeholder')` },
        password: { label: 'Password', type: `password" autofocus onfocus="__pwned('type')` },
      },
      authorize: async () => null,
    }),
    Email({ name: payload('email-name'), sendVerificationRequest: () => {} }),
    Passkey({ name: payload('passkey-name') }),
  ];
}

beforeAll(async () => {
  browser = await launchChromium();
  const config: FrameworkAuthConfig = {
    secret: SECRET,
    // The email provider needs a configured origin for its links: the tests reach the app on loopback.
    trustHost: ['127.0.0.1', 'localhost'],
    adapter: MemoryAdapter(),
    session: { strategy: 'jwt' },
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: hostileProviders(),
  };
  const app = express();
  app.use('/auth/*splat', FrameworkAuth(config));
  const running = await listen(app);
  url = running.url;
  closeApp = running.close;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await closeApp?.();
});

const query = (values: Record<string, string>) => `?${new URLSearchParams(values)}`;
const visits = [
  { name: 'provider names, labels and styles on the sign-in page', path: '/auth/signin' },
  { name: 'error on the sign-in page', path: `/auth/signin${query({ error: payload('error') })}` },
  { name: 'code on the sign-in page', path: `/auth/signin${query({ error: 'CredentialsSignin', code: payload('code') })}` },
  { name: 'a javascript: callbackUrl on the sign-in page', path: `/auth/signin${query({ callbackUrl: `javascript:__pwned('callback-url')` })}` },
  { name: 'a same-origin callbackUrl with markup on the sign-in page', path: `/auth/signin${query({ callbackUrl: `/${payload('callback-url')}` })}` },
  { name: 'a javascript: callbackUrl on the sign-out page', path: `/auth/signout${query({ callbackUrl: `javascript:__pwned('signout-callback-url')` })}` },
  { name: 'a same-origin callbackUrl with markup on the sign-out page', path: `/auth/signout${query({ callbackUrl: `/${payload('signout-callback-url')}` })}` },
  { name: 'error on the error page', path: `/auth/error${query({ error: payload('error-page') })}` },
  { name: 'code on the error page', path: `/auth/error${query({ error: 'CredentialsSignin', code: payload('error-page-code') })}` },
  { name: 'provider and type on the verify-request page', path: `/auth/verify-request${query({ provider: payload('provider'), type: payload('type') })}` },
];

interface Trapped {
  context: BrowserContext;
  page: Page;
  /** Where the trap was called from, in order. */
  calls: string[];
}

/** A browser profile whose pages have `__pwned(where)`, recording each call. */
async function openTrappedPage(options: { bypassCSP: boolean }): Promise<Trapped> {
  const context = await browser.newContext({ bypassCSP: options.bypassCSP });
  context.setDefaultTimeout(5_000);
  const calls: string[] = [];
  await context.exposeFunction('__pwned', (where: unknown) => void calls.push(String(where)));
  return { context, page: await context.newPage(), calls };
}

/** Focuses, hovers and clicks what a person would, so that event-handler payloads get their chance. */
async function interact(page: Page): Promise<void> {
  for (let index = 0; index < 12; index++) await page.keyboard.press('Tab');
  for (const button of await page.locator('button').all()) await button.hover();
  const back = page.getByRole('link', { name: 'Stay signed in' });
  if ((await back.count()) > 0) {
    await back.click();
    await page.waitForLoadState();
  }
}

describe.each([
  { csp: 'with the Content-Security-Policy', bypassCSP: false },
  { csp: 'with the Content-Security-Policy bypassed (escaping alone)', bypassCSP: true },
])('script injection $csp', ({ bypassCSP }) => {
  let trapped: Trapped;

  beforeAll(async () => {
    trapped = await openTrappedPage({ bypassCSP });
  });
  afterAll(() => trapped.context.close());

  it.each(visits)('renders $name inert', async ({ path }) => {
    trapped.calls.length = 0;
    const response = await trapped.page.goto(`${url}${path}`);
    expect(response?.status()).toBeLessThan(500);
    await trapped.page.waitForLoadState('load');
    await interact(trapped.page);
    // Give any late handler (an image error, an SVG load) time to fire.
    await trapped.page.waitForTimeout(100);
    expect(trapped.calls).toEqual([]);
  });

  it('shows the hostile provider name as text', async () => {
    await trapped.page.goto(`${url}/auth/signin`);
    const text = await trapped.page.locator('.providers button').first().textContent();
    expect(text).toBe(`Sign in with ${payload('oauth-name')}`);
  });
});

describe('the controls', () => {
  it('calls the trap when the same payloads are rendered as markup (the test can see an injection)', async () => {
    const trapped = await openTrappedPage({ bypassCSP: false });
    try {
      await trapped.page.setContent(`<body>${payload('control')}</body>`);
      await expect.poll(() => trapped.calls.length).toBeGreaterThanOrEqual(3);
      expect(new Set(trapped.calls)).toEqual(new Set(['control']));
    } finally {
      await trapped.context.close();
    }
  });

  it.each(['/auth/signin', '/auth/signout', '/auth/error?error=AccessDenied', '/auth/verify-request'])(
    'blocks an inline script and an inline event handler added to %s by the Content-Security-Policy',
    async (path) => {
      const trapped = await openTrappedPage({ bypassCSP: false });
      try {
        await trapped.page.goto(`${url}${path}`);
        const violations = await trapped.page.evaluate(`(async () => {
          const seen = [];
          document.addEventListener('securitypolicyviolation', (event) => seen.push(event.violatedDirective));
          const script = document.createElement('script');
          script.textContent = "__pwned('inline-script')";
          document.body.append(script);
          document.body.insertAdjacentHTML('beforeend', '<img src="data:," onerror="__pwned(\\'inline-handler\\')">');
          await new Promise((resolve) => setTimeout(resolve, 200));
          return seen;
        })()`);
        expect(trapped.calls).toEqual([]);
        expect(violations).toEqual(expect.arrayContaining([expect.stringMatching(/^script-src/)]));
      } finally {
        await trapped.context.close();
      }
    },
  );

  it('runs the same inline script and handler once the CSP is bypassed (the CSP is what blocked them)', async () => {
    const trapped = await openTrappedPage({ bypassCSP: true });
    try {
      await trapped.page.goto(`${url}/auth/signout`);
      await trapped.page.evaluate(`(() => {
        const script = document.createElement('script');
        script.textContent = "__pwned('inline-script')";
        document.body.append(script);
        document.body.insertAdjacentHTML('beforeend', '<img src="data:," onerror="__pwned(\\'inline-handler\\')">');
      })()`);
      await expect.poll(() => [...trapped.calls].sort()).toEqual(['inline-handler', 'inline-script']);
    } finally {
      await trapped.context.close();
    }
  });

  it.each(['/auth/signout', '/auth/error?error=AccessDenied', '/auth/verify-request'])('sends a CSP without any script source on %s', async (path) => {
    const response = await fetch(`${url}${path}`);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toContain('script-src');
    expect(policy).not.toContain('unsafe-eval');
  });

  it('allows only the passkey script, by its hash, on the sign-in page', async () => {
    const response = await fetch(`${url}/auth/signin`);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(/script-src [^;]*unsafe-inline/.test(policy)).toBe(false);
  });
});
