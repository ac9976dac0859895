// Session cookies fail closed: a tampered JWE, truncated or reordered chunks, a token of a secret that rotation
// removed, an expired token, or the value of another cookie (state, PKCE, nonce, CSRF, callback URL) put into the
// session cookie is no session — `/auth/session` answers null, the guard refuses, nothing answers 5xx, and the
// bad cookie is cleared.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { encode } from '../../templates/runtime/index.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import { createJar } from '../support/cookie-jar.js';
import type { CookieJar } from '../support/cookie-jar.js';

import { startOAuthSignIn } from './support/oauth-flow.js';
import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn } from './support/oidc-stand-in.js';
import {
  OLD_SECRET,
  SECRET,
  SESSION_COOKIE,
  expectNoSession,
  passwordProvider,
  sessionOf,
  signedInJar,
  startScaffoldApp,
} from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';

let standIn: OidcStandIn;
let app: ScaffoldApp;
/** Its jwt callback adds a large claim, so that session cookies are chunked (.0, .1, .2). */
let chunky: ScaffoldApp;
/** Signs with OLD_SECRET only; `rotating` lists [SECRET, OLD_SECRET]; `app` has SECRET only. */
let before: ScaffoldApp;
let rotating: ScaffoldApp;

beforeAll(async () => {
  standIn = await startOidcStandIn();
  const oidc = () => OIDC({ id: 'standin', issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret, checks: ['pkce', 'state', 'nonce'] });
  app = await startScaffoldApp({ providers: [passwordProvider(), oidc()] });
  chunky = await startScaffoldApp({
    providers: [passwordProvider()],
    callbacks: { jwt: ({ token }) => ({ ...token, padding: 'p'.repeat(9000) }) },
  });
  before = await startScaffoldApp({ providers: [passwordProvider()], secret: OLD_SECRET });
  rotating = await startScaffoldApp({ providers: [passwordProvider()], secret: [SECRET, OLD_SECRET] });
});
afterAll(async () => {
  await Promise.all([app, chunky, before, rotating].map((running) => running?.close()));
  await standIn?.close();
});

/** A browser holding exactly `cookies` for `url`. */
function jarWith(url: string, cookies: Record<string, string>): CookieJar {
  const jar = createJar();
  for (const [name, value] of Object.entries(cookies)) jar.set(url, `${name}=${value}; Path=/`);
  return jar;
}

/** No session, and `/auth/session` clears what the browser sent. */
async function expectRefusedAndCleared(url: string, cookies: Record<string, string>): Promise<void> {
  const jar = jarWith(url, cookies);
  const response = await jar.fetch(`${url}/auth/session`);
  expect(response.status).toBe(200);
  expect(await response.text()).toBe('null');
  const cleared = response.headers.getSetCookie().filter((cookie) => /Max-Age=0/.test(cookie)).map((cookie) => cookie.split('=')[0]);
  expect(cleared.sort()).toEqual(Object.keys(cookies).filter((name) => name.startsWith(SESSION_COOKIE)).sort());
  await expectNoSession(url, jarWith(url, cookies));
}

/** Replaces the character at `index` of `value` by another base64url character. */
function alterAt(value: string, index: number): string {
  const replacement = value[index] === 'A' ? 'B' : 'A';
  return `${value.slice(0, index)}${replacement}${value.slice(index + 1)}`;
}

describe('a tampered session JWE', () => {
  let token: string;
  beforeAll(async () => {
    const jar = await signedInJar(app.url);
    token = jar.get(SESSION_COOKIE, app.url)!;
    expect(token.split('.')).toHaveLength(5);
  });

  it('is refused when one character of its protected header changes', async () => {
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: alterAt(token, 10) });
  });

  it('is refused when it gains an encrypted key (alg dir has none)', async () => {
    const parts = token.split('.');
    parts[1] = 'AAAA';
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: parts.join('.') });
  });

  it('is refused when one character of its IV changes', async () => {
    const parts = token.split('.');
    parts[2] = alterAt(parts[2]!, 3);
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: parts.join('.') });
  });

  it('is refused when one character of its ciphertext changes', async () => {
    const parts = token.split('.');
    parts[3] = alterAt(parts[3]!, Math.floor(parts[3]!.length / 2));
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: parts.join('.') });
  });

  it('is refused when one character of its authentication tag changes', async () => {
    const parts = token.split('.');
    parts[4] = alterAt(parts[4]!, 2);
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: parts.join('.') });
  });

  it('is refused when its header is swapped for one naming another algorithm', async () => {
    const parts = token.split('.');
    parts[0] = Buffer.from(JSON.stringify({ alg: 'A256KW', enc: 'A256CBC-HS512' })).toString('base64url');
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: parts.join('.') });
  });

  it('is refused when replaced by an unsigned JWT (alg: none) claiming a user', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const claims = Buffer.from(JSON.stringify({ sub: 'user-ada', name: 'Ada', exp: 4102444800 })).toString('base64url');
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: `${header}.${claims}.` });
  });
});

