// Property-based fuzzing (fast-check, fixed seed, fixed budget) of every route below the mount and of the app
// around it: arbitrary methods, paths (encoded, dot-segments, unicode, invalid percent-encoding), query strings,
// cookies (random names and values, real tokens and their mutations, session chunks), headers and bodies
// (urlencoded, JSON, garbage, wrong content types). Properties: never a 5xx, never a dropped connection, no
// unhandled rejection or uncaught exception, and the app still answers afterwards. Two apps: JWT sessions
// (credentials + OIDC) and database sessions (SQLite + OIDC).
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import Password from '../../templates/runtime/providers/password.js';
import { createJar } from '../support/cookie-jar.js';

import { pendingCallbackViaStandIn } from './support/oauth-flow.js';
import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn } from './support/oidc-stand-in.js';
import { rawRequest } from './support/raw-http.js';
import type { RawRequest } from './support/raw-http.js';
import { MOUNT, SESSION_COOKIE, csrfToken, expectStillServing, passwordProvider, signedInJar, startScaffoldApp } from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';

/** Fixed seed and budget: the same requests on every run. */
const SEED = 20_260_509;
const RUNS = { jwt: 2500, database: 1000 } as const;

let standIn: OidcStandIn;
let sqlite: Database.Database;
const apps = {} as Record<keyof typeof RUNS, ScaffoldApp>;
/** Real cookie values and parameters harvested from genuine flows, so that fuzzed requests get past the first checks. */
const material = {} as Record<keyof typeof RUNS, { cookies: Record<string, string>; csrf: { cookie: string; token: string }; code: string; state: string }>;
const failures: string[] = [];
const statuses = new Map<number, number>();
const onUnhandled = (reason: unknown): void => void failures.push(`unhandledRejection: ${String((reason as Error)?.stack ?? reason)}`);
const onUncaught = (error: Error): void => void failures.push(`uncaughtException: ${error.stack ?? error.message}`);

async function harvest(app: ScaffoldApp, signIn: 'credentials' | 'oidc'): Promise<(typeof material)['jwt']> {
  const jar = signIn === 'credentials' ? await signedInJar(app.url) : createJar();
  if (signIn === 'oidc') expect((await jar.fetch(await pendingCallbackViaStandIn(app.url, jar, 'standin'))).status).toBe(302);
  const token = await csrfToken(app.url, jar);
  // A sign-in left pending at the callback: its check cookies match its code and state.
  const pending = createJar();
  const callback = await pendingCallbackViaStandIn(app.url, pending, 'standin');
  const cookies: Record<string, string> = {};
  for (const cookie of [...jar.cookies(app.url), ...pending.cookies(app.url)]) cookies[cookie.name] ??= cookie.value;
  expect(Object.keys(cookies)).toEqual(expect.arrayContaining([SESSION_COOKIE, 'authjs.csrf-token', 'authjs.state', 'authjs.pkce.code_verifier', 'authjs.nonce']));
  return { cookies, csrf: { cookie: cookies['authjs.csrf-token']!, token }, code: callback.searchParams.get('code')!, state: callback.searchParams.get('state')! };
}

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUncaught);
  standIn = await startOidcStandIn();
  const oidc = () => OIDC({ id: 'standin', issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret, checks: ['pkce', 'state', 'nonce'] });
  sqlite = new Database(':memory:');
  apps.jwt = await startScaffoldApp({ providers: [passwordProvider(), oidc()] });
  // Email and password accounts beside OIDC: the password provider emails links, so the origin comes from a host list.
  apps.database = await startScaffoldApp({ providers: [oidc(), Password({ sendMessage: () => {} })], adapter: SqliteAdapter({ database: sqlite }), trustHost: ['127.0.0.1', 'localhost'] });
  material.jwt = await harvest(apps.jwt, 'credentials');
  material.database = await harvest(apps.database, 'oidc');
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUncaught);
  await Promise.all(Object.values(apps).map((app) => app.close()));
  await standIn?.close();
  sqlite?.close();
  const summary = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(' ');
  const logged = new Map<string, number>();
  for (const app of Object.values(apps)) for (const type of app.log.types()) logged.set(type, (logged.get(type) ?? 0) + 1);
  console.log(`[fuzz] seed ${SEED}, ${RUNS.jwt + RUNS.database} generated requests; statuses: ${summary}; logged: ${[...logged].map(([type, count]) => `${type}×${count}`).join(' ')}`);
});

