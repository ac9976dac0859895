/**
 * The email-proof suite of issue #14, item 2 ("an email links identities only once proven"): pre-account takeover
 * through an unproven address, run end to end against the adapter a test file passes (memory and SQLite in
 * email-proof.test.ts, PostgreSQL in test/adapters). Passkeys with a software authenticator verified by the real
 * Passkey() ceremonies, magic links, the loopback OpenID provider (accounts whose email is verified or not), and a
 * Discord stand-in on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { customFetch } from '../../templates/runtime/index.js';
import type { Adapter, AdapterUser, FrameworkAuthConfig, User } from '../../templates/runtime/index.js';
import Discord, { type DiscordProfile } from '../../templates/runtime/providers/discord.js';
import Email from '../../templates/runtime/providers/email.js';
import OIDC from '../../templates/runtime/providers/oidc.js';
import Passkey from '../../templates/runtime/providers/passkey.js';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import type { RunningApp } from '../support/listen.js';
import { DEFAULT_ACCOUNTS, startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.js';
import { SoftwareAuthenticator, type AuthenticationOptionsJson, type RegistrationOptionsJson } from '../support/software-authenticator.js';

import { AppRegistry, csrfTokenOf, expectRedirect, sessionOf, signIn, type AuthApp } from './oauth-harness.js';
import { loopbackFetch, signInThroughStandIn, startStandIn } from './stand-in.js';

const VICTIM = 'victim@example.test';


/** A Discord user with the victim's address, verified by Discord or not. */
function discordUser(verified: boolean): Partial<DiscordProfile> {
  return { id: '80351110224678912', username: 'mallory', discriminator: '0', global_name: 'Mallory', avatar: null, email: VICTIM, verified };
}

interface ProofApp extends AuthApp {
  adapter: Adapter;
  /** The sign-in links "sent", newest last. */
  links: string[];
  /** The users of `updateUser` events. */
  updated: User[];
}

