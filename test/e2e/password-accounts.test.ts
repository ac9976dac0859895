// Issue 25's acceptance path on real scaffolds: `--providers password` with SQLite and with PostgreSQL, compiled and
// started as users start them, against a real SMTP server on loopback. Sign-up → the emailed link → sign-in → change →
// reset; the enumeration answers compared byte for byte; the database searched for the password (only its argon2id
// hash may be there); and, on PostgreSQL, two app processes on one database sharing the rate limits, a change ending
// the other process's session and a reset ending every session on both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar } from '../support/cookie-jar.js';
import { findForm } from '../support/html-form.js';
import type { ReceivedMessage, RunningSmtpServer } from '../support/smtp-server.js';
import { confirmAddress, csrfToken, type MailApp, postForm, sessionEmail, startMailApp, storedText } from './helpers/mail-app.js';
import { removeTempDirs } from './helpers/project.js';
import type { RunningApp } from './helpers/project.js';

afterAll(removeTempDirs);

const PASSWORD = 'violet staple orbit lantern';
const CHANGED = 'quiet harbour seventeen kites';
const RESET = 'amber meadow folding compass';

/** The parts of an answer that could tell two addresses apart. */
async function answerOf(response: Response): Promise<{ status: number; location: string | null; cookies: string[]; body: string }> {
  return { status: response.status, location: response.headers.get('location'), cookies: response.headers.getSetCookie(), body: await response.text() };
}

/** The first link below the mount in a message's plain text. */
function linkIn(message: ReceivedMessage, path: string): string {
  const match = new RegExp(`https?://\\S+/auth/${path}\\S*`).exec(message.text ?? '');
  if (!match) throw new Error(`no ${path} link in:\n${message.text}`);
  return match[0];
}