// ---------------------------------------------------------------------------------------------------------------
// Arbitraries. Header values and paths stay within what HTTP/1.1 can carry (Node's client refuses the rest);
// everything else is fair game.

/** Characters a header value may hold: tab, visible ASCII, space, obs-text. */
const headerChar = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }).map((code) => String.fromCharCode(code)) },
  { weight: 1, arbitrary: fc.constant('\t') },
);
const headerValue = (maxLength = 64) => fc.string({ unit: headerChar, maxLength });
/** Visible ASCII for raw paths and queries (controls and spaces cannot be sent; bytes above 0x7F are refused by Node's parser). */
const pathChar = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)).filter((character) => character !== '?' && character !== '#');
/** Raw bytes above 0x7F: Node's HTTP parser answers 400 itself, which is still checked now and then. */
const latin1Char = fc.integer({ min: 0x80, max: 0xff }).map((code) => String.fromCharCode(code));

const actions = ['providers', 'csrf', 'session', 'signin', 'callback', 'signout', 'error', 'verify-request', 'webauthn-options', 'signup', 'reset-password', 'password'];
const providerIds = ['credentials', 'standin', 'password', 'nope', 'CREDENTIALS', '__proto__', 'constructor'];
const segment = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...actions) },
  { weight: 4, arbitrary: fc.constantFrom(...providerIds) },
  { weight: 3, arbitrary: fc.constantFrom('..', '.', '%2e%2e', '%2E', '%2F', '%2f..', '%00', '%', '%zz', '%C0%AE', '%ED%A0%80', '%FF', '%E2%80%AE', '~', ';', '*', '%3F', '%23', '') },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.string({ unit: pathChar, maxLength: 10 }) },
);
const routes = [
  `${MOUNT}/providers`,
  `${MOUNT}/csrf`,
  `${MOUNT}/session`,
  `${MOUNT}/signin`,
  `${MOUNT}/signin/credentials`,
  `${MOUNT}/signin/standin`,
  `${MOUNT}/callback/credentials`,
  `${MOUNT}/callback/standin`,
  `${MOUNT}/signout`,
  `${MOUNT}/error`,
  `${MOUNT}/verify-request`,
  `${MOUNT}/webauthn-options/standin`,
  `${MOUNT}/signup`,
  `${MOUNT}/signup/password`,
  `${MOUNT}/callback/password`,
  `${MOUNT}/reset-password`,
  `${MOUNT}/password`,
  '/',
  '/me',
];
const randomPath = fc
  .tuple(
    fc.constantFrom(MOUNT, MOUNT, MOUNT, '/AUTH', '/auth/', '/auth//', '/authx', '', '/me', '/%61uth', '/auth/./', '/auth/../auth'),
    fc.array(segment, { maxLength: 4 }),
    fc.constantFrom('/', '/', '/', '//', '/./'),
  )
  .map(([prefix, segments, separator]) => `${prefix}/${segments.join(separator)}`.replace(/^\/\//, '/'));
const path = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...routes) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...routes), fc.constantFrom('/', '//', '/.', '/..', '%2F', '/%2e%2e/me')).map(([route, suffix]) => `${route}${suffix}`) },
  { weight: 3, arbitrary: randomPath },
);

const urlPayloads = ['/me', '//evil.example', '/\\evil.example', 'https:evil.example', 'javascript:alert(1)', 'HTTPS://EVIL.EXAMPLE', '%2F%2Fevil.example'];
const queryKey = fc.oneof(
  fc.constantFrom('callbackUrl', 'error', 'code', 'state', 'iss', 'csrfToken', 'session_state', 'error_description', 'login_hint', 'prompt', 'redirect_uri', 'client_id', 'nonce', '__proto__', 'constructor'),
  fc.string({ maxLength: 8 }),
);
const queryValue = (app: keyof typeof RUNS) =>
  fc.oneof(
    fc.constantFrom(...urlPayloads),
    fc.constantFrom('constructor', 'toString', 'CredentialsSignin', 'OAuthCallbackError', 'Configuration', 'access_denied'),
    fc.constant(null).map(() => material[app].code),
    fc.constant(null).map(() => material[app].state),
    fc.constant(null).map(() => standIn.issuer),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
  );
