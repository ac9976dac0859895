// Errors carry no token (security finding): when the runtime refuses a token endpoint's answer (a refresh in
// getAccessToken, the code exchange of a sign-in), the error it throws and everything it gives `logger.error` hold no
// access, refresh or ID token, no authorization code and no client secret at any depth, as a logger that walks the
// `cause` chain would print them. And a refused refresh answer that rotated the refresh token leaves the new one
// stored, so that the next refresh sends it. A stand-in provider on 127.0.0.1 answers what each test sets.
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

import type { Express } from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import { getAccessToken } from '../../templates/runtime/index.js';
import type { Adapter, FrameworkAuthConfig } from '../../templates/runtime/index.js';
import type { OAuthConfig, OIDCConfig } from '../../templates/runtime/contracts.js';
import { createJar } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';
import type { RunningApp } from '../support/listen.js';

import { AppRegistry, expectRedirect } from './oauth-harness.js';
import type { AuthApp } from './oauth-harness.js';
import { signInThroughStandIn, startStandIn } from './stand-in.js';

const CLIENT_ID = 'token-free-client';
const CLIENT_SECRET = `client-secret-${randomBytes(12).toString('hex')}`;

/** What the stand-in's token endpoint answers: JSON unless the body is a string. */
interface Answer {
  status?: number;
  body: unknown;
  contentType?: string;
}

/** Every secret the stand-in handed out or received: none may appear in an error. */
const secrets = new Set<string>([CLIENT_SECRET]);

/** A new token value, remembered as a secret. */
function issue(kind: string): string {
  const value = `${kind}-${randomBytes(12).toString('hex')}`;
  secrets.add(value);
  return value;
}

/** A good token answer that rotates the refresh token; the access token expires within the refresh skew. */
function goodAnswer(): Answer {
  return { body: { access_token: issue('access'), refresh_token: issue('refresh'), token_type: 'bearer', expires_in: 1 } };
}

const standInState = {
  /** The answer to the next code exchange (a good one when unset). */
  codeAnswer: undefined as (() => Answer) | undefined,
  /** The answers to the next refreshes, in order, from the refresh token sent (good ones when empty). */
  refreshAnswers: [] as ((refreshToken: string) => Answer)[],
  /** The refresh tokens sent to the token endpoint, in order. */
  refreshTokensSent: [] as string[],
};

let standIn: RunningApp;
const apps = new AppRegistry();

beforeAll(async () => {
  standIn = await startStandIn((app) => {
    app.get('/authorize', (req, res) => {
      const query = req.query as Record<string, string>;
      const back = new URL(query.redirect_uri!);
      back.searchParams.set('code', issue('code'));
      if (query.state) back.searchParams.set('state', query.state);
      res.redirect(302, back.href);
    });
    app.post('/token', (req, res) => {
      const body = req.body as Record<string, string>;
      if (body.code_verifier) secrets.add(body.code_verifier);
      let answer: Answer;
      if (body.grant_type === 'refresh_token') {
        standInState.refreshTokensSent.push(body.refresh_token!);
        answer = standInState.refreshAnswers.shift()?.(body.refresh_token!) ?? goodAnswer();
      } else {
        answer = standInState.codeAnswer?.() ?? goodAnswer();
      }
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.status(answer.status ?? 200).set('content-type', answer.contentType ?? 'application/json').send(text);
    });
    app.get('/userinfo', (_req, res) => {
      res.json({ id: 'user-1', name: 'Ada', email: 'ada@example.test' });
    });
    app.get('/jwks', (_req, res) => {
      res.json({ keys: [] });
    });
  });
});

beforeEach(() => {
  standInState.codeAnswer = undefined;
  standInState.refreshAnswers = [];
  standInState.refreshTokensSent = [];
});

afterAll(async () => {
  await apps.closeAll();
  await standIn?.close();
});

/** The stand-in as a plain OAuth 2 provider, or as an OpenID Connect one with explicit endpoints (no discovery). */
function standInProvider(type: 'oauth' | 'oidc'): OAuthConfig | OIDCConfig {
  const endpoints = {
    id: 'standin',
    name: 'Stand-in',
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    authorization: { url: `${standIn.url}/authorize`, params: { scope: 'profile' } },
    token: `${standIn.url}/token`,
    userinfo: `${standIn.url}/userinfo`,
  };
  if (type === 'oauth') return { ...endpoints, type };
  return { ...endpoints, type, issuer: standIn.url, jwks_endpoint: `${standIn.url}/jwks` };
}

interface TokenApp {
  app: AuthApp;
  /** What getAccessToken rejected with, in order. */
  thrown: unknown[];
}

/** An app signed in through the stand-in, with `GET /token` calling getAccessToken. */
async function startTokenApp(setup: { type?: 'oauth' | 'oidc'; adapter?: Adapter } = {}): Promise<TokenApp> {
  const thrown: unknown[] = [];
  const routes = (app: Express, config: FrameworkAuthConfig): void => {
    app.get('/token', async (req, res) => {
      try {
        res.json({ accessToken: await getAccessToken(req, 'standin', config) });
      } catch (error) {
        thrown.push(error);
        res.status(401).json({ type: (error as { type?: string }).type, reason: (error as { reason?: string }).reason });
      }
    });
  };
  const app = await apps.start({ ...(setup.adapter && { adapter: setup.adapter }), providers: [standInProvider(setup.type ?? 'oauth')] }, { routes });
  return { app, thrown };
}

