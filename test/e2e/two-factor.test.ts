// Issue 26's acceptance path on real scaffolds: `--providers password --two-factor` with SQLite and with PostgreSQL,
// compiled and started as users start them, driven over HTTP with codes computed here from the secret the app gave:
// enroll, enable, sign out, password + code, the code replayed, a recovery code twice, five wrong codes, disable; the
// database searched for the secret and the recovery codes in clear; on PostgreSQL, two app processes sharing the
// per-user limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, totpCode, totpStep } from '../../templates/runtime/features/two-factor/totp.js';
import { createJar } from '../support/cookie-jar.js';
import type { RunningSmtpServer } from '../support/smtp-server.js';
import { authenticator } from './helpers/authenticator.js';
import { type MailApp, confirmAddress, postForm, sessionEmail, startMailApp, storedText } from './helpers/mail-app.js';
import { removeTempDirs } from './helpers/project.js';
import type { RunningApp } from './helpers/project.js';

afterAll(removeTempDirs);

const PASSWORD = 'violet staple orbit lantern';

/** Signs up through the emailed link: a confirmed user with a password. */
async function account(app: RunningApp, smtp: RunningSmtpServer, email: string): Promise<void> {
  const count = smtp.messages.length;
  await postForm(createJar(), app, 'signup/password', { email, password: PASSWORD });
  const link = /https?:\/\/\S+\/auth\/callback\/password\S*/.exec((await smtp.waitForMessage(count)).text ?? '')![0];
  expect((await confirmAddress(createJar(), link, { password: PASSWORD })).status).toBe(302);
}

