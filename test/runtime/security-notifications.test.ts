// Security notifications (issue 38, SPEC §13): the SecurityNotifications feature emails the account's address for the
// events §13 lists. Events are recorded through recordSecurityEvent on real requests to an Express app on 127.0.0.1
// (its User-Agent and X-Forwarded-For are the event's browser and address), with the memory adapter and with SQLite
// (a temp file) and the SecurityEvents feature before it: which events send, to whom, what the message says (what,
// when, from where, what to do; no token, no link that signs in, hostile input escaped), the new-device rule, a
// failing or slow `send` that never reaches the request, no adapter no mail, and one message through a real SMTP
// server on loopback with nodemailer.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { json } from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listen, type RunningApp } from '../support/listen.js';
import { startSmtpServer } from '../support/smtp-server.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import { resolveConfig } from '../../templates/runtime/config.js';
import type { ResolvedConfig, SecurityEventType } from '../../templates/runtime/contracts.js';
import type { SecurityEventInput } from '../../templates/runtime/contracts.js';
import { recordSecurityEvent } from '../../templates/runtime/events.js';
import { sendSmtpMessage } from '../../templates/runtime/features/email/smtp.js';
import { SecurityEvents } from '../../templates/runtime/features/security-events/index.js';
import {
  SecurityNotifications,
  type SecurityNotificationMessage,
  type SecurityNotificationsOptions,
  browserOf,
} from '../../templates/runtime/features/security-notifications/index.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import { SECRET, recordingLogger } from './helpers.js';

const ORIGIN = 'https://app.example.test';
const ACCOUNT_URL = `${ORIGIN}/auth/account`;
const OIDC = { id: 'oidc', name: 'Example ID', type: 'oidc' as const, issuer: 'https://issuer.example', clientId: 'id', clientSecret: 'secret' };
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const FIREFOX_LINUX_UPDATED = 'Mozilla/5.0 (X11; Linux x86_64; rv:134.0) Gecko/20100101 Firefox/134.0';
const CHROME_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The events §13 tells of (a sign-in only from a new device), with the words each subject starts with. */
const told: readonly (readonly [SecurityEventType, string])[] = [
  ['password-changed', 'Your password was changed'],
  ['password-reset', 'Your password was reset'],
  ['two-factor-off', 'Two-factor authentication was turned off'],
  ['recovery-code-used', 'A recovery code was used'],
  ['passkey-added', 'A passkey was added to your account'],
  ['api-key-created', 'An API key was created'],
];

/** Everything else: kept and shown on the account page, never mailed (email-changed: the account feature tells the old address). */
const untold: readonly SecurityEventType[] = [
  'sign-in-failed',
  'sign-out',
  'password-set',
  'email-changed',
  'two-factor-on',
  'passkey-removed',
  'api-key-revoked',
  'session-ended',
  'account-linked',
  'account-unlinked',
];

interface Harness {
  app: RunningApp;
  adapter: Required<Adapter>;
  options: ResolvedConfig;
  /** Every message handed to `send`, in order. */
  sent: SecurityNotificationMessage[];
  errors: Error[];
  /** Records an event on a real request from `userAgent` and `client` (X-Forwarded-For). */
  record(input: SecurityEventInput, from?: { userAgent?: string; client?: string }): Promise<void>;
  close(): Promise<void>;
}

/** The adapters each test runs against: memory, and SQLite in a temp file. */
const adapters: readonly [string, () => Promise<{ adapter: Adapter; folder: string | undefined }>][] = [
  ['MemoryAdapter', async () => ({ adapter: MemoryAdapter(), folder: undefined })],
  [
    'SqliteAdapter',
    async () => {
      const folder = await mkdtemp(join(tmpdir(), 'framework-auth-notifications-'));
      return { adapter: SqliteAdapter({ url: `file:${join(folder, 'auth.db')}` }), folder };
    },
  ],
];

const opened: Harness[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(opened.splice(0).map((harness) => harness.close()));
});

/**
 * An app whose POST /record records the JSON body as a security event of that request, with the config resolved as
 * with `AUTH_URL=https://app.example.test` (unless `env` says otherwise).
 */