async function signedIn(app: AuthApp): Promise<CookieJar> {
  const jar = createJar();
  const { callbackResponse } = await signInThroughStandIn(app, jar, 'standin');
  expectRedirect(callbackResponse, { pathname: '/me' });
  return jar;
}

async function tokenOf(app: AuthApp, jar: CookieJar): Promise<{ status: number; type?: string; reason?: string; accessToken?: string }> {
  const response = await app.fetch(jar, '/token');
  return { status: response.status, ...((await response.json()) as { type?: string; reason?: string; accessToken?: string }) };
}

function copyJar(app: AuthApp, jar: CookieJar): CookieJar {
  const copy = createJar();
  for (const cookie of jar.all()) copy.set(app.url, `${cookie.name}=${cookie.value}; Path=${cookie.path}`);
  return copy;
}

/** Whether `value` holds, at any depth, a `Response`: a logger could still read the token answer's body from it. */
function holdsResponse(value: unknown, seen = new Set<unknown>()): boolean {
  if (value instanceof Response) return true;
  if (typeof value !== 'object' || value === null || seen.has(value)) return false;
  seen.add(value);
  return Reflect.ownKeys(value).some((key) => holdsResponse(Object.getOwnPropertyDescriptor(value, key)?.value, seen));
}

/** Expects that `value`, printed with every field, hidden ones too, at any depth, holds no secret, nor a Response. */
function expectNoSecretIn(value: unknown): void {
  const printed = inspect(value, { depth: Infinity, showHidden: true });
  for (const secret of secrets) expect(printed, `the printed error holds ${secret}`).not.toContain(secret);
  expect(holdsResponse(value), 'the error holds a Response').toBe(false);
}

/** Signs in, has the next refresh answered with `answer`, and returns what getAccessToken threw and what was logged. */
async function refusedRefresh(answer: (refreshToken: string) => Answer): Promise<{ status: number; reason?: string; thrown: unknown; logged: Error[] }> {
  const { app, thrown } = await startTokenApp();
  const jar = await signedIn(app);
  standInState.refreshAnswers.push(answer);
  const errorsBefore = app.errors.length;
  const result = await tokenOf(app, jar);
  expect(result.type).toBe('RefreshTokenError');
  expect(standInState.refreshTokensSent).toHaveLength(1);
  expect(thrown).toHaveLength(1);
  return { status: result.status, ...(result.reason !== undefined && { reason: result.reason }), thrown: thrown[0], logged: app.errors.slice(errorsBefore) };
}

describe('a refresh answer the runtime refuses ends in errors that hold no token', () => {
  it('rejects a 200 answer whose token_type is "mac" with a token-free error, and logs it token-free', async () => {
    const refused = await refusedRefresh(() => ({ body: { access_token: issue('access'), refresh_token: issue('refresh'), token_type: 'mac', expires_in: 3600 } }));
    expect(refused.reason).toBe('failed');
    expect(refused.logged).toHaveLength(1);
    expectNoSecretIn(refused.thrown);
    expectNoSecretIn(refused.logged);
  });

  it('rejects a 200 answer without an access_token with a token-free error, and logs it token-free', async () => {
    const refused = await refusedRefresh(() => ({ body: { refresh_token: issue('refresh'), id_token: issue('id'), token_type: 'bearer' } }));
    expect(refused.reason).toBe('failed');
    expect(refused.logged).toHaveLength(1);
    expectNoSecretIn(refused.thrown);
    expectNoSecretIn(refused.logged);
  });

  it('rejects a 400 invalid_grant whose error_description quotes the refresh token with a token-free error', async () => {
    const refused = await refusedRefresh((refreshToken) => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: `refresh token ${refreshToken} was revoked` },
    }));
    expect(refused.reason).toBe('refused');
    expectNoSecretIn(refused.thrown);
    expectNoSecretIn(refused.logged);
  });

  it('rejects a 200 answer that is not JSON (a bare token, labelled JSON) with a token-free error, and logs it token-free', async () => {
    // V8's JSON.parse SyntaxError quotes a text of up to 20 characters whole (of a longer one, 10 characters).
    const bare = `rt-${randomBytes(6).toString('hex')}`;
    secrets.add(bare);
    const refused = await refusedRefresh(() => ({ body: bare }));
    expect(refused.reason).toBe('failed');
    expectNoSecretIn(refused.thrown);
    expectNoSecretIn(refused.logged);
  });

  it('rejects a 200 answer that is not JSON (form-encoded, as such) with a token-free error, and logs it token-free', async () => {
    const body = `access_token=${issue('access')}&refresh_token=${issue('refresh')}&token_type=bearer`;
    const refused = await refusedRefresh(() => ({ body, contentType: 'application/x-www-form-urlencoded' }));
    expect(refused.reason).toBe('failed');
    expectNoSecretIn(refused.thrown);
    expectNoSecretIn(refused.logged);
  });

  it('rejects a 500 answer whose body holds tokens with a token-free error, and logs it token-free', async () => {
    const refused = await refusedRefresh(() => ({ status: 500, body: { access_token: issue('access'), refresh_token: issue('refresh'), token_type: 'bearer' } }));
    expect(refused.reason).toBe('failed');
    expect(refused.logged).toHaveLength(1);
    expectNoSecretIn(refused.thrown);
    expectNoSecretIn(refused.logged);
  });
});

