import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar, formBody } from '../support/cookie-jar.js';
import type { RunningApp } from '../support/listen.js';
import { FrameworkAuth, MissingSecret, resolveConfig, type FrameworkAuthConfig } from '../../templates/runtime/index.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import Microblog from '../../templates/runtime/providers/microblog.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { sendJson } from '../../templates/runtime/context.js';
import { InvalidRequest } from '../../templates/runtime/errors.js';
import type { Feature } from '../../templates/runtime/contracts.js';
import { database } from '../../templates/runtime/features/database/index.js';
import { SECRET, credentialsConfig, passwordProvider, recordingLogger, signIn, startApp } from './helpers.js';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<string | symbol, unknown>)[key]);
  }
  return value;
}

describe('the secret is checked at startup', () => {
  it('throws MissingSecret naming AUTH_SECRET when it is missing', () => {
    expect(() => resolveConfig({ providers: [] }, {})).toThrow(MissingSecret);
    expect(() => resolveConfig({ providers: [] }, {})).toThrow(/AUTH_SECRET is not set.*at least 32 characters/);
  });

  it('throws MissingSecret when AUTH_SECRET is shorter than 32 characters, without echoing it', () => {
    const short = 'too-short-secret-value';
    let message = '';
    try {
      resolveConfig({ providers: [] }, { AUTH_SECRET: short });
    } catch (error) {
      message = (error as Error).message;
      expect(error).toBeInstanceOf(MissingSecret);
    }
    expect(message).toMatch(/AUTH_SECRET is 22 characters long; it must be at least 32/);
    expect(message).not.toContain(short);
  });

  it('throws from FrameworkAuth() itself, before any request', () => {
    expect(() => FrameworkAuth({ providers: [], secret: 'short' })).toThrow(MissingSecret);
  });

  it('reads several comma-separated secrets, newest first, each checked', () => {
    expect(resolveConfig({ providers: [] }, { AUTH_SECRET: `${SECRET}, ${'o'.repeat(32)}` }).secrets).toEqual([SECRET, 'o'.repeat(32)]);
    expect(() => resolveConfig({ providers: [] }, { AUTH_SECRET: `${SECRET},short` })).toThrow(/Secret #2 of AUTH_SECRET is 5 characters long/);
  });
});

describe('configuration checks', () => {
  it('refuses two providers with the same id', () => {
    expect(() => resolveConfig({ secret: SECRET, providers: [OIDC(), OIDC()] }, {})).toThrow('Two providers have the id "oidc"; ids must be unique');
  });

  it('accepts credentials with database sessions (test/runtime/credentials-database.test.ts signs in with them)', () => {
    expect(resolveConfig({ secret: SECRET, providers: [passwordProvider()], adapter: MemoryAdapter() }, {}).session.strategy).toBe('database');
  });

  it('refuses a nonce check on a plain OAuth 2 provider', () => {
    expect(() => resolveConfig({ secret: SECRET, providers: [{ id: 'x', name: 'X', type: 'oauth', checks: ['nonce' as never] }] }, {})).toThrow(/only for OpenID Connect/);
  });

  it('defaults checks to pkce and adds state when redirectProxyUrl is set', () => {
    const plain = resolveConfig({ secret: SECRET, providers: [OIDC()] }, {});
    expect(plain.providers[0]).toMatchObject({ checks: ['pkce'] });
    const proxied = resolveConfig({ secret: SECRET, providers: [OIDC()], redirectProxyUrl: 'https://auth.example.test/auth' }, { AUTH_URL: 'https://preview.example.test' });
    expect(proxied.providers[0]).toMatchObject({ checks: ['pkce', 'state'] });
  });

  it('fills client id, secret and issuer from AUTH_<ID>_* env vars', () => {
    const options = resolveConfig({ secret: SECRET, providers: [OIDC()] }, { AUTH_OIDC_ID: 'cid', AUTH_OIDC_SECRET: 'csecret', AUTH_OIDC_ISSUER: 'https://idp.example.test' });
    expect(options.providers[0]).toMatchObject({ clientId: 'cid', clientSecret: 'csecret', issuer: 'https://idp.example.test' });
  });

  it('merges a factory call with options over the provider defaults', () => {
    const options = resolveConfig({ secret: SECRET, providers: [OIDC({ name: 'Corp SSO', authorization: { params: { prompt: 'login' } } })] }, {});
    expect(options.providers[0]).toMatchObject({ name: 'Corp SSO', authorization: { params: { scope: 'openid profile email', prompt: 'login' } } });
  });

  it('accepts a provider factory itself in the list', () => {
    const options = resolveConfig({ secret: SECRET, providers: [Microblog] }, {});
    expect(options.providers[0]).toMatchObject({ id: 'microblog', type: 'oauth', checks: ['pkce', 'state'] });
  });
});

describe('features (`Feature`, contracts.ts)', () => {
  it('refuses an adapter without the database feature, naming the fix', () => {
    const { [Symbol.for('framework-auth.features')]: _carried, ...authJsShaped } = MemoryAdapter() as Record<string | symbol, unknown>;
    expect(() => resolveConfig({ secret: SECRET, providers: [OIDC()], adapter: authJsShaped }, {})).toThrow(/features: \[database\]/);
    expect(resolveConfig({ secret: SECRET, providers: [OIDC()], adapter: authJsShaped, features: [database] }, {}).database).toBe(database.database);
  });

  it('takes the database feature from a built-in adapter, and counts a feature listed twice once', () => {
    const options = resolveConfig({ secret: SECRET, providers: [OIDC()], adapter: MemoryAdapter(), features: [database] }, {});
    expect(options.features.map((feature) => feature.id)).toEqual(['database']);
    expect(resolveConfig({ secret: SECRET, providers: [OIDC()] }, {}).database).toBeUndefined();
  });

  it('serves a feature route, answers its errors as the route says, and refuses one that shadows another', async () => {
    const ping: Feature = {
      id: 'ping',
      routes: {
        ping: {
          methods: ['GET'],
          provider: 'none',
          errors: 'json',
          run: (context) => {
            if (context.req.query['fail'] !== undefined) throw new InvalidRequest('ping failed');
            sendJson(context, 200, { pong: true });
          },
        },
      },
    };
    const app = await startApp({ secret: SECRET, trustHost: true, providers: [], features: [ping] });
    try {
      expect(await (await fetch(`${app.url}/auth/ping`)).json()).toEqual({ pong: true });
      const failed = await fetch(`${app.url}/auth/ping?fail`, { headers: { accept: 'text/html' } });
      expect(failed.status).toBe(400);
      expect(await failed.json()).toEqual({ error: 'InvalidRequest', message: 'ping failed' });
      expect((await fetch(`${app.url}/auth/ping`, { method: 'POST' })).status).toBe(405);
    } finally {
      await app.close();
    }
    const shadowing: Feature = { id: 'shadow', routes: { signin: ping.routes!['ping']! } };
    expect(() => FrameworkAuth({ secret: SECRET, providers: [], features: [shadowing] })).toThrow('Feature "shadow" brings a route "signin" that the app already has');
  });
});

describe('the user config is never mutated (regression)', () => {
  let app: RunningApp;
  const config: FrameworkAuthConfig = deepFreeze(credentialsConfig({ providers: [passwordProvider(), OIDC({ issuer: 'http://127.0.0.1:9', clientId: 'x', clientSecret: 'y' })] }));
  const snapshot = JSON.stringify(config);
  beforeAll(async () => {
    app = await startApp(config);
  });
  afterAll(() => app.close());

  it('serves sign-in, session, pages and errors with a deep-frozen config', async () => {
    const { jar } = await signIn(app.url);
    await jar.fetch(`${app.url}/auth/session`);
    await jar.fetch(`${app.url}/auth/providers`);
    await jar.fetch(`${app.url}/auth/signin`);
    await signIn(app.url, '/auth', { password: 'wrong' });
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const started = await jar.fetch(`${app.url}/auth/signin/oidc`, { method: 'POST', ...formBody({ csrfToken }) });
    expect(started.status).toBe(302);
    expect(JSON.stringify(config)).toBe(snapshot);
  });
});

describe('host trust and AUTH_URL', () => {
  const saved = { ...process.env };
  afterAll(() => {
    process.env = saved;
  });

  it('treats AUTH_TRUST_HOST=false as false (regression: @auth/express treats it as true)', async () => {
    process.env.AUTH_TRUST_HOST = 'false';
    delete process.env.AUTH_URL;
    const { logger } = recordingLogger();
    const app = await startApp({ secret: SECRET, providers: [passwordProvider()], logger });
    delete process.env.AUTH_TRUST_HOST;
    try {
      const response = await fetch(`${app.url}/auth/providers`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'UntrustedHost' });
    } finally {
      await app.close();
    }
  });

  it('builds every URL on AUTH_URL when it is set, whatever the Host header says', async () => {
    process.env.AUTH_URL = 'https://app.example.test';
    const app = await startApp({ secret: SECRET, providers: [passwordProvider()], logger: recordingLogger().logger });
    delete process.env.AUTH_URL;
    try {
      const response = await fetch(`${app.url}/auth/providers`, { headers: { host: 'evil.example' } });
      const body = (await response.json()) as { credentials: { callbackUrl: string } };
      expect(body.credentials.callbackUrl).toBe('https://app.example.test/auth/callback/credentials');
    } finally {
      await app.close();
    }
  });
});

