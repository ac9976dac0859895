// The administration's pages (features/admin/pages.ts) in headless Chromium: the users' list, a user's page, the same
// page with a refused field and a disabled user's page, rendered from sample data and served by a small Express app
// under the built-in pages' Content-Security-Policy; and the impersonation's banner on a page of the runtime (the
// account page of an app with Admin(), its session an admin's impersonation). Each is scanned with axe-core and
// screenshotted in the light and the dark scheme, with one label on every field; the search and an action's form
// work without JavaScript.
import express, { urlencoded } from 'express';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import type { Theme } from '../../templates/runtime/contracts.js';
import { Account } from '../../templates/runtime/features/account/index.js';
import { Admin } from '../../templates/runtime/features/admin/index.js';
import { renderUserListPage, renderUserPage } from '../../templates/runtime/features/admin/pages.js';
import { impersonationToken } from '../../templates/runtime/features/admin/impersonation.js';
import { newSessionToken } from '../../templates/runtime/features/database/session-token.js';
import type { Adapter } from '../../templates/runtime/index.js';
import { pageContentSecurityPolicy } from '../../templates/runtime/pages/csp.js';
import Password from '../../templates/runtime/providers/password.js';
import { SECRET, startApp } from '../runtime/helpers.js';
import { CSRF, userListPage, userPage } from '../support/admin-pages.js';
import { listen } from '../support/listen.js';
import { labelsOfFields, launchChromium, openPage, saveScreenshot, scanAccessibility, submitForm, violationsOf } from './helpers.js';

const schemes = ['light', 'dark'] as const;
type Scheme = (typeof schemes)[number];

const userLabels = ['Reason', 'Reason', 'Type mia@example.test to confirm'];

/** Each page by its path below /auth, rendered in a theme, with its heading and the labels of its fields in order. */
const pages: readonly { name: string; path: string; heading: string; labels: string[]; render(theme: Theme): string }[] = [
  { name: 'users', path: '/admin', heading: 'Users', labels: ['Search by address or name'], render: (theme) => renderUserListPage(userListPage({ theme, query: 'example', page: 2, pages: 3, total: 53, notice: 'The user was deleted.' })) },
  { name: 'user', path: '/admin/users/user-1', heading: 'Mia <b>Member</b>', labels: userLabels, render: (theme) => renderUserPage(userPage({ theme, notice: 'Every session of the user ended.' })) },
  {
    name: 'user-refused',
    path: '/admin/users/user-1',
    heading: 'Mia <b>Member</b>',
    labels: userLabels,
    render: (theme) => renderUserPage(userPage({ theme, errors: { reason: 'Say why you act as this user: it is recorded.' }, refusedAction: 'impersonate' })),
  },
  {
    name: 'user-disabled',
    path: '/admin/users/user-1',
    heading: 'Mia <b>Member</b>',
    labels: ['Type mia@example.test to confirm'],
    render: (theme) =>
      renderUserPage(
        userPage({
          theme,
          state: { createdAt: null, disabledAt: new Date('2026-02-05T08:30:00Z'), disabledReason: 'Spam', granted: false, configured: false },
          sessions: [],
          may: { disable: false, enable: true, endSessions: false, removeTwoFactor: true, removePasskey: true, sendReset: true, grantAdmin: true, revokeAdmin: false, impersonate: false, delete: true },
          errors: { form: 'There must always be one admin.' },
          refusedAction: 'grant-admin',
        }),
      ),
  },
];

