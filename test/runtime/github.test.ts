// GitHub end to end against a stand-in of github.com and api.github.com on 127.0.0.1, wired in through endpoint
// overrides and customFetch: the authorization code flow with PKCE and state, GitHub's `iss`, and the missing-email
// quirk (no public email → the primary verified address from /user/emails), and whether the email is verified.
import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { customFetch } from '../../templates/runtime/index.js';
import type { Account, FrameworkAuthConfig, Profile } from '../../templates/runtime/index.js';
import GitHub from '../../templates/runtime/providers/github.js';
import type { GitHubEmail, GitHubProfile } from '../../templates/runtime/providers/github.js';
import { createJar } from '../support/cookie-jar.js';
import type { RunningApp } from '../support/listen.js';

import { AppRegistry, expectRedirect, loggedTypes, sessionOf } from './oauth-harness.js';
import { basicCredentials, loopbackFetch, s256, signInThroughStandIn, startStandIn } from './stand-in.js';

const CLIENT_ID = 'Iv1.github-client';
const CLIENT_SECRET = 'github-client-secret';
const GITHUB_ISSUER = 'https://github.com/login/oauth';

/** The /user answer of a user who keeps their email private. */
const octocat: Partial<GitHubProfile> = {
  login: 'octocat',
  id: 583231,
  node_id: 'MDQ6VXNlcjU4MzIzMQ==',
  avatar_url: 'https://avatars.githubusercontent.com/u/583231?v=4',
  name: 'The Octocat',
  email: null,
  type: 'User',
  site_admin: false,
};

/** What the stand-in answers, changed per test. */
const github = {
  user: { ...octocat } as Partial<GitHubProfile>,
  emails: [] as GitHubEmail[] | number,
  /** The `iss` the authorization endpoint sends back. */
  iss: GITHUB_ISSUER as string | undefined,
  /** Paths of the API calls received, with the problems found in them. */
  apiCalls: [] as string[],
  tokenProblems: [] as string[],
};

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  method: string;
}

let standIn: RunningApp;
const apps = new AppRegistry();