const query = (app: keyof typeof RUNS) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    { weight: 5, arbitrary: fc.array(fc.tuple(queryKey, queryValue(app)), { maxLength: 5 }).map((pairs) => `?${new URLSearchParams(pairs)}`) },
    { weight: 1, arbitrary: fc.string({ unit: pathChar, maxLength: 30 }).map((raw) => `?${raw}`) },
    { weight: 1, arbitrary: fc.string({ unit: fc.oneof({ weight: 5, arbitrary: pathChar }, { weight: 1, arbitrary: latin1Char }), maxLength: 10 }).map((raw) => `?${raw}`) },
  );

/** A mutation of a real value: cut, extended, one character changed, or case-flipped. */
const mutated = (value: string) =>
  fc.oneof(
    fc.nat({ max: Math.max(0, value.length - 1) }).map((cut) => value.slice(0, cut)),
    fc.nat({ max: Math.max(0, value.length - 1) }).map((index) => `${value.slice(0, index)}${value[index] === 'A' ? 'B' : 'A'}${value.slice(index + 1)}`),
    fc.string({ unit: headerChar, maxLength: 8 }).map((suffix) => `${value}${suffix.replace(/;/g, '')}`),
    fc.constant(value.toUpperCase()),
    fc.constant(`${value}.${value}`),
  );

const cookieNames = [
  SESSION_COOKIE,
  `${SESSION_COOKIE}.0`,
  `${SESSION_COOKIE}.1`,
  `${SESSION_COOKIE}.2`,
  `${SESSION_COOKIE}.10`,
  `__Secure-${SESSION_COOKIE}`,
  'authjs.csrf-token',
  '__Host-authjs.csrf-token',
  'authjs.callback-url',
  'authjs.state',
  'authjs.pkce.code_verifier',
  'authjs.nonce',
  'authjs.challenge',
];
const cookiePair = (app: keyof typeof RUNS) =>
  fc.tuple(
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...cookieNames) }, { weight: 1, arbitrary: fc.string({ unit: headerChar, maxLength: 12 }).map((name) => name.replace(/[;=]/g, '')) }),
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...Object.keys(material[app]?.cookies ?? { none: '' })).map((name) => material[app].cookies[name] ?? '') },
      { weight: 3, arbitrary: fc.constantFrom(...Object.keys(material[app]?.cookies ?? { none: '' })).chain((name) => mutated(material[app].cookies[name] ?? '')) },
      { weight: 2, arbitrary: fc.array(fc.base64String({ maxLength: 40 }), { minLength: 5, maxLength: 5 }).map((parts) => parts.join('.').replace(/[+/=]/g, 'A')) },
      { weight: 2, arbitrary: headerValue(80) },
      { weight: 1, arbitrary: fc.constantFrom('', '"', '""', '%', '%zz', '%E0%A4%A', '"quoted value"', 'a|b', '|', 'token|') },
    ),
  );
const cookieHeader = (app: keyof typeof RUNS) =>
  fc.array(cookiePair(app), { maxLength: 6 }).map((pairs) => pairs.map(([name, value]) => `${name}=${value.replace(/;/g, '')}`).join('; '));

const contentTypes = [
  'application/x-www-form-urlencoded',
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  'multipart/form-data; boundary=fuzz',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  '',
  'application/jsonx',
];
const formField = (app: keyof typeof RUNS) =>
  fc.tuple(
    fc.oneof(
      fc.constantFrom('csrfToken', 'username', 'password', 'callbackUrl', 'code', 'state', 'data', '__proto__', 'constructor', 'email', 'name', 'token', 'currentPassword', 'newPassword'),
      fc.string({ maxLength: 8 }),
    ),
    fc.oneof(
      fc.constant(null).map(() => material[app].csrf.token),
      fc.constantFrom('ada', 'correct horse battery staple', 'ada@example.test', 'violet staple orbit lantern', 'a@b\r\nBcc: x@y', ...urlPayloads),
      fc.string({ maxLength: 30 }),
    ),
  );
const body = (app: keyof typeof RUNS) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 5, arbitrary: fc.array(formField(app), { maxLength: 6 }).map((fields) => new URLSearchParams(fields).toString()) },
    { weight: 3, arbitrary: fc.array(formField(app), { maxLength: 6 }).map((fields) => JSON.stringify(Object.fromEntries(fields))) },
    { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.constantFrom('{', '[]', 'null', '"x"', '{"csrfToken":', '%', 'a=%zz&b', '\u0000\u0001', '{"__proto__":{"polluted":true}}') },
    { weight: 1, arbitrary: fc.integer({ min: 60 * 1024, max: 80 * 1024 }).map((size) => `csrfToken=x&pad=${'p'.repeat(size)}`) },
  );

