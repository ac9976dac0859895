// A person's path through a project the built CLI scaffolds (`--providers oidc,credentials`), compiled with its own
// tsc and started as a child process, in headless Chromium: the protected /me sends them to the default sign-in
// page; they sign in on oidc-provider's own login form (a real OpenID provider on loopback) or with the credentials
// form, land back on /me, and sign out through the confirmation page.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { compileProject, fillEnv, makeTempDir, removeTempDirs, runBuiltCli, startApp, type RunningApp } from '../e2e/helpers/project.js';
import { linkSharedDeps, prepareSharedDeps } from '../e2e/helpers/shared-deps.js';
import { launchChromium, saveScreenshot, scanAccessibility, violationsOf } from './helpers.js';

let browser: Browser;
let provider: RunningOidcProvider;
let app: RunningApp;

// The generated config's placeholder, and the check this test writes in its place (as a user would).
const placeholder = '      authorize: async () => null,\n';
const realCheck = `      authorize: async (credentials) =>
        credentials.username === 'ada' && credentials.password === 'correct horse'
          ? { id: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.test' }
          : null,
`;

beforeAll(async () => {
  const [launched] = await Promise.all([launchChromium(), prepareSharedDeps()]);
  browser = launched;
  provider = await startOidcProvider();
  const root = await makeTempDir('cfa-browser-');
  const projectDir = join(root, 'app');
  const scaffold = await runBuiltCli('create', [projectDir, '--providers', 'oidc,credentials', '--yes', '--no-install'], { cwd: root });
  if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);

  const configPath = join(projectDir, 'src/auth/config.ts');
  const config = await readFile(configPath, 'utf8');
  if (!config.includes(placeholder)) throw new Error(`the generated config no longer has the authorize placeholder:\n${config}`);
  await writeFile(configPath, config.replace(placeholder, realCheck));

  await linkSharedDeps(projectDir);
  const compiled = await compileProject(projectDir);
  if (compiled.exitCode !== 0) throw new Error(`tsc failed:\n${compiled.output}`);
  await fillEnv(projectDir, { AUTH_OIDC_ID: 'browser-app', AUTH_OIDC_SECRET: 'browser-app-secret', AUTH_OIDC_ISSUER: provider.issuer });
  app = await startApp(projectDir);
  await provider.setClient({ client_id: 'browser-app', client_secret: 'browser-app-secret', redirect_uris: [`${app.url}/auth/callback/oidc`] });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await provider?.close();
  await removeTempDirs();
});

/** A fresh browser profile (no cookies) on a new page. */
async function openPage(colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const context = await browser.newContext({ colorScheme, viewport: { width: 640, height: 900 } });
  context.setDefaultTimeout(10_000);
  return context.newPage();
}

/** The JSON of /me as the page shows it. */
async function meOnPage(page: Page): Promise<{ user: Record<string, unknown> }> {
  return JSON.parse((await page.textContent('body')) ?? 'null') as { user: Record<string, unknown> };
}

/** Opens /me and expects to land on the default sign-in page, with /me as the callbackUrl. */
async function openProtectedPage(page: Page): Promise<void> {
  await page.goto(`${app.url}/me`);
  const landed = new URL(page.url());
  expect(landed.pathname).toBe('/auth/signin');
  expect(landed.searchParams.get('callbackUrl')).toBe('/me');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
}

describe('a person on the scaffolded app', () => {
  it('signs in with OpenID Connect on the provider\'s login form, lands on /me, and signs out through the confirmation page', async () => {
    const page = await openPage();
    await openProtectedPage(page);
    await saveScreenshot(page, 'scaffolded-signin-light');

    await page.getByRole('button', { name: 'Sign in with OpenID Connect' }).click();
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.getByPlaceholder('Enter any login').fill('alice');
    await page.getByPlaceholder('and password').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();

    await page.waitForURL(`${app.url}/me`);
    expect((await meOnPage(page)).user).toMatchObject({ name: 'Alice Example', email: 'alice@example.test' });

    await page.goto(`${app.url}/auth/signout`);
    expect(await page.getByText('Are you sure you want to sign out?').isVisible()).toBe(true);
    await saveScreenshot(page, 'scaffolded-signout-light');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${app.url}/`);
    expect(await page.textContent('body')).toContain('Not signed in.');

    await openProtectedPage(page);
  });

  it('signs in with the credentials form and a good password, and lands on /me', async () => {
    const page = await openPage();
    await openProtectedPage(page);
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill('correct horse');
    await page.getByRole('button', { name: 'Sign in with Credentials' }).click();
    await page.waitForURL(`${app.url}/me`);
    expect((await meOnPage(page)).user).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.test' });
  });

  it('shows the error on the sign-in page after a wrong password, and stays signed out', async () => {
    const page = await openPage('dark');
    await openProtectedPage(page);
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill('wrong horse');
    await page.getByRole('button', { name: 'Sign in with Credentials' }).click();

    await page.waitForURL((url) => url.pathname === '/auth/signin' && url.searchParams.get('error') === 'CredentialsSignin');
    expect(new URL(page.url()).searchParams.get('code')).toBe('credentials');
    const alert = page.getByRole('alert');
    expect(await alert.isVisible()).toBe(true);
    expect(await alert.textContent()).toContain('Sign-in failed. Check the details you provided are correct.');
    await saveScreenshot(page, 'scaffolded-signin-wrong-password-dark');

    // The form is there to try again, and the session is still empty.
    expect(await page.getByLabel('Password').isVisible()).toBe(true);
    const session = await page.request.get(`${app.url}/auth/session`);
    expect(await session.json()).toBeNull();
  });

  it.each(['light', 'dark'] as const)('serves a sign-in page with no serious or critical axe-core violations (%s)', async (scheme) => {
    const page = await openPage(scheme);
    await page.goto(`${app.url}/auth/signin?error=CredentialsSignin&code=credentials`);
    expect(violationsOf(await scanAccessibility(page))).toEqual([]);
  });
});
