// Open redirects: wherever a URL comes from the browser (callbackUrl in the credentials form, the OAuth sign-in
// form, the callback-url cookie, the sign-out form, the sign-in and sign-out pages' query) or from the app's own
// `redirect` callback, the user is only ever sent to the app's own origin. Each payload × entry point is a test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import OIDC from '../../templates/runtime/providers/oidc.js';
import { createJar, formBody } from '../support/cookie-jar.js';
import { findForm } from '../support/html-form.js';

import { pendingCallbackViaStandIn } from './support/oauth-flow.js';
import { startOidcStandIn } from './support/oidc-stand-in.js';
import type { OidcStandIn } from './support/oidc-stand-in.js';
import { MOUNT, credentialsSignIn, csrfToken, passwordProvider, signOut, signedInJar, startScaffoldApp } from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';

let standIn: OidcStandIn;
/** Default redirect callback. */
let app: ScaffoldApp;
/** A naive `redirect` callback that returns whatever it is given. */
let naive: ScaffoldApp;
/** A `redirect` callback that always answers another origin. */
let hostile: ScaffoldApp;

beforeAll(async () => {
  standIn = await startOidcStandIn();
  const providers = () => [
    passwordProvider(),
    OIDC({ id: 'standin', issuer: standIn.issuer, clientId: standIn.client.id, clientSecret: standIn.client.secret }),
  ];
  // Every payload is a credentials sign-in of `ada` from 127.0.0.1: far more than the default rate limits allow.
  const rateLimit = false;
  app = await startScaffoldApp({ providers: providers(), rateLimit });
  naive = await startScaffoldApp({ providers: providers(), callbacks: { redirect: ({ url }) => url }, rateLimit });
  hostile = await startScaffoldApp({ providers: providers(), callbacks: { redirect: () => 'https://evil.example/phish' }, rateLimit });
});
afterAll(async () => {
  await Promise.all([app?.close(), naive?.close(), hostile?.close()]);
  await standIn?.close();
});

/** Payloads that browsers (WHATWG URL parsing) would take to another origin or a script, if they were followed. */
const payloads: readonly string[] = [
  '//evil.example',
  '//evil.example/%2F..',
  '///evil.example',
  '////evil.example',
  '/\\evil.example',
  '\\\\evil.example',
  '\\/evil.example',
  '/\\/evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  ' //evil.example',
  'https:evil.example',
  'https:/evil.example',
  'https://evil.example',
  'HTTPS://EVIL.EXAMPLE',
  'hTtPs://Evil.Example/path',
  'https://evil.example%2F@app.example',
  '//%65vil.example',
  '//evil%E3%80%82example',
  '//evil\u3002example',
  '%2F%2Fevil.example',
  '%2f%2fevil.example',
  '/%2F%2Fevil.example',
  '/%5Cevil.example',
  '%252F%252Fevil.example',
  'http://{origin-host}@evil.example/',
  'http://{origin-host}.evil.example/',
  'http://evil.example\\@{origin-host}/',
  'javascript:alert(document.domain)',
  'JaVaScRiPt:alert(1)',
  '  javascript:alert(1)',
  'java\tscript:alert(1)',
  'javascript%3Aalert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
];

/** The payload for an app listening at `url` (some name the app's own host to look legitimate). */
function payloadFor(payload: string, url: string): string {
  return payload.replaceAll('{origin-host}', new URL(url).host);
}

const cases = payloads.map((payload) => [JSON.stringify(payload), payload] as const);

/** A Location (or page field) that keeps the browser on `url`'s origin, over http(s). */
function expectSameOrigin(target: string | null | undefined, url: string): void {
  expect(target, 'a target').toBeTruthy();
  const resolved = new URL(target!, `${url}/`);
  expect(resolved.origin).toBe(url);
  expect(['http:', 'https:']).toContain(resolved.protocol);
}

describe('callbackUrl of the credentials sign-in', () => {
  it.each(cases)('keeps %s on the app origin', async (_name, payload) => {
    const jar = createJar();
    const response = await credentialsSignIn(app.url, jar, { callbackUrl: payloadFor(payload, app.url) });
    expect(response.status).toBe(302);
    expectSameOrigin(response.headers.get('location'), app.url);
  });
});