const methods = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('GET', 'POST') },
  { weight: 3, arbitrary: fc.constantFrom('HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'PURGE', 'SEARCH') },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,8}$/) },
);

/** One generated request, before the real CSRF pair is added (when `withCsrf`). */
interface FuzzRequest {
  method: string;
  path: string;
  query: string;
  cookie: string | undefined;
  withCsrf: boolean;
  contentType: string | undefined;
  accept: string | undefined;
  extraHeaders: Record<string, string>;
  host: string | undefined;
  body: string | Buffer | undefined;
}

const anyRequest = (app: keyof typeof RUNS): fc.Arbitrary<FuzzRequest> =>
  fc.record({
    method: methods,
    path,
    query: query(app),
    cookie: fc.option(cookieHeader(app), { nil: undefined }),
    withCsrf: fc.boolean(),
    contentType: fc.option(fc.constantFrom(...contentTypes), { nil: undefined }),
    accept: fc.option(fc.constantFrom('application/json', 'text/html', '*/*', 'application/json, text/html', 'text/html;q=0.1, application/json'), { nil: undefined }),
    extraHeaders: fc.dictionary(
      fc.constantFrom('x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-for', 'forwarded', 'x-auth-return-redirect', 'origin', 'referer', 'user-agent', 'x-http-method-override'),
      headerValue(40),
      { maxKeys: 3 },
    ),
    host: fc.oneof(
      { weight: 8, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom('evil.example', 'EVIL.example:80', '127.0.0.1', '[::1]:1', 'a_b.example', 'xn--e1afmkfd.example') },
    ),
    body: body(app),
  });


/**
 * Requests that get past the first checks: a form or JSON POST with this browser's real CSRF pair to a route that
 * acts (credentials, OAuth start, sign-out, session update), or the OAuth callback with a real code and state and
 * real (or mutated) check cookies. Their fields, callbackUrl and cookies are fuzzed.
 */
const deepRequest = (app: keyof typeof RUNS): fc.Arbitrary<FuzzRequest> =>
  fc.oneof<[fc.Arbitrary<FuzzRequest>, fc.Arbitrary<FuzzRequest>]>(
    fc.record({
      method: fc.constant('POST'),
      path: fc.constantFrom(`${MOUNT}/callback/credentials`, `${MOUNT}/signin/credentials`, `${MOUNT}/signin/standin`, `${MOUNT}/signout`, `${MOUNT}/session`, `${MOUNT}/callback/standin`),
      query: query(app),
      cookie: fc.option(cookieHeader(app), { nil: undefined }),
      withCsrf: fc.constant(true),
      contentType: fc.constantFrom('application/x-www-form-urlencoded', 'application/json'),
      accept: fc.option(fc.constantFrom('application/json', 'text/html'), { nil: undefined }),
      extraHeaders: fc.dictionary(fc.constantFrom('x-auth-return-redirect', 'x-forwarded-proto', 'origin'), headerValue(20), { maxKeys: 1 }),
      host: fc.constant(undefined),
      body: fc
        .tuple(
          fc.constantFrom('ada', 'nobody', '', 'load-1'),
          fc.constantFrom('correct horse battery staple', 'wrong', '', 'password-1'),
          fc.option(fc.oneof(fc.constantFrom(...urlPayloads), fc.string({ maxLength: 20 })), { nil: undefined }),
          fc.array(formField(app), { maxLength: 3 }),
        )
        .chain(([username, password, callbackUrl, extra]) =>
          fc.constantFrom(
            new URLSearchParams([['username', username], ['password', password], ...(callbackUrl === undefined ? [] : [['callbackUrl', callbackUrl]]), ...extra]).toString(),
            JSON.stringify({ ...Object.fromEntries(extra), username, password, ...(callbackUrl !== undefined && { callbackUrl }) }),
          ),
        ),
    }),
    fc.record({
      method: fc.constantFrom('GET', 'POST'),
      path: fc.constant(`${MOUNT}/callback/standin`),
      query: fc
        .tuple(fc.option(fc.constant(null).map(() => material[app].code), { nil: undefined }), fc.option(fc.constant(null).map(() => material[app].state), { nil: undefined }), fc.option(queryValue(app), { nil: undefined }))
        .map(([code, state, iss]) => `?${new URLSearchParams({ ...(code && { code }), ...(state && { state }), ...(iss !== undefined && { iss: iss === null ? standIn.issuer : iss }) })}`),
      cookie: fc
        .tuple(
          ...['authjs.state', 'authjs.pkce.code_verifier', 'authjs.nonce', 'authjs.callback-url', SESSION_COOKIE].map((name, index) =>
            fc.oneof(
              { weight: index < 3 ? 6 : 1, arbitrary: fc.constant(null).map(() => material[app].cookies[name] ?? '') },
              { weight: 1, arbitrary: fc.constant(null).chain(() => mutated(material[app].cookies[name] ?? '')) },
              { weight: index < 3 ? 1 : 4, arbitrary: fc.constant(undefined) },
            ).map((value) => (value === undefined ? undefined : `${name}=${value.replace(/;/g, '')}`)),
          ),
        )
        .map((pairs) => pairs.filter(Boolean).join('; ') || undefined),
      withCsrf: fc.boolean(),
      contentType: fc.constant(undefined),
      accept: fc.constant(undefined),
      extraHeaders: fc.constant({} as Record<string, string>),
      host: fc.constant(undefined),
      body: fc.constant(undefined),
    }),
  );

const request = (app: keyof typeof RUNS) => fc.oneof({ weight: 7, arbitrary: anyRequest(app) }, { weight: 3, arbitrary: deepRequest(app) });


function toRawRequest(app: keyof typeof RUNS, fuzzed: FuzzRequest): RawRequest {
  const headers: Record<string, string> = { ...fuzzed.extraHeaders };
  const cookies = [fuzzed.cookie, fuzzed.withCsrf ? `authjs.csrf-token=${material[app].csrf.cookie}` : undefined].filter(Boolean);
  if (cookies.length) headers['cookie'] = cookies.join('; ');
  if (fuzzed.contentType !== undefined) headers['content-type'] = fuzzed.contentType;
  if (fuzzed.accept !== undefined) headers['accept'] = fuzzed.accept;
  if (fuzzed.host !== undefined) headers['host'] = fuzzed.host;
  let payload = fuzzed.body;
  if (fuzzed.withCsrf && typeof payload === 'string') {
    // Past the CSRF check, so that the fuzzed fields reach authorize(), the OAuth start and sign-out.
    if (fuzzed.contentType?.toLowerCase().includes('urlencoded')) payload = `csrfToken=${material[app].csrf.token}&${payload}`;
    else if (payload.startsWith('{"') || payload === '{}') payload = `{"csrfToken":${JSON.stringify(material[app].csrf.token)},${payload.slice(1)}`.replace(/,}$/, '}');
  }
  const sendsBody = payload !== undefined && !['GET', 'HEAD'].includes(fuzzed.method);
  return { method: fuzzed.method, path: `${fuzzed.path}${fuzzed.query}`, headers, ...(sendsBody && { body: payload }), timeout: 8000 };
}

