// The organizations' pages (features/organizations/pages.ts) in headless Chromium: the organizations page, an
// owner's organization page and the invitation's page (as the invited user, another user, signed out, and no longer
// valid), each also with refused forms, rendered from sample data and served by a small Express app under the
// built-in pages' Content-Security-Policy. Each is scanned with axe-core and screenshotted in the light and the dark
// scheme, with one label on every field; and the invitation's buttons POST to the page's own address (the link's
// token is not in the page), which the policy's form-action allows.
import express, { urlencoded } from 'express';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Theme } from '../../templates/runtime/contracts.js';
import { renderInvitationPage, renderOrganizationPage, renderOrganizationsPage } from '../../templates/runtime/features/organizations/pages.js';
import { pageContentSecurityPolicy } from '../../templates/runtime/pages/csp.js';
import { listen } from '../support/listen.js';
import { CSRF, TOKEN, invitationPage, listPage, organizationPage } from '../support/organization-pages.js';
import { labelsOfFields, launchChromium, openPage, saveScreenshot, scanAccessibility, violationsOf } from './helpers.js';

const schemes = ['light', 'dark'] as const;
type Scheme = (typeof schemes)[number];

/** Each page by its path below /auth, rendered in a theme, with its heading and the labels of its fields in order. */
const pages: readonly { name: string; path: string; heading: string; labels: string[]; render(theme: Theme): string }[] = [
  { name: 'organizations', path: '/organizations', heading: 'Your organizations', labels: ['Name', 'Address (optional)'], render: (theme) => renderOrganizationsPage(listPage({ theme, notice: 'Switched to Beta.' })) },
  {
    name: 'organizations-refused',
    path: '/organizations',
    heading: 'Your organizations',
    labels: ['Name', 'Address (optional)'],
    render: (theme) => renderOrganizationsPage(listPage({ theme, errors: { slug: 'The address "acme" is taken.', name: 'Name it.' }, sent: { action: 'create', name: '', slug: 'acme' } })),
  },
  {
    name: 'organization',
    path: '/organizations/acme',
    heading: 'Acme <script>alert(1)</script>',
    labels: ['Role of <img src=x onerror=alert(1)>', 'Role of mia@example.test', 'Email address', 'Role', 'Name', 'Type acme to confirm'],
    render: (theme) => renderOrganizationPage(organizationPage({ theme, notice: 'The invitation is sent.' })),
  },
  {
    name: 'organization-refused',
    path: '/organizations/acme',
    heading: 'Acme <script>alert(1)</script>',
    labels: ['Role of <img src=x onerror=alert(1)>', 'Role of mia@example.test', 'Email address', 'Role', 'Name', 'Type acme to confirm'],
    render: (theme) =>
      renderOrganizationPage(organizationPage({ theme, errors: { email: 'Enter an email address.', role: 'You may not give "owner".' }, sent: { action: 'invite', email: 'not-an-address', role: 'owner' } })),
  },
  { name: 'invitation', path: `/organizations/invitations/${TOKEN}`, heading: 'Join Acme <script>alert(1)</script>', labels: [], render: (theme) => renderInvitationPage(invitationPage({ theme })) },
  {
    name: 'invitation-refused',
    path: `/organizations/invitations/${TOKEN}`,
    heading: 'Join Acme <script>alert(1)</script>',
    labels: [],
    render: (theme) => renderInvitationPage(invitationPage({ theme, error: 'The organization has as many members as it may.' })),
  },
  {
    name: 'invitation-other-user',
    path: `/organizations/invitations/${TOKEN}`,
    heading: 'Join Acme <script>alert(1)</script>',
    labels: [],
    render: (theme) => renderInvitationPage(invitationPage({ theme, signedIn: { email: 'someone@example.test', matches: false } })),
  },
  { name: 'invitation-signed-out', path: `/organizations/invitations/${TOKEN}`, heading: 'Join Acme <script>alert(1)</script>', labels: [], render: (theme) => renderInvitationPage(invitationPage({ theme, signedIn: null })) },
  { name: 'invitation-invalid', path: '/organizations/invitations/unknown', heading: 'Invitation', labels: [], render: (theme) => renderInvitationPage(invitationPage({ theme, invitation: null })) },
];

