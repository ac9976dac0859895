// The built-in pages in headless Chromium: each page in the light and the dark scheme is screenshotted into
// test-results/screenshots/ and scanned with axe-core; the theme option, the provider buttons' contrast, keyboard
// focus, and use without JavaScript. The app runs the runtime in-process with every kind of provider.
import express from 'express';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { FrameworkAuth, createRequireAuth } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import { readableTextColor } from '../../templates/runtime/pages/color.js';
import Email from '../../templates/runtime/providers/email.js';
import GitHub from '../../templates/runtime/providers/github.js';
import GitLab from '../../templates/runtime/providers/gitlab.js';
import Google from '../../templates/runtime/providers/google.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import { listen, type RunningApp } from '../support/listen.js';
import { SECRET, passwordProvider } from '../runtime/helpers.js';
import { distinctColors, launchChromium, openPage, pixelAt, saveScreenshot, scanAccessibility, violationsOf } from './helpers.js';

let browser: Browser;
const cleanups: (() => Promise<void>)[] = [];
const keep = (cleanup: () => Promise<void>): void => void cleanups.push(cleanup);

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await browser?.close();
});

const logo = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" rx="8" fill="#0f766e"/><text x="60" y="26" font-family="sans-serif" font-size="16" fill="#fff" text-anchor="middle">ACME</text></svg>')}`;

function everyProvider(): FrameworkAuthConfig['providers'] {
  const client = { clientId: 'client-id', clientSecret: 'client-secret' };
  return [GitHub(client), Google(client), GitLab(client), passwordProvider(), Email({ sendVerificationRequest: () => {} }), Passkey()];
}

async function startApp(extra: Partial<FrameworkAuthConfig> = {}): Promise<string> {
  const config: FrameworkAuthConfig = {
    secret: SECRET,
    // The email provider needs a configured origin for its links: the tests reach the app on loopback.
    trustHost: ['127.0.0.1', 'localhost'],
    adapter: MemoryAdapter(),
    session: { strategy: 'jwt' },
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: everyProvider(),
    ...extra,
  };
  const app = express();
  app.use('/auth/*splat', FrameworkAuth(config));
  app.get('/me', createRequireAuth(config), (_req, res) => {
    res.json({ user: (res.locals.session as { user: unknown }).user });
  });
  const running: RunningApp = await listen(app);
  cleanups.push(running.close);
  return running.url;
}

const pages = [
  { name: 'signin', path: '/auth/signin?callbackUrl=%2Fme', status: 200, heading: 'Sign in' },
  { name: 'signin-credentials-error', path: '/auth/signin?error=CredentialsSignin&code=credentials', status: 200, heading: 'Sign in' },
  { name: 'signout', path: '/auth/signout', status: 200, heading: 'Sign out' },
  { name: 'error-configuration', path: '/auth/error?error=Configuration', status: 400, heading: 'Server error' },
  { name: 'error-access-denied', path: '/auth/error?error=AccessDenied', status: 403, heading: 'Access denied' },
  { name: 'error-verification', path: '/auth/error?error=Verification', status: 403, heading: 'Unable to sign in' },
  { name: 'error-credentials', path: '/auth/error?error=CredentialsSignin&code=account_locked', status: 401, heading: 'Unable to sign in' },
  { name: 'verify-request', path: '/auth/verify-request?provider=email&type=email', status: 200, heading: 'Check your email' },
] as const;
const schemes = ['light', 'dark'] as const;
// The page background of each scheme (layout.ts --bg), read from the screenshot's corner.
const backgrounds = { light: 'rgb(243, 244, 246)', dark: 'rgb(17, 19, 23)' } as const;
const cases = schemes.flatMap((scheme) => pages.map((page) => ({ ...page, scheme })));