async function fuzz(app: keyof typeof RUNS): Promise<void> {
  const target = apps[app];
  await fc.assert(
    fc.asyncProperty(request(app), async (fuzzed) => {
      const raw = toRawRequest(app, fuzzed);
      let status: number;
      try {
        status = (await rawRequest(target.url, raw)).status;
      } catch (error) {
        throw new Error(`no answer to ${raw.method} ${raw.path}: ${(error as Error).message}`, { cause: error });
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status >= 500 || status < 100) throw new Error(`${raw.method} ${raw.path} answered ${status}`);
    }),
    { seed: SEED, numRuns: RUNS[app], verbose: 1 },
  );
  expect(failures).toEqual([]);
  await expectStillServing(target.url);
  expect(target.expressErrors.filter((error) => ((error as { status?: number }).status ?? 500) >= 500)).toEqual([]);
}

describe('fuzzing', () => {
  it(`never answers 5xx, never drops a connection, and keeps serving: JWT app (${RUNS.jwt} requests)`, async () => {
    await fuzz('jwt');
  }, 120_000);

  it(`never answers 5xx, never drops a connection, and keeps serving: database app (${RUNS.database} requests)`, async () => {
    await fuzz('database');
  }, 120_000);

  it('meets no unexpected internal error while fuzzed (every logged error is a deliberate refusal)', () => {
    const unexpected = Object.entries(apps).flatMap(([name, app]) =>
      app.log.errors
        .filter((error) => (error as Error & { type?: string }).type === undefined || error.message === 'Unexpected error in the auth handler')
        .map((error) => `${name}: ${error.message} <- ${String((error as Error & { cause?: { err?: Error } }).cause?.err?.stack ?? '')}`),
    );
    expect([...new Set(unexpected)]).toEqual([]);
  });
});