/** A 200 answer with new tokens that oauth4webapi refuses (`token_type` "mac"): the refresh token was rotated. */
function macAnswer(refreshToken: string): () => Answer {
  return () => ({ body: { access_token: issue('access'), refresh_token: refreshToken, token_type: 'mac', expires_in: 3600 } });
}

describe('a refused refresh answer that rotated the refresh token', () => {
  it('keeps the new refresh token in the session cookie: the next refresh sends it', async () => {
    const { app } = await startTokenApp();
    const jar = await signedIn(app);
    const rotated = issue('refresh');
    standInState.refreshAnswers.push(macAnswer(rotated));
    expect(await tokenOf(app, jar)).toMatchObject({ status: 401, type: 'RefreshTokenError', reason: 'failed' });

    const next = await tokenOf(app, jar);
    expect(next.status).toBe(200);
    expect(standInState.refreshTokensSent).toHaveLength(2);
    expect(standInState.refreshTokensSent[1]).toBe(rotated);
  });

  it('gives a late request with the old cookie the new refresh token, without sending the spent one again', async () => {
    const { app } = await startTokenApp();
    const jar = await signedIn(app);
    const stale = copyJar(app, jar);
    const rotated = issue('refresh');
    standInState.refreshAnswers.push(macAnswer(rotated));
    expect(await tokenOf(app, jar)).toMatchObject({ status: 401, reason: 'failed' });
    expect(await tokenOf(app, stale)).toMatchObject({ status: 401, reason: 'failed' });
    expect(standInState.refreshTokensSent).toHaveLength(1);

    expect((await tokenOf(app, stale)).status).toBe(200);
    expect(standInState.refreshTokensSent[1]).toBe(rotated);
  });

  it('keeps the new refresh token in the account row with database sessions: the next refresh sends it', async () => {
    const adapter = MemoryAdapter();
    const { app } = await startTokenApp({ adapter });
    const jar = await signedIn(app);
    const rotated = issue('refresh');
    standInState.refreshAnswers.push(macAnswer(rotated));
    expect(await tokenOf(app, jar)).toMatchObject({ status: 401, type: 'RefreshTokenError', reason: 'failed' });
    const user = await adapter.getUserByAccount!({ provider: 'standin', providerAccountId: 'user-1' });
    expect((await adapter.listAccountsByUserId!(user!.id))[0]?.refresh_token).toBe(rotated);

    expect((await tokenOf(app, jar)).status).toBe(200);
    expect(standInState.refreshTokensSent[1]).toBe(rotated);
  });
});

/** Signs in with the code exchange answered by `answer`: the sign-in fails; returns what was logged. */
async function refusedSignIn(type: 'oauth' | 'oidc', answer: () => Answer): Promise<Error[]> {
  standInState.codeAnswer = answer;
  const { app } = await startTokenApp({ type });
  const { callbackResponse } = await signInThroughStandIn(app, createJar(), 'standin');
  expectRedirect(callbackResponse, { pathname: '/auth/signin', error: 'OAuthCallbackError' });
  expect(app.errors.map((error) => (error as { type?: string }).type)).toEqual(['OAuthCallbackError']);
  return app.errors;
}

describe('a code exchange answer the runtime refuses at sign-in is logged without a token or the code', () => {
  it('logs a token_type "mac" answer with no token, code, verifier or client secret', async () => {
    const logged = await refusedSignIn('oauth', () => ({
      body: { access_token: issue('access'), refresh_token: issue('refresh'), token_type: 'mac', expires_in: 3600 },
    }));
    expectNoSecretIn(logged);
  });

  it('logs an ID token that is not a JWT with no token, code, verifier or client secret', async () => {
    const logged = await refusedSignIn('oidc', () => ({
      body: { access_token: issue('access'), refresh_token: issue('refresh'), id_token: issue('id'), token_type: 'bearer' },
    }));
    expectNoSecretIn(logged);
  });

  it('logs an encrypted ID token (JWE, which nothing is configured to decrypt) with no token, code, verifier or client secret', async () => {
    const jwe = ['eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ', issue('key'), issue('iv'), issue('ciphertext'), issue('tag')].join('.');
    secrets.add(jwe);
    const logged = await refusedSignIn('oidc', () => ({ body: { access_token: issue('access'), id_token: jwe, token_type: 'bearer' } }));
    expectNoSecretIn(logged);
  });
});
