// Issue 47, item 2: sign-in and session hooks as lists. A feature adds fields to the session (`Feature.session`, read
// per request), refuses a user after any first factor and on every API-key request (`beforeSignIn`, with an error the
// sign-in page shows), acts once a session is open (`afterSignIn`); and the single slots (`bearer`, `securityEvents`,
// `signedInPage`, `secondFactor`) take every feature that has one, in order. Each first factor over HTTP against an
// Express app on 127.0.0.1: OAuth (the loopback OpenID provider), email link, password and passkey with the memory
// adapter, credentials with JWT sessions, and API keys.
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { sendRedirect } from '../../templates/runtime/context.js';
import type { BearerAuthentication, Feature, RequestContext } from '../../templates/runtime/contracts.js';
import { ApiKeys, createApiKey } from '../../templates/runtime/features/api-keys/index.js';
import { hashPassword } from '../../templates/runtime/features/password/hash.js';
import { AuthError, FrameworkAuth, clientSafe, createRequireAuth, createSessionLocals, getSession } from '../../templates/runtime/index.js';
import type { Adapter, ErrorResponse, ErrorType, FrameworkAuthConfig, Session } from '../../templates/runtime/index.js';
import Email from '../../templates/runtime/providers/email.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import Password from '../../templates/runtime/providers/password.js';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen } from '../support/listen.js';
import { startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { SoftwareAuthenticator, type AuthenticationOptionsJson, type RegistrationOptionsJson } from '../support/software-authenticator.js';

import { SECRET, credentialsConfig, signIn as signInWithCredentials, startApp } from './helpers.js';
import { AppRegistry, csrfTokenOf, expectRedirect, sessionCookiesSet, sessionOf, signIn as signInWithOidc, type AuthApp } from './oauth-harness.js';

const PASSWORD = 'violet staple orbit lantern';
const DISABLED_MESSAGE = 'This account is disabled. Ask your administrator.';

/** The test feature's refusal: shown on the sign-in page as `?error=AccountDisabled`. */
declare module '../../templates/runtime/errors.js' {
  interface FeatureErrorTypes {
    AccountDisabled: true;
  }
}

class AccountDisabled extends AuthError {
  static type: ErrorType = 'AccountDisabled';
  static kind = 'signIn' as const;
  static override response: ErrorResponse = clientSafe('AccountDisabled', 403, 'signIn', DISABLED_MESSAGE, 'Account disabled');
}

/** A feature that refuses the users (by id or address) in `disabled`, and records what it was asked. */
function disabling(disabled: Set<string>, asked: string[] = []): Feature {
  return {
    id: 'disabling',
    errors: [AccountDisabled],
    beforeSignIn({ user, method }) {
      asked.push(method);
      if (disabled.has(String(user.id)) || disabled.has(String(user.email))) throw new AccountDisabled(`The user is disabled (${method})`);
    },
  };
}

/** The sign-in page the refusal sends the browser to: it names the error and shows its message. */
async function expectRefusalShown(app: AuthApp, jar: CookieJar, response: Response): Promise<void> {
  const location = expectRedirect(response, { pathname: '/auth/signin', error: 'AccountDisabled' });
  expect(sessionCookiesSet(response)).toEqual([]);
  const page = await app.fetch(jar, `${location.pathname}${location.search}`);
  expect(await page.text()).toContain(DISABLED_MESSAGE);
  expect(await sessionOf(app, jar)).toBeNull();
}

describe('beforeSignIn refuses after every first factor', () => {
  let op: RunningOidcProvider;
  let app: AuthApp & { adapter: Adapter; links: string[] };
  const disabled = new Set<string>();
  const asked: string[] = [];
  const apps = new AppRegistry();

  beforeAll(async () => {
    op = await startOidcProvider({});
    const adapter = MemoryAdapter();
    const links: string[] = [];
    const started = await apps.start({
      adapter,
      trustHost: ['127.0.0.1'],
      providers: [
        OIDC({ issuer: op.issuer, clientId: 'hooks', clientSecret: 'hooks-secret' }),
        Email({ sendVerificationRequest: ({ url }) => void links.push(url) }),
        Passkey(),
        Password({ sendMessage: () => {} }),
      ],
      features: [disabling(disabled, asked), ApiKeys()],
      rateLimit: false,
    });
    await op.setClient({ client_id: 'hooks', redirect_uris: [started.redirectUri('oidc')] });
    app = Object.assign(started, { adapter, links });
  });
  afterAll(async () => {
    await apps.closeAll();
    await op?.close();
  });

  it('refuses an OAuth sign-in: no session, and the sign-in page shows the error', async () => {
    disabled.add('alice@example.test');
    const jar = createJar();
    const { callbackResponse } = await signInWithOidc(app, jar, { login: { login: 'alice' } });
    await expectRefusalShown(app, jar, callbackResponse);
    expect(asked.at(-1)).toBe('oidc');
    disabled.delete('alice@example.test');
    const again = await signInWithOidc(app, createJar(), { login: { login: 'alice' } });
    expectRedirect(again.callbackResponse, { pathname: '/me' });
  });

  it('refuses an email link: no session, and the sign-in page shows the error', async () => {
    disabled.add('linked@example.test');
    const jar = createJar();
    const requested = await app.fetch(jar, '/auth/signin/email', { method: 'POST', ...formBody({ csrfToken: await csrfTokenOf(app, jar), email: 'linked@example.test' }) });
    expectRedirect(requested, { pathname: '/auth/verify-request' });
    await expectRefusalShown(app, jar, await app.fetch(jar, app.links.at(-1)!));
    expect(asked.at(-1)).toBe('email');
  });

  it('refuses a password sign-in: no session, and the sign-in page shows the error', async () => {
    const user = await app.adapter.createUser!({ id: crypto.randomUUID(), email: 'typed@example.test', emailVerified: new Date() });
    await app.adapter.setPasswordHash!(user.id, await hashPassword(PASSWORD));
    disabled.add(user.id);
    const jar = createJar();
    const response = await app.fetch(jar, '/auth/callback/password', { method: 'POST', ...formBody({ csrfToken: await csrfTokenOf(app, jar), email: user.email, password: PASSWORD }) });
    await expectRefusalShown(app, jar, response);
    expect(asked.at(-1)).toBe('password');
  });

  it('refuses a passkey sign-in: no session, and the sign-in page shows the error', async () => {
    const authenticator = new SoftwareAuthenticator();
    const passkey = async (jar: CookieJar, action: 'register' | 'authenticate', query: string): Promise<Response> => {
      const answer = await app.fetch(jar, `/auth/webauthn-options/passkey?${query}`);
      const options = (await answer.json()) as { options: RegistrationOptionsJson & AuthenticationOptionsJson };
      expect(answer.status, JSON.stringify(options)).toBe(200);
      const data = action === 'register' ? authenticator.register(options.options, app.url) : authenticator.authenticate(options.options, app.url);
      return app.fetch(jar, '/auth/callback/passkey', { method: 'POST', ...formBody({ csrfToken: await csrfTokenOf(app, jar), action, data: JSON.stringify(data), callbackUrl: '/me' }) });
    };
    const first = createJar();
    expectRedirect(await passkey(first, 'register', 'action=register&email=grace%40example.test'), { pathname: '/me' });
    disabled.add(String((await sessionOf(app, first))!.user!.id));
    const jar = createJar();
    await expectRefusalShown(app, jar, await passkey(jar, 'authenticate', 'action=authenticate'));
    expect(asked.at(-1)).toBe('passkey');
  });

  it("refuses every request with a refused user's API key (401 invalid_token), and takes it again once allowed", async () => {
    const user = await app.adapter.createUser!({ id: crypto.randomUUID(), email: 'keyed@example.test', emailVerified: new Date() });
    const { key } = await createApiKey(app.config, { userId: user.id, name: 'CI' });
    disabled.add(user.id);
    const refused = await fetch(`${app.url}/auth/session`, { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    const me = await fetch(`${app.url}/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await me.json()) as { session: Session | null }).session).toBeNull();
    expect(asked.at(-1)).toBe('api-key');
    disabled.delete(user.id);
    const allowed = await fetch(`${app.url}/auth/session`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await allowed.json()) as Session).user?.email).toBe('keyed@example.test');
  });
});

describe('beforeSignIn with credentials and JWT sessions', () => {
  it('refuses a credentials sign-in: no session cookie, and the sign-in page shows the error', async () => {
    const running = await startApp(credentialsConfig({ features: [disabling(new Set(['ada@example.test']))] }));
    try {
      const { jar, response } = await signInWithCredentials(running.url);
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location')!);
      expect(location.pathname).toBe('/auth/signin');
      expect(location.searchParams.get('error')).toBe('AccountDisabled');
      expect(response.headers.getSetCookie().filter((cookie) => /^authjs\.session-token=[^;]/.test(cookie))).toEqual([]);
      expect(await (await jar.fetch(location.href)).text()).toContain(DISABLED_MESSAGE);
      expect(await (await jar.fetch(`${running.url}/whoami`)).json()).toBeNull();
    } finally {
      await running.close();
    }
  });
});

describe('afterSignIn', () => {
  it('is called by each feature, in order, once the session is open, with the user, the account and isNewUser', async () => {
    const calls: string[] = [];
    const seen: { userId: string | undefined; provider: string; isNewUser: boolean }[] = [];
    const after = (id: string): Feature => ({
      id,
      afterSignIn({ user, account, isNewUser }) {
        calls.push(id);
        seen.push({ userId: user.id, provider: account.provider, isNewUser });
      },
    });
    const running = await startApp(credentialsConfig({ features: [after('first'), after('second')] }));
    try {
      const { jar, response } = await signInWithCredentials(running.url);
      expect(response.status).toBe(302);
      expect(calls).toEqual(['first', 'second']);
      expect(seen[0]).toMatchObject({ userId: 'id-ada', provider: 'credentials', isNewUser: false });
      expect(((await (await jar.fetch(`${running.url}/whoami`)).json()) as Session).user?.id).toBe('id-ada');
    } finally {
      await running.close();
    }
  });

  it('is not called for a refused sign-in, and one that throws is logged while the sign-in stands', async () => {
    const calls: string[] = [];
    const errors: Error[] = [];
    const logger = { error: (error: Error) => void errors.push(error), warn: () => {}, debug: () => {} };
    const features: Feature[] = [
      disabling(new Set(['nobody@example.test'])),
      { id: 'failing', afterSignIn: () => Promise.reject(new Error('invitation store down')) },
      { id: 'later', afterSignIn: () => void calls.push('later') },
    ];
    const running = await startApp(credentialsConfig({ features, logger }));
    try {
      const { jar, response } = await signInWithCredentials(running.url, '/auth', { username: 'nobody' });
      expect(response.headers.get('location')).toContain('error=AccountDisabled');
      expect(calls).toEqual([]);
      const signedIn = await signInWithCredentials(running.url);
      expect(new URL(signedIn.response.headers.get('location')!).pathname).toBe('/');
      expect(calls).toEqual(['later']);
      expect(errors.map((error) => error.message)).toContain('invitation store down');
      expect(((await (await signedIn.jar.fetch(`${running.url}/whoami`)).json()) as Session).user?.id).toBe('id-ada');
      expect(await (await jar.fetch(`${running.url}/whoami`)).json()).toBeNull();
    } finally {
      await running.close();
    }
  });
});

describe('Feature.session', () => {
  /** Two features adding fields, read per request: `organization` from a value the test changes. */
  function sessionFeatures(state: { organization: string; reads: number }): Feature[] {
    return [
      { id: 'organizations', session: () => ({ organization: state.organization }) },
      { id: 'flags', session: async (session) => (state.reads++, { disabled: false, seenBy: `flags:${(session as { organization?: string }).organization}` }) },
    ];
  }

  it('adds every feature’s fields to getSession, GET <mount>/session, sessionLocals and requireAuth, read on each request', async () => {
    const state = { organization: 'acme', reads: 0 };
    const config = credentialsConfig({ features: sessionFeatures(state) });
    const running = await startApp(config, '/auth', (app) => {
      app.get('/locals', createSessionLocals(config), (_req, res) => void res.json(res.locals['session']));
      app.get('/guarded', createRequireAuth(config), (_req, res) => void res.json(res.locals['session']));
    });
    try {
      const { jar } = await signInWithCredentials(running.url);
      const expected = { organization: 'acme', disabled: false, seenBy: 'flags:acme' };
      for (const path of ['/whoami', '/auth/session', '/locals', '/guarded', '/me']) {
        const body = (await (await jar.fetch(`${running.url}${path}`)).json()) as Record<string, unknown>;
        expect(path === '/me' ? body : { ...body, user: undefined, expires: undefined }, path).toMatchObject(path === '/me' ? { user: { id: 'id-ada' } } : expected);
      }
      state.organization = 'globex';
      expect(await (await jar.fetch(`${running.url}/whoami`)).json()).toMatchObject({ user: { id: 'id-ada' }, organization: 'globex', seenBy: 'flags:globex' });
      expect(state.reads).toBeGreaterThanOrEqual(5);
    } finally {
      await running.close();
    }
  });

  it('costs nothing without a session: no hook is called for a request without one', async () => {
    const state = { organization: 'acme', reads: 0 };
    const running = await startApp(credentialsConfig({ features: sessionFeatures(state) }));
    try {
      expect(await (await fetch(`${running.url}/whoami`)).json()).toBeNull();
      expect(await (await fetch(`${running.url}/auth/session`)).json()).toBeNull();
      expect(state.reads).toBe(0);
    } finally {
      await running.close();
    }
  });

  it('adds its fields to an API key’s session too', async () => {
    const adapter = MemoryAdapter();
    const config: FrameworkAuthConfig = {
      secret: SECRET,
      adapter,
      trustHost: ['127.0.0.1'],
      providers: [Password({ sendMessage: () => {} })],
      features: [ApiKeys(), ...sessionFeatures({ organization: 'acme', reads: 0 })],
    };
    const app = express();
    app.get('/whoami', async (req, res) => void res.json(await getSession(req, config)));
    const running = await listen(app);
    try {
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: 'keyed@example.test', emailVerified: new Date() });
      const { key } = await createApiKey(config, { userId: user.id, name: 'CI' });
      const session = await (await fetch(`${running.url}/whoami`, { headers: { authorization: `Bearer ${key}` } })).json();
      expect(session).toMatchObject({ user: { email: 'keyed@example.test' }, apiKey: { scopes: [] }, organization: 'acme', seenBy: 'flags:acme' });
    } finally {
      await running.close();
    }
  });
});

describe('the single slots are lists: every feature that has one is used', () => {
  it('bearer: the first feature whose resultOf answers judges the request, and its own refuse answers it', async () => {
    const reader = (prefix: string): BearerAuthentication => ({
      resultOf(req) {
        const credential = /^Bearer (.*)$/.exec(req.headers.authorization ?? '')?.[1];
        if (!credential?.startsWith(prefix)) return undefined;
        return Promise.resolve(credential.endsWith('-good') ? { session: { user: { id: prefix }, expires: new Date(Date.now() + 60_000).toISOString() }, scopes: [] } : { session: null, refused: 'invalid_token' });
      },
      refuse: (res) => void res.status(401).json({ refusedBy: prefix }),
    });
    const config = credentialsConfig({ features: [{ id: 'one', bearer: reader('one') }, { id: 'two', bearer: reader('two') }] });
    const running = await startApp(config);
    const as = (credential: string, path: string) => fetch(`${running.url}${path}`, { headers: { authorization: `Bearer ${credential}`, accept: 'application/json' } });
    try {
      expect(await (await as('one-good', '/whoami')).json()).toMatchObject({ user: { id: 'one' } });
      expect(await (await as('two-good', '/whoami')).json()).toMatchObject({ user: { id: 'two' } });
      expect(await (await as('two-bad', '/me')).json()).toEqual({ refusedBy: 'two' });
      expect(await (await as('one-bad', '/me')).json()).toEqual({ refusedBy: 'one' });
    } finally {
      await running.close();
    }
  });

  it('securityEvents: every recorder records each event', async () => {
    const recorded: string[] = [];
    const recorder = (id: string): Feature => ({ id, securityEvents: { record: async (_context, input) => void recorded.push(`${id}:${input.type}`) } });
    const running = await startApp(credentialsConfig({ features: [recorder('audit'), recorder('siem')] }));
    try {
      await signInWithCredentials(running.url);
      expect(recorded).toEqual(['audit:sign-in', 'siem:sign-in']);
    } finally {
      await running.close();
    }
  });

  it('signedInPage: the sign-in page links every feature’s page', async () => {
    const features: Feature[] = [
      { id: 'account', signedInPage: { path: 'account', text: 'Your account' } },
      { id: 'organizations', signedInPage: { path: 'organizations', text: 'Your organizations' } },
    ];
    const running = await startApp(credentialsConfig({ features }));
    try {
      const { jar } = await signInWithCredentials(running.url);
      const page = await (await jar.fetch(`${running.url}/auth/signin`)).text();
      expect(page).toContain('Signed in as <strong>ada@example.test</strong>. <a href="/auth/account">Your account</a> <a href="/auth/organizations">Your organizations</a>');
    } finally {
      await running.close();
    }
  });

  it('secondFactor: each is asked in order until one answers the request', async () => {
    const asked: string[] = [];
    const factor = (id: string, answers: boolean): Feature => ({
      id,
      secondFactor: {
        async challenge(context: RequestContext, signIn) {
          asked.push(`${id}:${signIn.account.provider}`);
          if (answers) sendRedirect(context, `${context.origin}/second-factor/${id}`);
          return answers;
        },
      },
    });
    const adapter = MemoryAdapter();
    const config: FrameworkAuthConfig = {
      secret: SECRET,
      adapter,
      trustHost: ['127.0.0.1'],
      providers: [Password({ sendMessage: () => {} })],
      features: [factor('unused', false), factor('totp', true), factor('never', true)],
      rateLimit: false,
    };
    const app = express();
    app.use('/auth/*splat', FrameworkAuth(config));
    const running = await listen(app);
    try {
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: 'second@example.test', emailVerified: new Date() });
      await adapter.setPasswordHash!(user.id, await hashPassword(PASSWORD));
      const jar = createJar();
      const { csrfToken } = (await (await jar.fetch(`${running.url}/auth/csrf`)).json()) as { csrfToken: string };
      const response = await jar.fetch(`${running.url}/auth/callback/password`, { method: 'POST', ...formBody({ csrfToken, email: user.email, password: PASSWORD }) });
      expect(response.status).toBe(302);
      expect(new URL(response.headers.get('location')!).pathname).toBe('/second-factor/totp');
      expect(asked).toEqual(['unused:password', 'totp:password']);
      expect(response.headers.getSetCookie().filter((cookie) => /^authjs\.session-token=[^;]/.test(cookie))).toEqual([]);
    } finally {
      await running.close();
    }
  });
});