describe('each built-in page in both colour schemes', () => {
  let url: string;
  const tabs = new Map<string, Page>();

  beforeAll(async () => {
    url = await startApp();
    for (const scheme of schemes) tabs.set(scheme, (await openPage(browser, keep, { colorScheme: scheme })).page);
  });

  it.each(cases)('screenshots $name in $scheme: drawn, in the scheme, with its heading', async ({ name, path, status, heading, scheme }) => {
    const page = tabs.get(scheme)!;
    const response = await page.goto(`${url}${path}`);
    expect(response?.status()).toBe(status);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(heading);
    const png = await saveScreenshot(page, `${name}-${scheme}`);
    expect(png.length).toBeGreaterThan(5_000);
    expect(distinctColors(png)).toBeGreaterThan(50);
    expect(pixelAt(png, 2, 2)).toBe(backgrounds[scheme]);
  });

  it.each(cases)('has no serious or critical axe-core violations: $name in $scheme', async ({ path, scheme }) => {
    const page = tabs.get(scheme)!;
    await page.goto(`${url}${path}`);
    const results = await scanAccessibility(page);
    expect(results.passes.length, 'axe ran its checks').toBeGreaterThan(10);
    expect(violationsOf(results)).toEqual([]);
    // Moderate and minor findings are not allowed either: these pages are small enough to be clean.
    expect(violationsOf(results, ['moderate', 'minor'])).toEqual([]);
  });

  it('draws the light and the dark sign-in page differently', async () => {
    const light = await tabs.get('light')!.goto(`${url}/auth/signin`).then(() => tabs.get('light')!.screenshot());
    const dark = await tabs.get('dark')!.goto(`${url}/auth/signin`).then(() => tabs.get('dark')!.screenshot());
    expect(light.equals(dark)).toBe(false);
  });
});

describe('the accessibility scan', () => {
  it('reports a button whose text is unreadable (the scan can fail)', async () => {
    const { page } = await openPage(browser, keep);
    await page.setContent('<!DOCTYPE html><html lang="en"><title>Control</title><main><h1>Control</h1><button style="background:#fc6d26;color:#fff">Go</button></main></html>');
    expect(violationsOf(await scanAccessibility(page))).toEqual([expect.stringMatching(/^serious color-contrast: button/)]);
  });
});

describe('the sign-in page', () => {
  let url: string;

  beforeAll(async () => {
    url = await startApp();
  });

  it('shows a "Sign in with <name>" button per OAuth provider with its logo, in provider order', async () => {
    const { page } = await openPage(browser, keep);
    await page.goto(`${url}/auth/signin`);
    const buttons = page.locator('.providers button');
    expect(await buttons.allTextContents()).toEqual(['Sign in with GitHub', 'Sign in with Google', 'Sign in with GitLab']);
    expect(await page.locator('.providers button img').count()).toBe(2);
    // Every logo decoded (a data URI allowed by the page's CSP), so none shows as a broken image.
    const widths = await page.locator('.providers button img').evaluateAll((images) => images.map((image) => (image as unknown as { naturalWidth: number }).naturalWidth));
    expect(widths.every((width) => width > 0)).toBe(true);
  });

  it.each(schemes)('gives every provider button text of at least 4.5:1 on its brand colour (%s)', async (scheme) => {
    const { page } = await openPage(browser, keep, { colorScheme: scheme });
    await page.goto(`${url}/auth/signin`);
    const colours = await page.locator('.providers button').evaluateAll((buttons) =>
      buttons.map((button) => {
        const style = (globalThis as unknown as { getComputedStyle(element: unknown): { color: string; backgroundColor: string } }).getComputedStyle(button);
        return { text: style.color, background: style.backgroundColor };
      }),
    );
    expect(colours).toHaveLength(3);
    // GitLab's orange with its configured white text would be 2.9:1; the page switches to black.
    expect(colours[2]).toEqual({ text: 'rgb(0, 0, 0)', background: 'rgb(252, 109, 38)' });
    // readableTextColor keeps a measured text colour only at 4.5:1 or more.
    for (const { text, background } of colours) {
      expect(readableTextColor(background)).toBeDefined();
      expect(readableTextColor(background, text)).toBe(text);
    }
  });

  it('builds the credentials form from its fields, each with a label', async () => {
    const { page } = await openPage(browser, keep);
    await page.goto(`${url}/auth/signin`);
    await expect.poll(() => page.getByLabel('User name').getAttribute('autocomplete')).toBe('username');
    expect(await page.getByLabel('Password').getAttribute('type')).toBe('password');
    expect(await page.getByLabel('Password').getAttribute('autocomplete')).toBe('current-password');
    expect(await page.getByRole('button', { name: 'Sign in with Credentials' }).count()).toBe(1);
  });

  it('puts the CSRF token and callbackUrl into every form', async () => {
    const { page } = await openPage(browser, keep);
    await page.goto(`${url}/auth/signin?callbackUrl=%2Fme`);
    const forms = await page.locator('form').evaluateAll((elements) =>
      elements.map((form) => {
        const fields = form as unknown as { querySelector(selector: string): { value: string } | null };
        return { csrfToken: fields.querySelector('input[name=csrfToken]')?.value ?? '', callbackUrl: fields.querySelector('input[name=callbackUrl]')?.value ?? '' };
      }),
    );
    expect(forms).toHaveLength(6);
    for (const form of forms) {
      expect(form.csrfToken).toMatch(/^[0-9a-f]{64}$/);
      expect(form.callbackUrl).toBe(`${url}/me`);
    }
  });

  it('moves focus with Tab in reading order, showing a focus ring on every stop', async () => {
    const { page } = await openPage(browser, keep);
    await page.goto(`${url}/auth/signin`);
    const stops: { label: string; outline: string }[] = [];
    for (let index = 0; index < 12; index++) {
      await page.keyboard.press('Tab');
      if (index === 3) await saveScreenshot(page, 'signin-focus-on-user-name-light');
      stops.push(
        await page.evaluate(() => {
          const element = (globalThis as unknown as { document: { activeElement: { tagName: string; textContent: string; id: string } } }).document.activeElement;
          const style = (globalThis as unknown as { getComputedStyle(element: unknown): { outlineStyle: string; outlineWidth: string } }).getComputedStyle(element);
          const label = element.tagName === 'BODY' ? 'body' : element.id || element.textContent.trim();
          return { label, outline: `${style.outlineStyle} ${style.outlineWidth}` };
        }),
      );
    }
    expect(stops.map((stop) => stop.label)).toEqual([
      'Sign in with GitHub',
      'Sign in with Google',
      'Sign in with GitLab',
      'input-credentials-username',
      'input-credentials-password',
      'Sign in with Credentials',
      'input-email-for-email-provider',
      'Sign in with Email',
      'input-email-for-passkey-provider',
      'Sign in with Passkey',
      'Create a passkey',
      // Past the last control focus leaves the page's controls.
      'body',
    ]);
    for (const stop of stops.slice(0, -1)) expect(stop.outline).toBe('solid 3px');
  });

  it('shows the message and the code of a failed credentials sign-in', async () => {
    const { page } = await openPage(browser, keep);
    await page.goto(`${url}/auth/signin?error=CredentialsSignin&code=account_locked`);
    const alert = page.getByRole('alert');
    expect(await alert.textContent()).toBe('Sign-in failed. Check the details you provided are correct.Error code: account_locked');
  });
});