async function startHarness(
  made: { adapter: Adapter | undefined; folder: string | undefined },
  settings: {
    notifications?: Partial<SecurityNotificationsOptions>;
    /** false: no SecurityEvents; 'after': listed after the notifications, so that the sign-in is not stored yet when they look. */
    events?: boolean | 'after';
    env?: Record<string, string>;
    config?: Partial<FrameworkAuthConfig>;
  } = {},
): Promise<Harness> {
  const { errors, logger } = recordingLogger();
  const sent: SecurityNotificationMessage[] = [];
  const notifications = SecurityNotifications({
    send: (message) => {
      sent.push(message);
    },
    newDevice: true,
    ...settings.notifications,
  });
  const config: FrameworkAuthConfig = {
    secret: SECRET,
    providers: [OIDC],
    ...(made.adapter ? { adapter: made.adapter } : {}),
    features: settings.events === false ? [notifications] : settings.events === 'after' ? [notifications, SecurityEvents] : [SecurityEvents, notifications],
    logger,
    ...settings.config,
  };
  const options = resolveConfig(config, settings.env ?? { AUTH_URL: ORIGIN });
  const app = express();
  app.set('trust proxy', true);
  app.post('/record', json(), async (req, res) => {
    await recordSecurityEvent({ req, options }, req.body as SecurityEventInput);
    res.json({ recorded: true });
  });
  const running = await listen(app);
  const harness: Harness = {
    app: running,
    adapter: made.adapter as Required<Adapter>,
    options,
    sent,
    errors,
    async record(input, from = {}) {
      const response = await fetch(`${running.url}/record`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': from.userAgent ?? FIREFOX_LINUX, 'x-forwarded-for': from.client ?? '203.0.113.7' },
        body: JSON.stringify(input),
      });
      expect(response.status).toBe(200);
    },
    async close() {
      await running.close();
      if (made.folder) await rm(made.folder, { recursive: true, force: true });
    },
  };
  opened.push(harness);
  return harness;
}

let users = 0;
/** A user made through the adapter. */
async function newUser(h: Harness, name = 'ada'): Promise<{ id: string; email: string }> {
  users += 1;
  const email = `${name}-${users}@example.test`;
  const created = await h.adapter.createUser({ id: crypto.randomUUID(), email, name, emailVerified: new Date() });
  return { id: created.id, email };
}

/** The `href`s of an HTML part. */
function linksOf(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!);
}

