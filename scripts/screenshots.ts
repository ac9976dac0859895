// `npm run docs:images`: screenshots of the runtime's real built-in pages for the README, written to docs/images/.
// Apps configured as a user's scaffold would be (Acme SSO through OpenID Connect, GitHub, Google, an email and
// password form, a magic link; the MemoryAdapter; the sessions route; the account; organizations; administration) run
// on 127.0.0.1, port 0; Debian's Chromium
// (launchChromium of test/browser/helpers.ts) opens each page at a desktop viewport in the light or dark scheme and
// saves the full page (a long one: the window). Nothing is drawn by hand and nothing needs the network: the sign-in
// page does not call the OpenID issuer. Each page's heading is checked first, so an error page cannot be saved in
// place of the page.
//
// The output is deterministic: the sessions, the organization's members, invitation and events, and what an admin sees
// of a member (her sessions, events and an admin's action) are adapter rows with
// fixed dates, names and User-Agents, the secret is fixed, and nothing random is visible. test/docs-images.test.ts checks the files below exist and that README.md shows them.
import { statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import type { Browser } from 'playwright-core';
import { MemoryAdapter } from '../templates/runtime/adapters/memory.js';
import { resolveConfigOnce } from '../templates/runtime/config.js';
import { Account } from '../templates/runtime/features/account/index.js';
import { Admin } from '../templates/runtime/features/admin/index.js';
import { Organizations } from '../templates/runtime/features/organizations/index.js';
import { FrameworkAuth } from '../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../templates/runtime/index.js';
import Credentials from '../templates/runtime/providers/credentials.js';
import Email from '../templates/runtime/providers/email.js';
import GitHub from '../templates/runtime/providers/github.js';
import Google from '../templates/runtime/providers/google.js';
import OIDC from '../templates/runtime/providers/oidc.js';
import Password from '../templates/runtime/providers/password.js';
import { launchChromium } from '../test/browser/helpers.js';
import { listen, type RunningApp } from '../test/support/listen.js';
import { isRunDirectly } from './run-directly.js';

/** Where the images go, relative to the repository root (and so the path README.md uses). */
export const imagesDir = 'docs/images';

/** One README image: its file in docs/images/, the page (below the mount) and the colour scheme. */
export interface DocsImage {
  file: string;
  path: string;
  scheme: 'light' | 'dark';
  /** The page's h1, checked before the screenshot so that an error page never passes for the page. */
  heading: string;
  /** Whether the browser holds the signed-in session cookie. */
  signedIn: boolean;
  /** Served by the app with `Organizations()` (signed in) rather than the sign-in or the sessions app. */
  organizations?: true;
  /** Served by the app with `Admin()` (signed in as an admin). */
  admin?: true;
  /** The window's height when the image is the window rather than the whole page (a long page; under 150 KB). */
  windowHeight?: number;
}

export const docsImages: readonly DocsImage[] = [
  { file: 'signin-light.png', path: '/signin', scheme: 'light', heading: 'Sign in', signedIn: false },
  { file: 'signin-dark.png', path: '/signin', scheme: 'dark', heading: 'Sign in', signedIn: false },
  { file: 'sessions-light.png', path: '/sessions', scheme: 'light', heading: 'Your sessions', signedIn: true },
  { file: 'sessions-dark.png', path: '/sessions', scheme: 'dark', heading: 'Your sessions', signedIn: true },
  { file: 'error-light.png', path: '/error?error=Verification', scheme: 'light', heading: 'Unable to sign in', signedIn: false },
  { file: 'account-light.png', path: '/account', scheme: 'light', heading: 'Your account', signedIn: true },
  { file: 'account-dark.png', path: '/account', scheme: 'dark', heading: 'Your account', signedIn: true },
  { file: 'organization-light.png', path: '/organizations/analytical-engines', scheme: 'light', heading: 'Analytical Engines', signedIn: true, organizations: true },
  { file: 'admin-user-light.png', path: '/admin/users/docs-grace', scheme: 'light', heading: 'Grace Hopper', signedIn: true, admin: true, windowHeight: 1400 },
];

/** A desktop browser window; the screenshot takes the page's full height. Scale 1 keeps the files small. */
export const viewport = { width: 960, height: 640 } as const;
const mount = '/auth';
const secret = 'docs-screenshots-secret-0123456789-abcdefghijklmnop';
const sessionCookie = 'authjs.session-token';
const currentToken = 'docs-this-browser';

/** The signed-in user's sessions: this browser, a phone and a laptop, with fixed dates so the images do not change. */
const sessionRows = [
  {
    sessionToken: currentToken,
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    createdAt: '2026-11-18T08:12:00Z',
    lastSeenAt: '2026-11-25T09:41:00Z',
  },
  {
    sessionToken: 'docs-phone',
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    createdAt: '2026-11-03T19:27:00Z',
    lastSeenAt: '2026-11-24T21:05:00Z',
  },
  {
    sessionToken: 'docs-work-laptop',
    userAgent: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    createdAt: '2026-10-28T07:55:00Z',
    lastSeenAt: '2026-11-20T16:30:00Z',
  },
] as const;

/** The security events the account page lists: fixed dates and browsers, as the sessions. */
const securityEvents = [
  { type: 'sign-in', method: 'github', at: '2026-11-25T09:40:00Z', ip: '203.0.113.24', userAgent: sessionRows[0].userAgent },
  { type: 'account-linked', method: 'github', at: '2026-11-25T09:40:00Z', ip: '203.0.113.24', userAgent: sessionRows[0].userAgent },
  { type: 'session-ended', method: null, detail: '1', at: '2026-11-21T18:02:00Z', ip: '198.51.100.7', userAgent: sessionRows[1].userAgent },
  { type: 'sign-in', method: 'email', at: '2026-11-18T08:12:00Z', ip: '203.0.113.24', userAgent: sessionRows[0].userAgent },
] as const;

/** The organization the signed-in user (Ada, its owner) opens: its members joined at fixed dates, one pending invitation. */
const organization = { id: 'docs-organization', slug: 'analytical-engines', name: 'Analytical Engines', createdAt: new Date('2026-10-01T09:00:00Z') };
const members = [
  { id: 'docs-grace', name: 'Grace Hopper', email: 'grace@example.com', role: 'admin', joinedAt: '2026-10-03T08:45:00Z' },
  { id: 'docs-alan', name: 'Alan Turing', email: 'alan@example.com', role: 'member', joinedAt: '2026-10-20T11:10:00Z' },
] as const;
/** The page is shown as on this day: the pending invitation (sent by Grace a day before) is unexpired on it. */
const organizationPageDay = new Date('2026-11-25T10:00:00Z');
const pendingInvitation = { id: 'docs-invitation', email: 'edsger@example.com', role: 'member', inviterId: 'docs-grace', createdAt: new Date('2026-11-24T09:15:00Z'), expiresAt: new Date('2026-12-01T09:15:00Z') };
/** The organization's events (its page lists them newest first): who acted, on whom, a role or a name. */
const organizationEvents = [
  { type: 'organization-created', at: '2026-10-01T09:00:00Z', actorId: 'docs-user', subjectId: null, detail: 'Analytical Engines' },
  { type: 'member-joined', at: '2026-10-03T08:45:00Z', actorId: 'docs-grace', subjectId: 'docs-grace', detail: 'admin' },
  { type: 'member-invited', at: '2026-11-24T09:15:00Z', actorId: 'docs-grace', subjectId: null, detail: 'member' },
] as const;

/**
 * Ada's organization on the adapter of a config with `Organizations()`: the members join through invitations accepted
 * at fixed dates (as the feature makes members), the session's active organization is it, and one invitation waits.
 * Its listing of pending invitations is asked at `organizationPageDay`, so that the page shows the invitation whatever
 * the day the script runs.
 */
async function seedOrganization(adapter: ReturnType<typeof MemoryAdapter>, ownerId: string): Promise<void> {
  await adapter.createOrganization!(organization, ownerId);
  for (const member of members) {
    const user = await adapter.createUser!({ id: member.id, name: member.name, email: member.email, emailVerified: new Date(member.joinedAt) });
    const joinedAt = new Date(member.joinedAt);
    const digest = `docs-digest-${member.id}`;
    await adapter.createInvitation!({ id: `docs-joined-${member.id}`, organizationId: organization.id, email: member.email, role: member.role, inviterId: ownerId, digest, createdAt: joinedAt, expiresAt: new Date(joinedAt.valueOf() + 60_000) }, 100);
    if (!(await adapter.acceptInvitation!(digest, user.id, joinedAt))) throw new Error(`${member.name} did not join ${organization.name}`);
  }
  await adapter.createInvitation!({ ...pendingInvitation, organizationId: organization.id, digest: 'docs-digest-pending' }, 100);
  for (const [index, event] of organizationEvents.entries()) {
    await adapter.createOrganizationEvent!({ id: `docs-organization-event-${index}`, organizationId: organization.id, ...event, at: new Date(event.at) });
  }
  await adapter.setActiveOrganization!(currentToken, organization.id);
  const listInvitations = adapter.listInvitations!.bind(adapter);
  adapter.listInvitations = (organizationId) => listInvitations(organizationId, organizationPageDay);
}

/** What the admin (Ada, an admin by grant with two-factor on) sees of Grace: her sign-ins, sessions and an admin's action. */
const graceCreatedAt = new Date('2026-10-03T08:40:00Z');
const graceSessions = [
  {
    sessionToken: 'docs-grace-laptop',
    userAgent: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    createdAt: '2026-11-22T08:02:00Z',
    lastSeenAt: '2026-11-25T09:12:00Z',
  },
  {
    sessionToken: 'docs-grace-phone',
    userAgent: 'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    createdAt: '2026-11-19T18:44:00Z',
    lastSeenAt: '2026-11-24T20:31:00Z',
  },
] as const;
const graceEvents = [
  { type: 'sign-in', method: 'github', at: '2026-11-22T08:02:00Z', ip: '198.51.100.23', userAgent: graceSessions[0].userAgent, actorId: undefined },
  { type: 'admin-sessions-ended', method: null, at: '2026-11-21T16:05:00Z', ip: '203.0.113.24', userAgent: sessionRows[0].userAgent, actorId: 'docs-user' },
  { type: 'sign-in-failed', method: 'github', at: '2026-11-21T15:58:00Z', ip: '192.0.2.77', userAgent: null, actorId: undefined },
  { type: 'sign-in', method: 'github', at: '2026-11-19T18:44:00Z', ip: '198.51.100.23', userAgent: graceSessions[1].userAgent, actorId: undefined },
] as const;
const graceAdminAction = { id: 'docs-admin-action', userId: 'docs-grace', actorId: 'docs-user', action: 'sessions-ended', detail: null, at: new Date('2026-11-21T16:05:00Z') };

/** Grace as the admin's page shows her (after `seedOrganization` made her a member), and Ada an admin. */
async function seedAdministration(adapter: ReturnType<typeof MemoryAdapter>, adminId: string): Promise<void> {
  await adapter.grantAdmin!({ userId: adminId, grantedBy: adminId, at: new Date('2026-10-01T09:00:00Z') });
  // The admin's second factor, which administration needs (no code is asked to view a page).
  await adapter.setTwoFactor!(adminId, { secret: 'docs-unused-secret', enabledAt: new Date('2026-10-01T09:05:00Z') });
  await adapter.markUserCreated!('docs-grace', graceCreatedAt);
  await adapter.linkAccount!({ userId: 'docs-grace', type: 'oauth', provider: 'github', providerAccountId: '1906' });
  for (const row of graceSessions) {
    await adapter.createSession!({ ...row, userId: 'docs-grace', createdAt: new Date(row.createdAt), lastSeenAt: new Date(row.lastSeenAt), expires: new Date('2099-01-01T00:00:00Z') });
  }
  for (const [index, event] of graceEvents.entries()) {
    const { actorId, ...rest } = event;
    await adapter.createSecurityEvent!({ id: `docs-grace-event-${index}`, userId: 'docs-grace', detail: null, ...rest, ...(actorId ? { actorId } : {}), at: new Date(event.at) });
  }
  await adapter.createAdminAction!(graceAdminAction);
}

/**
 * The auth config of a scaffolded app with a database adapter. Credentials sign-in needs JWT sessions, so the app
 * whose sign-in page shows it uses them; the sessions page needs database sessions, so it comes from the same app
 * without the credentials provider (two configs a user could have, on two servers here).
 */
function authConfig(adapter: ReturnType<typeof MemoryAdapter>, withCredentials: boolean): FrameworkAuthConfig {
  const credentials = Credentials({
    credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
    authorize: async () => null,
  });
  return {
    secret,
    basePath: mount,
    trustHost: ['127.0.0.1'],
    adapter,
    session: { strategy: withCredentials ? 'jwt' : 'database' },
    logger: { error: (error) => console.error(error), warn: () => {}, debug: () => {} },
    providers: [
      OIDC({ issuer: 'https://sso.acme.example', name: 'Acme SSO', clientId: 'acme-client-id', clientSecret: 'acme-client-secret' }),
      GitHub({ clientId: 'github-client-id', clientSecret: 'github-client-secret' }),
      Google({ clientId: 'google-client-id', clientSecret: 'google-client-secret' }),
      ...(withCredentials ? [credentials] : []),
      Email({ sendVerificationRequest: () => {} }),
    ],
    // The account page (and its security events, kept for the fixed dates above) on the database-sessions app.
    features: withCredentials ? [] : [Account({ sendMessage: () => {} })],
    events: { retentionDays: 100 * 365 },
  };
}

/** Starts an app with the handler on `<mount>/*splat` and the sessions route, as a scaffold's server.ts mounts it. */
async function startApp(config: FrameworkAuthConfig): Promise<RunningApp> {
  const app = express();
  app.use(`${mount}/*splat`, FrameworkAuth(config));
  return listen(app);
}

/** Writes every image of `docsImages` into `<root>/docs/images/`; resolves the paths written. */
export async function writeDocsImages(root: string): Promise<string[]> {
  const adapter = MemoryAdapter();
  const user = await adapter.createUser!({ id: 'docs-user', name: 'Ada Lovelace', email: 'ada@example.com', emailVerified: null });
  for (const row of sessionRows) {
    await adapter.createSession!({ ...row, userId: user.id, createdAt: new Date(row.createdAt), lastSeenAt: new Date(row.lastSeenAt), expires: new Date('2099-01-01T00:00:00Z') });
  }
  const apps: RunningApp[] = [];
  let browser: Browser | undefined;
  const written: string[] = [];
  try {
    const signInApp = await startApp(authConfig(adapter, true));
    apps.push(signInApp);
    const sessionsConfig = authConfig(adapter, false);
    const sessionsApp = await startApp(sessionsConfig);
    apps.push(sessionsApp);
    // The account's tables and methods come with the config, once resolved.
    resolveConfigOnce(sessionsConfig);
    await adapter.linkAccount!({ userId: user.id, type: 'oauth', provider: 'github', providerAccountId: '5821' });
    for (const [index, event] of securityEvents.entries()) {
      await adapter.createSecurityEvent!({ id: `docs-event-${index}`, userId: user.id, detail: null, ...event, at: new Date(event.at) });
    }
    // The organization's page on a third app: the sessions app's config with Organizations() in place of Account(),
    // so that the account's and the sessions' images stay as they were.
    const organizationsConfig: FrameworkAuthConfig = { ...sessionsConfig, features: [Organizations({ sendMessage: () => {} })] };
    const organizationsApp = await startApp(organizationsConfig);
    apps.push(organizationsApp);
    resolveConfigOnce(organizationsConfig);
    await seedOrganization(adapter, user.id);
    // The admin's page of a user on a fourth app: the organizations app's config with Admin() beside Organizations(),
    // and a password (the two-factor that Admin() brings asks its code after one).
    const adminConfig: FrameworkAuthConfig = {
      ...sessionsConfig,
      providers: [...sessionsConfig.providers, Password({ sendMessage: () => {} })],
      features: [Admin({ sendMessage: () => {} }, {}), Organizations({ sendMessage: () => {} })],
    };
    const adminApp = await startApp(adminConfig);
    apps.push(adminApp);
    resolveConfigOnce(adminConfig);
    await seedAdministration(adapter, user.id);
    browser = await launchChromium();
    const outDir = join(root, imagesDir);
    await mkdir(outDir, { recursive: true });
    for (const image of docsImages) {
      const origin = image.admin ? adminApp.url : image.organizations ? organizationsApp.url : image.signedIn ? sessionsApp.url : signInApp.url;
      const context = await browser.newContext({ viewport: { ...viewport, height: image.windowHeight ?? viewport.height }, deviceScaleFactor: 1, colorScheme: image.scheme, reducedMotion: 'reduce' });
      try {
        context.setDefaultTimeout(10_000);
        if (image.signedIn) await context.addCookies([{ name: sessionCookie, value: currentToken, url: origin }]);
        const page = await context.newPage();
        const response = await page.goto(`${origin}${mount}${image.path}`, { waitUntil: 'load' });
        const url = new URL(page.url());
        if (url.pathname !== `${mount}${image.path.split('?')[0]}`) throw new Error(`${image.file}: ${image.path} redirected to ${url.pathname}${url.search}`);
        const heading = await page.getByRole('heading', { level: 1 }).textContent();
        if (heading !== image.heading) throw new Error(`${image.file}: the page's heading is ${JSON.stringify(heading)}, not ${JSON.stringify(image.heading)} (status ${response?.status()})`);
        if (image.path === '/sessions') {
          const listed = await page.locator('ul.sessions > li').count();
          if (listed !== sessionRows.length) throw new Error(`${image.file}: ${listed} sessions listed, expected ${sessionRows.length}`);
        }
        if (image.admin) {
          const listed = await page.locator('h2:text-is("Sessions") + ul > li').count();
          if (listed !== graceSessions.length) throw new Error(`${image.file}: ${listed} sessions listed, expected ${graceSessions.length}`);
        }
        if (image.organizations) {
          const listed = await page.locator('tbody > tr').count();
          if (listed !== members.length + 1) throw new Error(`${image.file}: ${listed} members listed, expected ${members.length + 1}`);
        }
        const file = join(outDir, image.file);
        await writeFile(file, await page.screenshot({ type: 'png', fullPage: image.windowHeight === undefined, animations: 'disabled', caret: 'hide' }));
        written.push(file);
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser?.close();
    for (const app of apps) await app.close();
  }
  return written;
}

// Run directly, not when a test imports the functions above.
if (isRunDirectly(import.meta.url)) {
  const root = fileURLToPath(new URL('../', import.meta.url));
  for (const file of await writeDocsImages(root)) console.log(`wrote ${relative(root, file)} (${statSync(file).size} bytes)`);
}
