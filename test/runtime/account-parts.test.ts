// The account's extension points (issue 47): a feature declared here, in the test, adds a section to the account
// page, fields to its JSON, an entry to the export, a refusal before a deletion, what it forgets of a deleted address,
// and a security event type with its label; a stored type no feature labels shows as "Security event". And the
// account's own source names no other feature's folder or adapter methods.
import { readdirSync, readFileSync } from 'node:fs';
import express, { urlencoded } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { type Feature, type SecurityEventType, providerFlow } from '../../templates/runtime/contracts.js';
import { recordSecurityEvent } from '../../templates/runtime/events.js';
import { Account } from '../../templates/runtime/features/account/index.js';
import { html } from '../../templates/runtime/pages/html.js';
import { FrameworkAuth, resolveConfig } from '../../templates/runtime/index.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import { SECRET, recordingLogger } from './helpers.js';

declare module '../../templates/runtime/contracts.js' {
  interface SecurityEventTypes {
    'sample-shared': true;
  }
}

const OIDC = { id: 'oidc', name: 'Example ID', type: 'oidc' as const, issuer: 'https://issuer.example', clientId: 'id', clientSecret: 'secret' };
const REFUSAL = 'You still share a <sample>: hand it over first.';

/** Users whose deletion the sample refuses, and the addresses it was told to forget. */
const refused = new Set<string>();
const forgotten: string[] = [];

/** A feature of the test's own: it names nothing of the account, and the account names nothing of it. */
const sample: Feature = {
  id: 'sample',
  securityEventLabels: { 'sample-shared': 'Sample shared' },
  account: {
    async view({ user }) {
      return {
        json: { samples: { shared: 2 } },
        links: { samples: true },
        html: (page) => ({
          section: {
            heading: 'Your <samples>',
            rows: [html`<li class="inline"><span>Shared with ${user.email}</span>${page.buttonForm('samples/stop', { id: 's1' }, 'Stop sharing')}</li>`],
            links: [html`<a href="${page.mountPath}/samples">All samples</a>`],
          },
        }),
      };
    },
    async export({ user }) {
      return { samples: [{ name: 'first', owner: user.id }] };
    },
    async beforeDelete({ user }) {
      return refused.has(user.id) ? REFUSAL : undefined;
    },
    async forgetAddress(_options, _adapter, email) {
      forgotten.push(email);
    },
    forms: {
      async 'samples/stop'(request, body) {
        if (body['id'] !== 's1') return request.refuse({ sample: 'You share no sample with this id.' });
        request.done(200, { stopped: 's1' }, 'sample-stopped');
      },
    },
    notices: { 'sample-stopped': 'You no longer share the sample.' },
  },
};

interface Harness {
  url: string;
  app: RunningApp;
  adapter: Required<Adapter>;
  config: FrameworkAuthConfig;
}

let h: Harness;
let users = 0;

beforeAll(async () => {
  const adapter = MemoryAdapter();
  const config: FrameworkAuthConfig = { secret: SECRET, trustHost: ['127.0.0.1'], adapter, providers: [OIDC], features: [Account({ sendMessage: () => {} }), sample], logger: recordingLogger().logger, rateLimit: false };
  const app = express();
  app.use(urlencoded({ extended: true }));
  app.use('/auth/*splat', FrameworkAuth(config));
  const running = await listen(app);
  h = { url: running.url, app: running, adapter: adapter as Required<Adapter>, config };
});
afterAll(() => h.app.close());

/** A user with a linked OIDC account and a fresh session (its cookie in a new jar). */
async function signedInUser(): Promise<{ id: string; email: string; jar: CookieJar }> {
  users += 1;
  const email = `sample-${users}@example.test`;
  const user = await h.adapter.createUser({ id: crypto.randomUUID(), email, name: `User ${users}`, emailVerified: new Date() });
  await h.adapter.linkAccount({ userId: user.id, type: 'oidc', provider: 'oidc', providerAccountId: `sub-${user.id}` });
  const sessionToken = crypto.randomUUID();
  const now = new Date();
  await h.adapter.createSession({ sessionToken, userId: user.id, expires: new Date(now.valueOf() + 3_600_000), createdAt: now, lastSeenAt: now, userAgent: 'test' });
  const jar = createJar();
  jar.set(h.url, `authjs.session-token=${sessionToken}; Path=/; HttpOnly`);
  return { id: user.id, email, jar };
}