describe.each(adapters)('security notifications with %s', (_adapterName, makeAdapter) => {
  describe('which events send, and to whom', () => {
    it.each(told)('tells the account\'s address of "%s"', async (type, title) => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      await h.record({ type, userId: user.id });
      expect(h.sent).toHaveLength(1);
      expect(h.sent[0]!.to).toBe(user.email);
      expect(h.sent[0]!.subject).toBe(`${title} on app.example.test`);
      expect(h.errors).toEqual([]);
    });

    it.each(untold)('sends nothing for "%s"', async (type) => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      await h.record({ type, userId: user.id });
      expect(h.sent).toEqual([]);
      expect(h.errors).toEqual([]);
    });

    it('tells only the user the event belongs to', async () => {
      const h = await startHarness(await makeAdapter());
      const ada = await newUser(h, 'ada');
      await newUser(h, 'grace');
      await h.record({ type: 'password-changed', userId: ada.id });
      expect(h.sent.map((message) => message.to)).toEqual([ada.email]);
    });

    it('sends nothing for a user the adapter does not know', async () => {
      const h = await startHarness(await makeAdapter(), { events: false, notifications: { newDevice: false } });
      await h.record({ type: 'password-changed', userId: crypto.randomUUID() });
      expect(h.sent).toEqual([]);
      expect(h.errors).toEqual([]);
    });
  });

  describe('what a message says', () => {
    it('says what happened, when (UTC) and from where, in the text part', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-11-27T11:41:30Z'));
      await h.record({ type: 'password-changed', userId: user.id }, { userAgent: FIREFOX_LINUX, client: '203.0.113.7' });
      const { text } = h.sent[0]!;
      expect(text).toContain('The password of your account was changed.');
      expect(text).toContain('When: Friday, 27 November 2026, 11:41 UTC');
      expect(text).toContain('Browser: Firefox on Linux');
      expect(text).toContain('Address: 203.0.113.7');
      expect(text).toContain('If this was you, there is nothing to do.');
      expect(text).toContain(`change your password and end the sessions you do not know at ${ACCOUNT_URL}`);
      expect(text).toContain("contact the site's support");
    });

    it('says the same in the HTML part', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-11-27T11:41:30Z'));
      await h.record({ type: 'password-changed', userId: user.id }, { userAgent: CHROME_WINDOWS, client: '2001:db8:1:2::7' });
      const { html } = h.sent[0]!;
      expect(html).toMatch(/^<!DOCTYPE html><html lang="en">/);
      expect(html).toContain('The password of your account was changed.');
      expect(html).toContain('Friday, 27 November 2026, 11:41 UTC');
      expect(html).toContain('Chrome on Windows');
      expect(html).toContain('2001:db8:1:2::7');
      expect(html).toContain(`<a href="${ACCOUNT_URL}">${ACCOUNT_URL}</a>`);
    });

    it('links to nothing but the account page, and carries no token', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      for (const [type] of told) await h.record({ type, userId: user.id });
      expect(h.sent).toHaveLength(told.length);
      for (const message of h.sent) {
        expect(linksOf(message.html)).toEqual([ACCOUNT_URL]);
        expect(message.text.match(/https?:\/\/\S+/g)).toEqual([ACCOUNT_URL]);
        expect(`${message.text}${message.html}`).not.toMatch(/token|[?&][a-z]+=|\/callback|\/signin/i);
      }
    });

    it('names the passkey or key the event names, HTML-escaped', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      await h.record({ type: 'passkey-added', userId: user.id, detail: '<img src=x onerror=alert(1)>' });
      const { text, html } = h.sent[0]!;
      expect(text).toContain('A passkey named "<img src=x onerror=alert(1)>" was added to your account.');
      expect(html).toContain('A passkey named &quot;&lt;img src=x onerror=alert(1)&gt;&quot; was added');
      expect(html).not.toContain('<img');
    });

    it('never repeats a hostile User-Agent, only the browser it names', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      const hostile = '<script>alert(1)</script> Visit https://evil.example to keep your account Firefox/133.0 (X11; Linux x86_64)';
      await h.record({ type: 'password-changed', userId: user.id }, { userAgent: hostile });
      const { text, html } = h.sent[0]!;
      expect(text).toContain('Browser: Firefox on Linux');
      expect(`${text}${html}`).not.toMatch(/script|evil\.example/);
    });

    it('does not show an X-Forwarded-For that is not an address (behind trust proxy it is the client\'s text)', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      await h.record({ type: 'password-changed', userId: user.id }, { client: '<b>call 555-0100</b>' });
      const { text, html } = h.sent[0]!;
      // The recorder keeps no address that is not one (security-events/record.ts).
      expect(text).toContain('Address: not recorded');
      expect(`${text}${html}`).not.toMatch(/555-0100|<b>/);
    });

    it('shows the network when events.ipPrecision keeps only that', async () => {
      const h = await startHarness(await makeAdapter(), { config: { events: { ipPrecision: 'network' } } });
      const user = await newUser(h);
      await h.record({ type: 'password-changed', userId: user.id }, { client: '203.0.113.7' });
      expect(h.sent[0]!.text).toContain('Address: 203.0.113.0/24');
    });

    it('names support when told how to reach it, and the app by appName', async () => {
      const h = await startHarness(await makeAdapter(), { notifications: { appName: 'Example Shop', support: 'help@example.test' } });
      const user = await newUser(h);
      await h.record({ type: 'two-factor-off', userId: user.id });
      expect(h.sent[0]!.subject).toBe('Two-factor authentication was turned off on Example Shop');
      expect(h.sent[0]!.text).toContain('contact support (help@example.test)');
    });

    it('omits the account page\'s URL and the host without AUTH_URL (a request header never chooses them)', async () => {
      const h = await startHarness(await makeAdapter(), { env: {}, config: { trustHost: true } });
      const user = await newUser(h);
      await h.record({ type: 'password-changed', userId: user.id });
      const { subject, text, html } = h.sent[0]!;
      expect(subject).toBe('Your password was changed');
      expect(text).toContain('end the sessions you do not know on your account page');
      expect(`${text}${html}`).not.toMatch(/https?:\/\/(?!www\.w3\.org)|127\.0\.0\.1/);
      expect(linksOf(html)).toEqual([]);
    });
  });

  describe('a sign-in from a new device (newDevice: true)', () => {
    it('does not tell of a new account\'s first sign-in', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      await h.record({ type: 'sign-in', userId: user.id, method: 'oidc' });
      expect(h.sent).toEqual([]);
      expect(h.errors).toEqual([]);
    });

    it('does not tell of the first sign-in either when the events are stored after the notifications look', async () => {
      const h = await startHarness(await makeAdapter(), { events: 'after' });
      const user = await newUser(h);
      await h.record({ type: 'sign-in', userId: user.id }, { userAgent: FIREFOX_LINUX, client: '203.0.113.7' });
      await h.record({ type: 'sign-in', userId: user.id }, { userAgent: FIREFOX_LINUX, client: '203.0.113.7' });
      await h.record({ type: 'sign-in', userId: user.id }, { userAgent: CHROME_WINDOWS, client: '203.0.113.7' });
      expect(h.sent).toHaveLength(1);
    });

    it('does not tell of a sign-in from the same browser and network', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      await h.record({ type: 'sign-in', userId: user.id, method: 'oidc' }, { userAgent: FIREFOX_LINUX, client: '203.0.113.7' });
      await h.record({ type: 'sign-in', userId: user.id, method: 'oidc' }, { userAgent: FIREFOX_LINUX, client: '203.0.113.7' });
      expect(h.sent).toEqual([]);
    });

    it('does not count a browser\'s update or another address of the same network as a new device', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      await h.record({ type: 'sign-in', userId: user.id }, { userAgent: FIREFOX_LINUX, client: '203.0.113.7' });
      await h.record({ type: 'sign-in', userId: user.id }, { userAgent: FIREFOX_LINUX_UPDATED, client: '203.0.113.99' });
      expect(h.sent).toEqual([]);
    });

    it('tells of a sign-in from another browser, once, saying how it signed in', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      await h.record({ type: 'sign-in', userId: user.id, method: 'oidc' }, { userAgent: FIREFOX_LINUX, client: '203.0.113.7' });
      await h.record({ type: 'sign-in', userId: user.id, method: 'oidc' }, { userAgent: CHROME_WINDOWS, client: '203.0.113.7' });
      await h.record({ type: 'sign-in', userId: user.id, method: 'oidc' }, { userAgent: CHROME_WINDOWS, client: '203.0.113.7' });
      expect(h.sent).toHaveLength(1);
      expect(h.sent[0]!.to).toBe(user.email);
      expect(h.sent[0]!.subject).toBe('New sign-in to your account on app.example.test');
      expect(h.sent[0]!.text).toContain('Your account was signed in to with Example ID from a browser or network it had not used before.');
      expect(h.sent[0]!.text).toContain('Browser: Chrome on Windows');
    });

    it('tells of a sign-in from another network', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      await h.record({ type: 'sign-in', userId: user.id }, { userAgent: FIREFOX_LINUX, client: '203.0.113.7' });
      await h.record({ type: 'sign-in', userId: user.id }, { userAgent: FIREFOX_LINUX, client: '198.51.100.7' });
      expect(h.sent).toHaveLength(1);
      expect(h.sent[0]!.text).toContain('Address: 198.51.100.7');
    });

    it('compares with sign-ins only, not with other events from the device', async () => {
      const h = await startHarness(await makeAdapter());
      const user = await newUser(h);
      await h.record({ type: 'sign-in', userId: user.id }, { userAgent: FIREFOX_LINUX, client: '203.0.113.7' });
      await h.record({ type: 'sign-in-failed', userId: user.id, method: 'password' }, { userAgent: CHROME_WINDOWS, client: '198.51.100.7' });
      await h.record({ type: 'sign-in', userId: user.id }, { userAgent: CHROME_WINDOWS, client: '198.51.100.7' });
      expect(h.sent.map((message) => message.subject)).toEqual(['New sign-in to your account on app.example.test']);
    });

    it('does not tell of a new device without newDevice: true', async () => {
      const h = await startHarness(await makeAdapter(), { notifications: { newDevice: false } });
      const user = await newUser(h);
      await h.record({ type: 'sign-in', userId: user.id }, { userAgent: FIREFOX_LINUX, client: '203.0.113.7' });
      await h.record({ type: 'sign-in', userId: user.id }, { userAgent: CHROME_WINDOWS, client: '198.51.100.7' });
      expect(h.sent).toEqual([]);
    });
  });

  describe('sending never reaches the request', () => {
    it('logs a send that rejects, and recordSecurityEvent still resolves', async () => {
      const h = await startHarness(await makeAdapter(), { notifications: { send: () => Promise.reject(new Error('SMTP down')) } });
      const user = await newUser(h);
      await expect(recordSecurityEvent({ options: h.options }, { type: 'password-changed', userId: user.id })).resolves.toBeUndefined();
      await vi.waitFor(() => expect(h.errors).toHaveLength(1));
      expect(h.errors[0]!.message).toBe('Sending the security notification "password-changed" failed');
      expect(h.errors[0]!.name).toBe('EventError');
    });

    it('logs a send that throws', async () => {
      const h = await startHarness(await makeAdapter(), {
        notifications: {
          send: () => {
            throw new Error('no transport');
          },
        },
      });
      const user = await newUser(h);
      await h.record({ type: 'password-reset', userId: user.id });
      expect(h.errors.map((error) => error.message)).toEqual(['Sending the security notification "password-reset" failed']);
    });

    it('does not wait for the delivery', async () => {
      let calls = 0;
      const h = await startHarness(await makeAdapter(), {
        notifications: {
          send: () => {
            calls += 1;
            return new Promise<void>(() => {});
          },
        },
      });
      const user = await newUser(h);
      await h.record({ type: 'api-key-created', userId: user.id, detail: 'CI' });
      expect(calls).toBe(1);
    });
  });
});