describe('callbackUrl of the OAuth sign-in form, after the provider callback', () => {
  it.each(cases)('keeps %s on the app origin', async (_name, payload) => {
    const jar = createJar();
    const callbackUrl = await pendingCallbackViaStandIn(app.url, jar, 'standin', payloadFor(payload, app.url));
    const response = await jar.fetch(callbackUrl);
    expect(response.status).toBe(302);
    expectSameOrigin(response.headers.get('location'), app.url);
    expect((await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } })).status).toBe(200);
  });
});

describe('a callback-url cookie planted in the browser (e.g. by a sibling subdomain)', () => {
  it.each(cases)('keeps %s on the app origin', async (_name, payload) => {
    const jar = createJar();
    const callbackUrl = await pendingCallbackViaStandIn(app.url, jar, 'standin');
    jar.set(app.url, `authjs.callback-url=${encodeURIComponent(payloadFor(payload, app.url))}; Path=/`);
    const response = await jar.fetch(callbackUrl);
    expect(response.status).toBe(302);
    expectSameOrigin(response.headers.get('location'), app.url);
  });
});

describe('callbackUrl of the sign-out form', () => {
  it.each(cases)('keeps %s on the app origin', async (_name, payload) => {
    const jar = await signedInJar(app.url);
    const response = await signOut(app.url, jar, { callbackUrl: payloadFor(payload, app.url) });
    expect(response.status).toBe(302);
    expectSameOrigin(response.headers.get('location'), app.url);
  });
});

describe('callbackUrl in the query of the sign-in and sign-out pages', () => {
  it.each(cases)('never puts %s in the sign-in form', async (_name, payload) => {
    const jar = createJar();
    const page = await jar.fetch(`${app.url}${MOUNT}/signin?callbackUrl=${encodeURIComponent(payloadFor(payload, app.url))}`);
    expect(page.status).toBe(200);
    const field = findForm(await page.text(), app.url, 'csrfToken')?.fields['callbackUrl'];
    if (field !== undefined) expectSameOrigin(field, app.url);
  });

  it.each(cases)('never puts %s in the sign-out form', async (_name, payload) => {
    const jar = createJar();
    const page = await jar.fetch(`${app.url}${MOUNT}/signout?callbackUrl=${encodeURIComponent(payloadFor(payload, app.url))}`);
    expect(page.status).toBe(200);
    const field = findForm(await page.text(), app.url, 'csrfToken')?.fields['callbackUrl'];
    if (field !== undefined) expectSameOrigin(field, app.url);
  });
});

describe('a naive redirect callback that returns the URL it is given', () => {
  it.each(cases)('still keeps %s on the app origin after sign-in', async (_name, payload) => {
    const jar = createJar();
    const response = await credentialsSignIn(naive.url, jar, { callbackUrl: payloadFor(payload, naive.url) });
    expect(response.status).toBe(302);
    expectSameOrigin(response.headers.get('location'), naive.url);
  });

  it.each(cases)('still keeps %s on the app origin after sign-out', async (_name, payload) => {
    const jar = await signedInJar(naive.url);
    const response = await signOut(naive.url, jar, { callbackUrl: payloadFor(payload, naive.url) });
    expect(response.status).toBe(302);
    expectSameOrigin(response.headers.get('location'), naive.url);
  });

  it.each(cases)('keeps %s on the app origin in the X-Auth-Return-Redirect JSON answer', async (_name, payload) => {
    const jar = createJar();
    const token = await csrfToken(naive.url, jar);
    const response = await jar.fetch(`${naive.url}${MOUNT}/callback/credentials`, {
      method: 'POST',
      body: formBody({ csrfToken: token, username: 'ada', password: 'correct horse battery staple', callbackUrl: payloadFor(payload, naive.url) }).body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-auth-return-redirect': '1' },
    });
    expect(response.status).toBe(200);
    expectSameOrigin(((await response.json()) as { url: string }).url, naive.url);
  });
});

describe('a redirect callback that answers another origin', () => {
  it('sends the user to the app origin after sign-in instead', async () => {
    const response = await credentialsSignIn(hostile.url, createJar(), { callbackUrl: '/me' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${hostile.url}/`);
  });

  it('sends the user to the app origin after sign-out instead', async () => {
    const jar = await signedInJar(hostile.url);
    const response = await signOut(hostile.url, jar, { callbackUrl: '/me' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${hostile.url}/`);
  });

  it('sends the user to the app origin after an OAuth sign-in instead', async () => {
    const jar = createJar();
    const callbackUrl = await pendingCallbackViaStandIn(hostile.url, jar, 'standin');
    const response = await jar.fetch(callbackUrl);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${hostile.url}/`);
  });
});