async function post(jar: CookieJar, path: string, fields: Record<string, string>, json = false): Promise<Response> {
  const { csrfToken } = (await (await jar.fetch(`${h.url}/auth/csrf`)).json()) as { csrfToken: string };
  const form = formBody({ csrfToken, ...fields });
  return jar.fetch(`${h.url}/auth/${path}`, { method: 'POST', body: form.body, headers: { ...form.headers, accept: json ? 'application/json' : 'text/html' } });
}

describe("a feature's part of the account", () => {
  it('adds its section (escaped heading, rows with the page’s forms, links) after the account pages’ links and before the activity', async () => {
    const { email, jar } = await signedInUser();
    const page = await (await jar.fetch(`${h.url}/auth/account`)).text();
    expect(page).toContain('<h2>Your &lt;samples&gt;</h2>');
    expect(page).toContain(`<span>Shared with ${email}</span><form action="/auth/account/samples/stop" method="POST"><input type="hidden" name="csrfToken" value="`);
    expect(page).toContain('<a href="/auth/samples">All samples</a>');
    expect(page.indexOf('Export my data')).toBeLessThan(page.indexOf('Your &lt;samples&gt;'));
    expect(page.indexOf('Your &lt;samples&gt;')).toBeLessThan(page.indexOf('Recent activity'));
    // Every form of the page, the section's too, carries the CSRF token.
    expect((page.match(/<form /g) ?? []).length).toBe((page.match(/name="csrfToken"/g) ?? []).length);
  });

  it('answers its form below <mount>/account/: a redirect to its notice, JSON, or the page with its field’s error (400)', async () => {
    const { jar } = await signedInUser();
    const done = await post(jar, 'account/samples/stop', { id: 's1' });
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe(`${h.url}/auth/account?notice=sample-stopped`);
    expect(await (await jar.fetch(done.headers.get('location')!)).text()).toContain('<div class="notice" role="status"><p>You no longer share the sample.</p></div>');
    const json = await post(jar, 'account/samples/stop', { id: 's1' }, true);
    expect(json.status).toBe(200);
    expect(await json.json()).toEqual({ stopped: 's1' });
    const refusedForm = await post(jar, 'account/samples/stop', { id: 'other' });
    expect(refusedForm.status).toBe(400);
    expect(await refusedForm.text()).toContain('<p class="field-error" id="account-sample-error">You share no sample with this id.</p>');
    // Without the CSRF token, nothing runs.
    const form = formBody({ id: 's1' });
    expect((await jar.fetch(`${h.url}/auth/account/samples/stop`, { method: 'POST', body: form.body, headers: form.headers })).status).toBe(403);
    expect((await jar.fetch(`${h.url}/auth/account/samples/other`, { method: 'POST' })).status).toBe(404);
  });

  it('adds its fields and links to the JSON view', async () => {
    const { jar } = await signedInUser();
    const view = (await (await jar.fetch(`${h.url}/auth/account`, { headers: { accept: 'application/json' } })).json()) as Record<string, unknown>;
    expect(view).toMatchObject({ samples: { shared: 2 }, links: { sessions: true, samples: true } });
  });

  it('adds its entry to the export', async () => {
    const { id, jar } = await signedInUser();
    const exported = (await (await jar.fetch(`${h.url}/auth/account/export`)).json()) as Record<string, unknown>;
    expect(exported).toMatchObject({ user: { id }, samples: [{ name: 'first', owner: id }] });
  });

  it('refuses a deletion with its reason beside the delete form (400), and deletes nothing', async () => {
    const { id, email, jar } = await signedInUser();
    refused.add(id);
    const browser = await post(jar, 'account/delete', { email });
    expect(browser.status).toBe(400);
    const page = await browser.text();
    expect(page).toContain('You still share a &lt;sample&gt;: hand it over first.');
    expect(page).toContain('aria-invalid="true" aria-describedby="account-delete-email-error"');
    const json = await post(jar, 'account/delete', { confirm: 'yes' }, true);
    expect(json.status).toBe(400);
    expect(await json.json()).toEqual({ error: 'InvalidRequest', errors: { confirm: REFUSAL } });
    expect(await h.adapter.getUser(id)).not.toBeNull();
    expect(forgotten).not.toContain(email);
  });

  it('forgets the address of a deleted user once it no longer refuses', async () => {
    const { id, email, jar } = await signedInUser();
    expect((await post(jar, 'account/delete', { confirm: 'yes' }, true)).status).toBe(200);
    expect(await h.adapter.getUser(id)).toBeNull();
    expect(forgotten).toContain(email);
  });
});