let browser: Browser;
let url: string;
const cleanups: (() => Promise<void>)[] = [];
const keep = (cleanup: () => Promise<void>): void => void cleanups.push(cleanup);
/** The invitation's POSTs as the app received them: path and action. */
const posted: { path: string; action: unknown }[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  const app = express();
  app.use(urlencoded({ extended: true }));
  // The page `?page=` names, in the scheme `?scheme=` names, under the pages' policy, at the path it has in the app.
  app.get('/auth/*splat', (req, res) => {
    const page = pages.find((candidate) => candidate.name === req.query['page'] && `/auth${candidate.path}` === req.path);
    if (!page) return void res.status(404).send('not found');
    res.setHeader('Content-Security-Policy', pageContentSecurityPolicy("'self'"));
    res.type('html').send(page.render({ colorScheme: req.query['scheme'] === 'dark' ? 'dark' : 'light' }));
  });
  app.post('/auth/organizations/invitations/:token', (req, res) => {
    posted.push({ path: req.path, action: (req.body as Record<string, unknown>)['action'] });
    res.type('text').send('answered');
  });
  const running = await listen(app);
  cleanups.push(running.close);
  url = running.url;
}, 60_000);
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await browser?.close();
});

/** The address of a page in a scheme. */
function pageUrl(page: (typeof pages)[number], scheme: Scheme): string {
  return `${url}/auth${page.path}?page=${page.name}&scheme=${scheme}`;
}

describe.each(schemes)("the organizations' pages (%s scheme)", (scheme) => {
  it.each(pages.map((page) => [page.name, page] as const))('%s: no axe-core violations, a label on every field', async (name, expected) => {
    const { page } = await openPage(browser, keep, { colorScheme: scheme });
    const response = await page.goto(pageUrl(expected, scheme));
    expect(response?.status()).toBe(200);
    expect(await page.evaluate(() => document.documentElement.dataset['theme'])).toBe(scheme);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(expected.heading);
    const png = await saveScreenshot(page, `organizations-${name}-${scheme}`);
    expect(png.length).toBeGreaterThan(5_000);

    const results = await scanAccessibility(page);
    expect(results.passes.length, 'axe ran its checks').toBeGreaterThan(10);
    expect(violationsOf(results), `${name} in ${scheme}`).toEqual([]);
    expect(violationsOf(results, ['moderate', 'minor']), `${name} in ${scheme}`).toEqual([]);

    expect(await labelsOfFields(page)).toEqual(expected.labels);
  });
});

describe("the invitation's page in the browser", () => {
  it('posts Accept and Decline, without JavaScript, to its own address (the token only in the URL) with the CSRF token', async () => {
    const { page } = await openPage(browser, keep, { javaScriptEnabled: false });
    const invited = pages.find((candidate) => candidate.name === 'invitation')!;
    for (const [button, action] of [['Accept invitation', 'accept'], ['Decline', 'decline']] as const) {
      await page.goto(pageUrl(invited, 'light'));
      expect(await page.content()).not.toContain(TOKEN);
      const [request] = await Promise.all([page.waitForRequest((candidate) => candidate.method() === 'POST'), page.getByRole('button', { name: button, exact: true }).click()]);
      expect(new URL(request.url()).pathname).toBe(`/auth/organizations/invitations/${TOKEN}`);
      expect(new URLSearchParams(request.postData() ?? '').get('csrfToken')).toBe(CSRF);
      await page.waitForLoadState();
      expect(await page.textContent('body')).toBe('answered');
      expect(posted.at(-1)).toEqual({ path: `/auth/organizations/invitations/${TOKEN}`, action });
    }
  });
});
