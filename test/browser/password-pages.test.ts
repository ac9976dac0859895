// The email and password provider's pages in headless Chromium: the sign-in page's password form, sign-up, the
// reset request, the new password of a reset link and the change of password, each scanned with axe-core and
// screenshotted in the light and the dark scheme, a label on every field, a refused value explained in words by its
// field, the whole account's life (sign-up, confirmation, reset, sign-in) without JavaScript, and the links between
// sign-in and sign-up. The app runs the runtime in-process with `Password()` and the memory adapter; the messages
// (confirmation and reset links) are caught by `sendMessage`.
import { urlencoded } from 'express';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import Password, { type PasswordMessage, type PasswordMessageKind } from '../../templates/runtime/providers/password.js';
import { SECRET, startApp } from '../runtime/helpers.js';
import { launchChromium, openPage, saveScreenshot, scanAccessibility, sessionUserOf, submitForm, violationsOf } from './helpers.js';

const GOOD = 'violet staple orbit lantern';
const OTHER_GOOD = 'quiet harbour seventeen kites';
const schemes = ['light', 'dark'] as const;
type Scheme = (typeof schemes)[number];

let browser: Browser;
let url: string;
const messages: PasswordMessage[] = [];
const cleanups: (() => Promise<void>)[] = [];
const keep = (cleanup: () => Promise<void>): void => void cleanups.push(cleanup);

beforeAll(async () => {
  browser = await launchChromium();
  const app = await startApp(
    {
      secret: SECRET,
      // Emailed links need a configured origin: the test app is reached at 127.0.0.1.
      trustHost: ['127.0.0.1', 'localhost'],
      adapter: MemoryAdapter(),
      session: { strategy: 'database' },
      providers: [Password({ sendMessage: (message) => void messages.push(message) })],
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      // Every request comes from 127.0.0.1: the per-client limits would count the whole file as one client.
      rateLimit: { credentialsPerClient: false, passwordEmailPerClient: false },
    },
    '/auth',
    (express) => express.use(urlencoded({ extended: true })),
  );
  cleanups.push(app.close);
  url = app.url;
}, 60_000);
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await browser?.close();
});

/** The newest message of `kind` to `to`, waiting for it: messages are sent just after the answer. */
async function messageTo(to: string, kind: PasswordMessageKind): Promise<PasswordMessage> {
  return vi.waitFor(
    () => {
      const found = messages.filter((message) => message.to === to && message.kind === kind).at(-1);
      if (!found) throw new Error(`no "${kind}" message to ${to} yet`);
      return found;
    },
    { timeout: 5_000 },
  );
}

/** Signs up `email` through the sign-up page: its confirmation link. */
async function signUpThroughPage(page: Page, email: string, password = GOOD): Promise<string> {
  await page.goto(`${url}/auth/signup`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await submitForm(page, 'Create account', '/auth/signup/password');
  await page.waitForURL(/\/auth\/verify-request\?/);
  return (await messageTo(email, 'verify-address')).url;
}

/** Signs up `email` through the sign-up page and confirms it through its link: the context is then signed in. */
async function signUpAndConfirm(page: Page, email: string, password = GOOD): Promise<void> {
  await confirmWithPassword(page, await signUpThroughPage(page, email, password), password);
}

/** Opens a confirmation link (a page that changes nothing) and confirms with the password chosen at sign-up. */
async function confirmWithPassword(page: Page, link: string, password: string): Promise<void> {
  await page.goto(link);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm your email address');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Confirm and sign in', exact: true }).click();
}