describe('truncated and reordered session chunks', () => {
  let chunks: string[];
  beforeAll(async () => {
    const jar = await signedInJar(chunky.url);
    chunks = [];
    for (let index = 0; jar.get(`${SESSION_COOKIE}.${index}`, chunky.url) !== undefined; index++) chunks.push(jar.get(`${SESSION_COOKIE}.${index}`, chunky.url)!);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(jar.get(SESSION_COOKIE, chunky.url)).toBeUndefined();
    const all = Object.fromEntries(chunks.map((value, index) => [`${SESSION_COOKIE}.${index}`, value]));
    expect(await sessionOf(chunky.url, jarWith(chunky.url, all))).toMatchObject({ user: { id: 'user-ada' } });
  });
  const named = (values: string[]) => Object.fromEntries(values.map((value, index) => [`${SESSION_COOKIE}.${index}`, value]));

  it('is no session when the last chunk is missing', async () => {
    await expectRefusedAndCleared(chunky.url, named(chunks.slice(0, -1)));
  });

  it('is no session when the first chunk is missing, and the orphan chunks are cleared', async () => {
    const rest = Object.fromEntries(chunks.slice(1).map((value, index) => [`${SESSION_COOKIE}.${index + 1}`, value]));
    await expectRefusedAndCleared(chunky.url, rest);
  });

  it('is no session when a middle chunk is missing', async () => {
    const gap = named(chunks);
    delete gap[`${SESSION_COOKIE}.1`];
    await expectRefusedAndCleared(chunky.url, gap);
  });

  it('is no session when two chunks are swapped', async () => {
    const swapped = [...chunks];
    [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
    await expectRefusedAndCleared(chunky.url, named(swapped));
  });

  it('is no session when the last chunk is cut short', async () => {
    const cut = [...chunks];
    cut[cut.length - 1] = cut.at(-1)!.slice(0, -12);
    await expectRefusedAndCleared(chunky.url, named(cut));
  });

  it('is no session when an extra chunk is appended', async () => {
    await expectRefusedAndCleared(chunky.url, named([...chunks, 'eyJhbGciOiJkaXIifQ']));
  });
});

describe('secret rotation', () => {
  let oldToken: string;
  beforeAll(async () => {
    const jar = await signedInJar(before.url);
    oldToken = jar.get(SESSION_COOKIE, before.url)!;
  });

  it('still reads a session of the old secret while the old secret is listed (the control case)', async () => {
    expect(await sessionOf(rotating.url, jarWith(rotating.url, { [SESSION_COOKIE]: oldToken }))).toMatchObject({ user: { id: 'user-ada' } });
  });

  it('refuses a session of the old secret once rotation removed it', async () => {
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: oldToken });
  });
});

describe('expired sessions', () => {
  it('refuses a session whose exp passed an hour ago', async () => {
    const token = await encode({ token: { sub: 'user-ada', name: 'Ada' }, secret: SECRET, salt: SESSION_COOKIE, maxAge: -3600 });
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: token });
  });

  it('refuses a session whose exp passed beyond the 15 s clock tolerance', async () => {
    const token = await encode({ token: { sub: 'user-ada', name: 'Ada' }, secret: SECRET, salt: SESSION_COOKIE, maxAge: -20 });
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: token });
  });
});

describe('the value of another cookie put into the session cookie', () => {
  let others: Record<string, string>;
  beforeAll(async () => {
    const jar = createJar();
    await startOAuthSignIn(app.url, jar, 'standin', '/me');
    others = {};
    for (const name of ['authjs.state', 'authjs.pkce.code_verifier', 'authjs.nonce', 'authjs.csrf-token', 'authjs.callback-url']) {
      const value = jar.get(name, app.url);
      expect(value, name).toBeDefined();
      others[name] = value!;
    }
  });

  it.each(['authjs.state', 'authjs.pkce.code_verifier', 'authjs.nonce', 'authjs.csrf-token', 'authjs.callback-url'])(
    'refuses the %s cookie value as a session',
    async (name) => {
      await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: others[name]! });
    },
  );

  it('refuses a session token made for the __Secure- cookie name in the plain cookie', async () => {
    const token = await encode({ token: { sub: 'user-ada' }, secret: SECRET, salt: `__Secure-${SESSION_COOKIE}` });
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: token });
  });

  it('refuses a check cookie token (same secret, state salt) even when it claims a user', async () => {
    const token = await encode({ token: { sub: 'user-ada', name: 'Ada' }, secret: SECRET, salt: 'authjs.state' });
    await expectRefusedAndCleared(app.url, { [SESSION_COOKIE]: token });
  });
});