describe.each(['sqlite', 'postgres'] as const)('a scaffolded app with two-factor on %s', (adapter) => {
  let mail: MailApp;
  let smtp: RunningSmtpServer;
  let apps: RunningApp[];
  let compile: MailApp['compile'];
  let secret = '';
  let recoveryCodes: string[] = [];

  beforeAll(async () => {
    // Two app processes on one PostgreSQL database, to share the per-user limit.
    mail = await startMailApp(adapter, ['--providers', 'password', '--two-factor'], adapter === 'postgres' ? 2 : 1);
    ({ smtp, apps, compile } = mail);
  }, 600_000);

  afterAll(() => mail?.stop());

  it('compiles with zero errors', () => {
    expect(compile.output).toBe('');
    expect(compile.exitCode).toBe(0);
  });

  it('enrolls, then asks for a code after the password; refuses a replayed code; takes a recovery code once', async () => {
    const [app] = apps as [RunningApp];
    await account(app, smtp, 'ada@example.test');
    const jar = createJar();
    await postForm(jar, app, 'callback/password', { email: 'ada@example.test', password: PASSWORD });
    expect(await sessionEmail(jar, app)).toBe('ada@example.test');
    const enroll = (await (await postForm(jar, app, 'two-factor', { action: 'enroll' }, true)).json()) as { secret: string; uri: string };
    secret = enroll.secret;
    expect(enroll.uri).toContain(`secret=${secret}`);
    const codes = authenticator(secret);
    const enabled = await postForm(jar, app, 'two-factor', { action: 'enable', code: codes.next() }, true);
    expect(enabled.status).toBe(200);
    ({ recoveryCodes } = (await enabled.json()) as { recoveryCodes: string[] });
    expect(recoveryCodes).toHaveLength(10);
    await postForm(jar, app, 'signout', {});
    expect(await sessionEmail(jar, app)).toBeNull();

    const pending = await postForm(jar, app, 'callback/password', { email: 'ada@example.test', password: PASSWORD });
    expect(pending.headers.get('location')).toBe(`${app.url}/auth/two-factor`);
    expect(await sessionEmail(jar, app)).toBeNull();
    const code = codes.next();
    expect((await postForm(jar, app, 'two-factor', { code })).status).toBe(302);
    expect(await sessionEmail(jar, app)).toBe('ada@example.test');

    const replay = createJar();
    await postForm(replay, app, 'callback/password', { email: 'ada@example.test', password: PASSWORD });
    expect((await postForm(replay, app, 'two-factor', { code })).status).toBe(400);
    expect(await sessionEmail(replay, app)).toBeNull();

    const recovered = createJar();
    await postForm(recovered, app, 'callback/password', { email: 'ada@example.test', password: PASSWORD });
    expect((await postForm(recovered, app, 'two-factor', { recoveryCode: recoveryCodes[0]! })).status).toBe(302);
    expect(await sessionEmail(recovered, app)).toBe('ada@example.test');
    const again = createJar();
    await postForm(again, app, 'callback/password', { email: 'ada@example.test', password: PASSWORD });
    expect((await postForm(again, app, 'two-factor', { recoveryCode: recoveryCodes[0]! })).status).toBe(400);
    expect(await sessionEmail(again, app)).toBeNull();
  });

  it('ends a pending sign-in after five wrong codes', async () => {
    const [app] = apps as [RunningApp];
    const jar = createJar();
    await postForm(jar, app, 'callback/password', { email: 'ada@example.test', password: PASSWORD });
    const wrong = totpCode(base32Decode(secret), totpStep(Date.now()) + 5);
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await postForm(jar, app, 'two-factor', { code: wrong })).status).toBe(400);
    expect((await postForm(jar, app, 'two-factor', { recoveryCode: recoveryCodes[1]! })).status).toBe(429);
    expect(await sessionEmail(jar, app)).toBeNull();
  });

  it('keeps neither the secret nor a recovery code in clear in the database', async () => {
    const stored = await storedText(mail);
    // The secret is there, sealed: a JWE (dir, A256GCM) whose header is this.
    expect(stored).toContain(Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM' })).toString('base64url'));
    expect(stored.toUpperCase()).not.toContain(secret);
    expect(stored).not.toContain(base32Decode(secret).toString('latin1'));
    for (const code of recoveryCodes) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(code.replace('-', ''));
    }
  });

  it('turns two-factor off with a recovery code; the password alone signs in again', async () => {
    const [app] = apps as [RunningApp];
    const jar = createJar();
    await postForm(jar, app, 'callback/password', { email: 'ada@example.test', password: PASSWORD });
    expect((await postForm(jar, app, 'two-factor', { recoveryCode: recoveryCodes[2]! })).status).toBe(302);
    expect(await (await postForm(jar, app, 'two-factor', { action: 'disable', recoveryCode: recoveryCodes[3]! }, true)).json()).toEqual({ enabled: false });
    const plain = createJar();
    await postForm(plain, app, 'callback/password', { email: 'ada@example.test', password: PASSWORD });
    expect(await sessionEmail(plain, app)).toBe('ada@example.test');
  });

  // Two processes share a database here only with PostgreSQL.
  if (adapter === 'postgres') {
    it('counts wrong codes per user across two app processes on one database', async () => {
      const [first, second] = apps as [RunningApp, RunningApp];
      await account(first, smtp, 'grace@example.test');
      const jar = createJar();
      await postForm(jar, first, 'callback/password', { email: 'grace@example.test', password: PASSWORD });
      const enroll = (await (await postForm(jar, first, 'two-factor', { action: 'enroll' }, true)).json()) as { secret: string };
      await postForm(jar, first, 'two-factor', { action: 'enable', code: authenticator(enroll.secret).next() }, true);
      const wrong = totpCode(base32Decode(enroll.secret), totpStep(Date.now()) + 5);
      // Ten wrong codes per user in 15 minutes: four here, four there, two more here, then 429 on the other process.
      for (const [app, attempts] of [[first, 4], [second, 4], [first, 2]] as const) {
        const pending = createJar();
        await postForm(pending, app, 'callback/password', { email: 'grace@example.test', password: PASSWORD });
        for (let attempt = 0; attempt < attempts; attempt += 1) expect((await postForm(pending, app, 'two-factor', { code: wrong })).status).toBe(400);
      }
      const last = createJar();
      await postForm(last, second, 'callback/password', { email: 'grace@example.test', password: PASSWORD });
      expect((await postForm(last, second, 'two-factor', { code: wrong })).status).toBe(429);
    });
  }
});