/** Registers the suite for one adapter; `createAdapter` gives each app its own, empty database. */
export function runEmailProofSuite(name: string, createAdapter: () => Promise<Adapter>): void {
  let op: RunningOidcProvider;
  let discord: RunningApp;
  /** What the Discord stand-in answers at /users/@me, set per test. */
  let discordProfile: Partial<DiscordProfile> = {};
  const apps = new AppRegistry();
  let clients = 0;

  describe(`email proof with ${name}`, () => {
    beforeAll(async () => {
      op = await startOidcProvider({
        accounts: {
          ...DEFAULT_ACCOUNTS,
          // Someone who typed the victim's address at a provider that never checked it.
          mallory: { sub: 'mallory-sub', name: 'Mallory', email: VICTIM, email_verified: false },
          // The victim, at a provider that verified the address.
          victim: { sub: 'victim-sub', name: 'Victim', email: VICTIM, email_verified: true },
        },
      });
      discord = await startStandIn((app) => {
        app.get('/oauth2/authorize', (req, res) => {
          const query = req.query as Record<string, string>;
          const back = new URL(query.redirect_uri!);
          back.searchParams.set('code', randomBytes(8).toString('hex'));
          back.searchParams.set('state', query.state!);
          res.redirect(302, back.href);
        });
        app.post('/oauth2/token', (_req, res) => {
          res.json({ access_token: randomBytes(12).toString('hex'), token_type: 'Bearer', expires_in: 604800, scope: 'identify email' });
        });
        app.get('/users/@me', (_req, res) => {
          res.json(discordProfile);
        });
      });
    });
    afterAll(async () => {
      await apps.closeAll();
      await op?.close();
      await discord?.close();
      });

    /** An app with OIDC (the loopback provider), Discord (the stand-in), magic links and passkeys. */
    async function startApp({ linking = false, callbacks }: { linking?: boolean; callbacks?: FrameworkAuthConfig['callbacks'] } = {}): Promise<ProofApp> {
      const adapter = await createAdapter();
      const links: string[] = [];
      const updated: User[] = [];
      const clientId = `proof-${++clients}`;
      const app = await apps.start({
        adapter,
        // Emailed links need a configured origin: the test app is reached at 127.0.0.1.
        trustHost: ['127.0.0.1'],
        providers: [
          OIDC({ issuer: op.issuer, clientId, clientSecret: `${clientId}-secret`, allowDangerousEmailAccountLinking: linking }),
          Discord({
            clientId: 'discord-client',
            clientSecret: 'discord-secret',
            authorization: { url: `${discord.url}/oauth2/authorize` },
            token: `${discord.url}/oauth2/token`,
            userinfo: `${discord.url}/users/@me`,
            allowDangerousEmailAccountLinking: linking,
            [customFetch]: loopbackFetch().fetch,
          }),
          Email({ sendVerificationRequest: ({ url }) => void links.push(url) }),
          Passkey(),
        ],
        events: { updateUser: ({ user }) => void updated.push(user) },
        ...(callbacks && { callbacks }),
      });
      await op.setClient({ client_id: clientId, redirect_uris: [app.redirectUri('oidc')] });
      return Object.assign(app, { adapter, links, updated });
    }

    /** Requests a magic link for `email` and opens it in `jar`; returns the answer to the link. */
    async function signInByMagicLink(app: ProofApp, jar: CookieJar, email: string): Promise<Response> {
      const csrfToken = await csrfTokenOf(app, jar);
      const requested = await app.fetch(jar, `${app.mount}/signin/email`, { method: 'POST', ...formBody({ csrfToken, email }) });
      expectRedirect(requested, { pathname: '/auth/verify-request' });
      return app.fetch(jar, app.links.at(-1)!);
    }

    async function webAuthnOptions<T>(app: ProofApp, jar: CookieJar, query: string): Promise<{ status: number; body: { action: string; options: T } }> {
      const response = await app.fetch(jar, `${app.mount}/webauthn-options/passkey?${query}`);
      return { status: response.status, body: (await response.json()) as { action: string; options: T } };
    }

    async function postPasskey(app: ProofApp, jar: CookieJar, action: string, data: Record<string, unknown>): Promise<Response> {
      const csrfToken = await csrfTokenOf(app, jar);
      return app.fetch(jar, `${app.mount}/callback/passkey`, { method: 'POST', ...formBody({ csrfToken, action, data: JSON.stringify(data), callbackUrl: '/me' }) });
    }

    /** Passkey sign-up with nobody signed in, typing `email`, as the sign-in page's "Create a passkey" does. */
    async function registerPasskey(app: ProofApp, jar: CookieJar, authenticator: SoftwareAuthenticator, email: string): Promise<Response> {
      const { status, body } = await webAuthnOptions<RegistrationOptionsJson>(app, jar, `action=register&email=${encodeURIComponent(email)}`);
      expect(status).toBe(200);
      return postPasskey(app, jar, 'register', authenticator.register(body.options, app.url));
    }

    async function signInWithPasskey(app: ProofApp, jar: CookieJar, authenticator: SoftwareAuthenticator): Promise<Response> {
      const { status, body } = await webAuthnOptions<AuthenticationOptionsJson>(app, jar, 'action=authenticate');
      expect(status).toBe(200);
      return postPasskey(app, jar, 'authenticate', authenticator.authenticate(body.options, app.url));
    }

    async function signedInUser(app: ProofApp, jar: CookieJar): Promise<AdapterUser> {
      const id = (await sessionOf(app, jar))?.user?.id;
      expect(id, 'a session').toBeTruthy();
      return (await app.adapter.getUser!(id!))!;
    }

    async function signInWithOidc(app: ProofApp, jar: CookieJar, login: string): Promise<Response> {
      return (await signIn(app, jar, { login: { login } })).callbackResponse;
    }

    async function signInWithDiscord(app: ProofApp, jar: CookieJar, profile: Partial<DiscordProfile>): Promise<Response> {
      discordProfile = profile;
      return (await signInThroughStandIn(app, jar, 'discord')).callbackResponse;
    }

    describe('passkey sign-up', () => {
      it("the issue's attack: a passkey registered for the victim's address does not open the account the victim's magic link opens", async () => {
        const app = await startApp();
        const attackerKey = new SoftwareAuthenticator();
        const attackerJar = createJar();
        expectRedirect(await registerPasskey(app, attackerJar, attackerKey, VICTIM), { pathname: '/me' });
        const attacker = await signedInUser(app, attackerJar);

        const victimJar = createJar();
        expectRedirect(await signInByMagicLink(app, victimJar, VICTIM), { pathname: '/' });
        const victim = await signedInUser(app, victimJar);
        expect(victim.id).not.toBe(attacker.id);
        expect(victim).toMatchObject({ email: VICTIM, emailVerified: expect.any(Date) });
        expect(await app.adapter.getUserByEmail!(VICTIM)).toMatchObject({ id: victim.id });

        const laterJar = createJar();
        expectRedirect(await signInWithPasskey(app, laterJar, attackerKey), { pathname: '/me' });
        const signedIn = await signedInUser(app, laterJar);
        expect(signedIn.id).toBe(attacker.id);
        expect(signedIn.email ?? null).toBeNull();
      });

      it('stores the typed address as the new user\'s name only: no email, nothing verified', async () => {
        const app = await startApp();
        const jar = createJar();
        expectRedirect(await registerPasskey(app, jar, new SoftwareAuthenticator(), 'Ada@Example.test'), { pathname: '/me' });
        const user = await signedInUser(app, jar);
        expect(user).toMatchObject({ name: 'ada@example.test', emailVerified: null });
        expect(user.email ?? null).toBeNull();
        expect(await app.adapter.getUserByEmail!('ada@example.test')).toBeNull();
      });

      it('creates a passkey user for an address that already has a user, who stays untouched', async () => {
        const app = await startApp();
        const ownerJar = createJar();
        await signInByMagicLink(app, ownerJar, VICTIM);
        const owner = await signedInUser(app, ownerJar);
        const jar = createJar();
        expectRedirect(await registerPasskey(app, jar, new SoftwareAuthenticator(), VICTIM), { pathname: '/me' });
        expect((await signedInUser(app, jar)).id).not.toBe(owner.id);
        expect(await app.adapter.getUserByEmail!(VICTIM)).toMatchObject({ id: owner.id, emailVerified: expect.any(Date) });
        expect(await app.adapter.listAuthenticatorsByUserId!(owner.id)).toEqual([]);
      });

      it('answers registration options for a known and an unknown address alike (no account enumeration)', async () => {
        const app = await startApp();
        await signInByMagicLink(app, createJar(), 'known@example.test');
        const known = await webAuthnOptions<Record<string, unknown>>(app, createJar(), 'action=register&email=known%40example.test');
        const unknown = await webAuthnOptions<Record<string, unknown>>(app, createJar(), 'action=register&email=unknown%40example.test');
        expect(known.status).toBe(200);
        expect(unknown.status).toBe(known.status);
        expect(unknown.body.action).toBe(known.body.action);
        expect(Object.keys(unknown.body.options).sort()).toEqual(Object.keys(known.body.options).sort());
        const shape = ({ challenge: _challenge, user: _user, ...rest }: Record<string, unknown>) => rest;
        expect(shape(unknown.body.options)).toEqual(shape(known.body.options));
        expect(known.body.options['user']).toMatchObject({ name: 'known@example.test' });
        expect(unknown.body.options['user']).toMatchObject({ name: 'unknown@example.test' });
      });

      it('infers registration without action when an address is given, known or not, without asking the database', async () => {
        const app = await startApp();
        await signInByMagicLink(app, createJar(), 'known@example.test');
        const lookups: string[] = [];
        const getUserByEmail = app.adapter.getUserByEmail!.bind(app.adapter);
        app.adapter.getUserByEmail = (email) => {
          lookups.push(email);
          return getUserByEmail(email);
        };
        expect((await webAuthnOptions(app, createJar(), 'email=known%40example.test')).body.action).toBe('register');
        expect((await webAuthnOptions(app, createJar(), 'email=unknown%40example.test')).body.action).toBe('register');
        expect((await webAuthnOptions(app, createJar(), '')).body.action).toBe('authenticate');
        expect(lookups).toEqual([]);
      });

      it('infers registration without action for a signed-in user, and adds the passkey to them', async () => {
        const app = await startApp();
        const jar = createJar();
        await signInByMagicLink(app, jar, 'ada@example.test');
        const user = await signedInUser(app, jar);
        const { body } = await webAuthnOptions<RegistrationOptionsJson>(app, jar, '');
        expect(body.action).toBe('register');
        const key = new SoftwareAuthenticator();
        expectRedirect(await postPasskey(app, jar, 'register', key.register(body.options, app.url)), { pathname: '/me' });
        expect(await app.adapter.listAuthenticatorsByUserId!(user.id)).toHaveLength(1);
        const laterJar = createJar();
        await signInWithPasskey(app, laterJar, key);
        expect(await signedInUser(app, laterJar)).toMatchObject({ id: user.id, email: 'ada@example.test' });
      });
    });

    describe('OAuth profiles whose provider does not vouch for the email', () => {
      it('an unverified OIDC email (email_verified false) does not join a proven user, even with allowDangerousEmailAccountLinking', async () => {
        const app = await startApp({ linking: true });
        await signInByMagicLink(app, createJar(), VICTIM);
        const jar = createJar();
        expectRedirect(await signInWithOidc(app, jar, 'mallory'), { pathname: '/auth/signin', error: 'OAuthAccountNotLinked' });
        expect(await app.adapter.getUserByAccount!({ provider: 'oidc', providerAccountId: 'mallory-sub' })).toBeNull();
        expect(await sessionOf(app, jar)).toBeNull();
      });

      it('an unverified Discord email (verified false) does not join a proven user, even with allowDangerousEmailAccountLinking', async () => {
        const app = await startApp({ linking: true });
        await signInByMagicLink(app, createJar(), VICTIM);
        const jar = createJar();
        expectRedirect(await signInWithDiscord(app, jar, discordUser(false)), { pathname: '/auth/signin', error: 'OAuthAccountNotLinked' });
        expect(await app.adapter.getUserByAccount!({ provider: 'discord', providerAccountId: '80351110224678912' })).toBeNull();
      });

      it('an unverified email does not take the address from an unproven holder either', async () => {
        const app = await startApp({ linking: true });
        await signInWithDiscord(app, createJar(), discordUser(false));
        const holder = await app.adapter.getUserByEmail!(VICTIM);
        expectRedirect(await signInWithOidc(app, createJar(), 'mallory'), { pathname: '/auth/signin', error: 'OAuthAccountNotLinked' });
        expect(await app.adapter.getUserByEmail!(VICTIM)).toEqual(holder);
      });

      it('an unverified email nobody holds is stored on the new user, unproven', async () => {
        const app = await startApp();
        const jar = createJar();
        expectRedirect(await signInWithOidc(app, jar, 'mallory'), { pathname: '/me' });
        expect(await signedInUser(app, jar)).toMatchObject({ email: VICTIM, emailVerified: null, name: 'Mallory' });
      });

      it('a later magic link claims the address from the user an unverified OIDC email created', async () => {
        const app = await startApp();
        const malloryJar = createJar();
        await signInWithOidc(app, malloryJar, 'mallory');
        const mallory = await signedInUser(app, malloryJar);

        const victimJar = createJar();
        expectRedirect(await signInByMagicLink(app, victimJar, VICTIM), { pathname: '/' });
        const victim = await signedInUser(app, victimJar);
        expect(victim.id).not.toBe(mallory.id);
        expect(victim).toMatchObject({ email: VICTIM, emailVerified: expect.any(Date) });
        expect((await app.adapter.getUser!(mallory.id))?.email ?? null).toBeNull();
        expect(app.updated).toEqual([expect.objectContaining({ id: mallory.id, email: null })]);

        const againJar = createJar();
        expectRedirect(await signInWithOidc(app, againJar, 'mallory'), { pathname: '/me' });
        expect((await signedInUser(app, againJar)).id).toBe(mallory.id);
      });

      it('a later magic link claims the address from the user an unverified Discord email created', async () => {
        const app = await startApp();
        await signInWithDiscord(app, createJar(), discordUser(false));
        const squatter = (await app.adapter.getUserByEmail!(VICTIM))!;
        expect(squatter.emailVerified).toBeNull();
        const victimJar = createJar();
        await signInByMagicLink(app, victimJar, VICTIM);
        expect((await signedInUser(app, victimJar)).id).not.toBe(squatter.id);
        expect((await app.adapter.getUser!(squatter.id))?.email ?? null).toBeNull();
      });

      it('the signIn callback of the magic link is shown the new user, not the unproven holder', async () => {
        const shown: string[] = [];
        const app = await startApp({
          callbacks: {
            signIn: ({ user, account }) => {
              if (account?.type === 'email') shown.push(String(user.id));
              return true;
            },
          },
        });
        await signInWithOidc(app, createJar(), 'mallory');
        const squatter = (await app.adapter.getUserByEmail!(VICTIM))!;
        shown.length = 0;
        await signInByMagicLink(app, createJar(), VICTIM);
        // Called for the link request, then for the link: there it is shown a new user (id not yet stored).
        expect(shown).toHaveLength(2);
        expect(shown.at(-1)).not.toBe(squatter.id);
      });
    });

    describe('OAuth profiles whose provider vouches for the email', () => {
      it('a verified OIDC email gives the new user emailVerified', async () => {
        const app = await startApp();
        const jar = createJar();
        const before = Date.now();
        await signInWithOidc(app, jar, 'victim');
        const user = await signedInUser(app, jar);
        expect(user).toMatchObject({ email: VICTIM, emailVerified: expect.any(Date) });
        expect(user.emailVerified!.valueOf()).toBeGreaterThanOrEqual(before - 1000);
      });

      it('a verified OIDC email with allowDangerousEmailAccountLinking joins a proven holder', async () => {
        const app = await startApp({ linking: true });
        const ownerJar = createJar();
        await signInByMagicLink(app, ownerJar, VICTIM);
        const owner = await signedInUser(app, ownerJar);
        const jar = createJar();
        expectRedirect(await signInWithOidc(app, jar, 'victim'), { pathname: '/me' });
        expect((await signedInUser(app, jar)).id).toBe(owner.id);
        expect(await app.adapter.getUserByAccount!({ provider: 'oidc', providerAccountId: 'victim-sub' })).toMatchObject({ id: owner.id });
      });

      it('a verified OIDC email without allowDangerousEmailAccountLinking does not join a proven holder', async () => {
        const app = await startApp();
        await signInByMagicLink(app, createJar(), VICTIM);
        expectRedirect(await signInWithOidc(app, createJar(), 'victim'), { pathname: '/auth/signin', error: 'OAuthAccountNotLinked' });
      });

      it('a verified OIDC email claims the address from an unproven holder, with or without linking', async () => {
        const app = await startApp();
        await signInWithDiscord(app, createJar(), discordUser(false));
        const squatter = (await app.adapter.getUserByEmail!(VICTIM))!;
        const jar = createJar();
        expectRedirect(await signInWithOidc(app, jar, 'victim'), { pathname: '/me' });
        const victim = await signedInUser(app, jar);
        expect(victim.id).not.toBe(squatter.id);
        expect(victim).toMatchObject({ email: VICTIM, emailVerified: expect.any(Date) });
        expect((await app.adapter.getUser!(squatter.id))?.email ?? null).toBeNull();
      });

      it('a verified Discord email with allowDangerousEmailAccountLinking joins a proven holder', async () => {
        const app = await startApp({ linking: true });
        const ownerJar = createJar();
        await signInByMagicLink(app, ownerJar, VICTIM);
        const owner = await signedInUser(app, ownerJar);
        const jar = createJar();
        expectRedirect(await signInWithDiscord(app, jar, discordUser(true)), { pathname: '/me' });
        expect((await signedInUser(app, jar)).id).toBe(owner.id);
      });

      it('a returning OIDC user becomes proven once the provider vouches for the stored address', async () => {
        const app = await startApp();
        const login = `carol-${clients}`;
        op.setAccount(login, { sub: `${login}-sub`, name: 'Carol', email: `${login}@example.test`, email_verified: false });
        const first = createJar();
        await signInWithOidc(app, first, login);
        const carol = await signedInUser(app, first);
        expect(carol.emailVerified).toBeNull();

        op.setAccount(login, { sub: `${login}-sub`, name: 'Carol', email: `${login}@example.test`, email_verified: true });
        const second = createJar();
        await signInWithOidc(app, second, login);
        expect(await signedInUser(app, second)).toMatchObject({ id: carol.id, emailVerified: expect.any(Date) });
        expect(app.updated).toEqual([expect.objectContaining({ id: carol.id })]);
      });
    });
  });
}
