// The two-factor (TOTP) pages in headless Chromium: turning two-factor on (the QR code as inline SVG, the secret read
// from the page, a code computed from it, the recovery codes read from the page), then signing in with the password
// and a code, and with a recovery code. Every page (off, setting up, recovery codes, managing, the code form and the
// code form after a wrong code) is scanned with axe-core and screenshotted in the light and the dark scheme, with a
// label on every field; and the password → code → signed-in path works without JavaScript. The app runs the runtime
// in-process with `Password()`, `TwoFactor()` on the real clock and the memory adapter, reached at 127.0.0.1 only.
import { urlencoded } from 'express';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import type { Adapter } from '../../templates/runtime/index.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import { TwoFactor } from '../../templates/runtime/features/two-factor/index.js';
import { TOTP_PERIOD, TOTP_WINDOW, base32Decode, totpCode, totpStep } from '../../templates/runtime/features/two-factor/totp.js';
import Password from '../../templates/runtime/providers/password.js';
import { SECRET, startApp } from '../runtime/helpers.js';
import { launchChromium, openPage, saveScreenshot, scanAccessibility, sessionUserOf, submitForm, violationsOf } from './helpers.js';

const PASSWORD = 'violet staple orbit lantern';
const schemes = ['light', 'dark'] as const;
type Scheme = (typeof schemes)[number];

let browser: Browser;
let url: string;
let adapter: Required<Adapter>;
const cleanups: (() => Promise<void>)[] = [];
const keep = (cleanup: () => Promise<void>): void => void cleanups.push(cleanup);