describe.each(['sqlite', 'postgres'] as const)('a scaffolded app with email and password accounts on %s', (adapter) => {
  let mail: MailApp;
  let smtp: RunningSmtpServer;
  let apps: RunningApp[];
  let compile: MailApp['compile'];

  beforeAll(async () => {
    // Two app processes on one PostgreSQL database; SQLite's file is shared on one machine alike.
    mail = await startMailApp(adapter, ['--providers', 'password'], adapter === 'postgres' ? 2 : 1);
    ({ smtp, apps, compile } = mail);
  }, 600_000);

  afterAll(() => mail?.stop());

  it('compiles with zero errors', () => {
    expect(compile.output).toBe('');
    expect(compile.exitCode).toBe(0);
  });

  it('walks sign-up → the emailed link → sign-in → change → reset', async () => {
    const [app] = apps as [RunningApp];
    const signedUp = await postForm(createJar(), app, 'signup/password', { email: 'ada@example.test', password: PASSWORD, name: 'Ada' });
    expect(signedUp.status).toBe(302);
    expect(signedUp.headers.get('location')).toBe(`${app.url}/auth/verify-request?provider=password&type=credentials`);
    const confirmation = await smtp.waitForMessage();
    expect(confirmation.headers['to']).toContain('ada@example.test');
    expect(confirmation.text).not.toContain(PASSWORD);

    // Before the address is confirmed, the right password gets the wrong-password answer and a new link, which
    // voids the first.
    const early = await postForm(createJar(), app, 'callback/password', { email: 'ada@example.test', password: PASSWORD });
    expect(early.headers.get('location')).toContain('error=CredentialsSignin');
    const renewed = await smtp.waitForMessage(smtp.messages.indexOf(confirmation) + 1);
    expect((await confirmAddress(createJar(), linkIn(confirmation, 'callback/password'), { password: PASSWORD })).headers.get('location')).toContain('error=Verification');

    // Opening the link confirms nothing; its page's form, with the sign-up's password, confirms and signs in.
    const browser = createJar();
    const confirmed = await confirmAddress(browser, linkIn(renewed, 'callback/password'), { password: PASSWORD });
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get('location'), app.output()).toBe(`${app.url}/`);
    expect(await sessionEmail(browser, app)).toBe('ada@example.test');

    const other = createJar();
    const signedIn = await postForm(other, app, 'callback/password', { email: 'ada@example.test', password: PASSWORD });
    expect(signedIn.headers.get('location')).toBe(`${app.url}/`);
    expect(await sessionEmail(other, app)).toBe('ada@example.test');

    const changed = await postForm(browser, app, 'password', { currentPassword: PASSWORD, newPassword: CHANGED });
    expect(changed.status).toBe(302);
    expect(await sessionEmail(browser, app)).toBe('ada@example.test');
    expect(await sessionEmail(other, app)).toBeNull();

    const count = smtp.messages.length;
    await postForm(createJar(), app, 'reset-password', { email: 'ada@example.test' });
    const resetMessage = await smtp.waitForMessage(count);
    const resetLink = linkIn(resetMessage, 'reset-password');
    const resetter = createJar();
    const form = findForm(await (await resetter.fetch(resetLink)).text(), resetLink, 'password')!;
    const reset = await postForm(resetter, app, 'reset-password', { ...form.fields, password: RESET });
    expect(reset.status).toBe(302);
    expect(await sessionEmail(browser, app)).toBeNull();
    expect((await postForm(createJar(), app, 'callback/password', { email: 'ada@example.test', password: CHANGED })).headers.get('location')).toContain('error=CredentialsSignin');
    expect((await postForm(createJar(), app, 'callback/password', { email: 'ada@example.test', password: RESET })).headers.get('location')).toBe(`${app.url}/`);
  });

  it('answers known and unknown addresses byte for byte alike on sign-up, sign-in and reset', async () => {
    const [app] = apps as [RunningApp];
    // A known address of its own: each address may ask for three messages per 15 minutes.
    await postForm(createJar(), app, 'signup/password', { email: 'linus@example.test', password: PASSWORD });
    const pair = async (path: string, known: Record<string, string>, unknown: Record<string, string>) => {
      const first = createJar();
      const second = createJar();
      await csrfToken(first, app);
      await csrfToken(second, app);
      return [await answerOf(await postForm(first, app, path, known)), await answerOf(await postForm(second, app, path, unknown))];
    };
    const [knownSignUp, newSignUp] = await pair('signup/password', { email: 'linus@example.test', password: CHANGED }, { email: 'grace@example.test', password: CHANGED });
    expect(knownSignUp).toEqual(newSignUp);
    const [wrong, nobody] = await pair('callback/password', { email: 'ada@example.test', password: 'not the password, sorry' }, { email: 'nobody@example.test', password: RESET });
    expect(wrong).toEqual(nobody);
    const [knownReset, unknownReset] = await pair('reset-password', { email: 'linus@example.test' }, { email: 'nobody@example.test' });
    expect(knownReset).toEqual(unknownReset);
    // The owner of the known address was told someone tried to sign up.
    await expect.poll(() => smtp.messages.some((message) => message.headers['subject']?.startsWith('Sign-up attempt') && message.headers['to']?.includes('linus@example.test'))).toBe(true);
  });

  it('stores no password anywhere in the database, only argon2id hashes and hashed link tokens', async () => {
    const secrets = [PASSWORD, CHANGED, RESET];
    const stored = await storedText(mail);
    expect(stored).toContain('$argon2id$v=19$m=19456,t=2,p=1$');
    for (const secret of secrets) expect(stored).not.toContain(secret);
    const links = smtp.messages.map((message) => /token=([0-9a-f]{64})/.exec(message.text ?? '')?.[1]).filter((token): token is string => token !== undefined);
    expect(links.length).toBeGreaterThan(0);
    for (const token of links) expect(stored).not.toContain(token);
  });

  // Two processes share a database only with PostgreSQL here (SQLite's file is shared on one machine alike).
  if (adapter === 'postgres') it('shares the rate limits, and ends sessions, across two app processes on one database', async () => {
    const [first, second] = apps as [RunningApp, RunningApp];
    // Five failed sign-ins per address in 15 minutes, counted in the database: three here, two there, then 429.
    for (const app of [first, first, first, second, second]) {
      const response = await postForm(createJar(), app, 'callback/password', { email: 'grace@example.test', password: 'wrong wrong wrong wrong' });
      expect(response.status).toBe(302);
    }
    const refused = await postForm(createJar(), first, 'callback/password', { email: 'grace@example.test', password: 'wrong wrong wrong wrong' });
    expect(refused.status).toBe(429);

    // A user of its own for the sessions: each address may ask for three messages per 15 minutes.
    let count = smtp.messages.length;
    await postForm(createJar(), second, 'signup/password', { email: 'hopper@example.test', password: RESET });
    const hopper = await confirmAddress(createJar(), linkIn(await smtp.waitForMessage(count), 'callback/password'), { password: RESET });
    expect(hopper.status, await hopper.clone().text()).toBe(302);
    const onFirst = createJar();
    const onSecond = createJar();
    await postForm(onFirst, first, 'callback/password', { email: 'hopper@example.test', password: RESET });
    await postForm(onSecond, second, 'callback/password', { email: 'hopper@example.test', password: RESET });
    expect(await sessionEmail(onFirst, first)).toBe('hopper@example.test');
    expect(await sessionEmail(onSecond, second)).toBe('hopper@example.test');
    const changed = await postForm(onFirst, first, 'password', { currentPassword: RESET, newPassword: PASSWORD });
    expect(changed.status).toBe(302);
    expect(await sessionEmail(onFirst, first)).toBe('hopper@example.test');
    expect(await sessionEmail(onSecond, second)).toBeNull();

    const again = createJar();
    await postForm(again, second, 'callback/password', { email: 'hopper@example.test', password: PASSWORD });
    expect(await sessionEmail(again, second)).toBe('hopper@example.test');
    count = smtp.messages.length;
    await postForm(createJar(), second, 'reset-password', { email: 'hopper@example.test' });
    const link = linkIn(await smtp.waitForMessage(count), 'reset-password');
    const resetter = createJar();
    const form = findForm(await (await resetter.fetch(link)).text(), link, 'password')!;
    expect((await postForm(resetter, second, 'reset-password', { ...form.fields, password: CHANGED })).status).toBe(302);
    expect(await sessionEmail(onFirst, first)).toBeNull();
    expect(await sessionEmail(again, second)).toBeNull();
  });
});