describe('HTTPS behind a proxy', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(credentialsConfig());
  });
  afterAll(() => app.close());

  it('uses __Secure-/__Host- cookies with Secure when X-Forwarded-Proto is https and trust proxy is on', async () => {
    const jar = createJar({ assumeHttps: true });
    const headers = { 'x-forwarded-proto': 'https' };
    const csrf = await jar.fetch(`${app.url}/auth/csrf`, { headers });
    expect(csrf.headers.getSetCookie()[0]).toMatch(/^__Host-authjs\.csrf-token=.*; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const form = formBody({ csrfToken, username: 'ada', password: 'correct horse' });
    const response = await jar.fetch(`${app.url}/auth/callback/credentials`, { method: 'POST', body: form.body, headers: { ...form.headers, ...headers } });
    expect(response.headers.getSetCookie().find((cookie) => cookie.startsWith('__Secure-authjs.session-token='))).toMatch(/; Secure;/);
    expect(response.headers.get('location')).toMatch(/^https:\/\//);
    const providers = (await (await fetch(`${app.url}/auth/providers`, { headers })).json()) as { credentials: { callbackUrl: string } };
    expect(providers.credentials.callbackUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/auth\/callback\/credentials$/);
  });

  it('ignores X-Forwarded-Proto when trust proxy is off', async () => {
    const { listen } = await import('../support/listen.js');
    const express = (await import('express')).default;
    const config = credentialsConfig();
    const server = express();
    server.use('/auth/*splat', FrameworkAuth(config));
    const untrusted = await listen(server);
    try {
      const response = await fetch(`${untrusted.url}/auth/csrf`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' } });
      expect(response.headers.getSetCookie()[0]).toMatch(/^authjs\.csrf-token=/);
      const providers = (await (await fetch(`${untrusted.url}/auth/providers`, { headers: { 'x-forwarded-host': 'evil.example' } })).json()) as { credentials: { callbackUrl: string } };
      expect(providers.credentials.callbackUrl.startsWith(untrusted.url)).toBe(true);
    } finally {
      await untrusted.close();
    }
  });
});

describe('callbackUrl never leaves the origin', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(credentialsConfig());
  });
  afterAll(() => app.close());

  it.each(['//evil.example', '/\\evil.example', 'https:evil.example', 'https://evil.example/', 'HTTPS://EVIL.EXAMPLE', '%2F%2Fevil.example', 'javascript:alert(1)', `http://127.0.0.1:1/elsewhere`])(
    'sends %s to this origin after sign-in',
    async (callbackUrl) => {
      const { response } = await signIn(app.url, '/auth', { callbackUrl });
      expect(new URL(response.headers.get('location')!).origin).toBe(app.url);
    },
  );

  it('replaces a foreign URL returned by the redirect callback with the origin', async () => {
    const hostile = await startApp(credentialsConfig({ callbacks: { redirect: () => 'https://evil.example/' } }));
    try {
      const { response } = await signIn(hostile.url, '/auth', { callbackUrl: '/me' });
      expect(response.headers.get('location')).toBe(`${hostile.url}/`);
    } finally {
      await hostile.close();
    }
  });
});