beforeAll(async () => {
  const codes = new Map<string, PendingCode>();
  const tokens = new Set<string>();
  standIn = await startStandIn((app) => {
    app.get('/login/oauth/authorize', (req, res) => {
      const query = req.query as Record<string, string>;
      const code = randomBytes(10).toString('hex');
      codes.set(code, { clientId: query.client_id!, redirectUri: query.redirect_uri!, challenge: query.code_challenge!, method: query.code_challenge_method! });
      const back = new URL(query.redirect_uri!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', query.state!);
      if (github.iss) back.searchParams.set('iss', github.iss);
      res.redirect(302, back.href);
    });
    app.post('/login/oauth/access_token', (req, res) => {
      const body = req.body as Record<string, string>;
      const pending = codes.get(body.code ?? '');
      codes.delete(body.code ?? '');
      const problems: string[] = [];
      const credentials = basicCredentials(req.headers.authorization);
      if (!credentials || credentials[0] !== CLIENT_ID || credentials[1] !== CLIENT_SECRET) problems.push('client authentication');
      if (!pending) problems.push('unknown code');
      else {
        if (body.redirect_uri !== pending.redirectUri) problems.push('redirect_uri');
        if (pending.method !== 'S256' || s256(body.code_verifier ?? '') !== pending.challenge) problems.push('PKCE verifier');
      }
      github.tokenProblems.push(...problems);
      // GitHub answers token errors with HTTP 200 and an `error` field when asked for JSON.
      if (problems.length > 0) return res.json({ error: 'bad_verification_code', error_description: problems.join(', ') });
      const accessToken = `gho_${randomBytes(12).toString('hex')}`;
      tokens.add(accessToken);
      res.json({ access_token: accessToken, token_type: 'bearer', scope: 'read:user,user:email' });
    });
    const authorized = (req: { headers: Record<string, string | string[] | undefined> }): boolean => {
      const header = String(req.headers.authorization ?? '');
      return header.startsWith('Bearer ') && tokens.has(header.slice('Bearer '.length));
    };
    app.get('/user', (req, res) => {
      github.apiCalls.push('/user');
      if (!req.headers['user-agent']) return res.status(403).json({ message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header' });
      if (!authorized(req)) return res.status(401).json({ message: 'Bad credentials' });
      res.json(github.user);
    });
    app.get('/user/emails', (req, res) => {
      github.apiCalls.push('/user/emails');
      if (!authorized(req)) return res.status(401).json({ message: 'Bad credentials' });
      if (typeof github.emails === 'number') return res.status(github.emails).json({ message: 'Resource not accessible by integration' });
      res.json(github.emails);
    });
  });
});

afterAll(async () => {
  await apps.closeAll();
  await standIn?.close();
});

/** Starts an app whose GitHub provider talks to the stand-in; `seen` collects what the sign-in hands on. */
async function startGitHubApp(config: Omit<FrameworkAuthConfig, 'providers'> = {}) {
  github.apiCalls = [];
  github.tokenProblems = [];
  const spy = loopbackFetch();
  const seen: { profiles: Profile[]; accounts: (Account | null)[] } = { profiles: [], accounts: [] };
  const app = await apps.start({
    ...config,
    providers: [
      GitHub({
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        authorization: { url: `${standIn.url}/login/oauth/authorize` },
        token: `${standIn.url}/login/oauth/access_token`,
        userinfo: { url: `${standIn.url}/user` },
        [customFetch]: spy.fetch,
      }),
    ],
    events: {
      signIn: ({ profile, account }) => {
        if (profile) seen.profiles.push(profile);
        seen.accounts.push(account);
      },
    },
  });
  return { app, spy, seen };
}

function setStandIn(user: Partial<GitHubProfile>, emails: GitHubEmail[] | number = []): void {
  github.user = { ...octocat, ...user };
  github.emails = emails;
  github.iss = GITHUB_ISSUER;
}

const email = (address: string, primary: boolean, verified: boolean): GitHubEmail => ({ email: address, primary, verified, visibility: primary ? 'private' : null });

describe('GitHub sign-in against a stand-in', () => {
  it('signs in with the public email of the profile, and asks /user/emails whether it is verified', async () => {
    setStandIn({ email: 'octocat@github.test' }, [email('primary@github.test', true, true), email('octocat@github.test', false, true)]);
    const { app, seen } = await startGitHubApp();
    const jar = createJar();
    const { callbackResponse } = await signInThroughStandIn(app, jar, 'github');
    expectRedirect(callbackResponse, { pathname: '/me' });
    expect((await sessionOf(app, jar))?.user).toEqual({
      id: '583231',
      name: 'The Octocat',
      email: 'octocat@github.test',
      image: 'https://avatars.githubusercontent.com/u/583231?v=4',
    });
    expect(seen.profiles[0]).toMatchObject({ email: 'octocat@github.test', email_verified: true });
    expect(github.apiCalls).toEqual(['/user', '/user/emails']);
  });

  it('marks a public email that /user/emails does not list as verified as not verified', async () => {
    setStandIn({ email: 'octocat@github.test' }, [email('primary@github.test', true, true), email('octocat@github.test', false, false)]);
    const { app, seen } = await startGitHubApp();
    const jar = createJar();
    await signInThroughStandIn(app, jar, 'github');
    expect((await sessionOf(app, jar))?.user?.email).toBe('octocat@github.test');
    expect(seen.profiles[0]).toMatchObject({ email: 'octocat@github.test', email_verified: false });
  });

  it('keeps a public email but marks it not verified when /user/emails is refused', async () => {
    setStandIn({ email: 'octocat@github.test' }, 403);
    const { app, seen } = await startGitHubApp();
    const jar = createJar();
    await signInThroughStandIn(app, jar, 'github');
    expect((await sessionOf(app, jar))?.user?.email).toBe('octocat@github.test');
    expect(seen.profiles[0]).toMatchObject({ email: 'octocat@github.test', email_verified: false });
  });

  it('fills a missing email with the primary verified address from /user/emails', async () => {
    setStandIn({ email: null }, [
      email('old@github.test', false, true),
      email('unverified@github.test', false, false),
      email('primary@github.test', true, true),
    ]);
    const { app, seen } = await startGitHubApp();
    const jar = createJar();
    await signInThroughStandIn(app, jar, 'github');
    expect((await sessionOf(app, jar))?.user?.email).toBe('primary@github.test');
    expect(seen.profiles[0]).toMatchObject({ login: 'octocat', email: 'primary@github.test', email_verified: true });
    expect(github.apiCalls).toEqual(['/user', '/user/emails']);
  });

  it('leaves the email null when the primary address is not verified', async () => {
    setStandIn({ email: null }, [email('primary@github.test', true, false), email('other@github.test', false, true)]);
    const { app } = await startGitHubApp();
    const jar = createJar();
    await signInThroughStandIn(app, jar, 'github');
    expect((await sessionOf(app, jar))?.user).toMatchObject({ id: '583231', email: null });
  });

  it('leaves the email null when /user/emails is refused (the user:email scope was not granted)', async () => {
    setStandIn({ email: null }, 403);
    const { app } = await startGitHubApp();
    const jar = createJar();
    const { callbackResponse } = await signInThroughStandIn(app, jar, 'github');
    expectRedirect(callbackResponse, { pathname: '/me' });
    expect((await sessionOf(app, jar))?.user).toMatchObject({ id: '583231', email: null });
  });

  it('turns the numeric id into a string and uses the login when the name is empty', async () => {
    setStandIn({ id: 9007199254740, name: null, email: 'octocat@github.test' });
    const { app } = await startGitHubApp();
    const jar = createJar();
    await signInThroughStandIn(app, jar, 'github');
    expect((await sessionOf(app, jar))?.user).toMatchObject({ id: '9007199254740', name: 'octocat' });
  });

  it('exchanges the code with the PKCE verifier and client_secret_basic, and keeps the token on the account', async () => {
    setStandIn({ email: 'octocat@github.test' });
    const { app, seen } = await startGitHubApp();
    const { authorizationUrl } = await signInThroughStandIn(app, createJar(), 'github');
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('state')).toBeTruthy();
    expect(github.tokenProblems).toEqual([]);
    expect(seen.accounts[0]).toMatchObject({
      provider: 'github',
      type: 'oauth',
      providerAccountId: '583231',
      token_type: 'bearer',
      scope: 'read:user,user:email',
    });
    expect(seen.accounts[0]?.access_token).toMatch(/^gho_/);
  });

  it('makes every call to GitHub (token, /user, /user/emails) through customFetch, with a User-Agent', async () => {
    setStandIn({ email: null }, [email('primary@github.test', true, true)]);
    const { app, spy } = await startGitHubApp();
    await signInThroughStandIn(app, createJar(), 'github');
    expect(spy.calls.map((call) => `${call.method} ${new URL(call.url).pathname}`)).toEqual([
      'POST /login/oauth/access_token',
      'GET /user',
      'GET /user/emails',
    ]);
    for (const call of spy.calls.slice(1)) expect(call.headers.get('user-agent')).toBeTruthy();
  });

  it('accepts a callback without iss (GitHub Enterprise Server versions that do not send it)', async () => {
    setStandIn({ email: 'octocat@github.test' });
    github.iss = undefined;
    const { app } = await startGitHubApp();
    const { callbackResponse } = await signInThroughStandIn(app, createJar(), 'github');
    expectRedirect(callbackResponse, { pathname: '/me' });
  });

  it('refuses a callback whose iss is not https://github.com/login/oauth', async () => {
    setStandIn({ email: 'octocat@github.test' });
    github.iss = 'https://evil.example/login/oauth';
    const { app } = await startGitHubApp();
    const { callbackResponse } = await signInThroughStandIn(app, createJar(), 'github');
    expectRedirect(callbackResponse, { pathname: '/auth/signin', error: 'OAuthCallbackError' });
    expect(loggedTypes(app)).toEqual(['InvalidCheck']);
    expect(github.tokenProblems).toEqual([]);
    expect(github.apiCalls).toEqual([]);
  });
});