let browser: Browser;
let url: string;
/** The app with Admin() and Account() whose pages show the impersonation's banner. */
let appUrl: string;
let adapter: Required<Adapter>;
const cleanups: (() => Promise<void>)[] = [];
const keep = (cleanup: () => Promise<void>): void => void cleanups.push(cleanup);
/** The forms' requests as the app received them: method, path and fields. */
const received: { method: string; path: string; fields: Record<string, unknown> }[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  const app = express();
  app.use(urlencoded({ extended: true }));
  // The page `?page=` names, in the scheme `?scheme=` names, under the pages' policy, at the path it has in the app.
  app.get('/auth/*splat', (req, res) => {
    const page = pages.find((candidate) => candidate.name === req.query['page'] && `/auth${candidate.path}` === req.path);
    if (!page) {
      received.push({ method: 'GET', path: req.path, fields: { ...req.query } });
      return void res.type('text').send('answered');
    }
    res.setHeader('Content-Security-Policy', pageContentSecurityPolicy("'self'"));
    res.type('html').send(page.render({ colorScheme: req.query['scheme'] === 'dark' ? 'dark' : 'light' }));
  });
  app.post('/auth/*splat', (req, res) => {
    received.push({ method: 'POST', path: req.path, fields: req.body as Record<string, unknown> });
    res.type('text').send('answered');
  });
  const running = await listen(app);
  cleanups.push(running.close);
  url = running.url;

  adapter = MemoryAdapter() as Required<Adapter>;
  const runtime = await startApp(
    {
      secret: SECRET,
      trustHost: ['127.0.0.1'],
      adapter,
      providers: [Password({ sendMessage: () => {} })],
      features: [Admin({ admins: ['ada-admin@example.test'], sendMessage: () => {} }, {}), Account({ sendMessage: () => {} }, {})],
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
    },
    '/auth',
    (server) => server.use(urlencoded({ extended: true })),
  );
  cleanups.push(runtime.close);
  appUrl = runtime.url;
}, 60_000);
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await browser?.close();
});

/** The address of a page in a scheme. */
function pageUrl(page: (typeof pages)[number], scheme: Scheme): string {
  return `${url}/auth${page.path}?page=${page.name}&scheme=${scheme}`;
}

/** Scans the open page with axe-core: no violation at any impact. */
async function expectAccessible(page: Page, name: string): Promise<void> {
  const results = await scanAccessibility(page);
  expect(results.passes.length, 'axe ran its checks').toBeGreaterThan(10);
  expect(violationsOf(results), name).toEqual([]);
  expect(violationsOf(results, ['moderate', 'minor']), name).toEqual([]);
}

describe.each(schemes)("the administration's pages (%s scheme)", (scheme) => {
  it.each(pages.map((page) => [page.name, page] as const))('%s: no axe-core violations, a label on every field', async (name, expected) => {
    const { page } = await openPage(browser, keep, { colorScheme: scheme });
    const response = await page.goto(pageUrl(expected, scheme));
    expect(response?.status()).toBe(200);
    expect(await page.evaluate(() => document.documentElement.dataset['theme'])).toBe(scheme);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(expected.heading);
    const png = await saveScreenshot(page, `admin-${name}-${scheme}`);
    expect(png.length).toBeGreaterThan(5_000);
    await expectAccessible(page, `${name} in ${scheme}`);
    expect(await labelsOfFields(page)).toEqual(expected.labels);
  });
});