/** Asks for a reset link for `email` through the reset page; returns the link. */
async function requestReset(page: Page, email: string): Promise<string> {
  const before = messages.length;
  await page.goto(`${url}/auth/reset-password`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await submitForm(page, 'Send reset link', '/auth/reset-password');
  await page.waitForURL(/\/auth\/verify-request\?/);
  const link = await messageTo(email, 'reset-password');
  expect(messages.indexOf(link)).toBeGreaterThanOrEqual(before);
  return link.url;
}

/**
 * The label of every visible input, in page order; fails when an input has no `<label for=id>` (nor
 * `aria-labelledby`), or when its label is not one element.
 */
async function labelsOfInputs(page: Page): Promise<string[]> {
  const inputs = await page.locator('input:not([type=hidden]):not([hidden])').all();
  const labels: string[] = [];
  for (const input of inputs) {
    const id = await input.getAttribute('id');
    const labelledBy = await input.getAttribute('aria-labelledby');
    const label = labelledBy ? page.locator(`#${labelledBy}`) : page.locator(`label[for="${id}"]`);
    expect(id || labelledBy, `input ${await input.getAttribute('name')} has an id for its label`).toBeTruthy();
    expect(await label.count(), `input ${await input.getAttribute('name')} has one label`).toBe(1);
    labels.push((await label.textContent())?.trim() ?? '');
  }
  return labels;
}

interface PageCase {
  name: string;
  heading: string;
  status: number;
  /** The labels of the visible inputs, in order. */
  labels: string[];
  /** Whether the page needs a signed-in user. */
  signedIn?: boolean;
  /** Brings the tab to the page; returns the status of the page shown. */
  open(page: Page, account: string): Promise<number | undefined>;
}

const goto = (path: string) => async (page: Page) => (await page.goto(`${url}${path}`))?.status();

const pageCases: PageCase[] = [
  { name: 'signin', heading: 'Sign in', status: 200, labels: ['Email', 'Password'], open: goto('/auth/signin') },
  { name: 'signup', heading: 'Create an account', status: 200, labels: ['Email', 'Password', 'Name (optional)'], open: goto('/auth/signup') },
  {
    name: 'signup-refused',
    heading: 'Create an account',
    status: 400,
    labels: ['Email', 'Password', 'Name (optional)'],
    async open(page) {
      await page.goto(`${url}/auth/signup`);
      await page.getByLabel('Email', { exact: true }).fill('not an address');
      await page.getByLabel('Password', { exact: true }).fill('short');
      return (await submitForm(page, 'Create account', '/auth/signup/password')).status();
    },
  },
  { name: 'reset-request', heading: 'Reset your password', status: 200, labels: ['Email'], open: goto('/auth/reset-password') },
  {
    name: 'new-password',
    heading: 'Choose a new password',
    status: 200,
    labels: ['New password'],
    async open(page, account) {
      return (await page.goto(await requestReset(page, account)))?.status();
    },
  },
  {
    name: 'confirm-address',
    heading: 'Confirm your email address',
    status: 200,
    labels: ['Password', 'New password'],
    async open(page, account) {
      return (await page.goto(await signUpThroughPage(page, `confirm-${account}`)))?.status();
    },
  },
  { name: 'reauth', heading: 'Confirm it is you', status: 200, labels: ['Email', 'Password'], signedIn: true, open: goto('/auth/reauth') },
  { name: 'change-password', heading: 'Change your password', status: 200, labels: ['Current password', 'New password'], signedIn: true, open: goto('/auth/password') },
  {
    name: 'change-password-refused',
    heading: 'Change your password',
    status: 400,
    labels: ['Current password', 'New password'],
    signedIn: true,
    async open(page) {
      await page.goto(`${url}/auth/password`);
      await page.getByLabel('Current password', { exact: true }).fill('not the password at all');
      await page.getByLabel('New password', { exact: true }).fill(OTHER_GOOD);
      return (await submitForm(page, 'Change password', '/auth/password')).status();
    },
  },
];

describe('each password page in both colour schemes', () => {
  // Per scheme: a signed-out tab, and a tab signed in as that scheme's confirmed account.
  const tabs = new Map<string, Page>();
  const account = (scheme: Scheme) => `pages-${scheme}@example.test`;

  beforeAll(async () => {
    for (const scheme of schemes) {
      tabs.set(`${scheme}-visitor`, (await openPage(browser, keep, { colorScheme: scheme })).page);
      const { context, page } = await openPage(browser, keep, { colorScheme: scheme });
      await signUpAndConfirm(page, account(scheme));
      expect(await sessionUserOf(context, url)).toMatchObject({ email: account(scheme) });
      tabs.set(`${scheme}-member`, page);
    }
  });

  const cases = schemes.flatMap((scheme) => pageCases.map((pageCase) => ({ ...pageCase, scheme })));

  it.each(cases)('$name in $scheme: no axe-core violations, a label on every input', async ({ name, heading, status, labels, signedIn, open, scheme }) => {
    const page = tabs.get(`${scheme}-${signedIn ? 'member' : 'visitor'}`)!;
    expect(await open(page, account(scheme))).toBe(status);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(heading);
    const png = await saveScreenshot(page, `password-${name}-${scheme}`);
    expect(png.length).toBeGreaterThan(5_000);

    const results = await scanAccessibility(page);
    expect(results.passes.length, 'axe ran its checks').toBeGreaterThan(10);
    expect(violationsOf(results)).toEqual([]);
    // Moderate and minor findings are not allowed either, as for the other built-in pages (pages.test.ts).
    expect(violationsOf(results, ['moderate', 'minor'])).toEqual([]);

    expect(await labelsOfInputs(page)).toEqual(labels);
    for (const label of labels) expect(await page.getByLabel(label, { exact: true }).count(), `one input labelled "${label}"`).toBe(1);
  });
});

describe('a refused value', () => {
  it('is said in words right below its field, linked with aria-describedby, with status 400', async () => {
    const { page } = await openPage(browser, keep);
    await page.goto(`${url}/auth/signup`);
    await page.getByLabel('Email', { exact: true }).fill('short-password@example.test');
    await page.getByLabel('Password', { exact: true }).fill('short');
    const response = await submitForm(page, 'Create account', '/auth/signup/password');
    expect(response.status()).toBe(400);

    const password = page.getByLabel('Password', { exact: true });
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    // The typed password is not sent back; the address is.
    expect(await password.inputValue()).toBe('');
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe('short-password@example.test');
    expect(await page.getByLabel('Email', { exact: true }).getAttribute('aria-invalid')).toBeNull();

    const described = (await password.getAttribute('aria-describedby'))?.split(' ') ?? [];
    const texts = await Promise.all(described.map((id) => page.locator(`#${id}`).textContent()));
    expect(texts).toContain('Use at least 15 characters.');

    // Below the password field, above the next field's label.
    const error = page.locator(`#${described.find((id) => id.endsWith('-error'))}`);
    const field = (await password.boundingBox())!;
    const below = (await error.boundingBox())!;
    const nextLabel = (await page.getByText('Name (optional)', { exact: true }).boundingBox())!;
    expect(below.y).toBeGreaterThanOrEqual(field.y + field.height);
    expect(below.y + below.height).toBeLessThanOrEqual(nextLabel.y);
    await saveScreenshot(page, 'password-signup-short-password-light');
  });
});

describe('without JavaScript', () => {
  it('signs up, confirms the address, resets the password and signs in with the new one', async () => {
    const email = 'no-script@example.test';
    const { context, page } = await openPage(browser, keep, { javaScriptEnabled: false });

    // Sign-up: "Check your email", and nobody is signed in yet.
    await page.goto(`${url}/auth/signup?callbackUrl=%2Fme`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(GOOD);
    await page.getByLabel('Name (optional)', { exact: true }).fill('Nadia');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${url}/auth/verify-request?provider=password&type=credentials`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Check your email');
    expect(await sessionUserOf(context, url)).toBeNull();

    // The confirmation link's page, with the sign-up's password, signs in and goes on to the page the sign-up came from.
    await confirmWithPassword(page, (await messageTo(email, 'verify-address')).url, GOOD);
    await page.waitForURL(`${url}/me`);
    expect(JSON.parse((await page.textContent('body')) ?? '')).toMatchObject({ user: { email, name: 'Nadia' } });
    expect(await sessionUserOf(context, url)).toMatchObject({ email, name: 'Nadia' });

    // A reset: the link's form sets the new password, ends the sessions and leads to the sign-in page.
    const link = await requestReset(page, email);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Check your email');
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill(OTHER_GOOD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL((address) => address.pathname === '/auth/signin');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
    expect(await sessionUserOf(context, url)).toBeNull();

    // The old password no longer signs in; the new one does.
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(GOOD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${url}/auth/signin?error=CredentialsSignin&code=credentials`);
    expect(await sessionUserOf(context, url)).toBeNull();

    await page.goto(`${url}/auth/signin?callbackUrl=%2Fme`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(OTHER_GOOD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${url}/me`);
    expect(JSON.parse((await page.textContent('body')) ?? '')).toMatchObject({ user: { email } });
    expect(await sessionUserOf(context, url)).toMatchObject({ email, name: 'Nadia' });
  });
});

describe('the links between the pages', () => {
  it('goes from sign-in to sign-up and back', async () => {
    const { page } = await openPage(browser, keep);
    await page.goto(`${url}/auth/signin`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.waitForURL(`${url}/auth/signup`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Create an account');

    // The link keeps the callbackUrl the sign-in page was given (here the default, the app's root).
    await page.getByRole('link', { name: 'Already have an account? Sign in' }).click();
    await page.waitForURL((address) => address.pathname === '/auth/signin');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
  });

  it('goes from sign-in to the reset request and back', async () => {
    const { page } = await openPage(browser, keep);
    await page.goto(`${url}/auth/signin`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(`${url}/auth/reset-password`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Reset your password');

    await page.getByRole('link', { name: 'Back to sign in' }).click();
    await page.waitForURL(`${url}/auth/signin`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
  });
});
