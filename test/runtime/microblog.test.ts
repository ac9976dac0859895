// The microblog (X) provider end to end against a stand-in of the network on 127.0.0.1, wired in through endpoint
// overrides: OAuth 2 with PKCE and state (the default, and `version: '2.0'`), the documented `GET /2/users/me`
// answer with `user.fields` and `expansions`, and OAuth 1.0a (`version: '1.0A'`) with HMAC-SHA1 signed requests.
import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Account, AnyProvider, FrameworkAuthConfig, Profile, TokenSet } from '../../templates/runtime/index.js';
import { hmacSha1Signature, parseAuthorizationHeader, signatureBaseString } from '../../templates/runtime/oauth1/signature.js';
import Microblog from '../../templates/runtime/providers/microblog.js';
import type { MicroblogUserConfig, TwitterProfile } from '../../templates/runtime/providers/microblog.js';
import { createJar } from '../support/cookie-jar.js';
import type { RunningApp } from '../support/listen.js';

import { AppRegistry, expectRedirect, loggedTypes, sessionOf, startSignIn } from './oauth-harness.js';
import { basicCredentials, s256, signInThroughStandIn, startStandIn } from './stand-in.js';

const CLIENT_ID = 'microblog-client-id';
const CLIENT_SECRET = 'microblog-client-secret';

/** The network's documented example user, with every field `user.fields` can ask for. */
const xDev: TwitterProfile['data'] & Record<string, unknown> = {
  id: '2244994945',
  name: 'X Dev',
  username: 'XDevelopers',
  created_at: '2013-12-14T04:35:55.000Z',
  description: 'The voice of the #XDevelopers team and your official source for updates.',
  entities: {
    description: { hashtags: [{ start: 17, end: 29, tag: 'XDevelopers' }] },
    url: { urls: [{ start: 0, end: 23, url: 'https://t.co/3ZX3TNiZCY', expanded_url: 'https://developer.x.com/en/community', display_url: 'developer.x.com/en/community' }] },
  },
  location: '127.0.0.1',
  pinned_tweet_id: '1255542774432063488',
  profile_image_url: 'https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO_normal.jpg',
  protected: false,
  url: 'https://t.co/3ZX3TNiZCY',
  verified: true,
};
const pinnedTweet = { id: '1255542774432063488', text: 'During these unprecedented times, what is happening on X can help the world better understand.' };

/** The v1.1 `account/verify_credentials` user of the same account. */
const xDevLegacy = {
  id: 2244994945,
  id_str: '2244994945',
  name: 'X Dev',
  screen_name: 'XDevelopers',
  location: '127.0.0.1',
  description: 'The voice of the #XDevelopers team.',
  protected: false,
  verified: true,
  profile_image_url_https: 'https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO_normal.jpg',
};
const CONFIRMED_EMAIL = 'devs@x.test';

/** What the stand-in saw, reset per test. */
const seenByNetwork = {
  tokenProblems: [] as string[],
  usersMeQueries: [] as URLSearchParams[],
  /** OAuth 1.0a: the endpoints whose signature checked out, and the problems found. */
  signedCalls: [] as string[],
  signatureProblems: [] as string[],
  verifyCredentialsQueries: [] as URLSearchParams[],
  /** OAuth 1.0a: answer the authorization with `denied` (the user pressed Cancel). */
  deny: false,
};

let network: RunningApp;
const apps = new AppRegistry();

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  method: string;
}