describe('security notifications: no adapter, configuration', () => {
  it('sends nothing without an adapter', async () => {
    const h = await startHarness({ adapter: undefined, folder: undefined }, { events: false, notifications: { newDevice: false } });
    await h.record({ type: 'password-changed', userId: 'someone' });
    expect(h.sent).toEqual([]);
    expect(h.errors).toEqual([]);
  });

  it('refuses newDevice: true without the SecurityEvents feature, at startup', () => {
    const config = { secret: SECRET, providers: [OIDC], adapter: MemoryAdapter(), features: [SecurityNotifications({ send: () => {}, newDevice: true })] };
    expect(() => resolveConfig(config, {})).toThrow(/SecurityNotifications\(\{ newDevice: true \}\) compares a sign-in with the stored ones: add SecurityEvents/);
  });

  it('refuses a missing send', () => {
    expect(() => SecurityNotifications({} as SecurityNotificationsOptions)).toThrow(/needs a `send` function/);
  });

  it('refuses an appName on more than one line', () => {
    expect(() => SecurityNotifications({ send: () => {}, appName: 'Shop\r\nBcc: everyone@example.test' })).toThrow(/appName/);
  });
});

describe('security notifications through SMTP', () => {
  it('delivers the text and HTML parts to the account\'s address through nodemailer and a loopback SMTP server', async () => {
    const smtp = await startSmtpServer();
    try {
      const h = await startHarness(
        { adapter: MemoryAdapter(), folder: undefined },
        { notifications: { send: (message) => sendSmtpMessage(smtp.url, { from: 'security@app.example.test', ...message }) } },
      );
      const user = await newUser(h);
      await h.record({ type: 'recovery-code-used', userId: user.id }, { userAgent: CHROME_WINDOWS });
      const received = await smtp.waitForMessage(0);
      expect(received.rcptTo).toEqual([user.email]);
      expect(received.mailFrom).toBe('security@app.example.test');
      expect(received.headers['subject']).toBe('A recovery code was used on app.example.test');
      expect(received.text).toContain('One of your two-factor recovery codes was used to sign in to your account.');
      expect(received.text).toContain('Browser: Chrome on Windows');
      expect(received.html).toContain(`<a href="${ACCOUNT_URL}">`);
      expect(h.errors).toEqual([]);
    } finally {
      await smtp.close();
    }
  });
});

describe('browserOf', () => {
  it.each([
    [FIREFOX_LINUX, 'Firefox on Linux'],
    [CHROME_WINDOWS, 'Chrome on Windows'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15', 'Safari on macOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1', 'Safari on iOS'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36', 'Chrome on Android'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0', 'Edge on Windows'],
    ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome on ChromeOS'],
    ['curl/8.5.0', 'an unknown browser'],
    [null, 'an unknown browser'],
  ])('names %j as "%s"', (userAgent, expected) => {
    expect(browserOf(userAgent)).toBe(expected);
  });
});