describe('the theme option', () => {
  it('forces the dark scheme with colorScheme "dark" in a browser that prefers light', async () => {
    const url = await startApp({ theme: { colorScheme: 'dark' } });
    const { page } = await openPage(browser, keep, { colorScheme: 'light' });
    await page.goto(`${url}/auth/signin`);
    const png = await saveScreenshot(page, 'signin-theme-forced-dark');
    expect(pixelAt(png, 2, 2)).toBe(backgrounds.dark);
  });

  it('forces the light scheme with colorScheme "light" in a browser that prefers dark', async () => {
    const url = await startApp({ theme: { colorScheme: 'light' } });
    const { page } = await openPage(browser, keep, { colorScheme: 'dark' });
    await page.goto(`${url}/auth/signout`);
    const png = await saveScreenshot(page, 'signout-theme-forced-light');
    expect(pixelAt(png, 2, 2)).toBe(backgrounds.light);
  });

  it.each(schemes)('uses brandColor and the logo, with readable button text when buttonText is not set (%s)', async (scheme) => {
    const url = await startApp({ theme: { brandColor: '#facc15', logo } });
    const { page } = await openPage(browser, keep, { colorScheme: scheme });
    await page.goto(`${url}/auth/signin?error=CredentialsSignin&code=credentials`);
    await saveScreenshot(page, `signin-theme-brand-${scheme}`);
    const submit = page.getByRole('button', { name: 'Sign in with Credentials' });
    const colours = await submit.evaluate((button) => {
      const style = (globalThis as unknown as { getComputedStyle(element: unknown): { color: string; backgroundColor: string } }).getComputedStyle(button);
      return { text: style.color, background: style.backgroundColor };
    });
    expect(colours).toEqual({ text: 'rgb(0, 0, 0)', background: 'rgb(250, 204, 21)' });
    expect(await page.locator('img.logo').evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBe(120);
    expect(violationsOf(await scanAccessibility(page))).toEqual([]);
  });
});

describe("the user's sessions page", () => {
  /** An app with database sessions and three sessions of one user; the browser holds the first one's cookie. */
  async function startWithSessions(): Promise<{ url: string; adapter: ReturnType<typeof MemoryAdapter>; context: BrowserContext; page: Page }> {
    const adapter = MemoryAdapter();
    const config: FrameworkAuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      providers: [GitHub({ clientId: 'client-id', clientSecret: 'client-secret' })],
    };
    const app = express();
    app.use('/auth/*splat', FrameworkAuth(config));
    const running = await listen(app);
    cleanups.push(running.close);
    const user = await adapter.createUser!({ id: 'ada', email: 'ada@example.test', emailVerified: null });
    const day = 86_400_000;
    const rows = [
      { sessionToken: 'this-browser-token', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0', seen: 0 },
      { sessionToken: 'phone-token', userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 19_0) Safari/605.1', seen: day },
      { sessionToken: 'old-laptop-token', userAgent: '<b>Firefox/140.0</b>', seen: 3 * day },
    ];
    for (const row of rows) {
      const at = new Date(Date.now() - row.seen);
      await adapter.createSession!({ sessionToken: row.sessionToken, userId: user.id, expires: new Date(Date.now() + 30 * day), createdAt: new Date(at.valueOf() - day), lastSeenAt: at, userAgent: row.userAgent });
    }
    const { context, page } = await openPage(browser, keep, { javaScriptEnabled: false });
    await context.addCookies([{ name: 'authjs.session-token', value: 'this-browser-token', url: running.url }]);
    return { url: running.url, adapter, context, page };
  }

  it.each(schemes)('lists the sessions, this one first, in %s, with no axe-core findings', async (scheme) => {
    const { url } = await startWithSessions();
    const { context, page } = await openPage(browser, keep, { colorScheme: scheme });
    await context.addCookies([{ name: 'authjs.session-token', value: 'this-browser-token', url }]);
    const response = await page.goto(`${url}/auth/sessions`);
    expect(response?.status()).toBe(200);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your sessions');
    const items = await page.locator('ul.sessions > li strong').allTextContents();
    expect(items).toEqual(['Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0', 'Mozilla/5.0 (iPhone; CPU iPhone OS 19_0) Safari/605.1', '<b>Firefox/140.0</b>']);
    const png = await saveScreenshot(page, `sessions-${scheme}`);
    expect(pixelAt(png, 2, 2)).toBe(backgrounds[scheme]);
    const results = await scanAccessibility(page);
    expect(results.passes.length).toBeGreaterThan(10);
    expect(violationsOf(results, ['critical', 'serious', 'moderate', 'minor'])).toEqual([]);
  });

  it('ends another session and then every session with its buttons, without JavaScript', async () => {
    const { url, adapter, page } = await startWithSessions();
    await page.goto(`${url}/auth/sessions`);
    await page.locator('ul.sessions > li', { hasText: 'Firefox/140.0' }).getByRole('button', { name: 'End this session' }).click();
    await page.waitForURL(`${url}/auth/sessions`);
    expect(await page.locator('ul.sessions > li strong').allTextContents()).toHaveLength(2);
    expect(await adapter.getSessionAndUser!('old-laptop-token')).toBeNull();

    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL(`${url}/`);
    expect(await adapter.listSessionsByUserId!('ada')).toEqual([]);
    await page.goto(`${url}/auth/sessions`);
    expect(new URL(page.url()).pathname).toBe('/auth/signin');
  });
});

describe('without JavaScript', () => {
  it('signs in with the credentials form', async () => {
    const url = await startApp();
    const { page } = await openPage(browser, keep, { javaScriptEnabled: false });
    await page.goto(`${url}/me`);
    expect(new URL(page.url()).pathname).toBe('/auth/signin');
    await page.getByLabel('User name').fill('ada');
    await page.getByLabel('Password').fill('correct horse');
    await page.getByRole('button', { name: 'Sign in with Credentials' }).click();
    await page.waitForURL(`${url}/me`);
    expect(JSON.parse((await page.textContent('body')) ?? '')).toMatchObject({ user: { name: 'ada' } });
  });

  it('leaves the passkey buttons disabled and says why', async () => {
    const url = await startApp();
    const { page } = await openPage(browser, keep, { javaScriptEnabled: false });
    await page.goto(`${url}/auth/signin`);
    expect(await page.getByRole('button', { name: 'Sign in with Passkey' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Create a passkey' }).isDisabled()).toBe(true);
    expect(await page.getByRole('status').textContent()).toBe('Passkey sign-in needs JavaScript. Turn it on, or use another way to sign in.');
    expect(await page.getByRole('status').isVisible()).toBe(true);
    await saveScreenshot(page, 'signin-without-javascript-light');
  });

  it('enables the passkey buttons and clears the note when JavaScript runs', async () => {
    const url = await startApp();
    const { page } = await openPage(browser, keep);
    await page.goto(`${url}/auth/signin`);
    await expect.poll(() => page.getByRole('button', { name: 'Create a passkey' }).isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Sign in with Passkey' }).isEnabled()).toBe(true);
    expect(await page.locator('[data-webauthn-status]').textContent()).toBe('');
  });
});