describe('security event types declared by features', () => {
  it('shows a feature’s type by its label, and a type no feature labels as "Security event", never failing', async () => {
    const { id, jar } = await signedInUser();
    const options = resolveConfig(h.config);
    await recordSecurityEvent({ options }, { type: 'sample-shared', userId: id, detail: 'first' });
    // Rows of a feature the app no longer has, or of no feature at all, as a database may hold them.
    for (const stored of ['retired-feature-event', 'constructor', '__proto__', '<b>odd</b>']) {
      await h.adapter.createSecurityEvent({ id: crypto.randomUUID(), userId: id, type: stored as SecurityEventType, at: new Date(), method: null, ip: null, userAgent: null, detail: null });
    }
    const response = await jar.fetch(`${h.url}/auth/account`);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<strong>Sample shared</strong>');
    expect(page.match(/<strong>Security event<\/strong>/g)).toHaveLength(4);
    expect(page).not.toContain('<b>odd</b>');
    expect(page).not.toContain('retired-feature-event');
  });

  it('labels every type the runtime records: the core’s and those of the built-in features', async () => {
    const { database } = await import('../../templates/runtime/features/database/index.js');
    const { SecurityEvents } = await import('../../templates/runtime/features/security-events/index.js');
    const { passkeys } = await import('../../templates/runtime/features/passkey/index.js');
    const { ApiKeys } = await import('../../templates/runtime/features/api-keys/index.js');
    const { TwoFactor } = await import('../../templates/runtime/features/two-factor/index.js');
    const { Organizations } = await import('../../templates/runtime/features/organizations/index.js');
    const { default: Password } = await import('../../templates/runtime/providers/password.js');
    const features: Feature[] = [database, SecurityEvents, passkeys, ApiKeys(), TwoFactor(), Organizations(), Account(), ...(Password({ sendMessage: () => {} })[providerFlow].features ?? [])];
    const labels = Object.assign({}, ...features.map((feature) => feature.securityEventLabels ?? {})) as Record<string, string>;
    const recorded = ['sign-in', 'sign-in-failed', 'sign-out', 'password-set', 'password-changed', 'password-reset', 'email-changed', 'two-factor-on', 'two-factor-off', 'recovery-code-used', 'passkey-added', 'passkey-removed', 'api-key-created', 'api-key-revoked', 'session-ended', 'account-linked', 'account-unlinked',
      'organization-created', 'organization-updated', 'organization-deleted', 'member-invited', 'member-joined', 'member-left', 'member-removed', 'member-role-changed', 'ownership-transferred', 'invitation-cancelled', 'invitation-declined'];
    expect(Object.keys(labels).sort()).toEqual([...recorded].sort());
  });
});

describe('the account feature’s source', () => {
  const folder = new URL('../../templates/runtime/features/account/', import.meta.url);
  const sources = readdirSync(folder)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => [name, readFileSync(new URL(name, folder), 'utf8')] as const);

  it.each(sources)('%s imports nothing of the passkey, password, two-factor, API-keys or organizations features', (_name, source) => {
    expect(source).not.toMatch(/from '\.\.\/(passkey|password|two-factor|api-keys|organizations)\//);
  });

  it.each(sources)('%s calls none of their adapter methods', (_name, source) => {
    expect(source).not.toMatch(/Authenticator|PasswordHash|TwoFactor|ApiKey|Membership|Organization|SoleOwnership/);
  });
});