describe("the administration's pages in the browser, without JavaScript", () => {
  it('searches with a GET to the list, the words in `q`', async () => {
    const { page } = await openPage(browser, keep, { javaScriptEnabled: false });
    await page.goto(pageUrl(pages[0]!, 'light'));
    await page.getByLabel('Search by address or name').fill('mia & co');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForLoadState();
    expect(await page.textContent('body')).toBe('answered');
    expect(received.at(-1)).toEqual({ method: 'GET', path: '/auth/admin', fields: { q: 'mia & co' } });
  });

  it('posts an action with its reason and the CSRF token to the user’s page', async () => {
    const { page } = await openPage(browser, keep, { javaScriptEnabled: false });
    await page.goto(pageUrl(pages[1]!, 'light'));
    await page.locator('#admin-disable-reason').fill('Sends spam');
    await page.getByRole('button', { name: 'Disable this user', exact: true }).click();
    await page.waitForLoadState();
    expect(await page.textContent('body')).toBe('answered');
    expect(received.at(-1)).toEqual({ method: 'POST', path: '/auth/admin/users/user-1', fields: { csrfToken: CSRF, action: 'disable', reason: 'Sends spam' } });
  });

  it('does not post an impersonation without its reason (the field is required)', async () => {
    const { page } = await openPage(browser, keep, { javaScriptEnabled: false });
    await page.goto(pageUrl(pages[1]!, 'light'));
    const before = received.length;
    await page.getByRole('button', { name: 'Act as this user', exact: true }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Mia <b>Member</b>');
    expect(received.length).toBe(before);
  });
});

let impersonations = 0;
/**
 * An admin (with two-factor, signed in: their own session row) acting as a new user: the browser's cookie is the
 * impersonation's session, as `startImpersonation` leaves it. Resolves the user's id.
 */
async function actAsUser(page: Page): Promise<string> {
  impersonations += 1;
  const admin = (await adapter.getUserByEmail('ada-admin@example.test')) ?? (await adapter.createUser({ id: crypto.randomUUID(), email: 'ada-admin@example.test', name: 'Ada Admin', emailVerified: new Date() }));
  await adapter.setTwoFactor(admin.id, { secret: 'unused-in-these-tests', enabledAt: new Date() });
  const expires = new Date(Date.now() + 30 * 60_000);
  const adminSessionToken = newSessionToken(`admin-own-${impersonations}`, new Date());
  await adapter.createSession({ sessionToken: adminSessionToken, userId: admin.id, expires, createdAt: new Date() });
  const user = await adapter.createUser({ id: crypto.randomUUID(), email: `bea-${impersonations}@example.test`, name: 'Bea Member', emailVerified: new Date() });
  const sessionToken = impersonationToken(`acting-${impersonations}`, expires);
  await adapter.createImpersonationSession({ session: { sessionToken, userId: user.id, expires, createdAt: new Date(), userAgent: null }, adminId: admin.id, adminSessionToken });
  await page.context().addCookies([{ name: 'authjs.session-token', value: sessionToken, url: appUrl }]);
  return user.id;
}

/** The runtime's pages an impersonated user may open, with their headings. */
const runtimePages = [
  { path: '/account', heading: 'Your account' },
  { path: '/sessions', heading: 'Your sessions' },
] as const;

describe.each(schemes)('the impersonation banner on the runtime’s pages (%s scheme)', (scheme) => {
  it.each(runtimePages.map((page) => [page.path, page] as const))('%s: the banner first, with its stop button; no axe-core violations', async (path, expected) => {
    const { page } = await openPage(browser, keep, { colorScheme: scheme });
    await actAsUser(page);
    const response = await page.goto(`${appUrl}/auth${path}`);
    expect(response?.status()).toBe(200);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(expected.heading);
    const banner = page.getByRole('banner');
    expect(await banner.textContent()).toContain('An administrator is acting as this user');
    expect(await banner.getByRole('button', { name: 'Stop acting as this user' }).isVisible()).toBe(true);
    // Above the page's card, not beside it.
    const [bannerBox, cardBox] = [await banner.boundingBox(), await page.locator('.card').boundingBox()];
    expect(bannerBox!.y + bannerBox!.height).toBeLessThanOrEqual(cardBox!.y);
    await saveScreenshot(page, `admin-banner${path.replace('/', '-')}-${scheme}`);
    await expectAccessible(page, `${path} with the banner in ${scheme}`);
  });
});

describe('the impersonation banner in the browser', () => {
  it('stops acting as the user without JavaScript: the admin’s own session is back, on the user’s admin page', async () => {
    const { page } = await openPage(browser, keep, { javaScriptEnabled: false });
    const userId = await actAsUser(page);
    await page.goto(`${appUrl}/auth/account`);
    const response = await submitForm(page, 'Stop acting as this user', '/auth/admin/stop-impersonating');
    expect(response.status()).toBe(302);
    expect(new URL(page.url()).pathname).toBe(`/auth/admin/users/${userId}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Bea Member');
    expect(await page.getByRole('banner').count()).toBe(0);
  });
});