beforeAll(async () => {
  const codes = new Map<string, PendingCode>();
  const accessTokens = new Set<string>();
  const requestTokens = new Map<string, { secret: string; callback: string; verifier: string }>();
  const oauth1AccessTokens = new Map<string, string>();
  const usedNonces = new Set<string>();

  /** Checks an OAuth 1.0a request as the network would: consumer, token, timestamp, nonce and HMAC-SHA1 signature. */
  const verifySignature = (
    step: string,
    req: { method: string; originalUrl: string; headers: Record<string, string | string[] | undefined> },
    tokenSecret: (token: string | undefined) => string | undefined,
  ): Record<string, string> | null => {
    const params = parseAuthorizationHeader(String(req.headers.authorization ?? ''));
    const fail = (problem: string) => {
      seenByNetwork.signatureProblems.push(`${step}: ${problem}`);
      return null;
    };
    if (!params) return fail('no OAuth Authorization header');
    if (params.oauth_consumer_key !== CLIENT_ID) return fail('consumer key');
    if (params.oauth_signature_method !== 'HMAC-SHA1' || params.oauth_version !== '1.0') return fail('method or version');
    if (Math.abs(Number(params.oauth_timestamp) - Date.now() / 1000) > 300) return fail('timestamp');
    if (!params.oauth_nonce || usedNonces.has(params.oauth_nonce)) return fail('nonce');
    usedNonces.add(params.oauth_nonce);
    const secret = tokenSecret(params.oauth_token);
    if (secret === undefined) return fail('unknown token');
    const url = new URL(req.originalUrl, network.url);
    const { oauth_signature: signature, ...signed } = params;
    const baseString = signatureBaseString(req.method, url, [...url.searchParams, ...Object.entries(signed)]);
    if (signature !== hmacSha1Signature(baseString, CLIENT_SECRET, secret)) return fail('signature');
    seenByNetwork.signedCalls.push(step);
    return params;
  };

  network = await startStandIn((app) => {
    // OAuth 2.0 with PKCE (https://docs.x.com/resources/fundamentals/authentication/oauth-2-0/authorization-code).
    app.get('/i/oauth2/authorize', (req, res) => {
      const query = req.query as Record<string, string>;
      const code = randomBytes(10).toString('base64url');
      codes.set(code, { clientId: query.client_id!, redirectUri: query.redirect_uri!, challenge: query.code_challenge!, method: query.code_challenge_method! });
      const back = new URL(query.redirect_uri!);
      back.searchParams.set('state', query.state!);
      back.searchParams.set('code', code);
      res.redirect(302, back.href);
    });
    app.post('/2/oauth2/token', (req, res) => {
      const body = req.body as Record<string, string>;
      const pending = codes.get(body.code ?? '');
      codes.delete(body.code ?? '');
      const problems: string[] = [];
      const credentials = basicCredentials(req.headers.authorization);
      if (!credentials || credentials[0] !== CLIENT_ID || credentials[1] !== CLIENT_SECRET) problems.push('client authentication');
      if (body.grant_type !== 'authorization_code') problems.push('grant_type');
      if (!pending) problems.push('unknown code');
      else {
        if (pending.clientId !== CLIENT_ID) problems.push('client_id');
        if (body.redirect_uri !== pending.redirectUri) problems.push('redirect_uri');
        if (pending.method !== 'S256' || s256(body.code_verifier ?? '') !== pending.challenge) problems.push('PKCE verifier');
      }
      seenByNetwork.tokenProblems.push(...problems);
      if (problems.length > 0) return res.status(400).json({ error: 'invalid_request', error_description: problems.join(', ') });
      const accessToken = randomBytes(24).toString('base64url');
      accessTokens.add(accessToken);
      res.json({
        token_type: 'bearer',
        expires_in: 7200,
        access_token: accessToken,
        scope: 'users.read tweet.read offline.access',
        refresh_token: randomBytes(24).toString('base64url'),
      });
    });
    // GET /2/users/me answers only the fields asked for, and `includes` only for the expansions asked for.
    app.get('/2/users/me', (req, res) => {
      const query = new URL(req.originalUrl, network.url).searchParams;
      seenByNetwork.usersMeQueries.push(query);
      const header = String(req.headers.authorization ?? '');
      if (!header.startsWith('Bearer ') || !accessTokens.has(header.slice(7))) {
        return res.status(401).json({ title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' });
      }
      const fields = (query.get('user.fields') ?? '').split(',').filter(Boolean);
      const expansions = (query.get('expansions') ?? '').split(',').filter(Boolean);
      const data: Record<string, unknown> = { id: xDev.id, name: xDev.name, username: xDev.username };
      for (const field of [...fields, ...expansions]) if (field in xDev) data[field] = xDev[field];
      res.json({ data, ...(expansions.includes('pinned_tweet_id') && { includes: { tweets: [pinnedTweet] } }) });
    });

    // OAuth 1.0a (https://docs.x.com/resources/fundamentals/authentication/oauth-1-0a/obtaining-user-access-tokens).
    app.post('/oauth/request_token', (req, res) => {
      const params = verifySignature('request_token', req, (token) => (token === undefined ? '' : undefined));
      if (!params) return res.status(401).send('<errors><error code="32">Could not authenticate you.</error></errors>');
      if (!params.oauth_callback) return res.status(400).send('oauth_callback missing');
      const token = randomBytes(12).toString('hex');
      requestTokens.set(token, { secret: randomBytes(16).toString('hex'), callback: params.oauth_callback, verifier: randomBytes(12).toString('hex') });
      res.type('application/x-www-form-urlencoded').send(new URLSearchParams({ oauth_token: token, oauth_token_secret: requestTokens.get(token)!.secret, oauth_callback_confirmed: 'true' }).toString());
    });
    app.get('/oauth/authenticate', (req, res) => {
      const token = String(req.query.oauth_token ?? '');
      const pending = requestTokens.get(token);
      if (!pending) return res.status(400).send('unknown request token');
      const back = new URL(pending.callback);
      if (seenByNetwork.deny) back.searchParams.set('denied', token);
      else {
        back.searchParams.set('oauth_token', token);
        back.searchParams.set('oauth_verifier', pending.verifier);
      }
      res.redirect(302, back.href);
    });
    app.post('/oauth/access_token', (req, res) => {
      const params = verifySignature('access_token', req, (token) => (token ? requestTokens.get(token)?.secret : undefined));
      if (!params) return res.status(401).send('Invalid request token.');
      const pending = requestTokens.get(params.oauth_token!)!;
      requestTokens.delete(params.oauth_token!);
      if (params.oauth_verifier !== pending.verifier) return res.status(401).send('Invalid oauth_verifier parameter');
      const token = `${xDevLegacy.id_str}-${randomBytes(12).toString('hex')}`;
      oauth1AccessTokens.set(token, randomBytes(16).toString('hex'));
      res.type('application/x-www-form-urlencoded').send(new URLSearchParams({ oauth_token: token, oauth_token_secret: oauth1AccessTokens.get(token)!, user_id: xDevLegacy.id_str, screen_name: xDevLegacy.screen_name }).toString());
    });
    app.get('/1.1/account/verify_credentials.json', (req, res) => {
      const query = new URL(req.originalUrl, network.url).searchParams;
      seenByNetwork.verifyCredentialsQueries.push(query);
      const params = verifySignature('verify_credentials', req, (token) => (token ? oauth1AccessTokens.get(token) : undefined));
      if (!params) return res.status(401).json({ errors: [{ code: 32, message: 'Could not authenticate you.' }] });
      res.json({ ...xDevLegacy, ...(query.get('include_email') === 'true' && { email: CONFIRMED_EMAIL }) });
    });
  });
});

afterAll(async () => {
  await apps.closeAll();
  await network?.close();
});

function resetNetwork(): void {
  seenByNetwork.tokenProblems = [];
  seenByNetwork.usersMeQueries = [];
  seenByNetwork.signedCalls = [];
  seenByNetwork.signatureProblems = [];
  seenByNetwork.verifyCredentialsQueries = [];
  seenByNetwork.deny = false;
}

/** Endpoint overrides that point the OAuth 2 provider at the stand-in. */
function oauth2Endpoints(): Pick<MicroblogUserConfig, 'authorization' | 'token' | 'userinfo' | 'clientId' | 'clientSecret'> {
  return {
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    authorization: { url: `${network.url}/i/oauth2/authorize` },
    token: `${network.url}/2/oauth2/token`,
    userinfo: `${network.url}/2/users/me`,
  };
}

/** Starts an app with one microblog provider; `seen` collects what events.signIn receives. */
async function startMicroblogApp(provider: AnyProvider, config: Omit<FrameworkAuthConfig, 'providers'> = {}) {
  resetNetwork();
  const seen: { profiles: Profile[]; accounts: (Account | null)[] } = { profiles: [], accounts: [] };
  const app = await apps.start({
    ...config,
    providers: [provider],
    events: {
      signIn: ({ profile, account }) => {
        if (profile) seen.profiles.push(profile);
        seen.accounts.push(account);
      },
    },
  });
  return { app, seen };
}

const richOptions: MicroblogUserConfig = {
  userFields: ['description', 'entities', 'location', 'url', 'verified', 'profile_image_url'],
  expansions: ['pinned_tweet_id'],
};

describe('microblog over OAuth 2 against a stand-in of the network', () => {
  it('completes a sign-in; the session user has the mapped fields: a string id, name, image and a null email', async () => {
    const { app } = await startMicroblogApp(Microblog(oauth2Endpoints()));
    const jar = createJar();
    const { callbackResponse } = await signInThroughStandIn(app, jar, 'microblog');
    expectRedirect(callbackResponse, { pathname: '/me' });
    expect((await sessionOf(app, jar))?.user).toEqual({ id: '2244994945', name: 'X Dev', email: null, image: xDev.profile_image_url });
    expect(app.errors).toEqual([]);
  });

  it('asks GET /2/users/me for profile_image_url by default', async () => {
    const { app } = await startMicroblogApp(Microblog(oauth2Endpoints()));
    await signInThroughStandIn(app, createJar(), 'microblog');
    expect(seenByNetwork.usersMeQueries.map(String)).toEqual(['user.fields=profile_image_url']);
  });

  it('asks GET /2/users/me for the configured user.fields and expansions', async () => {
    const { app } = await startMicroblogApp(Microblog({ ...oauth2Endpoints(), ...richOptions }));
    await signInThroughStandIn(app, createJar(), 'microblog');
    const [query] = seenByNetwork.usersMeQueries;
    expect(query?.get('user.fields')).toBe('description,entities,location,url,verified,profile_image_url');
    expect(query?.get('expansions')).toBe('pinned_tweet_id');
  });

  it('hands includes.tweets and entities to a profile callback', async () => {
    const profiles: TwitterProfile[] = [];
    const base = Microblog();
    const { app } = await startMicroblogApp(
      Microblog({
        ...oauth2Endpoints(),
        ...richOptions,
        profile: (profile, tokens) => {
          profiles.push(profile);
          return base.profile!(profile, tokens);
        },
      }),
    );
    await signInThroughStandIn(app, createJar(), 'microblog');
    expect(profiles).toHaveLength(1);
    expect(profiles[0]!.includes?.tweets).toEqual([pinnedTweet]);
    expect(profiles[0]!.data.entities).toEqual(xDev.entities);
    expect(profiles[0]!.data).toMatchObject({ description: xDev.description, location: '127.0.0.1', verified: true, pinned_tweet_id: pinnedTweet.id });
  });

  it('hands includes.tweets and entities to events.signIn', async () => {
    const { app, seen } = await startMicroblogApp(Microblog({ ...oauth2Endpoints(), ...richOptions }));
    await signInThroughStandIn(app, createJar(), 'microblog');
    const profile = seen.profiles[0] as unknown as TwitterProfile;
    expect(profile.includes?.tweets).toEqual([pinnedTweet]);
    expect(profile.data.entities?.description?.hashtags).toEqual([{ start: 17, end: 29, tag: 'XDevelopers' }]);
    expect(profile.data.entities?.url?.urls?.[0]?.expanded_url).toBe('https://developer.x.com/en/community');
  });

  it('stores access_token, refresh_token and expires_at on the account', async () => {
    const { app, seen } = await startMicroblogApp(Microblog(oauth2Endpoints()));
    const before = Math.floor(Date.now() / 1000);
    await signInThroughStandIn(app, createJar(), 'microblog');
    const account = seen.accounts[0]!;
    expect(account).toMatchObject({ provider: 'microblog', type: 'oauth', providerAccountId: '2244994945', token_type: 'bearer', scope: 'users.read tweet.read offline.access' });
    expect(account.access_token).toBeTruthy();
    expect(account.refresh_token).toBeTruthy();
    expect(account.expires_at).toBeGreaterThanOrEqual(before + 7200);
    expect(account.expires_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 7200);
  });

  it('sends PKCE (S256) and state, and exchanges the code with the verifier and client_secret_basic', async () => {
    const { app } = await startMicroblogApp(Microblog(oauth2Endpoints()));
    const { authorizationUrl, callbackUrl } = await signInThroughStandIn(app, createJar(), 'microblog');
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('scope')).toBe('users.read tweet.read offline.access');
    expect(callbackUrl.searchParams.get('state')).toBe(authorizationUrl.searchParams.get('state'));
    expect(seenByNetwork.tokenProblems).toEqual([]);
  });

  it('refuses a callback whose state does not match', async () => {
    const { app } = await startMicroblogApp(Microblog(oauth2Endpoints()));
    const jar = createJar();
    const { authorizationUrl } = await startSignIn(app, jar, { providerId: 'microblog' });
    const answer = await jar.fetch(authorizationUrl);
    const callbackUrl = new URL(answer.headers.get('location')!);
    callbackUrl.searchParams.set('state', 'forged-state-value-forged-state-value');
    const response = await app.fetch(jar, callbackUrl);
    expectRedirect(response, { pathname: '/auth/signin', error: 'OAuthCallbackError' });
    expect(loggedTypes(app)).toEqual(['InvalidCheck']);
  });

  it("signs in the same with version: '2.0', which is the default", async () => {
    const explicit = Microblog({ ...oauth2Endpoints(), version: '2.0' });
    const implicit = Microblog(oauth2Endpoints());
    expect(JSON.stringify(explicit)).toBe(JSON.stringify(implicit));
    const { app } = await startMicroblogApp(explicit);
    const jar = createJar();
    await signInThroughStandIn(app, jar, 'microblog');
    expect((await sessionOf(app, jar))?.user?.id).toBe('2244994945');
  });
});

describe('microblog provider options', () => {
  it('refuses an unknown version, naming the valid ones', () => {
    expect(() => Microblog({ version: '3.0' } as unknown as MicroblogUserConfig)).toThrow(
      'Microblog provider: version "3.0" is not supported; use "2.0" (OAuth 2, the default) or "1.0A" (OAuth 1.0a)',
    );
  });

  it('refuses an unknown user field', () => {
    expect(() => Microblog({ userFields: ['follower_count' as never] })).toThrow(/unknown user field "follower_count"; valid values are created_at, description, entities/);
  });

  it('refuses an unknown expansion', () => {
    expect(() => Microblog({ expansions: ['author_id' as never] })).toThrow(/unknown expansion "author_id"; valid values are pinned_tweet_id/);
  });

  it("refuses userFields with version '1.0A'", () => {
    expect(() => Microblog({ version: '1.0A', userFields: ['description'] } as never)).toThrow('userFields and expansions apply to OAuth 2 (version "2.0") only');
  });

  it('adds user.fields and expansions to an overridden userinfo URL, unless it sets user.fields itself', () => {
    expect(Microblog({ userinfo: 'https://proxy.example/2/users/me', expansions: ['pinned_tweet_id'] }).userinfo).toBe(
      'https://proxy.example/2/users/me?user.fields=profile_image_url&expansions=pinned_tweet_id',
    );
    expect(Microblog({ userinfo: { url: 'https://proxy.example/2/users/me?user.fields=id' } }).userinfo).toEqual({
      url: 'https://proxy.example/2/users/me?user.fields=id',
    });
  });

  it('maps the email when the API returns one, and keeps the id a string', async () => {
    const user = await Microblog().profile!({ data: { id: '1', name: 'A', username: 'a', email: 'a@x.test' } }, {} as TokenSet);
    expect(user).toEqual({ id: '1', name: 'A', email: 'a@x.test', image: null });
  });
});

describe("microblog over OAuth 1.0a (version: '1.0A') against a stand-in of the network", () => {
  function oauth1Options(overrides: { clientSecret?: string } = {}) {
    return {
      version: '1.0A',
      clientId: CLIENT_ID,
      clientSecret: overrides.clientSecret ?? CLIENT_SECRET,
      requestTokenUrl: `${network.url}/oauth/request_token`,
      authorization: `${network.url}/oauth/authenticate`,
      token: `${network.url}/oauth/access_token`,
      userinfo: `${network.url}/1.1/account/verify_credentials.json?include_email=true&skip_status=true`,
    } as const;
  }

  function oauth1Provider(overrides: { clientSecret?: string } = {}) {
    return Microblog(oauth1Options(overrides));
  }

  it('signs in: the account holds oauth_token and oauth_token_secret, and the user has the email', async () => {
    const { app, seen } = await startMicroblogApp(oauth1Provider());
    const jar = createJar();
    const { callbackResponse } = await signInThroughStandIn(app, jar, 'microblog');
    expectRedirect(callbackResponse, { pathname: '/me' });
    expect((await sessionOf(app, jar))?.user).toEqual({ id: '2244994945', name: 'X Dev', email: CONFIRMED_EMAIL, image: xDevLegacy.profile_image_url_https });
    const account = seen.accounts[0]!;
    expect(account).toMatchObject({ provider: 'microblog', type: 'oauth', providerAccountId: '2244994945' });
    expect(account.oauth_token).toMatch(/^2244994945-/);
    expect(account.oauth_token_secret).toMatch(/^[0-9a-f]{32}$/);
    expect(account.access_token).toBeUndefined();
    expect(account.refresh_token).toBeUndefined();
    expect(seen.profiles[0]).toMatchObject({ id_str: '2244994945', screen_name: 'XDevelopers', email: CONFIRMED_EMAIL });
  });

  it('signs every request with HMAC-SHA1, which the network verifies', async () => {
    const { app } = await startMicroblogApp(oauth1Provider());
    await signInThroughStandIn(app, createJar(), 'microblog');
    expect(seenByNetwork.signatureProblems).toEqual([]);
    expect(seenByNetwork.signedCalls).toEqual(['request_token', 'access_token', 'verify_credentials']);
  });

  it('asks verify_credentials for the email with include_email=true', async () => {
    const { app } = await startMicroblogApp(oauth1Provider());
    await signInThroughStandIn(app, createJar(), 'microblog');
    expect(seenByNetwork.verifyCredentialsQueries.map((query) => query.get('include_email'))).toEqual(['true']);
  });

  it('sends the browser to the authenticate endpoint with the request token only', async () => {
    const { app } = await startMicroblogApp(oauth1Provider());
    const { authorizationUrl } = await startSignIn(app, createJar(), { providerId: 'microblog' });
    expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${network.url}/oauth/authenticate`);
    expect([...authorizationUrl.searchParams.keys()]).toEqual(['oauth_token']);
  });

  it('fails the start of the sign-in with OAuthSignInError when the network refuses the consumer secret', async () => {
    const { app } = await startMicroblogApp(oauth1Provider({ clientSecret: 'a-wrong-secret' }));
    const jar = createJar();
    const { response } = await startSignIn(app, jar, { providerId: 'microblog' });
    expectRedirect(response, { pathname: '/auth/signin', error: 'OAuthSignInError' });
    expect(loggedTypes(app)).toEqual(['OAuthSignInError']);
    expect(seenByNetwork.signatureProblems).toEqual(['request_token: signature']);
  });

  it("refuses a callback whose oauth_token is not this browser's request token", async () => {
    const { app } = await startMicroblogApp(oauth1Provider());
    const victim = createJar();
    const attacker = createJar();
    const { authorizationUrl } = await startSignIn(app, victim, { providerId: 'microblog' });
    await victim.fetch(authorizationUrl);
    // The attacker's own, valid callback, delivered to the victim's browser.
    const attackerStart = await startSignIn(app, attacker, { providerId: 'microblog' });
    const attackerCallback = new URL((await attacker.fetch(attackerStart.authorizationUrl)).headers.get('location')!);
    const response = await app.fetch(victim, attackerCallback);
    expectRedirect(response, { pathname: '/auth/signin', error: 'OAuthCallbackError' });
    expect(loggedTypes(app)).toEqual(['InvalidCheck']);
    expect(seenByNetwork.signedCalls).toEqual(['request_token', 'request_token']);
  });

  it('refuses a callback at another OAuth 1.0a provider for a sign-in started with this one (mix-up), before the access token request', async () => {
    resetNetwork();
    const other = Microblog({ ...oauth1Options(), id: 'microblog-b', name: 'Microblog B' });
    const app = await apps.start({ providers: [oauth1Provider(), other] });
    const jar = createJar();
    const { authorizationUrl } = await startSignIn(app, jar, { providerId: 'microblog' });
    const callbackUrl = new URL((await jar.fetch(authorizationUrl)).headers.get('location')!);
    const response = await app.fetch(jar, `${app.mount}/callback/microblog-b${callbackUrl.search}`);
    expectRedirect(response, { pathname: '/auth/signin', error: 'OAuthCallbackError' });
    expect(loggedTypes(app)).toEqual(['InvalidCheck']);
    expect(app.errors[0]!.message).toMatch(/^The OAuth 1\.0a request token cookie was issued for provider "microblog", not for "microblog-b"/);
    expect(seenByNetwork.signedCalls).toEqual(['request_token']);
    expect(await sessionOf(app, jar)).toBeNull();
  });

  it('refuses a callback without the request token cookie', async () => {
    const { app } = await startMicroblogApp(oauth1Provider());
    const jar = createJar();
    const { authorizationUrl } = await startSignIn(app, jar, { providerId: 'microblog' });
    const callbackUrl = new URL((await jar.fetch(authorizationUrl)).headers.get('location')!);
    const response = await app.fetch(createJar(), callbackUrl);
    expectRedirect(response, { pathname: '/auth/signin', error: 'OAuthCallbackError' });
    expect(loggedTypes(app)).toEqual(['InvalidCheck']);
  });

  it('answers a cancelled authorization (denied) with AccessDenied', async () => {
    const { app } = await startMicroblogApp(oauth1Provider());
    seenByNetwork.deny = true;
    const { callbackResponse } = await signInThroughStandIn(app, createJar(), 'microblog');
    expectRedirect(callbackResponse, { pathname: '/auth/error', error: 'AccessDenied' });
    expect(seenByNetwork.signedCalls).toEqual(['request_token']);
  });
});
