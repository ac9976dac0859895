// Credentials sign-in with database sessions (issue 25, item 6): Auth.js refuses the combination, so a scaffold with
// `credentials` and an adapter used to write an app that would not start. The database feature keeps the user that
// authorize() returned by its account (`credentials`, the returned id) and opens a session row; its address is
// unproven, so it never joins another user.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningApp } from '../support/listen.js';
import { MemoryAdapter } from '../../templates/runtime/adapters/memory.js';
import type { Adapter } from '../../templates/runtime/index.js';
import Credentials from '../../templates/runtime/providers/credentials.js';
import { SECRET, credentialsConfig, recordingLogger, signIn, startApp } from './helpers.js';

describe('credentials sign-in with database sessions', () => {
  let adapter: Adapter;
  let app: RunningApp;
  beforeAll(async () => {
    adapter = MemoryAdapter();
    app = await startApp(credentialsConfig({ adapter, trustHost: true }));
  });
  afterAll(() => app.close());

  it('opens a session row for the user authorize() returned, and finds that user again on the next sign-in', async () => {
    const first = await signIn(app.url);
    expect(first.response.status).toBe(302);
    const token = first.jar.get('authjs.session-token');
    expect(token).toBeDefined();
    const found = await adapter.getSessionAndUser!(token!);
    expect(found?.user).toMatchObject({ name: 'ada', email: 'ada@example.test', emailVerified: null });
    expect(await (await first.jar.fetch(`${app.url}/whoami`)).json()).toMatchObject({ user: { id: found!.user.id, name: 'ada' } });

    const second = await signIn(app.url);
    const again = await adapter.getSessionAndUser!(second.jar.get('authjs.session-token')!);
    expect(again?.user.id).toBe(found!.user.id);
    expect(again?.session.sessionToken).not.toBe(token);
    expect(await adapter.getUserByAccount!({ provider: 'credentials', providerAccountId: 'id-ada' })).toMatchObject({ id: found!.user.id });
  });

  it('switches a browser signed in as one user to the next credentials user, linking nothing to the first', async () => {
    const { jar } = await signIn(app.url, '/auth', { username: 'linus' });
    const linus = await adapter.getSessionAndUser!(jar.get('authjs.session-token')!);
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    const switched = await jar.fetch(`${app.url}/auth/callback/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken, username: 'margaret', password: 'correct horse' }),
    });
    expect(switched.status).toBe(302);
    const margaret = await adapter.getSessionAndUser!(jar.get('authjs.session-token')!);
    expect(margaret?.user).toMatchObject({ name: 'margaret' });
    expect(margaret?.user.id).not.toBe(linus!.user.id);
    expect(await adapter.getUserByAccount!({ provider: 'credentials', providerAccountId: 'id-margaret' })).toMatchObject({ id: margaret!.user.id });
  });

  it('ends the session row at sign-out', async () => {
    const { jar } = await signIn(app.url, '/auth', { username: 'grace' });
    const token = jar.get('authjs.session-token')!;
    const { csrfToken } = (await (await jar.fetch(`${app.url}/auth/csrf`)).json()) as { csrfToken: string };
    await jar.fetch(`${app.url}/auth/signout`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrfToken }) });
    expect(await adapter.getSessionAndUser!(token)).toBeNull();
  });

  it('refuses a user without an id (the session row keeps the user by it), and writes nothing', async () => {
    const logger = recordingLogger();
    const noId = Credentials({ credentials: { username: {}, password: { type: 'password' } }, authorize: async () => ({ name: 'nobody' }) });
    const memory = MemoryAdapter();
    const createUser = vi.fn(memory.createUser!);
    const store: Adapter = { ...memory, createUser };
    const idless = await startApp({ secret: SECRET, trustHost: true, adapter: store, providers: [noId], logger: logger.logger });
    try {
      const { jar, response } = await signIn(idless.url);
      expect(response.headers.get('location')).toContain('/auth/error?error=Configuration');
      expect(jar.get('authjs.session-token')).toBeUndefined();
      expect(logger.errors.map((error) => error.message).join('\n')).toContain('returned a user without an id');
      expect(createUser).not.toHaveBeenCalled();
    } finally {
      await idless.close();
    }
  });

  it('never joins a user who holds the same address: an address authorize() returns is unproven', async () => {
    const store = MemoryAdapter();
    await store.createUser!({ id: 'oauth-user', email: 'ada@example.test', emailVerified: new Date() });
    const guarded = await startApp(credentialsConfig({ adapter: store, trustHost: true }));
    try {
      const { jar, response } = await signIn(guarded.url);
      expect(response.headers.get('location')).toContain('error=OAuthAccountNotLinked');
      expect(jar.get('authjs.session-token')).toBeUndefined();
      expect(await store.getUserByAccount!({ provider: 'credentials', providerAccountId: 'id-ada' })).toBeNull();
    } finally {
      await guarded.close();
    }
  });
});
