// Credentials: a wrong user name and a wrong password take the same path through the runtime — authorize() runs
// for both, and the answers are identical (status, Location, cookies, body), so that the response tells an
// attacker nothing about which accounts exist. Timings are deliberately not asserted (they belong to authorize()
// and the machine, and would make the suite flaky); the path is.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { createJar } from '../support/cookie-jar.js';

import { credentialsSignIn, expectNoSession, passwordProvider, startScaffoldApp } from './support/scaffold-app.js';
import type { AuthorizeCall, ScaffoldApp } from './support/scaffold-app.js';

let app: ScaffoldApp;
const calls: AuthorizeCall[] = [];

beforeAll(async () => {
  app = await startScaffoldApp({ providers: [passwordProvider(calls)] });
});
afterAll(() => app?.close());
beforeEach(() => {
  calls.length = 0;
  app.log.clear();
});

/** What a client can observe of a failed sign-in, with per-request randomness (CSRF values) left out. */
async function observable(response: Response) {
  return {
    status: response.status,
    location: response.headers.get('location'),
    contentType: response.headers.get('content-type'),
    cacheControl: response.headers.get('cache-control'),
    cookies: response.headers.getSetCookie().map((cookie) => cookie.replace(/=[^;]*/, '=<value>')),
    body: await response.text(),
  };
}

describe('wrong user name and wrong password', () => {
  it('answer identically and both reach authorize()', async () => {
    const wrongUserJar = createJar();
    const wrongUser = await credentialsSignIn(app.url, wrongUserJar, { username: 'nobody', password: 'correct horse battery staple' });
    const wrongPasswordJar = createJar();
    const wrongPassword = await credentialsSignIn(app.url, wrongPasswordJar, { username: 'ada', password: 'incorrect horse' });

    expect(calls).toEqual([
      { username: 'nobody', password: 'correct horse battery staple' },
      { username: 'ada', password: 'incorrect horse' },
    ]);
    const [a, b] = [await observable(wrongUser), await observable(wrongPassword)];
    expect(a).toEqual(b);
    expect(a.status).toBe(302);
    expect(a.location).toBe(`${app.url}/auth/signin?error=CredentialsSignin&code=credentials`);
    expect(app.log.types()).toEqual(['CredentialsSignin', 'CredentialsSignin']);
    await expectNoSession(app.url, wrongUserJar, wrongUser);
    await expectNoSession(app.url, wrongPasswordJar, wrongPassword);
  });

  it('answer identically to a client asking for JSON (X-Auth-Return-Redirect)', async () => {
    const answers = [];
    for (const fields of [{ username: 'nobody' }, { password: 'incorrect horse' }]) {
      const jar = createJar();
      const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
      const response = await jar.fetch(`${app.url}/auth/callback/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-return-redirect': '1' },
        body: JSON.stringify({ csrfToken, username: 'ada', password: 'correct horse battery staple', ...fields }),
      });
      answers.push(await observable(response));
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]!.status).toBe(200);
    expect(JSON.parse(answers[0]!.body)).toEqual({ url: `${app.url}/auth/signin?error=CredentialsSignin&code=credentials` });
    expect(calls).toHaveLength(2);
  });

  it('an empty user name and an empty password also reach authorize() and answer the same', async () => {
    const emptyUser = await observable(await credentialsSignIn(app.url, createJar(), { username: '' }));
    const emptyPassword = await observable(await credentialsSignIn(app.url, createJar(), { password: '' }));
    expect(calls.map((call) => [call.username, call.password])).toEqual([
      ['', 'correct horse battery staple'],
      ['ada', ''],
    ]);
    expect(emptyUser).toEqual(emptyPassword);
  });

  it('the right password signs in (the control case), through the same single authorize() call', async () => {
    const jar = createJar();
    const response = await credentialsSignIn(app.url, jar);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${app.url}/`);
    expect(calls).toHaveLength(1);
  });
});
