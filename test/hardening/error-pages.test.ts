// The `error` query parameter of the error and sign-in pages is attacker-controlled (any link can carry it).
// Whatever it says — an unknown type, markup, or the name of an Object.prototype member — the page renders with
// the default text, with its own status, and nothing internal leaks into it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MOUNT, passwordProvider, startScaffoldApp } from './support/scaffold-app.js';
import type { ScaffoldApp } from './support/scaffold-app.js';

let app: ScaffoldApp;

beforeAll(async () => {
  app = await startScaffoldApp({ providers: [passwordProvider()] });
});
afterAll(() => app?.close());

const prototypeKeys = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const unknownTypes = ['NoSuchError', '<script>alert(1)</script>', '', 'default', ...prototypeKeys];

describe('the error page', () => {
  it.each(unknownTypes)('renders the default error page for error=%j', async (type) => {
    app.log.clear();
    const response = await fetch(`${app.url}${MOUNT}/error?error=${encodeURIComponent(type)}`);
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('Something went wrong while signing in.');
    expect(page).toContain(`href="${MOUNT}/signin"`);
    expect(page).not.toContain('<script>alert(1)');
    expect(page).not.toContain('[native code]');
    expect(app.log.types(), 'no internal error behind the page').toEqual([]);
  });
});

describe('the sign-in page', () => {
  it.each(['NoSuchError', '<script>alert(1)</script>', ...prototypeKeys])('shows the default alert for error=%j', async (type) => {
    app.log.clear();
    const response = await fetch(`${app.url}${MOUNT}/signin?error=${encodeURIComponent(type)}`);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('Unable to sign in.');
    expect(page).not.toContain('[native code]');
    expect(page).not.toContain('[object Object]');
    expect(page).not.toContain('<script>alert(1)');
    expect(app.log.types()).toEqual([]);
  });
});