beforeAll(async () => {
  browser = await launchChromium();
  adapter = MemoryAdapter() as Required<Adapter>;
  const app = await startApp(
    {
      secret: SECRET,
      trustHost: ['127.0.0.1'],
      adapter,
      providers: [Password({ sendMessage: () => {} })],
      // The real clock: the codes are computed by the test as an authenticator app would.
      features: [TwoFactor({ issuer: 'Test App' })],
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

/** A confirmed user with a password, made through the adapter. */
async function createUser(email: string): Promise<void> {
  const created = await adapter.createUser({ id: crypto.randomUUID(), email, emailVerified: new Date() });
  await adapter.setPasswordHash(created.id, await hashPassword(PASSWORD));
}

/** Signs in on the sign-in page's password form, coming back to /me. */
async function signInWithPassword(page: Page, email: string): Promise<Response> {
  await page.goto(`${url}/auth/signin?callbackUrl=%2Fme`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  return submitForm(page, 'Sign in', '/auth/callback/password');
}

/** Signs out through the sign-out page's form (POST /auth/signout). */
async function signOut(page: Page): Promise<void> {
  await page.goto(`${url}/auth/signout`);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign out');
  const response = await submitForm(page, 'Sign out', '/auth/signout');
  expect(response.status()).toBe(302);
}

/**
 * The TOTP steps a user's app has used: each step is accepted once per user, so every code is of a later step than the
 * last one, within the ±1-step window around now (waiting for the clock only when no step of the window is left).
 */
class Authenticator {
  private lastStep = -Infinity;
  constructor(readonly secret: string) {}

  async nextCode(): Promise<string> {
    for (;;) {
      const current = totpStep(Date.now());
      const step = Math.max(this.lastStep + 1, current - TOTP_WINDOW + 1);
      if (step <= current + TOTP_WINDOW) {
        this.lastStep = step;
        return totpCode(base32Decode(this.secret), step);
      }
      await new Promise((resolve) => setTimeout(resolve, (current + 1) * TOTP_PERIOD * 1000 - Date.now() + 50));
    }
  }

  /** Six digits that are the code of no step near now. */
  wrongCode(): string {
    const near = new Set([-2, -1, 0, 1, 2].map((offset) => totpCode(base32Decode(this.secret), totpStep(Date.now()) + offset)));
    return ['000000', '123456', '999999', '424242'].find((candidate) => !near.has(candidate))!;
  }
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

/** The page as shown: its h1, a screenshot, no axe-core violations at any impact, and the labels of its inputs. */
async function checkPage(page: Page, name: string, scheme: Scheme, expected: { heading: string; labels: string[] }): Promise<void> {
  expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), 'the colour scheme is emulated').toBe(scheme === 'dark');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(expected.heading);
  const png = await saveScreenshot(page, `two-factor-${name}-${scheme}`);
  expect(png.length).toBeGreaterThan(5_000);

  const results = await scanAccessibility(page);
  expect(results.passes.length, 'axe ran its checks').toBeGreaterThan(10);
  expect(violationsOf(results), `${name} in ${scheme}`).toEqual([]);
  expect(violationsOf(results, ['moderate', 'minor']), `${name} in ${scheme}`).toEqual([]);

  expect(await labelsOfInputs(page)).toEqual(expected.labels);
}

const CODE_FORM_LABELS = ['Authentication code', 'Recovery code'];

describe.each(schemes)('two-factor in the browser (%s scheme)', (scheme) => {
  const email = `two-factor-${scheme}@example.test`;
  let context: BrowserContext;
  let page: Page;
  let app: Authenticator;
  let recoveryCodes: string[] = [];

  beforeAll(async () => {
    await createUser(email);
    ({ context, page } = await openPage(browser, keep, { colorScheme: scheme }));
  });

  it('signs in with the password and shows two-factor as off', async () => {
    const response = await signInWithPassword(page, email);
    expect(response.status()).toBe(302);
    await page.waitForURL(`${url}/me`);
    expect(await sessionUserOf(context, url)).toMatchObject({ email });

    const off = await page.goto(`${url}/auth/two-factor`);
    expect(off?.status()).toBe(200);
    expect(await page.getByText(/^Two-factor authentication is off\./).count()).toBe(1);
    await checkPage(page, 'off', scheme, { heading: 'Two-factor authentication', labels: [] });
  });

  it('sets up: a QR code as inline SVG and the secret on the page; a code from that secret turns it on and shows 10 recovery codes', async () => {
    const enroll = await submitForm(page, 'Set up two-factor authentication', '/auth/two-factor');
    expect(enroll.status()).toBe(200);

    const qr = page.locator('svg[role=img]');
    expect(await qr.count()).toBe(1);
    const qrName = await qr.getAttribute('aria-label');
    expect(qrName).toBeTruthy();
    expect(await page.getByRole('img', { name: qrName!, exact: true }).isVisible()).toBe(true);
    const box = (await qr.boundingBox())!;
    expect(box.width).toBeGreaterThanOrEqual(150);
    expect(await qr.locator('path, rect').count()).toBeGreaterThan(0);

    const secret = ((await page.locator('#two-factor-secret').textContent()) ?? '').replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    app = new Authenticator(secret);
    await checkPage(page, 'enroll', scheme, { heading: 'Set up two-factor authentication', labels: ['Authentication code'] });

    await page.getByLabel('Authentication code', { exact: true }).fill(await app.nextCode());
    const enabled = await submitForm(page, 'Turn on', '/auth/two-factor');
    expect(enabled.status()).toBe(200);
    expect(await page.getByRole('status').textContent()).toBe('Two-factor authentication is on.');
    recoveryCodes = (await page.locator('ul.recovery-codes li').allTextContents()).map((code) => code.trim());
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect(new Set(recoveryCodes).size).toBe(10);
    await checkPage(page, 'recovery-codes', scheme, { heading: 'Save your recovery codes', labels: [] });
  });

  it('manages two-factor once it is on: the recovery codes left, the forms for new codes and for turning off', async () => {
    await page.getByRole('link', { name: 'Done' }).click();
    await page.waitForURL(`${url}/auth/two-factor`);
    expect(await page.getByText('Two-factor authentication is on. You have 10 unused recovery codes.').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Make new recovery codes' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Turn off with a code' }).count()).toBe(1);
    await checkPage(page, 'manage', scheme, { heading: 'Two-factor authentication', labels: ['Authentication code', 'Authentication code', 'Recovery code'] });
  });

  it('after the password asks for a code (no session yet); a wrong code is refused by its field; a right code signs in', async () => {
    await signOut(page);
    expect(await sessionUserOf(context, url)).toBeNull();

    const password = await signInWithPassword(page, email);
    expect(password.status()).toBe(302);
    expect(password.headers().location).toBe(`${url}/auth/two-factor`);
    await page.waitForURL(`${url}/auth/two-factor`);
    expect(await sessionUserOf(context, url)).toBeNull();
    expect(await page.getByRole('button', { name: 'Verify', exact: true }).count()).toBe(1);
    await checkPage(page, 'code', scheme, { heading: 'Two-factor authentication', labels: CODE_FORM_LABELS });

    // A wrong code: 400, the same form, the reason in words right below the field and named by aria-describedby.
    const field = page.getByLabel('Authentication code', { exact: true });
    await field.fill(app.wrongCode());
    const refused = await submitForm(page, 'Verify', '/auth/two-factor');
    expect(refused.status()).toBe(400);
    expect(await sessionUserOf(context, url)).toBeNull();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Recovery code', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    const described = (await field.getAttribute('aria-describedby'))?.split(' ') ?? [];
    const texts = await Promise.all(described.map((id) => page.locator(`#${id}`).textContent()));
    expect(texts).toContain('That code is not right, or was used already. Wait for the next one and try again.');
    const error = page.locator(`#${described.find((id) => id.endsWith('-error'))}`);
    expect(await error.isVisible()).toBe(true);
    const input = (await field.boundingBox())!;
    const below = (await error.boundingBox())!;
    const button = (await page.getByRole('button', { name: 'Verify', exact: true }).boundingBox())!;
    expect(below.y).toBeGreaterThanOrEqual(input.y + input.height);
    expect(below.y + below.height).toBeLessThanOrEqual(button.y);
    await checkPage(page, 'code-refused', scheme, { heading: 'Two-factor authentication', labels: CODE_FORM_LABELS });

    // The right code finishes this same pending sign-in and goes on to the callbackUrl.
    await field.fill(await app.nextCode());
    const done = await submitForm(page, 'Verify', '/auth/two-factor');
    expect(done.status()).toBe(302);
    await page.waitForURL(`${url}/me`);
    expect(JSON.parse((await page.textContent('body')) ?? '')).toMatchObject({ user: { email } });
    expect(await sessionUserOf(context, url)).toMatchObject({ email });
  });

  it('signs in with a recovery code read from the page; the manage page then counts one fewer', async () => {
    await signOut(page);
    expect(await sessionUserOf(context, url)).toBeNull();
    await signInWithPassword(page, email);
    await page.waitForURL(`${url}/auth/two-factor`);
    expect(await sessionUserOf(context, url)).toBeNull();

    await page.getByLabel('Recovery code', { exact: true }).fill(recoveryCodes[3]!);
    const done = await submitForm(page, 'Use recovery code', '/auth/two-factor');
    expect(done.status()).toBe(302);
    await page.waitForURL(`${url}/me`);
    expect(await sessionUserOf(context, url)).toMatchObject({ email });

    await page.goto(`${url}/auth/two-factor`);
    expect(await page.getByText('Two-factor authentication is on. You have 9 unused recovery codes.').count()).toBe(1);
  });
});

describe('without JavaScript', () => {
  it('turns two-factor on, then signs in with the password and a code', async () => {
    const email = 'two-factor-no-script@example.test';
    await createUser(email);
    const { context, page } = await openPage(browser, keep, { javaScriptEnabled: false });

    await signInWithPassword(page, email);
    await page.waitForURL(`${url}/me`);
    await page.goto(`${url}/auth/two-factor`);
    await submitForm(page, 'Set up two-factor authentication', '/auth/two-factor');
    const app = new Authenticator(((await page.locator('#two-factor-secret').textContent()) ?? '').replace(/\s/g, ''));
    await page.getByLabel('Authentication code', { exact: true }).fill(await app.nextCode());
    expect((await submitForm(page, 'Turn on', '/auth/two-factor')).status()).toBe(200);
    expect(await page.locator('ul.recovery-codes li').count()).toBe(10);

    await signOut(page);
    expect(await sessionUserOf(context, url)).toBeNull();

    // No script: the password form posts, the redirect shows the code form, and its form posts the code.
    await page.goto(`${url}/auth/signin?callbackUrl=%2Fme`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${url}/auth/two-factor`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Two-factor authentication');
    expect(await sessionUserOf(context, url)).toBeNull();

    await page.getByLabel('Authentication code', { exact: true }).fill(await app.nextCode());
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.waitForURL(`${url}/me`);
    expect(JSON.parse((await page.textContent('body')) ?? '')).toMatchObject({ user: { email } });
    expect(await sessionUserOf(context, url)).toMatchObject({ email });
  });
});
