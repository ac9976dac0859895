// The trustHost allow-list (templates/runtime/http/origin.ts): which Host a listed entry accepts, and which origin the
// links that carry a sign-in secret are built on. The app trusts every proxy hop, so the client below chooses Host and
// X-Forwarded-Proto as an attacker in front of a misconfigured proxy could; requests go out over node:http because
// fetch will not send a chosen Host.
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';

import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { FrameworkAuth, decode } from '../../templates/runtime/index.js';
import type { FrameworkAuthConfig } from '../../templates/runtime/index.js';
import Email from '../../templates/runtime/providers/email.js';
import { rawRequest } from '../hardening/support/raw-http.js';
import type { RawResponse } from '../hardening/support/raw-http.js';
import { listen } from '../support/listen.js';
import type { RunningApp } from '../support/listen.js';

import { SECRET, passwordProvider, recordingLogger } from './helpers.js';
import { acme } from '../hardening/support/explicit-provider.js';

const running: RunningApp[] = [];
afterAll(async () => {
  await Promise.all(running.map((app) => app.close()));
});

/** Host and X-Forwarded-Proto, as a client sends them. */
interface ClientHeaders {
  host: string;
  proto: 'http' | 'https';
}

/** FrameworkAuth on `/auth/*splat` behind `trust proxy` true, on 127.0.0.1. */
async function startApp(config: Partial<FrameworkAuthConfig>): Promise<RunningApp> {
  const app = express();
  app.set('trust proxy', true);
  app.use('/auth/*splat', FrameworkAuth({ secret: SECRET, logger: recordingLogger().logger, providers: [], ...config }));
  const started = await listen(app);
  running.push(started);
  return started;
}

/** GET /auth/csrf, then POST `path` with its token and cookie, both with the client's Host and X-Forwarded-Proto. */
async function postWithCsrf(app: RunningApp, path: string, client: ClientHeaders, fields: Record<string, string> = {}): Promise<RawResponse> {
  const headers = { host: client.host, 'x-forwarded-proto': client.proto };
  const csrf = await rawRequest(app.url, { path: '/auth/csrf', headers });
  expect(csrf.status).toBe(200);
  const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
  const cookie = csrf.setCookies.map((setCookie) => setCookie.split(';')[0]).join('; ');
  return rawRequest(app.url, {
    method: 'POST',
    path,
    headers: { ...headers, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrfToken, ...fields }).toString(),
  });
}

/** Asks an app with `trustHost` and the email provider for a link, as `client`: the origin of the emailed link. */
async function emailedLinkOrigin(trustHost: string[], client: ClientHeaders): Promise<string> {
  const links: string[] = [];
  const app = await startApp({ trustHost, adapter: MemoryAdapter(), providers: [Email({ sendVerificationRequest: ({ url }) => void links.push(url) })] });
  const response = await postWithCsrf(app, '/auth/signin/email', client, { email: 'ada@example.test' });
  expect(response.status).toBe(302);
  expect(links).toHaveLength(1);
  return new URL(links[0]!).origin;
}

describe('links built on a host-only trustHost entry', () => {
  it('emails a link on https when the request came over http', async () => {
    expect(await emailedLinkOrigin(['app.example.test'], { host: 'app.example.test', proto: 'http' })).toBe('https://app.example.test');
  });

  it('emails a link on the default port, not the port in the Host header', async () => {
    expect(await emailedLinkOrigin(['app.example.test'], { host: 'app.example.test:8080', proto: 'https' })).toBe('https://app.example.test');
  });

  it('emails a link on the port the entry names, over https', async () => {
    expect(await emailedLinkOrigin(['app.example.test:8443'], { host: 'app.example.test:8443', proto: 'http' })).toBe('https://app.example.test:8443');
  });

  it('emails a link on https and the default port for a host a wildcard entry matches', async () => {
    expect(await emailedLinkOrigin(['*.example.test'], { host: 'pr-7.example.test:8080', proto: 'http' })).toBe('https://pr-7.example.test');
  });

  it('keeps the request\'s scheme and port for a loopback entry: such a link leads back to the machine it is opened on', async () => {
    expect(await emailedLinkOrigin(['127.0.0.1'], { host: '127.0.0.1:3000', proto: 'http' })).toBe('http://127.0.0.1:3000');
  });

  it('puts https on the default port into the state the redirect proxy forwards by', async () => {
    const app = await startApp({ trustHost: ['*.preview.example.test'], providers: [acme()], redirectProxyUrl: 'https://auth.example.test/auth' });
    const response = await postWithCsrf(app, '/auth/signin/acme', { host: 'pr-7.preview.example.test:8080', proto: 'http' });
    expect(response.status).toBe(302);
    const state = new URL(String(response.headers.location)).searchParams.get('state') ?? '';
    // The request came over http: the state is encrypted with the plain cookie's name as salt.
    const payload = await decode({ token: state, secret: SECRET, salt: 'authjs.state' });
    expect(payload?.['origin']).toBe('https://pr-7.preview.example.test/auth/callback/acme');
  });
});

describe('an origin trustHost entry', () => {
  it('does not match Host: app.example.test:80 on an https request against https://app.example.test', async () => {
    const app = await startApp({ trustHost: ['https://app.example.test'], providers: [passwordProvider()] });
    const response = await rawRequest(app.url, { path: '/auth/csrf', headers: { host: 'app.example.test:80', 'x-forwarded-proto': 'https' } });
    expect(response.status).toBe(400);
    expect(response.body).not.toContain('csrfToken');
  });
});

describe('a wildcard trustHost entry on a public suffix', () => {
  const start = (entry: string) => () => FrameworkAuth({ secret: SECRET, trustHost: [entry], providers: [passwordProvider()] });

  it('refuses *.com at startup, naming the entry and the top-level domain', () => {
    expect(start('*.com')).toThrow(TypeError);
    expect(start('*.com')).toThrow(/"\*\.com".*public suffix.*top-level domain/);
  });

  it('refuses *.co.uk at startup, naming the entry and the country\'s second-level domain', () => {
    expect(start('*.co.uk')).toThrow(TypeError);
    expect(start('*.co.uk')).toThrow(/"\*\.co\.uk".*public suffix/);
  });

  it('refuses *.com. with a trailing dot at startup', () => {
    expect(start('*.com.')).toThrow(/"\*\.com\.".*public suffix/);
  });

  it('refuses *.com in AUTH_TRUST_HOST at startup, naming the entry', () => {
    const saved = process.env['AUTH_TRUST_HOST'];
    process.env['AUTH_TRUST_HOST'] = 'app.example.test, *.com';
    try {
      expect(() => FrameworkAuth({ secret: SECRET, providers: [passwordProvider()] })).toThrow(/"\*\.com"/);
    } finally {
      if (saved === undefined) delete process.env['AUTH_TRUST_HOST'];
      else process.env['AUTH_TRUST_HOST'] = saved;
    }
  });

  it('accepts *.example.com and *.example.co.uk', () => {
    expect(start('*.example.com')).not.toThrow();
    expect(start('*.example.co.uk')).not.toThrow();
  });
});