describe('pages', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp(credentialsConfig(), '/api/auth');
  });
  afterAll(() => app.close());

  it('links the error page to the sign-in page of the mount (regression: broken "Sign in" link)', async () => {
    const response = await fetch(`${app.url}/api/auth/error?error=AccessDenied`);
    expect(response.status).toBe(403);
    const page = await response.text();
    expect(page).toContain('href="/api/auth/signin"');
    expect((await fetch(`${app.url}/api/auth/signin`)).status).toBe(200);
  });

  it('renders error and callbackUrl inert on the sign-in page', async () => {
    const page = await (await fetch(`${app.url}/api/auth/signin?error=%3Cscript%3Ealert(1)%3C/script%3E&callbackUrl=%22%3E%3Cscript%3Ealert(2)%3C/script%3E`)).text();
    expect(page).not.toContain('<script>');
  });

  it('escapes provider names', async () => {
    const hostile = await startApp(credentialsConfig({ providers: [{ ...passwordProvider(), name: '<img src=x onerror=alert(1)>' }] }));
    try {
      const page = await (await fetch(`${hostile.url}/auth/signin`)).text();
      expect(page).toContain('Sign in with &lt;img src=x onerror=alert(1)&gt;');
      expect(page).not.toContain('<img src=x');
    } finally {
      await hostile.close();
    }
  });
});
