/**
 * One test suite for every adapter: ours (memory, sqlite, postgres) and a published Auth.js adapter, so that the
 * runtime can rely on the same behaviour from each and any `@auth/*-adapter` plugs in.
 *
 * The suite never invents ids: it passes a fresh random `id` to createUser (as Auth.js does) and then uses the id
 * the adapter returned, because published adapters may generate their own (@auth/pg-adapter's are SERIAL
 * integers). An "unknown" user id is the id of a user that was created and deleted, so it has the adapter's own
 * format. Returned objects are compared with `toMatchObject`: an adapter may add its own columns (a row id).
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Adapter, AdapterAccount, AdapterUser, VerificationToken } from '../../templates/runtime/features/database/adapter.js';
import type { AdapterAuthenticator } from '../../templates/runtime/features/passkey/storage.js';
import type { ApiKeyInUse, StoredApiKey } from '../../templates/runtime/features/api-keys/storage.js';
import type { SecurityEvent } from '../../templates/runtime/features/security-events/index.js';
import type { EmailChange } from '../../templates/runtime/features/account/storage.js';
import type { OrganizationRecord, StoredInvitation } from '../../templates/runtime/features/organizations/storage.js';
import type { AdminActionRecord } from '../../templates/runtime/features/admin/storage.js';

/** Every method of the interface, in its order. */
export const adapterMethods = [
  'createUser',
  'getUser',
  'getUserByEmail',
  'getUserByAccount',
  'updateUser',
  'deleteUser',
  'linkAccount',
  'unlinkAccount',
  'createSession',
  'getSessionAndUser',
  'updateSession',
  'deleteSession',
  'createVerificationToken',
  'useVerificationToken',
  'deleteVerificationTokens',
  'getAccount',
  'getAuthenticator',
  'createAuthenticator',
  'listAuthenticatorsByUserId',
  'updateAuthenticatorCounter',
  'deleteAuthenticator',
  'createUserWithAccount',
  'hitRateLimit',
  'resetRateLimit',
  'listAccountsByUserId',
  'getSessionAndUserForRead',
  'updateAccountTokens',
  'listSessionsByUserId',
  'getPasswordHash',
  'setPasswordHash',
  'getTwoFactor',
  'setTwoFactor',
  'deleteTwoFactor',
  'acceptTwoFactorStep',
  'setRecoveryCodes',
  'useRecoveryCode',
  'createApiKey',
  'listApiKeys',
  'getApiKeyAndUser',
  'deleteApiKey',
  'touchApiKey',
  'createSecurityEvent',
  'listSecurityEvents',
  'deleteSecurityEventsBefore',
  'setEmailChange',
  'findEmailChange',
  'useEmailChange',
  'deleteEmailChangesTo',
  'createOrganization',
  'getOrganization',
  'updateOrganization',
  'deleteOrganization',
  'listMemberships',
  'findMemberships',
  'setActiveOrganization',
  'listMembers',
  'changeMemberRole',
  'removeMember',
  'transferOwnership',
  'createInvitation',
  'listInvitations',
  'listInvitationsByEmail',
  'getInvitation',
  'deleteInvitation',
  'deleteInvitationsTo',
  'acceptInvitation',
  'createOrganizationEvent',
  'listOrganizationEvents',
  'listSoleOwnerships',
  'countMembersByRole',
  'searchUsers',
  'getAdminState',
  'markUserCreated',
  'disableUser',
  'enableUser',
  'grantAdmin',
  'revokeAdmin',
  'countAdmins',
  'createAdminAction',
  'listAdminActions',
  'createImpersonationSession',
  'getImpersonation',
] as const satisfies readonly (keyof Adapter)[];

/** A method name of the adapter interface. */
export type AdapterMethod = (typeof adapterMethods)[number];

// Fails to compile when the interface gains a method that the list above (and so the suite) does not cover.
const everyMethodListed: [Exclude<keyof Adapter, AdapterMethod | symbol>] extends [never] ? true : never = true;
void everyMethodListed;

/** An adapter on a fresh, empty store, and how to dispose of it. */
export interface AdapterUnderTest {
  adapter: Adapter;
  cleanup(): Promise<void>;
}

/** What a published adapter documents as different from ours; our adapters use the defaults. */
export interface AdapterSuiteOptions {
  /**
   * Methods the adapter does not implement. Every method of the interface is optional (the runtime checks for
   * the ones a feature needs), so the tests that need them are skipped, and one test checks that exactly these
   * are missing.
   * @default []
   */
  missingMethods?: readonly AdapterMethod[];
  /**
   * Whether the store refuses duplicates: a second user with one email, a second link of one provider account, a
   * second authenticator with one credential ID. Auth.js looks these up before writing, so an adapter whose
   * documented schema has no such constraints still works; ours must have them.
   * @default true
   */
  uniqueConstraints?: boolean;
}

/**
 * Defines the shared adapter tests. `createAdapter` runs before each test and must give an adapter on an empty
 * store; `cleanup` runs after it.
 */
export function runAdapterSuite(
  name: string,
  createAdapter: () => Promise<AdapterUnderTest>,
  options: AdapterSuiteOptions = {},
): void {
  const missing = new Set<AdapterMethod>(options.missingMethods ?? []);
  const uniqueConstraints = options.uniqueConstraints ?? true;

  /** A test that needs these methods: skipped, and so counted as skipped, when the adapter lacks one. */
  function test(title: string, methods: readonly AdapterMethod[], body: () => Promise<void>): void {
    if (methods.some((method) => missing.has(method))) it.skip(title, body);
    else it(title, body);
  }

  /** A test of a unique constraint: skipped when the adapter's schema documents none. */
  function uniqueTest(title: string, methods: readonly AdapterMethod[], body: () => Promise<void>): void {
    if (uniqueConstraints) test(title, methods, body);
    else it.skip(title, body);
  }

  describe(`${name} adapter`, () => {
    let subject: AdapterUnderTest;
    // The tests that use a method only run when it exists (see test() above).
    let adapter: Required<Adapter>;

    beforeEach(async () => {
      subject = await createAdapter();
      adapter = subject.adapter as Required<Adapter>;
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    function userData(overrides: Partial<AdapterUser> = {}): AdapterUser {
      const unique = randomUUID();
      return {
        id: randomUUID(),
        name: 'Ada Lovelace',
        email: `ada-${unique}@example.com`,
        emailVerified: null,
        image: `https://images.example.com/${unique}.png`,
        ...overrides,
      };
    }

    function accountData(userId: string, overrides: Partial<AdapterAccount> = {}): AdapterAccount {
      const unique = randomUUID();
      return {
        userId,
        type: 'oidc',
        provider: 'example',
        providerAccountId: `subject-${unique}`,
        access_token: `access-${unique}`,
        refresh_token: `refresh-${unique}`,
        id_token: `eyJhbGciOiJSUzI1NiJ9.${unique}.signature`,
        expires_at: 1_893_456_000,
        scope: 'openid email profile',
        token_type: 'bearer',
        session_state: `session-state-${unique}`,
        oauth_token: `oauth-token-${unique}`,
        oauth_token_secret: `oauth-token-secret-${unique}`,
        ...overrides,
      };
    }

    function authenticatorData(userId: string, overrides: Partial<AdapterAuthenticator> = {}): AdapterAuthenticator {
      const unique = randomUUID();
      return {
        credentialID: `credential-${unique}`,
        userId,
        providerAccountId: `credential-${unique}`,
        credentialPublicKey: `public-key-${unique}`,
        counter: 0,
        credentialDeviceType: 'multiDevice',
        credentialBackedUp: true,
        transports: 'internal,hybrid',
        ...overrides,
      };
    }

    async function createUser(overrides: Partial<AdapterUser> = {}): Promise<AdapterUser> {
      return adapter.createUser(userData(overrides));
    }

    /** An id in the adapter's own format that belongs to no user. */
    async function unknownUserId(): Promise<string> {
      const user = await createUser();
      await adapter.deleteUser(user.id);
      return user.id;
    }

    /** Runs an adapter call as a promise: synchronous adapters (memory, sqlite) throw instead of rejecting. */
    async function settle<T>(call: () => T | PromiseLike<T>): Promise<T> {
      return call();
    }

    function inOneHour(): Date {
      return new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000);
    }

    describe('interface', () => {
      it(`implements every method of the Adapter interface${missing.size ? ` except ${[...missing].join(', ')}` : ''}`, async () => {
        const absent = adapterMethods.filter((method) => typeof subject.adapter[method] !== 'function');
        expect(absent).toEqual(adapterMethods.filter((method) => missing.has(method)));
      });
    });

    describe('users', () => {
      test('creates a user and returns it with an id', ['createUser'], async () => {
        const data = userData();
        const user = await adapter.createUser(data);
        expect(user.id).toBeTruthy();
        expect(user).toMatchObject({ name: data.name, email: data.email, emailVerified: null, image: data.image });
      });

      test('keeps emailVerified as a Date', ['createUser', 'getUser'], async () => {
        const emailVerified = new Date('2024-05-06T07:08:09.123Z');
        const user = await createUser({ emailVerified });
        const found = await adapter.getUser(user.id);
        expect(found?.emailVerified).toBeInstanceOf(Date);
        expect(found?.emailVerified?.toISOString()).toBe('2024-05-06T07:08:09.123Z');
      });

      test('finds a user by id', ['createUser', 'getUser'], async () => {
        const user = await createUser();
        expect(await adapter.getUser(user.id)).toMatchObject(user);
      });

      test('finds a user by email', ['createUser', 'getUserByEmail'], async () => {
        const user = await createUser();
        expect(await adapter.getUserByEmail(user.email)).toMatchObject(user);
      });

      test('finds a user by a linked account', ['createUser', 'linkAccount', 'getUserByAccount'], async () => {
        const user = await createUser();
        const account = accountData(user.id);
        await adapter.linkAccount(account);
        expect(await adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId })).toMatchObject(user);
      });

      test('returns null for an unknown user id', ['createUser', 'deleteUser', 'getUser'], async () => {
        expect(await adapter.getUser(await unknownUserId())).toBeNull();
      });

      test('returns null for an unknown email', ['getUserByEmail'], async () => {
        expect(await adapter.getUserByEmail(`nobody-${randomUUID()}@example.com`)).toBeNull();
      });

      test('returns null for an account that is linked to no user', ['getUserByAccount'], async () => {
        expect(await adapter.getUserByAccount({ provider: 'example', providerAccountId: `nobody-${randomUUID()}` })).toBeNull();
      });

      test('stores users without an email (a provider that shares none)', ['createUser', 'getUser'], async () => {
        // The runtime creates users with `email: null` for providers such as the microblog network over OAuth 2.
        const first = await createUser({ email: null as unknown as string });
        const second = await createUser({ email: null as unknown as string });
        expect(first.id).not.toEqual(second.id);
        expect((await adapter.getUser(second.id))?.email ?? null).toBeNull();
      });

      test('updates only the fields it is given', ['createUser', 'updateUser', 'getUser'], async () => {
        const user = await createUser();
        const updated = await adapter.updateUser({ id: user.id, name: 'Augusta Ada King' });
        expect(updated).toMatchObject({ ...user, name: 'Augusta Ada King' });
        expect(await adapter.getUser(user.id)).toMatchObject({ ...user, name: 'Augusta Ada King' });
      });

      test('updates emailVerified', ['createUser', 'updateUser', 'getUser'], async () => {
        const user = await createUser();
        const emailVerified = new Date('2025-01-02T03:04:05.678Z');
        await adapter.updateUser({ id: user.id, emailVerified });
        expect((await adapter.getUser(user.id))?.emailVerified?.toISOString()).toBe('2025-01-02T03:04:05.678Z');
      });

      test('does not change a user through a returned object', ['createUser', 'getUser'], async () => {
        const user = await createUser();
        const copy = await adapter.getUser(user.id);
        if (copy) copy.name = 'Changed in memory only';
        expect((await adapter.getUser(user.id))?.name).toBe(user.name);
      });

      uniqueTest('refuses a second user with the same email', ['createUser', 'getUserByEmail'], async () => {
        const user = await createUser();
        await expect(settle(() => adapter.createUser(userData({ email: user.email })))).rejects.toThrow();
        expect(await adapter.getUserByEmail(user.email)).toMatchObject(user);
      });

      uniqueTest('refuses to give a user the email of another user', ['createUser', 'updateUser'], async () => {
        const first = await createUser();
        const second = await createUser();
        await expect(settle(() => adapter.updateUser({ id: second.id, email: first.email }))).rejects.toThrow();
      });

      test('deletes a user', ['createUser', 'deleteUser', 'getUser', 'getUserByEmail'], async () => {
        const user = await createUser();
        await adapter.deleteUser(user.id);
        expect(await adapter.getUser(user.id)).toBeNull();
        expect(await adapter.getUserByEmail(user.email)).toBeNull();
      });

      test(
        "deleting a user deletes its accounts, sessions and authenticators",
        ['createUser', 'linkAccount', 'createSession', 'deleteUser', 'getUserByAccount', 'getSessionAndUser'],
        async () => {
          const user = await createUser();
          const account = accountData(user.id);
          await adapter.linkAccount(account);
          const sessionToken = randomUUID();
          await adapter.createSession({ sessionToken, userId: user.id, expires: inOneHour() });
          const authenticator = missing.has('createAuthenticator') ? undefined : authenticatorData(user.id);
          if (authenticator) await adapter.createAuthenticator(authenticator);

          await adapter.deleteUser(user.id);

          const key = { provider: account.provider, providerAccountId: account.providerAccountId };
          expect(await adapter.getUserByAccount(key)).toBeNull();
          expect(await adapter.getSessionAndUser(sessionToken)).toBeNull();
          if (!missing.has('getAccount')) expect(await adapter.getAccount(account.providerAccountId, account.provider)).toBeNull();
          if (authenticator) {
            expect(await adapter.getAuthenticator(authenticator.credentialID)).toBeNull();
            expect(await adapter.listAuthenticatorsByUserId(user.id)).toEqual([]);
          }
        },
      );

      test('deleting an unknown user does not throw', ['createUser', 'deleteUser', 'getUser'], async () => {
        const id = await unknownUserId();
        await adapter.deleteUser(id);
        expect(await adapter.getUser(id)).toBeNull();
      });
    });

    describe('users created with their first account (one transaction)', () => {
      test('creates the user and links the account together', ['createUserWithAccount', 'getUserByAccount', 'getAccount'], async () => {
        const data = userData();
        const { userId: _unused, ...account } = accountData('');
        const user = await adapter.createUserWithAccount(data, account);
        expect(user).toMatchObject({ id: data.id, email: data.email });
        expect(await adapter.getUserByAccount(account)).toMatchObject({ id: user.id });
        expect(await adapter.getAccount(account.providerAccountId, account.provider)).toMatchObject({ ...account, userId: user.id });
      });

      test('writes no user when the account is already linked to someone else', ['createUser', 'linkAccount', 'createUserWithAccount', 'getUser'], async () => {
        const owner = await createUser();
        const taken = accountData(owner.id);
        await adapter.linkAccount(taken);
        const { userId: _unused, ...account } = taken;
        const data = userData();
        await expect(settle(() => adapter.createUserWithAccount(data, account))).rejects.toThrow();
        expect(await adapter.getUser(data.id)).toBeNull();
      });

      uniqueTest('writes no account when the email is taken', ['createUser', 'createUserWithAccount', 'getAccount'], async () => {
        const existing = await createUser();
        const { userId: _unused, ...account } = accountData('');
        await expect(settle(() => adapter.createUserWithAccount(userData({ email: existing.email }), account))).rejects.toThrow();
        expect(await adapter.getAccount(account.providerAccountId, account.provider)).toBeNull();
      });
    });

    describe('accounts', () => {
      test('returns every token field of a linked account as it was stored', ['createUser', 'linkAccount', 'getAccount'], async () => {
        const user = await createUser();
        const account = accountData(user.id);
        await adapter.linkAccount(account);
        const stored = await adapter.getAccount(account.providerAccountId, account.provider);
        expect(stored).toMatchObject(account);
      });

      test('keeps expires_at a number of seconds and token_type lowercase', ['createUser', 'linkAccount', 'getAccount'], async () => {
        const user = await createUser();
        const account = accountData(user.id, { expires_at: 1_700_000_123, token_type: 'dpop' });
        await adapter.linkAccount(account);
        const stored = await adapter.getAccount(account.providerAccountId, account.provider);
        expect(stored?.expires_at).toBe(1_700_000_123);
        expect(typeof stored?.expires_at).toBe('number');
        expect(stored?.token_type).toBe('dpop');
      });

      test('stores an account with no tokens', ['createUser', 'linkAccount', 'getAccount'], async () => {
        const user = await createUser();
        const account: AdapterAccount = { userId: user.id, type: 'email', provider: 'email', providerAccountId: user.email };
        await adapter.linkAccount(account);
        const stored = await adapter.getAccount(account.providerAccountId, account.provider);
        expect(stored).toMatchObject(account);
        // Absent or null: both mean "no token" to the runtime.
        expect(stored?.access_token ?? null).toBeNull();
        expect(stored?.expires_at ?? null).toBeNull();
      });

      test('returns what linkAccount stored, when it returns anything', ['createUser', 'linkAccount'], async () => {
        // Auth.js allows linkAccount to return nothing; what is returned must be the account.
        const user = await createUser();
        const account = accountData(user.id);
        const returned = await adapter.linkAccount(account);
        if (returned) {
          expect(returned).toMatchObject({
            userId: account.userId,
            type: account.type,
            provider: account.provider,
            providerAccountId: account.providerAccountId,
            access_token: account.access_token,
            expires_at: account.expires_at,
          });
        }
      });

      test('links two providers to one user', ['createUser', 'linkAccount', 'getUserByAccount'], async () => {
        const user = await createUser();
        const first = accountData(user.id, { provider: 'github', type: 'oauth' });
        const second = accountData(user.id, { provider: 'google', type: 'oidc' });
        await adapter.linkAccount(first);
        await adapter.linkAccount(second);
        for (const account of [first, second]) {
          const owner = await adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId });
          expect(owner?.id).toEqual(user.id);
        }
      });

      test('tells apart the same account id at two providers', ['createUser', 'linkAccount', 'getUserByAccount'], async () => {
        const alice = await createUser();
        const bob = await createUser();
        await adapter.linkAccount(accountData(alice.id, { provider: 'github', providerAccountId: '12345' }));
        await adapter.linkAccount(accountData(bob.id, { provider: 'gitlab', providerAccountId: '12345' }));
        expect((await adapter.getUserByAccount({ provider: 'github', providerAccountId: '12345' }))?.id).toEqual(alice.id);
        expect((await adapter.getUserByAccount({ provider: 'gitlab', providerAccountId: '12345' }))?.id).toEqual(bob.id);
      });

      test('returns null from getAccount for an unknown account', ['getAccount'], async () => {
        expect(await adapter.getAccount(`nobody-${randomUUID()}`, 'example')).toBeNull();
      });

      test('unlinks an account and keeps the user', ['createUser', 'linkAccount', 'unlinkAccount', 'getUserByAccount', 'getUser'], async () => {
        const user = await createUser();
        const account = accountData(user.id);
        await adapter.linkAccount(account);
        await adapter.unlinkAccount({ provider: account.provider, providerAccountId: account.providerAccountId });
        expect(await adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId })).toBeNull();
        if (!missing.has('getAccount')) expect(await adapter.getAccount(account.providerAccountId, account.provider)).toBeNull();
        expect(await adapter.getUser(user.id)).toMatchObject(user);
      });

      test('unlinking an unknown account does not throw or touch other accounts', ['createUser', 'linkAccount', 'unlinkAccount', 'getUserByAccount'], async () => {
        const user = await createUser();
        const account = accountData(user.id);
        await adapter.linkAccount(account);
        await adapter.unlinkAccount({ provider: account.provider, providerAccountId: `nobody-${randomUUID()}` });
        expect((await adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId }))?.id).toEqual(user.id);
      });

      uniqueTest('refuses to link one provider account twice', ['createUser', 'linkAccount', 'getUserByAccount'], async () => {
        const alice = await createUser();
        const mallory = await createUser();
        const account = accountData(alice.id);
        await adapter.linkAccount(account);
        await expect(settle(() => adapter.linkAccount({ ...account, userId: mallory.id }))).rejects.toThrow();
        const owner = await adapter.getUserByAccount({ provider: account.provider, providerAccountId: account.providerAccountId });
        expect(owner?.id).toEqual(alice.id);
      });
    });

    describe('account tokens (getAccessToken)', () => {
      test('lists every account of a user and none of another user', ['createUser', 'linkAccount', 'listAccountsByUserId'], async () => {
        const user = await createUser();
        const other = await createUser();
        const github = accountData(user.id, { provider: 'github', type: 'oauth' });
        const google = accountData(user.id, { provider: 'google', type: 'oidc' });
        await adapter.linkAccount(github);
        await adapter.linkAccount(google);
        await adapter.linkAccount(accountData(other.id, { provider: 'github', type: 'oauth' }));
        const listed = await adapter.listAccountsByUserId(user.id);
        expect(listed.map((account) => account.provider).sort()).toEqual(['github', 'google']);
        expect(listed.find((account) => account.provider === 'github')).toMatchObject(github);
      });

      test('lists no accounts for a user without any', ['createUser', 'listAccountsByUserId'], async () => {
        const user = await createUser();
        expect(await adapter.listAccountsByUserId(user.id)).toEqual([]);
      });

      test('reads a session with its user in one call, and no withdrawn tokens', ['createUser', 'linkAccount', 'createSession', 'getSessionAndUserForRead'], async () => {
        const user = await createUser();
        await adapter.linkAccount(accountData(user.id, { type: 'oidc' }));
        const sessionToken = randomUUID();
        const expires = inOneHour();
        await adapter.createSession({ sessionToken, userId: user.id, expires });
        const found = await adapter.getSessionAndUserForRead(sessionToken);
        expect(found?.session).toMatchObject({ sessionToken, userId: user.id, expires });
        expect(found?.user).toEqual(user);
        expect(found?.withdrawnTokens).toBe(false);
        expect(await adapter.getSessionAndUserForRead(`nobody-${randomUUID()}`)).toBeNull();
      });

      // The read takes dates as milliseconds since the epoch (PostgreSQL computes them from timestamptz): each comes
      // back to the millisecond, as a Date, and an absent one stays absent.
      test('reads every date of the session and its user to the millisecond', ['createUser', 'createSession', 'getSessionAndUserForRead'], async () => {
        const emailVerified = new Date('2024-05-06T07:08:09.123Z');
        const user = await createUser({ emailVerified });
        const [detailed, bare] = [randomUUID(), randomUUID()];
        const dates = { expires: new Date(Date.now() + 3_600_123), createdAt: new Date('2026-11-29T23:59:59.999Z'), lastSeenAt: new Date('2026-11-30T00:00:00.001Z') };
        await adapter.createSession({ sessionToken: detailed, userId: user.id, ...dates });
        await adapter.createSession({ sessionToken: bare, userId: user.id, expires: dates.expires });
        const found = await adapter.getSessionAndUserForRead(detailed);
        for (const field of ['expires', 'createdAt', 'lastSeenAt'] as const) {
          expect(found?.session[field]).toBeInstanceOf(Date);
          expect(found?.session[field]?.toISOString()).toBe(dates[field].toISOString());
        }
        expect(found?.user.emailVerified).toBeInstanceOf(Date);
        expect(found?.user.emailVerified?.toISOString()).toBe('2024-05-06T07:08:09.123Z');
        const plain = await adapter.getSessionAndUserForRead(bare);
        expect(plain?.session).toEqual({ sessionToken: bare, userId: user.id, expires: dates.expires });
        expect(plain?.user).toEqual(user);
      });

      test("says when one of the user's OAuth accounts had its tokens withdrawn, and only the user's", ['createUser', 'linkAccount', 'createSession', 'getSessionAndUserForRead'], async () => {
        const user = await createUser();
        const other = await createUser();
        const withdrawn = { access_token: undefined, refresh_token: undefined, expires_at: 1_700_000_000 };
        await adapter.linkAccount(accountData(user.id, { provider: 'github', type: 'oauth' }));
        await adapter.linkAccount(accountData(other.id, { provider: 'google', type: 'oidc', ...withdrawn }));
        // Not an OAuth account: never withdrawn, whatever its token columns hold.
        await adapter.linkAccount(accountData(user.id, { provider: 'email', type: 'email', ...withdrawn }));
        const [mine, theirs] = [randomUUID(), randomUUID()];
        await adapter.createSession({ sessionToken: mine, userId: user.id, expires: inOneHour() });
        await adapter.createSession({ sessionToken: theirs, userId: other.id, expires: inOneHour() });
        expect((await adapter.getSessionAndUserForRead(mine))?.withdrawnTokens).toBe(false);
        expect((await adapter.getSessionAndUserForRead(theirs))?.withdrawnTokens).toBe(true);
        await adapter.linkAccount(accountData(user.id, { provider: 'gitlab', type: 'oidc', ...withdrawn }));
        expect((await adapter.getSessionAndUserForRead(mine))?.withdrawnTokens).toBe(true);
      });

      test('writes the six token fields, clears absent ones and keeps the others', ['createUser', 'linkAccount', 'updateAccountTokens', 'getAccount'], async () => {
        const user = await createUser();
        const account = accountData(user.id);
        await adapter.linkAccount(account);
        const returned = await adapter.updateAccountTokens({
          provider: account.provider,
          providerAccountId: account.providerAccountId,
          tokens: { access_token: 'access-2', refresh_token: 'refresh-2', expires_at: 1_900_000_000, token_type: 'bearer' },
        });
        const stored = await adapter.getAccount(account.providerAccountId, account.provider);
        for (const found of [returned, stored]) {
          expect(found).toMatchObject({
            userId: user.id,
            access_token: 'access-2',
            refresh_token: 'refresh-2',
            expires_at: 1_900_000_000,
            token_type: 'bearer',
            session_state: account.session_state,
            oauth_token: account.oauth_token,
          });
          expect(found?.id_token ?? null).toBeNull();
          expect(found?.scope ?? null).toBeNull();
        }
      });

      test('writes only while the stored refresh token is the expected one', ['createUser', 'linkAccount', 'updateAccountTokens', 'getAccount'], async () => {
        const user = await createUser();
        const account = accountData(user.id);
        await adapter.linkAccount(account);
        const key = { provider: account.provider, providerAccountId: account.providerAccountId };
        const first = await adapter.updateAccountTokens({ ...key, tokens: { access_token: 'access-a', refresh_token: 'refresh-a' }, expectedRefreshToken: account.refresh_token! });
        const second = await adapter.updateAccountTokens({ ...key, tokens: { access_token: 'access-b', refresh_token: 'refresh-b' }, expectedRefreshToken: account.refresh_token! });
        expect(first).toMatchObject({ access_token: 'access-a', refresh_token: 'refresh-a' });
        expect(second).toBeNull();
        expect(await adapter.getAccount(account.providerAccountId, account.provider)).toMatchObject({ access_token: 'access-a', refresh_token: 'refresh-a' });
      });

      test('lets exactly one of two concurrent writes with one expected refresh token through', ['createUser', 'linkAccount', 'updateAccountTokens', 'getAccount'], async () => {
        const user = await createUser();
        const account = accountData(user.id);
        await adapter.linkAccount(account);
        const key = { provider: account.provider, providerAccountId: account.providerAccountId };
        const results = await Promise.all(
          ['a', 'b'].map((name) =>
            settle(() => adapter.updateAccountTokens({ ...key, tokens: { access_token: `access-${name}`, refresh_token: `refresh-${name}` }, expectedRefreshToken: account.refresh_token! })),
          ),
        );
        const written = results.filter((result) => result !== null);
        expect(written).toHaveLength(1);
        const stored = await adapter.getAccount(account.providerAccountId, account.provider);
        expect(stored).toMatchObject({ access_token: written[0]!.access_token, refresh_token: written[0]!.refresh_token });
      });

      test('matches an expected null to an account without a refresh token', ['createUser', 'linkAccount', 'updateAccountTokens'], async () => {
        const user = await createUser();
        const account = accountData(user.id, { refresh_token: undefined });
        await adapter.linkAccount(account);
        const key = { provider: account.provider, providerAccountId: account.providerAccountId };
        expect(await adapter.updateAccountTokens({ ...key, tokens: { expires_at: 1 }, expectedRefreshToken: 'some-refresh-token' })).toBeNull();
        expect(await adapter.updateAccountTokens({ ...key, tokens: { expires_at: 1 }, expectedRefreshToken: null })).toMatchObject({ expires_at: 1 });
      });

      test('returns null for an unknown account', ['updateAccountTokens'], async () => {
        expect(await adapter.updateAccountTokens({ provider: 'example', providerAccountId: `nobody-${randomUUID()}`, tokens: { access_token: 'access' } })).toBeNull();
      });
    });

    describe('sessions', () => {
      test('creates a session and returns it with its user', ['createUser', 'createSession', 'getSessionAndUser'], async () => {
        const user = await createUser();
        const sessionToken = randomUUID();
        const expires = inOneHour();
        const created = await adapter.createSession({ sessionToken, userId: user.id, expires });
        expect(created).toMatchObject({ sessionToken, userId: user.id, expires });
        const found = await adapter.getSessionAndUser(sessionToken);
        expect(found?.session).toMatchObject({ sessionToken, userId: user.id, expires });
        expect(found?.session.expires).toBeInstanceOf(Date);
        expect(found?.user).toMatchObject(user);
      });

      test('returns null for an unknown session token', ['getSessionAndUser'], async () => {
        expect(await adapter.getSessionAndUser(randomUUID())).toBeNull();
      });

      test('returns an expired session as it is (the runtime decides)', ['createUser', 'createSession', 'getSessionAndUser'], async () => {
        const user = await createUser();
        const sessionToken = randomUUID();
        const expires = new Date('2020-01-01T00:00:00.000Z');
        await adapter.createSession({ sessionToken, userId: user.id, expires });
        const found = await adapter.getSessionAndUser(sessionToken);
        expect(found?.session.expires.toISOString()).toBe('2020-01-01T00:00:00.000Z');
        expect(found?.user.id).toEqual(user.id);
      });

      test('extends a session', ['createUser', 'createSession', 'updateSession', 'getSessionAndUser'], async () => {
        const user = await createUser();
        const sessionToken = randomUUID();
        await adapter.createSession({ sessionToken, userId: user.id, expires: inOneHour() });
        const later = new Date(inOneHour().getTime() + 86_400_000);
        const updated = await adapter.updateSession({ sessionToken, expires: later });
        // Auth.js allows updateSession to return nothing; what is returned must be the updated session.
        if (updated) expect(updated).toMatchObject({ sessionToken, userId: user.id, expires: later });
        expect((await adapter.getSessionAndUser(sessionToken))?.session.expires).toEqual(later);
      });

      test('returns null when updating an unknown session', ['updateSession'], async () => {
        expect((await adapter.updateSession({ sessionToken: randomUUID(), expires: inOneHour() })) ?? null).toBeNull();
      });

      test('deletes a session and keeps the other sessions of the user', ['createUser', 'createSession', 'deleteSession', 'getSessionAndUser'], async () => {
        const user = await createUser();
        const laptop = randomUUID();
        const phone = randomUUID();
        await adapter.createSession({ sessionToken: laptop, userId: user.id, expires: inOneHour() });
        await adapter.createSession({ sessionToken: phone, userId: user.id, expires: inOneHour() });
        await adapter.deleteSession(laptop);
        expect(await adapter.getSessionAndUser(laptop)).toBeNull();
        expect((await adapter.getSessionAndUser(phone))?.user.id).toEqual(user.id);
      });

      test('deleting an unknown session does not throw or touch other sessions', ['createUser', 'createSession', 'deleteSession', 'getSessionAndUser'], async () => {
        const user = await createUser();
        const sessionToken = randomUUID();
        await adapter.createSession({ sessionToken, userId: user.id, expires: inOneHour() });
        await adapter.deleteSession(randomUUID());
        expect((await adapter.getSessionAndUser(sessionToken))?.user.id).toEqual(user.id);
      });
    });

    describe('session details (listing and ending sessions)', () => {
      test('stores when a session was created and last seen and its browser, and lists a user\'s sessions', ['createUser', 'createSession', 'getSessionAndUser', 'listSessionsByUserId'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const createdAt = new Date('2026-11-20T10:00:00.000Z');
        const laptop = { sessionToken: randomUUID(), userId: user.id, expires: inOneHour(), createdAt, lastSeenAt: createdAt, userAgent: 'Laptop/1.0' };
        const expired = { sessionToken: randomUUID(), userId: user.id, expires: new Date('2020-01-01T00:00:00.000Z'), createdAt, lastSeenAt: createdAt, userAgent: null };
        expect(await adapter.createSession(laptop)).toMatchObject(laptop);
        await adapter.createSession(expired);
        await adapter.createSession({ sessionToken: randomUUID(), userId: other.id, expires: inOneHour() });
        expect((await adapter.getSessionAndUser(laptop.sessionToken))?.session).toMatchObject(laptop);
        const listed = await adapter.listSessionsByUserId(user.id);
        // Expired rows are listed too: the runtime decides what is live.
        expect(listed.map((row) => row.sessionToken).sort()).toEqual([laptop.sessionToken, expired.sessionToken].sort());
        expect(listed.find((row) => row.sessionToken === laptop.sessionToken)).toEqual(laptop);
        expect(await adapter.listSessionsByUserId(randomUUID())).toEqual([]);
      });

      test('a session created without details has none, exactly Auth.js\'s three fields (as rows made by an earlier version)', ['createUser', 'createSession', 'getSessionAndUser', 'listSessionsByUserId'], async () => {
        const user = await createUser();
        const sessionToken = randomUUID();
        const expires = inOneHour();
        await adapter.createSession({ sessionToken, userId: user.id, expires });
        expect(await adapter.listSessionsByUserId(user.id)).toStrictEqual([{ sessionToken, userId: user.id, expires }]);
        expect((await adapter.getSessionAndUser(sessionToken))?.session).toStrictEqual({ sessionToken, userId: user.id, expires });
      });

      test('updates last seen without touching the expiry, and the expiry without touching last seen', ['createUser', 'createSession', 'updateSession', 'listSessionsByUserId'], async () => {
        const user = await createUser();
        const createdAt = new Date('2026-11-20T10:00:00.000Z');
        const expires = inOneHour();
        const sessionToken = randomUUID();
        await adapter.createSession({ sessionToken, userId: user.id, expires, createdAt, lastSeenAt: createdAt, userAgent: 'Phone/2.0' });
        const seen = new Date('2026-11-21T08:30:00.000Z');
        await adapter.updateSession({ sessionToken, lastSeenAt: seen });
        expect((await adapter.listSessionsByUserId(user.id))[0]).toMatchObject({ expires, createdAt, lastSeenAt: seen, userAgent: 'Phone/2.0' });
        const later = new Date(expires.valueOf() + 86_400_000);
        await adapter.updateSession({ sessionToken, expires: later });
        expect((await adapter.listSessionsByUserId(user.id))[0]).toMatchObject({ expires: later, lastSeenAt: seen });
      });
    });

    describe('verification tokens', () => {
      function tokenData(overrides: Partial<VerificationToken> = {}): VerificationToken {
        return { identifier: `ada-${randomUUID()}@example.com`, token: randomUUID(), expires: inOneHour(), ...overrides };
      }

      test('uses a verification token once and returns it', ['createVerificationToken', 'useVerificationToken'], async () => {
        const verificationToken = tokenData();
        await adapter.createVerificationToken(verificationToken);
        expect(await adapter.useVerificationToken({ identifier: verificationToken.identifier, token: verificationToken.token })).toEqual(
          verificationToken,
        );
      });

      test('returns null for a verification token that was already used', ['createVerificationToken', 'useVerificationToken'], async () => {
        const { identifier, token } = tokenData();
        await adapter.createVerificationToken({ identifier, token, expires: inOneHour() });
        await adapter.useVerificationToken({ identifier, token });
        expect(await adapter.useVerificationToken({ identifier, token })).toBeNull();
      });

      test('lets only one of two simultaneous uses have the token', ['createVerificationToken', 'useVerificationToken'], async () => {
        const { identifier, token } = tokenData();
        await adapter.createVerificationToken({ identifier, token, expires: inOneHour() });
        const results = await Promise.all([
          adapter.useVerificationToken({ identifier, token }),
          adapter.useVerificationToken({ identifier, token }),
        ]);
        expect(results.filter((result) => result !== null)).toHaveLength(1);
      });

      test('returns null for an unknown verification token', ['useVerificationToken'], async () => {
        expect(await adapter.useVerificationToken({ identifier: 'ada@example.com', token: randomUUID() })).toBeNull();
      });

      test('matches a verification token only with its identifier', ['createVerificationToken', 'useVerificationToken'], async () => {
        const verificationToken = tokenData();
        await adapter.createVerificationToken(verificationToken);
        expect(await adapter.useVerificationToken({ identifier: 'mallory@example.com', token: verificationToken.token })).toBeNull();
        expect(await adapter.useVerificationToken({ identifier: verificationToken.identifier, token: verificationToken.token })).toEqual(
          verificationToken,
        );
      });

      test('returns an expired verification token as it is (the runtime decides)', ['createVerificationToken', 'useVerificationToken'], async () => {
        const verificationToken = tokenData({ expires: new Date('2020-01-01T00:00:00.000Z') });
        await adapter.createVerificationToken(verificationToken);
        const used = await adapter.useVerificationToken({ identifier: verificationToken.identifier, token: verificationToken.token });
        expect(used?.expires.toISOString()).toBe('2020-01-01T00:00:00.000Z');
      });

      test('deletes every verification token of an identifier and no other', ['createVerificationToken', 'useVerificationToken', 'deleteVerificationTokens'], async () => {
        const older = tokenData();
        const newer = tokenData({ identifier: older.identifier });
        const other = tokenData();
        for (const verificationToken of [older, newer, other]) await adapter.createVerificationToken(verificationToken);
        await adapter.deleteVerificationTokens(older.identifier);
        expect(await adapter.useVerificationToken({ identifier: older.identifier, token: older.token })).toBeNull();
        expect(await adapter.useVerificationToken({ identifier: newer.identifier, token: newer.token })).toBeNull();
        expect(await adapter.useVerificationToken({ identifier: other.identifier, token: other.token })).toEqual(other);
      });
    });

    describe('authenticators', () => {
      test('creates an authenticator and gets it by credential ID', ['createUser', 'createAuthenticator', 'getAuthenticator'], async () => {
        const user = await createUser();
        const authenticator = authenticatorData(user.id);
        expect(await adapter.createAuthenticator(authenticator)).toMatchObject(authenticator);
        expect(await adapter.getAuthenticator(authenticator.credentialID)).toMatchObject(authenticator);
      });

      test('stores an authenticator without transports', ['createUser', 'createAuthenticator', 'getAuthenticator'], async () => {
        const user = await createUser();
        const { transports: _transports, ...authenticator } = authenticatorData(user.id, { credentialBackedUp: false, credentialDeviceType: 'singleDevice' });
        await adapter.createAuthenticator(authenticator);
        const stored = await adapter.getAuthenticator(authenticator.credentialID);
        expect(stored).toMatchObject(authenticator);
        expect(stored?.transports ?? null).toBeNull();
      });

      test('returns null for an unknown credential ID', ['getAuthenticator'], async () => {
        expect(await adapter.getAuthenticator(`credential-${randomUUID()}`)).toBeNull();
      });

      test("lists a user's authenticators and no one else's", ['createUser', 'createAuthenticator', 'listAuthenticatorsByUserId'], async () => {
        const user = await createUser();
        const other = await createUser();
        const laptop = authenticatorData(user.id);
        const phone = authenticatorData(user.id);
        await adapter.createAuthenticator(laptop);
        await adapter.createAuthenticator(phone);
        await adapter.createAuthenticator(authenticatorData(other.id));
        const listed = await adapter.listAuthenticatorsByUserId(user.id);
        expect(listed.map((entry) => entry.credentialID).sort()).toEqual([laptop.credentialID, phone.credentialID].sort());
      });

      test('lists no authenticators for a user without any', ['createUser', 'listAuthenticatorsByUserId'], async () => {
        const user = await createUser();
        expect(await adapter.listAuthenticatorsByUserId(user.id)).toEqual([]);
      });

      test('updates the signature counter', ['createUser', 'createAuthenticator', 'updateAuthenticatorCounter', 'getAuthenticator'], async () => {
        const user = await createUser();
        const authenticator = authenticatorData(user.id);
        await adapter.createAuthenticator(authenticator);
        expect(await adapter.updateAuthenticatorCounter(authenticator.credentialID, 42)).toMatchObject({ ...authenticator, counter: 42 });
        expect((await adapter.getAuthenticator(authenticator.credentialID))?.counter).toBe(42);
      });

      test('rejects (never throws synchronously) when updating the counter of an unknown credential', ['updateAuthenticatorCounter'], async () => {
        // Auth.js's adapter test suite awaits `expect(...).rejects`: a synchronous throw fails it (issue 17).
        let pending: unknown;
        expect(() => {
          pending = adapter.updateAuthenticatorCounter(`unknown-${randomUUID()}`, 1);
        }).not.toThrow();
        expect(pending).toBeInstanceOf(Promise);
        await expect(pending).rejects.toThrow();
      });

      test('answers every method with a promise, as Auth.js adapters do', ['createUser', 'getUser', 'getUserByEmail'], async () => {
        const created = adapter.createUser({ id: randomUUID(), email: `promise-${randomUUID()}@example.com`, emailVerified: null });
        expect(created).toBeInstanceOf(Promise);
        const user = await created;
        const pending = [adapter.getUser(user.id), adapter.getUserByEmail(user.email)];
        for (const result of pending) expect(result).toBeInstanceOf(Promise);
        // Settled before the test ends: the suite's cleanup drops the tables under a query still in flight.
        await Promise.all(pending);
      });

      test('keeps a signature counter above 2^31', ['createUser', 'createAuthenticator', 'updateAuthenticatorCounter', 'getAuthenticator'], async () => {
        // WebAuthn counters are unsigned 32-bit numbers.
        const user = await createUser();
        const authenticator = authenticatorData(user.id);
        await adapter.createAuthenticator(authenticator);
        await adapter.updateAuthenticatorCounter(authenticator.credentialID, 4_294_967_295);
        expect((await adapter.getAuthenticator(authenticator.credentialID))?.counter).toBe(4_294_967_295);
      });

      uniqueTest('refuses a second authenticator with the same credential ID', ['createUser', 'createAuthenticator'], async () => {
        const user = await createUser();
        const other = await createUser();
        const authenticator = authenticatorData(user.id);
        await adapter.createAuthenticator(authenticator);
        await expect(settle(() => adapter.createAuthenticator({ ...authenticator, userId: other.id }))).rejects.toThrow();
      });

      test('deletes an authenticator and only that one, answering whether there was one', ['createUser', 'createAuthenticator', 'deleteAuthenticator', 'listAuthenticatorsByUserId'], async () => {
        const user = await createUser();
        const [laptop, phone] = [authenticatorData(user.id), authenticatorData(user.id)];
        await adapter.createAuthenticator(laptop);
        await adapter.createAuthenticator(phone);
        expect(await adapter.deleteAuthenticator(laptop.credentialID)).toBe(true);
        expect(await adapter.deleteAuthenticator(laptop.credentialID)).toBe(false);
        expect((await adapter.listAuthenticatorsByUserId(user.id)).map((entry) => entry.credentialID)).toEqual([phone.credentialID]);
      });
    });

    describe('email changes', () => {
      function changeData(userId: string, overrides: Partial<EmailChange> = {}): EmailChange {
        return { userId, newEmail: `new-${randomUUID()}@example.com`, digest: createHash('sha256').update(randomUUID()).digest('hex'), expires: inOneHour(), ...overrides };
      }

      test('gives a stored change once by its digest', ['createUser', 'setEmailChange', 'useEmailChange'], async () => {
        const user = await createUser();
        const change = changeData(user.id);
        await adapter.setEmailChange(change);
        expect(await adapter.useEmailChange(change.digest)).toEqual(change);
        expect(await adapter.useEmailChange(change.digest)).toBeNull();
      });

      test('finds a stored change by its digest and leaves it in place', ['createUser', 'setEmailChange', 'findEmailChange', 'useEmailChange'], async () => {
        const user = await createUser();
        const change = changeData(user.id);
        await adapter.setEmailChange(change);
        expect(await adapter.findEmailChange(change.digest)).toEqual(change);
        expect(await adapter.findEmailChange(createHash('sha256').update('another').digest('hex'))).toBeNull();
        expect(await adapter.useEmailChange(change.digest)).toEqual(change);
        expect(await adapter.findEmailChange(change.digest)).toBeNull();
      });

      test("keeps a user's newest change only", ['createUser', 'setEmailChange', 'useEmailChange'], async () => {
        const user = await createUser();
        const older = changeData(user.id);
        const newer = changeData(user.id);
        await adapter.setEmailChange(older);
        await adapter.setEmailChange(newer);
        expect(await adapter.useEmailChange(older.digest)).toBeNull();
        expect(await adapter.useEmailChange(newer.digest)).toEqual(newer);
      });

      test('deletes every other change to the same address with the one used', ['createUser', 'setEmailChange', 'useEmailChange'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const change = changeData(user.id);
        const rival = changeData(other.id, { newEmail: change.newEmail });
        await adapter.setEmailChange(change);
        await adapter.setEmailChange(rival);
        await adapter.useEmailChange(change.digest);
        expect(await adapter.useEmailChange(rival.digest)).toBeNull();
      });

      test('deletes every change to an address by it (its owner deleted the account)', ['createUser', 'setEmailChange', 'useEmailChange', 'deleteEmailChangesTo'], async () => {
        const [user, other, third] = [await createUser(), await createUser(), await createUser()];
        const change = changeData(user.id);
        const rival = changeData(other.id, { newEmail: change.newEmail });
        const unrelated = changeData(third.id);
        for (const stored of [change, rival, unrelated]) await adapter.setEmailChange(stored);
        await adapter.deleteEmailChangesTo(change.newEmail);
        expect(await adapter.useEmailChange(change.digest)).toBeNull();
        expect(await adapter.useEmailChange(rival.digest)).toBeNull();
        expect(await adapter.useEmailChange(unrelated.digest)).toEqual(unrelated);
      });

      test("storing a change prunes every user's expired ones", ['createUser', 'setEmailChange', 'useEmailChange'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const expired = changeData(user.id, { expires: new Date(Date.now() - 1000) });
        await adapter.setEmailChange(expired);
        await adapter.setEmailChange(changeData(other.id));
        expect(await adapter.useEmailChange(expired.digest)).toBeNull();
      });

      test("deleting a user deletes the user's change", ['createUser', 'deleteUser', 'setEmailChange', 'useEmailChange'], async () => {
        const user = await createUser();
        const change = changeData(user.id);
        await adapter.setEmailChange(change);
        await adapter.deleteUser(user.id);
        expect(await adapter.useEmailChange(change.digest)).toBeNull();
      });
    });

    describe('password hashes', () => {
      const hash = '$scrypt$ln=17,r=8,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
      const newerHash = '$scrypt$ln=17,r=8,p=1$bmV3c2FsdG5ld3NhbHQ$bmV3aGFzaG5ld2hhc2huZXdoYXNobmV3aGFzaA';

      test('returns null for a user without a password hash', ['createUser', 'getPasswordHash'], async () => {
        const user = await createUser();
        expect(await adapter.getPasswordHash(user.id)).toBeNull();
      });

      test('stores a password hash and returns it', ['createUser', 'getPasswordHash', 'setPasswordHash'], async () => {
        const user = await createUser();
        await adapter.setPasswordHash(user.id, hash);
        expect(await adapter.getPasswordHash(user.id)).toBe(hash);
      });

      test('replaces the stored password hash', ['createUser', 'getPasswordHash', 'setPasswordHash'], async () => {
        const user = await createUser();
        await adapter.setPasswordHash(user.id, hash);
        await adapter.setPasswordHash(user.id, newerHash);
        expect(await adapter.getPasswordHash(user.id)).toBe(newerHash);
      });

      test("keeps each user's password hash apart", ['createUser', 'getPasswordHash', 'setPasswordHash'], async () => {
        const [user, other, third] = [await createUser(), await createUser(), await createUser()];
        await adapter.setPasswordHash(user.id, hash);
        await adapter.setPasswordHash(other.id, newerHash);
        expect(await adapter.getPasswordHash(user.id)).toBe(hash);
        expect(await adapter.getPasswordHash(other.id)).toBe(newerHash);
        expect(await adapter.getPasswordHash(third.id)).toBeNull();
      });

      test('deletes the password hash with its user', ['createUser', 'deleteUser', 'getPasswordHash', 'setPasswordHash'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        await adapter.setPasswordHash(user.id, hash);
        await adapter.setPasswordHash(other.id, newerHash);
        await adapter.deleteUser(user.id);
        expect(await adapter.getPasswordHash(user.id)).toBeNull();
        expect(await adapter.getPasswordHash(other.id)).toBe(newerHash);
      });
    });

    describe('two-factor', () => {
      const secret = 'v1.aXZpdml2aXZpdml2.Y2lwaGVydGV4dGNpcGhlcnRleHQ.dGFndGFndGFndGFn';
      const newerSecret = 'v1.bmV3aXZuZXdpdm5l.bmV3Y2lwaGVydGV4dG5ld2NpcGhlcg.bmV3dGFnbmV3dGFn';
      const enabledAt = new Date('2025-03-04T05:06:07.890Z');
      // A TOTP time step (Unix time / 30 s) of 2025.
      const step = 58_000_000;
      const codes = ['code-hash-a', 'code-hash-b', 'code-hash-c'];

      test('returns null for a user who never enrolled', ['createUser', 'getTwoFactor'], async () => {
        const user = await createUser();
        expect(await adapter.getTwoFactor(user.id)).toBeNull();
      });

      test('stores the settings and returns them', ['createUser', 'getTwoFactor', 'setTwoFactor'], async () => {
        const user = await createUser();
        await adapter.setTwoFactor(user.id, { secret, enabledAt: null });
        expect(await adapter.getTwoFactor(user.id)).toEqual({ secret, enabledAt: null, lastStep: null, recoveryCodes: 0 });
        await adapter.setTwoFactor(user.id, { secret, enabledAt });
        const stored = await adapter.getTwoFactor(user.id);
        expect(stored?.enabledAt).toBeInstanceOf(Date);
        expect(stored).toEqual({ secret, enabledAt, lastStep: null, recoveryCodes: 0 });
      });

      test("keeps each user's settings apart", ['createUser', 'getTwoFactor', 'setTwoFactor'], async () => {
        const [user, other, third] = [await createUser(), await createUser(), await createUser()];
        await adapter.setTwoFactor(user.id, { secret, enabledAt });
        await adapter.setTwoFactor(other.id, { secret: newerSecret, enabledAt: null });
        expect((await adapter.getTwoFactor(user.id))?.secret).toBe(secret);
        expect((await adapter.getTwoFactor(other.id))?.secret).toBe(newerSecret);
        expect(await adapter.getTwoFactor(third.id)).toBeNull();
      });

      test('accepts only a time step later than the last accepted one', ['createUser', 'getTwoFactor', 'setTwoFactor', 'acceptTwoFactorStep'], async () => {
        const user = await createUser();
        await adapter.setTwoFactor(user.id, { secret, enabledAt });
        expect(await adapter.acceptTwoFactorStep(user.id, step)).toBe(true);
        expect((await adapter.getTwoFactor(user.id))?.lastStep).toBe(step);
        expect(await adapter.acceptTwoFactorStep(user.id, step)).toBe(false);
        expect(await adapter.acceptTwoFactorStep(user.id, step - 1)).toBe(false);
        expect((await adapter.getTwoFactor(user.id))?.lastStep).toBe(step);
        expect(await adapter.acceptTwoFactorStep(user.id, step + 1)).toBe(true);
        expect((await adapter.getTwoFactor(user.id))?.lastStep).toBe(step + 1);
      });

      test('accepts no time step for a user without settings', ['createUser', 'acceptTwoFactorStep'], async () => {
        const user = await createUser();
        expect(await adapter.acceptTwoFactorStep(user.id, step)).toBe(false);
      });

      test('forgets the last accepted step when the settings are stored again', ['createUser', 'getTwoFactor', 'setTwoFactor', 'acceptTwoFactorStep'], async () => {
        const user = await createUser();
        await adapter.setTwoFactor(user.id, { secret, enabledAt: null });
        expect(await adapter.acceptTwoFactorStep(user.id, step)).toBe(true);
        await adapter.setTwoFactor(user.id, { secret: newerSecret, enabledAt });
        expect(await adapter.getTwoFactor(user.id)).toEqual({ secret: newerSecret, enabledAt, lastStep: null, recoveryCodes: 0 });
        expect(await adapter.acceptTwoFactorStep(user.id, step)).toBe(true);
      });

      /** Concurrent reads first, so that a pooled adapter has a connection open for each of the racing calls. */
      async function warmUp(userId: string): Promise<void> {
        await Promise.all(Array.from({ length: 10 }, () => settle(() => adapter.getTwoFactor(userId))));
      }

      test('accepts one time step once among concurrent calls', ['createUser', 'getTwoFactor', 'setTwoFactor', 'acceptTwoFactorStep'], async () => {
        const user = await createUser();
        await adapter.setTwoFactor(user.id, { secret, enabledAt });
        await warmUp(user.id);
        const accepted = await Promise.all(Array.from({ length: 10 }, () => settle(() => adapter.acceptTwoFactorStep(user.id, step))));
        expect(accepted.filter(Boolean)).toHaveLength(1);
        expect((await adapter.getTwoFactor(user.id))?.lastStep).toBe(step);
      });

      test('counts the unused recovery codes', ['createUser', 'getTwoFactor', 'setTwoFactor', 'setRecoveryCodes', 'useRecoveryCode'], async () => {
        const user = await createUser();
        await adapter.setTwoFactor(user.id, { secret, enabledAt });
        await adapter.setRecoveryCodes(user.id, codes);
        expect((await adapter.getTwoFactor(user.id))?.recoveryCodes).toBe(3);
        await adapter.useRecoveryCode(user.id, 'code-hash-b');
        expect((await adapter.getTwoFactor(user.id))?.recoveryCodes).toBe(2);
      });

      test('uses a recovery code once', ['createUser', 'setTwoFactor', 'setRecoveryCodes', 'useRecoveryCode'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        await adapter.setTwoFactor(user.id, { secret, enabledAt });
        await adapter.setRecoveryCodes(user.id, codes);
        await adapter.setRecoveryCodes(other.id, ['code-hash-of-other']);
        expect(await adapter.useRecoveryCode(user.id, 'code-hash-a')).toBe(true);
        expect(await adapter.useRecoveryCode(user.id, 'code-hash-a')).toBe(false);
        expect(await adapter.useRecoveryCode(user.id, 'code-hash-unknown')).toBe(false);
        // Another user's code is not this user's.
        expect(await adapter.useRecoveryCode(user.id, 'code-hash-of-other')).toBe(false);
        expect(await adapter.useRecoveryCode(other.id, 'code-hash-b')).toBe(false);
        expect(await adapter.useRecoveryCode(other.id, 'code-hash-of-other')).toBe(true);
        expect(await adapter.useRecoveryCode(user.id, 'code-hash-b')).toBe(true);
      });

      test('replaces the recovery codes', ['createUser', 'getTwoFactor', 'setTwoFactor', 'setRecoveryCodes', 'useRecoveryCode'], async () => {
        const user = await createUser();
        await adapter.setTwoFactor(user.id, { secret, enabledAt });
        await adapter.setRecoveryCodes(user.id, codes);
        await adapter.setRecoveryCodes(user.id, ['code-hash-d', 'code-hash-e']);
        expect((await adapter.getTwoFactor(user.id))?.recoveryCodes).toBe(2);
        for (const old of codes) expect(await adapter.useRecoveryCode(user.id, old)).toBe(false);
        expect(await adapter.useRecoveryCode(user.id, 'code-hash-d')).toBe(true);
        await adapter.setRecoveryCodes(user.id, []);
        expect((await adapter.getTwoFactor(user.id))?.recoveryCodes).toBe(0);
        expect(await adapter.useRecoveryCode(user.id, 'code-hash-e')).toBe(false);
      });

      test('uses one recovery code once among concurrent calls', ['createUser', 'getTwoFactor', 'setTwoFactor', 'setRecoveryCodes', 'useRecoveryCode'], async () => {
        const user = await createUser();
        await adapter.setTwoFactor(user.id, { secret, enabledAt });
        await adapter.setRecoveryCodes(user.id, codes);
        await warmUp(user.id);
        const used = await Promise.all(Array.from({ length: 10 }, () => settle(() => adapter.useRecoveryCode(user.id, 'code-hash-c'))));
        expect(used.filter(Boolean)).toHaveLength(1);
        expect((await adapter.getTwoFactor(user.id))?.recoveryCodes).toBe(2);
      });

      test('deletes the settings and the recovery codes', ['createUser', 'getTwoFactor', 'setTwoFactor', 'deleteTwoFactor', 'setRecoveryCodes', 'useRecoveryCode'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        for (const each of [user, other]) {
          await adapter.setTwoFactor(each.id, { secret, enabledAt });
          await adapter.setRecoveryCodes(each.id, codes);
        }
        await adapter.deleteTwoFactor(user.id);
        expect(await adapter.getTwoFactor(user.id)).toBeNull();
        expect(await adapter.useRecoveryCode(user.id, 'code-hash-a')).toBe(false);
        // Enrolling again starts without codes.
        await adapter.setTwoFactor(user.id, { secret: newerSecret, enabledAt: null });
        expect(await adapter.getTwoFactor(user.id)).toEqual({ secret: newerSecret, enabledAt: null, lastStep: null, recoveryCodes: 0 });
        expect(await adapter.getTwoFactor(other.id)).toEqual({ secret, enabledAt, lastStep: null, recoveryCodes: 3 });
      });

      test('deletes the settings and the recovery codes with their user', ['createUser', 'deleteUser', 'getTwoFactor', 'setTwoFactor', 'setRecoveryCodes', 'useRecoveryCode'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        for (const each of [user, other]) {
          await adapter.setTwoFactor(each.id, { secret, enabledAt });
          await adapter.setRecoveryCodes(each.id, codes);
        }
        await adapter.deleteUser(user.id);
        expect(await adapter.getTwoFactor(user.id)).toBeNull();
        expect(await adapter.useRecoveryCode(user.id, 'code-hash-a')).toBe(false);
        expect(await adapter.getTwoFactor(other.id)).toEqual({ secret, enabledAt, lastStep: null, recoveryCodes: 3 });
      });
    });

    describe('api keys', () => {
      /** A key as the feature stores it: a random digest (hex SHA-256), never a key. */
      function apiKeyData(userId: string, overrides: Partial<StoredApiKey> = {}): StoredApiKey {
        const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000);
        return {
          id: randomUUID(),
          userId,
          name: 'CI deploys',
          start: 'fak_AbC-d_',
          digest: createHash('sha256').update(randomUUID()).digest('hex'),
          scopes: ['read', 'write'],
          organizationId: null,
          createdAt,
          lastUsedAt: null,
          expiresAt: new Date(createdAt.valueOf() + 90 * 86_400_000),
          ...overrides,
        };
      }

      /** What `getApiKeyAndUser` answers of a stored key. */
      function inUse({ id, userId, digest, scopes, organizationId, lastUsedAt, expiresAt }: StoredApiKey): ApiKeyInUse {
        return { id, userId, digest, scopes, organizationId, lastUsedAt, expiresAt };
      }

      function listed({ digest: _digest, ...record }: StoredApiKey): Omit<StoredApiKey, 'digest'> {
        return record;
      }

      test("lists a user's keys newest first, without their digests, and no one else's", ['createUser', 'createApiKey', 'listApiKeys'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const older = apiKeyData(user.id, { createdAt: new Date('2026-11-01T10:00:00.000Z'), scopes: [] });
        const newer = apiKeyData(user.id, { createdAt: new Date('2026-11-02T10:00:00.000Z'), name: 'Phone app', scopes: ['read'] });
        expect(await adapter.createApiKey(older, 10)).toBe(true);
        expect(await adapter.createApiKey(newer, 10)).toBe(true);
        await adapter.createApiKey(apiKeyData(other.id), 10);
        const keys = await adapter.listApiKeys(user.id);
        expect(keys).toStrictEqual([listed(newer), listed(older)]);
        for (const key of keys) expect(key).not.toHaveProperty('digest');
        expect(JSON.stringify(keys)).not.toContain(older.digest);
        expect(await adapter.listApiKeys(await unknownUserId())).toEqual([]);
      });

      test('finds a key and its user by the digest, and nothing by another digest', ['createUser', 'createApiKey', 'getApiKeyAndUser'], async () => {
        const user = await createUser();
        const key = apiKeyData(user.id, { lastUsedAt: null });
        await adapter.createApiKey(key, 10);
        const found = await adapter.getApiKeyAndUser(key.digest);
        // What a request with the key needs of it: not its name, start or creation.
        expect(found?.apiKey).toStrictEqual(inUse(key));
        expect(found?.apiKey.expiresAt).toBeInstanceOf(Date);
        expect(found?.user).toMatchObject({ id: user.id, email: user.email, name: user.name, image: user.image });
        expect(await adapter.getApiKeyAndUser(apiKeyData(user.id).digest)).toBeNull();
        expect(await adapter.getApiKeyAndUser(key.digest.toUpperCase())).toBeNull();
      });

      test('refuses a second key with the same digest', ['createUser', 'createApiKey', 'getApiKeyAndUser'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const key = apiKeyData(user.id);
        await adapter.createApiKey(key, 10);
        await expect(settle(() => adapter.createApiKey(apiKeyData(other.id, { digest: key.digest }), 10))).rejects.toThrow();
        expect((await adapter.getApiKeyAndUser(key.digest))?.user.id).toEqual(user.id);
      });

      test('refuses a key for a user that does not exist', ['createUser', 'deleteUser', 'createApiKey', 'getApiKeyAndUser'], async () => {
        const key = apiKeyData(await unknownUserId());
        await expect(settle(() => adapter.createApiKey(key, 10))).rejects.toThrow();
        expect(await adapter.getApiKeyAndUser(key.digest)).toBeNull();
      });

      test("deletes a key only for its owner, and says whether it did", ['createUser', 'createApiKey', 'deleteApiKey', 'getApiKeyAndUser', 'listApiKeys'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const key = apiKeyData(user.id);
        const kept = apiKeyData(user.id);
        await adapter.createApiKey(key, 10);
        await adapter.createApiKey(kept, 10);
        expect(await adapter.deleteApiKey(other.id, key.id)).toBe(false);
        expect((await adapter.getApiKeyAndUser(key.digest))?.apiKey.id).toBe(key.id);
        expect(await adapter.deleteApiKey(user.id, key.id)).toBe(true);
        expect(await adapter.getApiKeyAndUser(key.digest)).toBeNull();
        expect(await adapter.deleteApiKey(user.id, key.id)).toBe(false);
        expect(await adapter.deleteApiKey(user.id, randomUUID())).toBe(false);
        expect((await adapter.listApiKeys(user.id)).map((each) => each.id)).toEqual([kept.id]);
      });

      test('refuses a key over the cap, counting only unexpired keys', ['createUser', 'createApiKey', 'getApiKeyAndUser', 'listApiKeys'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const expired = apiKeyData(user.id, { createdAt: new Date('2020-01-01T00:00:00.000Z'), expiresAt: new Date('2020-02-01T00:00:00.000Z') });
        const [first, second, third] = [apiKeyData(user.id), apiKeyData(user.id), apiKeyData(user.id)];
        expect(await adapter.createApiKey(expired, 2)).toBe(true);
        expect(await adapter.createApiKey(first, 2)).toBe(true);
        expect(await adapter.createApiKey(second, 2)).toBe(true);
        expect(await adapter.createApiKey(third, 2)).toBe(false);
        expect(await adapter.getApiKeyAndUser(third.digest)).toBeNull();
        expect((await adapter.listApiKeys(user.id)).map((key) => key.id).sort()).toEqual([expired.id, first.id, second.id].sort());
        // The cap is per user.
        expect(await adapter.createApiKey(apiKeyData(other.id), 2)).toBe(true);
      });

      test('keeps no more keys than the cap among concurrent creations', ['createUser', 'createApiKey', 'listApiKeys'], async () => {
        const user = await createUser();
        await Promise.all(Array.from({ length: 10 }, () => settle(() => adapter.listApiKeys(user.id))));
        const stored = await Promise.all(Array.from({ length: 8 }, () => settle(() => adapter.createApiKey(apiKeyData(user.id), 3))));
        const listed = await adapter.listApiKeys(user.id);
        expect(listed.length).toBeLessThanOrEqual(3);
        expect(stored.filter(Boolean)).toHaveLength(listed.length);
      });

      test('keeps the organization a key was made for', ['createUser', 'createOrganization', 'createApiKey', 'getApiKeyAndUser', 'listApiKeys'], async () => {
        const user = await createUser();
        const organization = { id: randomUUID(), slug: `keys-${randomUUID().slice(0, 8)}`, name: 'Keys', createdAt: new Date('2026-11-01T10:00:00.000Z') };
        await adapter.createOrganization(organization, user.id);
        const bound = apiKeyData(user.id, { organizationId: organization.id, createdAt: new Date('2026-11-02T10:00:00.000Z') });
        const own = apiKeyData(user.id, { createdAt: new Date('2026-11-01T10:00:00.000Z') });
        await adapter.createApiKey(bound, 10);
        await adapter.createApiKey(own, 10);
        expect((await adapter.getApiKeyAndUser(bound.digest))?.apiKey).toStrictEqual(inUse(bound));
        expect((await adapter.getApiKeyAndUser(own.digest))?.apiKey.organizationId).toBeNull();
        expect((await adapter.listApiKeys(user.id)).map((key) => key.organizationId)).toEqual([organization.id, null]);
      });

      test('records a use at most once a minute', ['createUser', 'createApiKey', 'touchApiKey', 'getApiKeyAndUser'], async () => {
        const user = await createUser();
        const key = apiKeyData(user.id);
        await adapter.createApiKey(key, 10);
        const lastUsed = async (): Promise<Date | null | undefined> => (await adapter.getApiKeyAndUser(key.digest))?.apiKey.lastUsedAt;
        const used = new Date('2026-11-24T12:00:00.000Z');
        await adapter.touchApiKey(key.id, used);
        expect(await lastUsed()).toEqual(used);
        await adapter.touchApiKey(key.id, new Date(used.valueOf() + 30_000));
        expect(await lastUsed()).toEqual(used);
        const later = new Date(used.valueOf() + 61_000);
        await adapter.touchApiKey(key.id, later);
        expect(await lastUsed()).toEqual(later);
        expect((await adapter.listApiKeys(user.id))[0]?.lastUsedAt).toEqual(later);
        // A key that is gone: nothing to write, nothing thrown.
        await adapter.touchApiKey(randomUUID(), later);
      });

      test("deleting a user deletes the user's keys", ['createUser', 'deleteUser', 'createApiKey', 'getApiKeyAndUser', 'listApiKeys'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const key = apiKeyData(user.id);
        const othersKey = apiKeyData(other.id);
        await adapter.createApiKey(key, 10);
        await adapter.createApiKey(othersKey, 10);
        await adapter.deleteUser(user.id);
        expect(await adapter.getApiKeyAndUser(key.digest)).toBeNull();
        expect(await adapter.listApiKeys(user.id)).toEqual([]);
        expect((await adapter.getApiKeyAndUser(othersKey.digest))?.user.id).toEqual(other.id);
      });
    });

    describe('organizations', () => {
      const second = (): Date => new Date(Math.floor(Date.now() / 1000) * 1000);
      const day = 86_400_000;
      const every = <T extends AdapterMethod[]>(...methods: T): T => methods;

      function organizationData(overrides: Partial<OrganizationRecord> = {}): OrganizationRecord {
        return { id: randomUUID(), slug: `acme-${randomUUID().slice(0, 8)}`, name: 'Acme', createdAt: second(), ...overrides };
      }

      async function createOrganization(ownerId: string, overrides: Partial<OrganizationRecord> = {}): Promise<OrganizationRecord> {
        const organization = organizationData(overrides);
        expect(await adapter.createOrganization(organization, ownerId)).toBe(true);
        return organization;
      }

      /** An invitation as the feature stores it: the SHA-256 digest (hex) of a random link token. */
      function invitationData(organizationId: string, inviterId: string | null, overrides: Partial<StoredInvitation> = {}): StoredInvitation {
        const createdAt = second();
        return {
          id: randomUUID(),
          organizationId,
          email: `grace-${randomUUID()}@example.com`,
          role: 'member',
          inviterId,
          digest: createHash('sha256').update(randomUUID()).digest('hex'),
          createdAt,
          expiresAt: new Date(createdAt.valueOf() + 7 * day),
          ...overrides,
        };
      }

      /** Makes `user` a member with `role` the only way the feature does: an invitation, accepted. */
      async function join(organization: OrganizationRecord, user: AdapterUser, role = 'member', joinedAt = second()): Promise<void> {
        const invitation = invitationData(organization.id, null, { email: user.email, role, createdAt: joinedAt, expiresAt: new Date(joinedAt.valueOf() + day) });
        expect(await adapter.createInvitation(invitation, 1000)).toBe(true);
        expect(await adapter.acceptInvitation(invitation.digest, user.id, joinedAt)).toBe(true);
      }

      async function rolesOf(organizationId: string): Promise<Record<string, string>> {
        return Object.fromEntries((await adapter.listMembers(organizationId)).map((member) => [member.userId, member.role]));
      }

      const membershipMethods = every('createUser', 'createOrganization', 'createInvitation', 'acceptInvitation', 'listMembers');

      test('creates an organization with its creator its owner, and finds it by slug or id', ['createUser', 'createOrganization', 'getOrganization', 'listMemberships'], async () => {
        const user = await createUser();
        const organization = await createOrganization(user.id);
        expect(await adapter.getOrganization(organization.slug)).toStrictEqual(organization);
        expect(await adapter.getOrganization(organization.id)).toStrictEqual(organization);
        expect(await adapter.getOrganization('no-such-slug')).toBeNull();
        expect(await adapter.listMemberships(user.id)).toStrictEqual([{ organization, role: 'owner', joinedAt: organization.createdAt }]);
      });

      test('refuses a taken slug (false, nothing written), also among concurrent creations', ['createUser', 'createOrganization', 'getOrganization', 'listMemberships'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const organization = await createOrganization(user.id, { slug: `taken-${randomUUID().slice(0, 8)}` });
        const copy = organizationData({ slug: organization.slug, name: 'Copycat' });
        expect(await adapter.createOrganization(copy, other.id)).toBe(false);
        expect(await adapter.getOrganization(copy.id)).toBeNull();
        expect(await adapter.getOrganization(organization.slug)).toStrictEqual(organization);
        expect(await adapter.listMemberships(other.id)).toEqual([]);
        const slug = `race-${randomUUID().slice(0, 8)}`;
        const created = await Promise.all(Array.from({ length: 6 }, () => settle(() => adapter.createOrganization(organizationData({ slug }), other.id))));
        expect(created.filter(Boolean)).toHaveLength(1);
        expect((await adapter.listMemberships(other.id)).map((membership) => membership.organization.slug)).toEqual([slug]);
      });

      test('renames an organization', ['createUser', 'createOrganization', 'getOrganization', 'updateOrganization'], async () => {
        const user = await createUser();
        const [organization, other] = [await createOrganization(user.id), await createOrganization(user.id)];
        await adapter.updateOrganization(organization.id, 'Acme Europe');
        expect(await adapter.getOrganization(organization.id)).toStrictEqual({ ...organization, name: 'Acme Europe' });
        expect(await adapter.getOrganization(other.id)).toStrictEqual(other);
      });

      test("lists a user's memberships oldest first, and members owners first, then by when they joined", [...membershipMethods, 'listMemberships'], async () => {
        const [owner, early, late] = [await createUser({ name: 'Owner' }), await createUser({ name: 'Early' }), await createUser({ name: 'Late' })];
        const first = await createOrganization(owner.id, { createdAt: new Date('2026-11-01T10:00:00.000Z') });
        const later = await createOrganization(late.id, { createdAt: new Date('2026-11-05T10:00:00.000Z') });
        await join(first, late, 'member', new Date('2026-11-03T10:00:00.000Z'));
        await join(first, early, 'admin', new Date('2026-11-02T10:00:00.000Z'));
        expect((await adapter.listMemberships(late.id)).map(({ organization, role }) => [organization.id, role])).toEqual([[first.id, 'member'], [later.id, 'owner']]);
        expect(await adapter.listMembers(first.id)).toStrictEqual([
          { userId: owner.id, name: 'Owner', email: owner.email, role: 'owner', joinedAt: first.createdAt },
          { userId: early.id, name: 'Early', email: early.email, role: 'admin', joinedAt: new Date('2026-11-02T10:00:00.000Z') },
          { userId: late.id, name: 'Late', email: late.email, role: 'member', joinedAt: new Date('2026-11-03T10:00:00.000Z') },
        ]);
        expect(await adapter.listMembers(randomUUID())).toEqual([]);
      });

      test('finds the active and the named membership in one call, and nothing for a non-member', [...membershipMethods, 'createSession', 'setActiveOrganization', 'findMemberships'], async () => {
        const [user, other, stranger] = [await createUser(), await createUser(), await createUser()];
        const [mine, theirs] = [await createOrganization(user.id), await createOrganization(other.id)];
        await join(theirs, user, 'admin');
        const session = await adapter.createSession({ sessionToken: randomUUID(), userId: user.id, expires: inOneHour() });
        const strangers = await adapter.createSession({ sessionToken: randomUUID(), userId: stranger.id, expires: inOneHour() });
        expect(await adapter.findMemberships(user.id, { sessionToken: session.sessionToken, organization: theirs.slug })).toStrictEqual({ active: null, named: { organization: theirs, role: 'admin', joinedAt: expect.any(Date) } });
        await adapter.setActiveOrganization(session.sessionToken, mine.id);
        const found = await adapter.findMemberships(user.id, { sessionToken: session.sessionToken, organization: theirs.id });
        expect(found).toStrictEqual({ active: { organization: mine, role: 'owner', joinedAt: mine.createdAt }, named: { organization: theirs, role: 'admin', joinedAt: expect.any(Date) } });
        // The active organization named: one membership, both fields.
        expect(await adapter.findMemberships(user.id, { sessionToken: session.sessionToken, organization: mine.slug })).toStrictEqual({ active: found.active, named: found.active });
        expect(await adapter.findMemberships(user.id, { sessionToken: null, organization: null })).toStrictEqual({ active: null, named: null });
        expect(await adapter.findMemberships(user.id, { sessionToken: session.sessionToken, organization: 'no-such-slug' })).toStrictEqual({ active: found.active, named: null });
        // Another user's session gives this user no active organization.
        expect((await adapter.findMemberships(user.id, { sessionToken: strangers.sessionToken, organization: null })).active).toBeNull();
        // A non-member, even with the organization set active on their session, finds nothing.
        await adapter.setActiveOrganization(strangers.sessionToken, mine.id);
        expect(await adapter.findMemberships(stranger.id, { sessionToken: strangers.sessionToken, organization: mine.slug })).toStrictEqual({ active: null, named: null });
        await adapter.setActiveOrganization(session.sessionToken, null);
        expect((await adapter.findMemberships(user.id, { sessionToken: session.sessionToken, organization: null })).active).toBeNull();
      });

      test('a removed member finds no membership, though the organization stays active on their session', [...membershipMethods, 'createSession', 'setActiveOrganization', 'findMemberships', 'removeMember'], async () => {
        const [owner, user] = [await createUser(), await createUser()];
        const organization = await createOrganization(owner.id);
        await join(organization, user);
        const session = await adapter.createSession({ sessionToken: randomUUID(), userId: user.id, expires: inOneHour() });
        await adapter.setActiveOrganization(session.sessionToken, organization.id);
        expect((await adapter.findMemberships(user.id, { sessionToken: session.sessionToken, organization: null })).active?.role).toBe('member');
        expect(await adapter.removeMember(organization.id, user.id)).toBe('done');
        expect(await adapter.findMemberships(user.id, { sessionToken: session.sessionToken, organization: organization.slug })).toStrictEqual({ active: null, named: null });
      });

      test('changes a role, never leaving an organization without an owner', [...membershipMethods, 'changeMemberRole'], async () => {
        const [owner, user, stranger] = [await createUser(), await createUser(), await createUser()];
        const organization = await createOrganization(owner.id);
        await join(organization, user);
        expect(await adapter.changeMemberRole(organization.id, owner.id, 'admin')).toBe('last-owner');
        expect(await adapter.changeMemberRole(organization.id, owner.id, 'owner')).toBe('done');
        expect(await adapter.changeMemberRole(organization.id, stranger.id, 'admin')).toBe('not-member');
        expect(await adapter.changeMemberRole(randomUUID(), owner.id, 'admin')).toBe('not-member');
        expect(await adapter.changeMemberRole(organization.id, user.id, 'admin')).toBe('done');
        expect(await rolesOf(organization.id)).toEqual({ [owner.id]: 'owner', [user.id]: 'admin' });
        expect(await adapter.changeMemberRole(organization.id, user.id, 'owner')).toBe('done');
        expect(await adapter.changeMemberRole(organization.id, owner.id, 'member')).toBe('done');
        expect(await adapter.changeMemberRole(organization.id, user.id, 'member')).toBe('last-owner');
        expect(await rolesOf(organization.id)).toEqual({ [owner.id]: 'member', [user.id]: 'owner' });
      });

      test('removes a member, never the last owner', [...membershipMethods, 'removeMember', 'changeMemberRole'], async () => {
        const [owner, user, stranger] = [await createUser(), await createUser(), await createUser()];
        const organization = await createOrganization(owner.id);
        await join(organization, user, 'admin');
        expect(await adapter.removeMember(organization.id, owner.id)).toBe('last-owner');
        expect(await adapter.removeMember(organization.id, stranger.id)).toBe('not-member');
        expect(await adapter.removeMember(organization.id, user.id)).toBe('done');
        expect(await adapter.removeMember(organization.id, user.id)).toBe('not-member');
        await join(organization, user);
        expect(await adapter.changeMemberRole(organization.id, user.id, 'owner')).toBe('done');
        expect(await adapter.removeMember(organization.id, owner.id)).toBe('done');
        expect(await adapter.removeMember(organization.id, user.id)).toBe('last-owner');
        expect(await rolesOf(organization.id)).toEqual({ [user.id]: 'owner' });
      });

      test('of concurrent demotions and removals of the last two owners, one owner stays', [...membershipMethods, 'removeMember', 'changeMemberRole'], async () => {
        const users = await Promise.all(Array.from({ length: 2 }, () => createUser()));
        const [first, second] = users as [AdapterUser, AdapterUser];
        for (let round = 0; round < 12; round++) {
          const organization = await createOrganization(first.id);
          await join(organization, second, 'owner');
          const [a, b] = round % 3 === 0
            ? [() => adapter.removeMember(organization.id, first.id), () => adapter.removeMember(organization.id, second.id)]
            : round % 3 === 1
              ? [() => adapter.changeMemberRole(organization.id, first.id, 'member'), () => adapter.changeMemberRole(organization.id, second.id, 'admin')]
              : [() => adapter.removeMember(organization.id, first.id), () => adapter.changeMemberRole(organization.id, second.id, 'member')];
          const outcomes = await Promise.all([settle(a), settle(b)]);
          expect(outcomes.sort()).toEqual(['done', 'last-owner']);
          expect(Object.values(await rolesOf(organization.id)).filter((role) => role === 'owner')).toHaveLength(1);
        }
      });

      test('transfers ownership, and changes nothing when it cannot', [...membershipMethods, 'transferOwnership', 'changeMemberRole'], async () => {
        const [owner, user, coOwner, stranger] = [await createUser(), await createUser(), await createUser(), await createUser()];
        const organization = await createOrganization(owner.id);
        await join(organization, user);
        expect(await adapter.transferOwnership(organization.id, user.id, owner.id, 'member')).toBe(false);
        expect(await adapter.transferOwnership(organization.id, owner.id, owner.id, 'admin')).toBe(false);
        expect(await adapter.transferOwnership(organization.id, owner.id, stranger.id, 'admin')).toBe(false);
        expect(await rolesOf(organization.id)).toEqual({ [owner.id]: 'owner', [user.id]: 'member' });
        // With a second owner, a transfer to a non-member still changes nothing: the former owner keeps the role.
        await join(organization, coOwner, 'owner');
        expect(await adapter.transferOwnership(organization.id, owner.id, stranger.id, 'admin')).toBe(false);
        expect(await rolesOf(organization.id)).toEqual({ [owner.id]: 'owner', [user.id]: 'member', [coOwner.id]: 'owner' });
        expect(await adapter.transferOwnership(organization.id, owner.id, user.id, 'admin')).toBe(true);
        expect(await rolesOf(organization.id)).toEqual({ [owner.id]: 'admin', [user.id]: 'owner', [coOwner.id]: 'owner' });
      });

      test("stores invitations, lists an organization's and an address's unexpired ones newest first, without digests", ['createUser', 'createOrganization', 'createInvitation', 'listInvitations', 'listInvitationsByEmail', 'getInvitation'], async () => {
        const inviter = await createUser({ name: 'Inviter' });
        const [organization, other] = [await createOrganization(inviter.id), await createOrganization(inviter.id)];
        const email = `grace-${randomUUID()}@example.com`;
        const older = invitationData(organization.id, inviter.id, { createdAt: new Date('2026-11-01T10:00:00.000Z'), expiresAt: new Date('2099-01-01T00:00:00.000Z') });
        const newer = invitationData(organization.id, inviter.id, { email, role: 'admin', createdAt: new Date('2026-11-02T10:00:00.000Z'), expiresAt: new Date('2099-01-01T00:00:00.000Z') });
        const expired = invitationData(organization.id, inviter.id, { createdAt: new Date('2020-01-01T00:00:00.000Z'), expiresAt: new Date('2020-01-08T00:00:00.000Z') });
        const elsewhere = invitationData(other.id, null, { email, createdAt: new Date('2026-11-03T10:00:00.000Z'), expiresAt: new Date('2099-01-01T00:00:00.000Z') });
        for (const invitation of [older, newer, expired, elsewhere]) expect(await adapter.createInvitation(invitation, 10)).toBe(true);
        const { digest: _digest, ...newerListed } = newer;
        const listed = await adapter.listInvitations(organization.id, new Date());
        expect(listed).toStrictEqual([newerListed, (({ digest: _d, ...rest }) => rest)(older)]);
        expect(JSON.stringify(listed)).not.toContain(newer.digest);
        const byEmail = await adapter.listInvitationsByEmail(email, new Date());
        expect(byEmail.map((invitation) => [invitation.id, invitation.organization.id, invitation.inviterName])).toEqual([[elsewhere.id, other.id, null], [newer.id, organization.id, 'Inviter']]);
        expect(byEmail[1]).toStrictEqual({ ...newerListed, organization, inviterName: 'Inviter' });
        expect(JSON.stringify(byEmail)).not.toContain(newer.digest);
        // By its digest: expired or not, with the digest.
        expect(await adapter.getInvitation(expired.digest)).toStrictEqual({ ...expired, organization, inviterName: 'Inviter' });
        expect(await adapter.getInvitation(createHash('sha256').update('nothing').digest('hex'))).toBeNull();
      });

      test("cancels an invitation only through its organization", ['createUser', 'createOrganization', 'createInvitation', 'deleteInvitation', 'getInvitation'], async () => {
        const inviter = await createUser();
        const [organization, other] = [await createOrganization(inviter.id), await createOrganization(inviter.id)];
        const invitation = invitationData(organization.id, inviter.id);
        await adapter.createInvitation(invitation, 10);
        expect(await adapter.deleteInvitation(other.id, invitation.id)).toBe(false);
        expect(await adapter.getInvitation(invitation.digest)).not.toBeNull();
        expect(await adapter.deleteInvitation(organization.id, invitation.id)).toBe(true);
        expect(await adapter.getInvitation(invitation.digest)).toBeNull();
        expect(await adapter.deleteInvitation(organization.id, invitation.id)).toBe(false);
      });

      test('deletes every invitation to an address, in every organization, and no other', ['createUser', 'createOrganization', 'createInvitation', 'deleteInvitationsTo', 'getInvitation'], async () => {
        const inviter = await createUser();
        const [organization, other] = [await createOrganization(inviter.id), await createOrganization(inviter.id)];
        const first = invitationData(organization.id, inviter.id);
        const second = invitationData(other.id, inviter.id, { email: first.email });
        const kept = invitationData(organization.id, inviter.id);
        for (const invitation of [first, second, kept]) await adapter.createInvitation(invitation, 10);
        await adapter.deleteInvitationsTo(first.email);
        expect(await adapter.getInvitation(first.digest)).toBeNull();
        expect(await adapter.getInvitation(second.digest)).toBeNull();
        expect(await adapter.getInvitation(kept.digest)).not.toBeNull();
      });

      test('a newer invitation to the same address replaces the older one', ['createUser', 'createOrganization', 'createInvitation', 'listInvitations', 'getInvitation'], async () => {
        const inviter = await createUser();
        const organization = await createOrganization(inviter.id);
        const older = invitationData(organization.id, inviter.id);
        const newer = invitationData(organization.id, inviter.id, { email: older.email, role: 'admin' });
        expect(await adapter.createInvitation(older, 10)).toBe(true);
        expect(await adapter.createInvitation(newer, 10)).toBe(true);
        expect((await adapter.listInvitations(organization.id, new Date())).map((invitation) => [invitation.id, invitation.role])).toEqual([[newer.id, 'admin']]);
        expect(await adapter.getInvitation(older.digest)).toBeNull();
      });

      test('counts members and unexpired invitations against maxMembers; a refused invitation keeps the earlier one', [...membershipMethods, 'listInvitations', 'getInvitation'], async () => {
        const [owner, member] = [await createUser(), await createUser()];
        const organization = await createOrganization(owner.id);
        await join(organization, member);
        const expired = invitationData(organization.id, owner.id, { createdAt: new Date('2020-01-01T00:00:00.000Z'), expiresAt: new Date('2020-01-08T00:00:00.000Z') });
        expect(await adapter.createInvitation(expired, 3)).toBe(true);
        const first = invitationData(organization.id, owner.id);
        expect(await adapter.createInvitation(first, 3)).toBe(true);
        const over = invitationData(organization.id, owner.id);
        expect(await adapter.createInvitation(over, 3)).toBe(false);
        expect(await adapter.getInvitation(over.digest)).toBeNull();
        // A newer invitation to the invited address takes the older one's place, not another.
        const again = invitationData(organization.id, owner.id, { email: first.email, role: 'admin' });
        expect(await adapter.createInvitation(again, 3)).toBe(true);
        expect((await adapter.listInvitations(organization.id, new Date())).map((invitation) => invitation.id)).toEqual([again.id]);
        // Refused over a lower cap: the earlier invitation stays usable.
        const refused = invitationData(organization.id, owner.id, { email: first.email });
        expect(await adapter.createInvitation(refused, 2)).toBe(false);
        expect((await adapter.listInvitations(organization.id, new Date())).map((invitation) => invitation.id)).toEqual([again.id]);
        expect(await adapter.getInvitation(again.digest)).toMatchObject({ id: again.id });
      });

      test('keeps no more members and invitations than maxMembers among concurrent invitations', ['createUser', 'createOrganization', 'createInvitation', 'listInvitations'], async () => {
        const owner = await createUser();
        const organization = await createOrganization(owner.id);
        const stored = await Promise.all(Array.from({ length: 8 }, () => settle(() => adapter.createInvitation(invitationData(organization.id, owner.id), 4))));
        const pending = await adapter.listInvitations(organization.id, new Date());
        expect(pending.length).toBeLessThanOrEqual(3);
        expect(stored.filter(Boolean)).toHaveLength(pending.length);
      });

      test('accepts an invitation once, with its role, before it expires', [...membershipMethods, 'getInvitation', 'listMemberships'], async () => {
        const [owner, user, late] = [await createUser(), await createUser(), await createUser()];
        const organization = await createOrganization(owner.id);
        const invitation = invitationData(organization.id, owner.id, { email: user.email, role: 'admin' });
        await adapter.createInvitation(invitation, 10);
        const now = second();
        expect(await adapter.acceptInvitation(invitation.digest, user.id, now)).toBe(true);
        expect(await adapter.getInvitation(invitation.digest)).toBeNull();
        expect(await adapter.acceptInvitation(invitation.digest, late.id, now)).toBe(false);
        expect(await adapter.listMemberships(user.id)).toStrictEqual([{ organization, role: 'admin', joinedAt: now }]);
        expect(await adapter.listMemberships(late.id)).toEqual([]);
        // Expired: refused, no membership, the invitation left (its page says it expired).
        const expiring = invitationData(organization.id, owner.id, { email: late.email, expiresAt: new Date(now.valueOf() + 1000) });
        await adapter.createInvitation(expiring, 10);
        expect(await adapter.acceptInvitation(expiring.digest, late.id, new Date(now.valueOf() + 1000))).toBe(false);
        expect(await adapter.listMemberships(late.id)).toEqual([]);
        expect(await adapter.getInvitation(expiring.digest)).toMatchObject({ id: expiring.id });
        expect(await adapter.acceptInvitation(createHash('sha256').update('nothing').digest('hex'), late.id, now)).toBe(false);
      });

      test('a member who accepts an invitation keeps the role they hold, and the invitation is used', [...membershipMethods, 'getInvitation'], async () => {
        const owner = await createUser();
        const organization = await createOrganization(owner.id);
        const invitation = invitationData(organization.id, owner.id, { email: owner.email, role: 'member' });
        await adapter.createInvitation(invitation, 10);
        expect(await adapter.acceptInvitation(invitation.digest, owner.id, second())).toBe(true);
        expect(await rolesOf(organization.id)).toEqual({ [owner.id]: 'owner' });
        expect(await adapter.getInvitation(invitation.digest)).toBeNull();
      });

      test('of concurrent acceptances of one invitation, exactly one makes a member', [...membershipMethods, 'listMemberships'], async () => {
        const owner = await createUser();
        const organization = await createOrganization(owner.id);
        const users = await Promise.all(Array.from({ length: 4 }, () => createUser()));
        for (let round = 0; round < 5; round++) {
          const invitation = invitationData(organization.id, owner.id);
          await adapter.createInvitation(invitation, 1000);
          const now = second();
          const accepted = await Promise.all(users.map((user) => settle(() => adapter.acceptInvitation(invitation.digest, user.id, now))));
          expect(accepted.filter(Boolean)).toHaveLength(1);
          const members = Object.keys(await rolesOf(organization.id)).filter((id) => id !== owner.id);
          expect(members).toEqual([users[accepted.indexOf(true)]!.id]);
          for (const id of members) await adapter.removeMember(organization.id, id);
        }
      });

      test("lists an organization's events newest first, at most `limit`, with the actor's and the subject's names", ['createUser', 'createOrganization', 'createOrganizationEvent', 'listOrganizationEvents'], async () => {
        const [actor, subject] = [await createUser({ name: 'Actor' }), await createUser({ name: 'Subject' })];
        const [organization, other] = [await createOrganization(actor.id), await createOrganization(actor.id)];
        const events = [1, 2, 3].map((dayOf) => ({ id: randomUUID(), organizationId: organization.id, type: 'member-role-changed', at: new Date(`2026-11-0${dayOf}T10:00:00.000Z`), actorId: actor.id, subjectId: dayOf === 2 ? null : subject.id, detail: dayOf === 3 ? 'admin' : null }));
        for (const event of events) await adapter.createOrganizationEvent(event);
        await adapter.createOrganizationEvent({ ...events[0]!, id: randomUUID(), organizationId: other.id });
        const listed = await adapter.listOrganizationEvents(organization.id, 2);
        expect(listed).toStrictEqual([
          { ...events[2]!, actorName: 'Actor', subjectName: 'Subject' },
          { ...events[1]!, actorName: 'Actor', subjectName: null },
        ]);
        expect(await adapter.listOrganizationEvents(organization.id, 10)).toHaveLength(3);
      });

      test("deletes an organization with its memberships, invitations and events, and clears it as sessions' active one", [...membershipMethods, 'deleteOrganization', 'getOrganization', 'listMemberships', 'getInvitation', 'createOrganizationEvent', 'listOrganizationEvents', 'createSession', 'getSessionAndUser', 'setActiveOrganization', 'findMemberships', 'countMembersByRole'], async () => {
        const [owner, member] = [await createUser(), await createUser()];
        const [organization, kept] = [await createOrganization(owner.id), await createOrganization(owner.id)];
        await join(organization, member, 'admin');
        const invitation = invitationData(organization.id, owner.id);
        await adapter.createInvitation(invitation, 10);
        await adapter.createOrganizationEvent({ id: randomUUID(), organizationId: organization.id, type: 'organization-created', at: second(), actorId: owner.id, subjectId: null, detail: null });
        const session = await adapter.createSession({ sessionToken: randomUUID(), userId: owner.id, expires: inOneHour() });
        await adapter.setActiveOrganization(session.sessionToken, organization.id);
        expect(await adapter.deleteOrganization(organization.id)).toBe(true);
        expect(await adapter.deleteOrganization(organization.id)).toBe(false);
        expect(await adapter.getOrganization(organization.slug)).toBeNull();
        expect(await adapter.listMembers(organization.id)).toEqual([]);
        expect((await adapter.listMemberships(owner.id)).map((membership) => membership.organization.id)).toEqual([kept.id]);
        expect(await adapter.listMemberships(member.id)).toEqual([]);
        expect(await adapter.getInvitation(invitation.digest)).toBeNull();
        expect(await adapter.listOrganizationEvents(organization.id, 10)).toEqual([]);
        expect(await adapter.countMembersByRole()).toEqual([{ role: 'owner', members: 1 }]);
        // The session goes on; its active organization is cleared, not merely unmatched: an organization made again
        // with the same id is not active on it.
        expect(await adapter.getSessionAndUser(session.sessionToken)).not.toBeNull();
        await createOrganization(owner.id, { id: organization.id });
        expect((await adapter.findMemberships(owner.id, { sessionToken: session.sessionToken, organization: null })).active).toBeNull();
      });

      test("deleting a user deletes their memberships and keeps the invitations they sent and the events they took part in", [...membershipMethods, 'deleteUser', 'listMemberships', 'getInvitation', 'listInvitations', 'createOrganizationEvent', 'listOrganizationEvents'], async () => {
        const [owner, user] = [await createUser(), await createUser({ name: 'Leaving' })];
        const organization = await createOrganization(owner.id);
        await join(organization, user, 'admin');
        const invitation = invitationData(organization.id, user.id);
        await adapter.createInvitation(invitation, 10);
        const event = { id: randomUUID(), organizationId: organization.id, type: 'member-role-changed', at: second(), actorId: user.id, subjectId: user.id, detail: 'admin' };
        await adapter.createOrganizationEvent(event);
        await adapter.deleteUser(user.id);
        expect(await rolesOf(organization.id)).toEqual({ [owner.id]: 'owner' });
        expect(await adapter.listMemberships(user.id)).toEqual([]);
        expect((await adapter.listInvitations(organization.id, new Date())).map((kept) => [kept.id, kept.inviterId])).toEqual([[invitation.id, null]]);
        expect(await adapter.getInvitation(invitation.digest)).toMatchObject({ id: invitation.id, inviterId: null, inviterName: null });
        expect(await adapter.listOrganizationEvents(organization.id, 10)).toStrictEqual([{ ...event, actorId: null, actorName: null, subjectId: null, subjectName: null }]);
      });

      test('lists the organizations of which the user is the only owner while others are members', [...membershipMethods, 'listSoleOwnerships'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const sole = await createOrganization(user.id, { slug: `b-sole-${randomUUID().slice(0, 8)}` });
        await join(sole, other);
        const alsoSole = await createOrganization(user.id, { slug: `a-sole-${randomUUID().slice(0, 8)}` });
        await join(alsoSole, other, 'admin');
        await createOrganization(user.id);
        const shared = await createOrganization(user.id);
        await join(shared, other, 'owner');
        const theirs = await createOrganization(other.id);
        await join(theirs, user);
        expect(await adapter.listSoleOwnerships(user.id)).toStrictEqual([alsoSole, sole]);
        expect(await adapter.listSoleOwnerships(other.id)).toStrictEqual([theirs]);
      });

      test('counts the memberships holding each role, in every organization, a role the config dropped among them', [...membershipMethods, 'changeMemberRole', 'countMembersByRole'], async () => {
        expect(await adapter.countMembersByRole()).toEqual([]);
        const [owner, user, other] = [await createUser(), await createUser(), await createUser()];
        const [organization, second] = [await createOrganization(owner.id), await createOrganization(user.id)];
        await join(organization, user);
        await join(second, other);
        await join(organization, other, 'admin');
        expect(await adapter.changeMemberRole(organization.id, other.id, 'gone')).toBe('done');
        expect(await adapter.countMembersByRole()).toEqual([{ role: 'gone', members: 1 }, { role: 'member', members: 2 }, { role: 'owner', members: 2 }]);
      });
    });

    describe('admin', () => {
      const at = (day: number): Date => new Date(`2026-11-${String(day).padStart(2, '0')}T10:00:00.000Z`);
      const verified = at(1);

      async function createSessions(userId: string, count: number): Promise<string[]> {
        const tokens = Array.from({ length: count }, () => randomUUID());
        for (const sessionToken of tokens) await adapter.createSession({ sessionToken, userId, expires: inOneHour() });
        return tokens;
      }

      function impersonationData(userId: string, adminId: string, adminSessionToken: string) {
        return { adminId, adminSessionToken, session: { sessionToken: `${randomUUID()}~i1893456000`, userId, expires: inOneHour(), createdAt: at(20), userAgent: 'Firefox/133.0' } };
      }

      test('searches users by a case-insensitive part of their address or name, ordered by address, with how many match', ['createUser', 'searchUsers'], async () => {
        // Digits only: a hex tag can hold "ada" (3873ada5 did), and then bob's address matches the search for ADA.
        const tag = String(randomInt(10_000_000, 100_000_000));
        const [bob, ada, grace] = [
          await createUser({ email: `bob-${tag}@example.com`, name: 'Bob Builder' }),
          await createUser({ email: `ada-${tag}@example.com`, name: 'Ada Lovelace' }),
          await createUser({ email: `grace-${tag}@example.org`, name: 'Grace ADA Hopper' }),
        ];
        const emails = async (query: string): Promise<string[]> => (await adapter.searchUsers({ query, offset: 0, limit: 10 })).users.map((user) => user.email!);
        expect(await emails('ADA')).toEqual([ada.email, grace.email]);
        expect(await emails('lovelace')).toEqual([ada.email]);
        expect(await emails('EXAMPLE.ORG')).toEqual([grace.email]);
        expect(await emails(`B-${tag}`)).toEqual([bob.email]);
        expect(await emails('nobody-matches')).toEqual([]);
        expect(await adapter.searchUsers({ query: '', offset: 0, limit: 10 })).toMatchObject({ total: 3, users: [{ id: ada.id }, { id: bob.id }, { id: grace.id }] });
      });

      test('matches %, _ and \\ in a search as themselves', ['createUser', 'searchUsers'], async () => {
        const [percent, underscore, backslash] = [await createUser({ name: '100% Ada' }), await createUser({ name: 'ada_lovelace' }), await createUser({ name: 'back\\slash' })];
        await createUser({ name: 'Plain Ada' });
        const ids = async (query: string): Promise<string[]> => (await adapter.searchUsers({ query, offset: 0, limit: 10 })).users.map((user) => user.id);
        expect(await ids('%')).toEqual([percent.id]);
        expect(await ids('0% a')).toEqual([percent.id]);
        expect(await ids('_')).toEqual([underscore.id]);
        expect(await ids('a_l')).toEqual([underscore.id]);
        expect(await ids('k\\s')).toEqual([backslash.id]);
      });

      test('pages a search: `limit` users from `offset`, the total counting every match, users without an address last', ['createUser', 'searchUsers'], async () => {
        const users = [];
        for (const letter of ['e', 'c', 'a', 'd', 'b']) users.push(await createUser({ email: `${letter}-${randomUUID()}@example.com`, name: 'Member' }));
        const withoutAddress = await createUser({ email: null as unknown as string, name: 'Member without address' });
        await createUser({ name: 'Someone else' });
        const sorted = [...users].sort((a, b) => (a.email < b.email ? -1 : 1)).map((user) => user.id);
        const page = async (offset: number, limit: number) => adapter.searchUsers({ query: 'member', offset, limit });
        expect(await page(0, 2)).toMatchObject({ total: 6, users: sorted.slice(0, 2).map((id) => ({ id })) });
        expect((await page(2, 2)).users.map((user) => user.id)).toEqual(sorted.slice(2, 4));
        expect((await page(4, 2)).users.map((user) => user.id)).toEqual([sorted[4], withoutAddress.id]);
        expect(await page(6, 2)).toEqual({ total: 6, users: [] });
      });

      test("lists a user with their last sign-in (the newest sign-in event), creation, state and grant", ['createUser', 'searchUsers', 'createSecurityEvent', 'markUserCreated', 'disableUser', 'grantAdmin'], async () => {
        const [user, admin, quiet] = [await createUser({ emailVerified: verified }), await createUser(), await createUser()];
        const event = (userId: string, type: 'sign-in' | 'sign-out', day: number): SecurityEvent => ({ id: randomUUID(), userId, type, at: at(day), method: 'github', ip: null, userAgent: null, detail: null });
        for (const [userId, type, day] of [[user.id, 'sign-in', 3], [user.id, 'sign-in', 5], [user.id, 'sign-out', 7], [admin.id, 'sign-in', 9]] as const) await adapter.createSecurityEvent(event(userId, type, day));
        await adapter.markUserCreated(user.id, at(2));
        await adapter.disableUser(user.id, { at: at(6), reason: 'Spam' });
        await adapter.grantAdmin({ userId: admin.id, grantedBy: user.id, at: at(4) });
        const listed = Object.fromEntries((await adapter.searchUsers({ query: '', offset: 0, limit: 10 })).users.map((summary) => [summary.id, summary]));
        expect(listed[user.id]).toStrictEqual({ id: user.id, email: user.email, name: user.name, emailVerified: verified, createdAt: at(2), lastSignInAt: at(5), disabledAt: at(6), granted: false });
        expect(listed[admin.id]).toMatchObject({ lastSignInAt: at(9), granted: true, disabledAt: null, createdAt: null });
        expect(listed[quiet.id]).toStrictEqual({ id: quiet.id, email: quiet.email, name: quiet.name, emailVerified: null, createdAt: null, lastSignInAt: null, disabledAt: null, granted: false });
      });

      test("reads a user's admin state: enabled and no grant by default, also for a user that does not exist", ['createUser', 'deleteUser', 'getAdminState'], async () => {
        const none = { disabledAt: null, disabledReason: null, granted: false, createdAt: null };
        expect(await adapter.getAdminState((await createUser()).id)).toStrictEqual(none);
        expect(await adapter.getAdminState(await unknownUserId())).toStrictEqual(none);
      });

      test("writes a user's creation time once", ['createUser', 'markUserCreated', 'getAdminState'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        await adapter.markUserCreated(user.id, at(2));
        await adapter.markUserCreated(user.id, at(3));
        expect((await adapter.getAdminState(user.id)).createdAt).toEqual(at(2));
        expect((await adapter.getAdminState(other.id)).createdAt).toBeNull();
      });

      test("disables a user and deletes every session of theirs, saying how many, and no one else's", ['createUser', 'createSession', 'getSessionAndUser', 'disableUser', 'getAdminState', 'listSessionsByUserId'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const [own, others] = [await createSessions(user.id, 3), await createSessions(other.id, 1)];
        expect(await adapter.disableUser(user.id, { at: at(6), reason: 'Sends spam' })).toBe(3);
        expect(await adapter.getAdminState(user.id)).toStrictEqual({ disabledAt: at(6), disabledReason: 'Sends spam', granted: false, createdAt: null });
        for (const token of own) expect(await adapter.getSessionAndUser(token)).toBeNull();
        expect(await adapter.listSessionsByUserId(user.id)).toEqual([]);
        expect((await adapter.getSessionAndUser(others[0]!))?.user.id).toBe(other.id);
        expect((await adapter.getAdminState(other.id)).disabledAt).toBeNull();
        expect(await adapter.disableUser(user.id, { at: at(7), reason: 'Again' })).toBe(0);
      });

      test('disabling an admin also ends the sessions in which they act as another user', ['createUser', 'createSession', 'getSessionAndUser', 'disableUser', 'createImpersonationSession'], async () => {
        const [admin, user] = [await createUser(), await createUser()];
        const [adminSession] = await createSessions(admin.id, 1);
        const [userSession] = await createSessions(user.id, 1);
        const impersonation = impersonationData(user.id, admin.id, adminSession!);
        await adapter.createImpersonationSession(impersonation);
        expect(await adapter.disableUser(admin.id, { at: at(6), reason: 'Compromised' })).toBe(2);
        expect(await adapter.getSessionAndUser(impersonation.session.sessionToken)).toBeNull();
        expect((await adapter.getSessionAndUser(userSession!))?.user.id).toBe(user.id);
      });

      test('enables a disabled user, whose ended sessions stay ended', ['createUser', 'createSession', 'getSessionAndUser', 'disableUser', 'enableUser', 'getAdminState'], async () => {
        const user = await createUser();
        const [token] = await createSessions(user.id, 1);
        await adapter.markUserCreated(user.id, at(1));
        await adapter.disableUser(user.id, { at: at(6), reason: 'Spam' });
        await adapter.enableUser(user.id);
        expect(await adapter.getAdminState(user.id)).toStrictEqual({ disabledAt: null, disabledReason: null, granted: false, createdAt: at(1) });
        expect(await adapter.getSessionAndUser(token!)).toBeNull();
        await adapter.enableUser(await unknownUserId());
      });

      test('grants admin once (false for a user who holds a grant), and refuses a user that does not exist', ['createUser', 'deleteUser', 'grantAdmin', 'getAdminState', 'countAdmins'], async () => {
        const [admin, user] = [await createUser(), await createUser()];
        expect(await adapter.grantAdmin({ userId: user.id, grantedBy: admin.id, at: at(2) })).toBe(true);
        expect(await adapter.grantAdmin({ userId: user.id, grantedBy: admin.id, at: at(3) })).toBe(false);
        expect((await adapter.getAdminState(user.id)).granted).toBe(true);
        expect((await adapter.getAdminState(admin.id)).granted).toBe(false);
        const unknown = await unknownUserId();
        await expect(settle(() => adapter.grantAdmin({ userId: unknown, grantedBy: admin.id, at: at(2) }))).rejects.toThrow();
        expect(await adapter.countAdmins([])).toBe(1);
      });

      test('counts the admins: grants and verified users with a configured address, each once', ['createUser', 'grantAdmin', 'countAdmins'], async () => {
        const tag = randomUUID();
        const [granted, configured, both, unverified] = [
          await createUser(),
          await createUser({ email: `Root-${tag}@Example.com`, emailVerified: verified }),
          await createUser({ email: `both-${tag}@example.com`, emailVerified: verified }),
          await createUser({ email: `unverified-${tag}@example.com` }),
        ];
        expect(await adapter.countAdmins([])).toBe(0);
        await adapter.grantAdmin({ userId: granted.id, grantedBy: granted.id, at: at(2) });
        await adapter.grantAdmin({ userId: both.id, grantedBy: granted.id, at: at(2) });
        expect(await adapter.countAdmins([])).toBe(2);
        const addresses = [configured.email, both.email, unverified.email, `nobody-${tag}@example.com`].map((email) => email.toLowerCase());
        expect(await adapter.countAdmins(addresses)).toBe(3);
        expect(await adapter.countAdmins([`nobody-${tag}@example.com`])).toBe(2);
      });

      test("revokes a grant while another admin is left, by grant or by a configured address", ['createUser', 'grantAdmin', 'revokeAdmin', 'getAdminState', 'countAdmins'], async () => {
        const tag = randomUUID();
        const [first, second, root] = [await createUser(), await createUser(), await createUser({ email: `root-${tag}@example.com`, emailVerified: verified })];
        for (const user of [first, second]) await adapter.grantAdmin({ userId: user.id, grantedBy: root.id, at: at(2) });
        expect(await adapter.revokeAdmin(first.id, [])).toBe('done');
        expect((await adapter.getAdminState(first.id)).granted).toBe(false);
        expect(await adapter.revokeAdmin(second.id, [root.email])).toBe('done');
        expect(await adapter.countAdmins([root.email])).toBe(1);
      });

      test('refuses to revoke the last admin, and says when the user holds no grant', ['createUser', 'grantAdmin', 'revokeAdmin', 'getAdminState'], async () => {
        const tag = randomUUID();
        const [admin, user, unverified] = [await createUser(), await createUser(), await createUser({ email: `unverified-${tag}@example.com` })];
        await adapter.grantAdmin({ userId: admin.id, grantedBy: user.id, at: at(2) });
        expect(await adapter.revokeAdmin(admin.id, [])).toBe('last-admin');
        // A configured address whose owner has not proven it makes no admin.
        expect(await adapter.revokeAdmin(admin.id, [unverified.email])).toBe('last-admin');
        expect((await adapter.getAdminState(admin.id)).granted).toBe(true);
        expect(await adapter.revokeAdmin(user.id, [])).toBe('not-granted');
      });

      test('leaves one admin of two revoked at once, each by the other', ['createUser', 'grantAdmin', 'revokeAdmin', 'countAdmins'], async () => {
        const [first, second] = [await createUser(), await createUser()];
        for (const user of [first, second]) await adapter.grantAdmin({ userId: user.id, grantedBy: user.id, at: at(2) });
        const outcomes = await Promise.all([first, second].map((user) => settle(() => adapter.revokeAdmin(user.id, []))));
        expect(outcomes.sort()).toEqual(['done', 'last-admin']);
        expect(await adapter.countAdmins([])).toBe(1);
      });

      test("deleting a user deletes their grant, and keeps the grants they gave", ['createUser', 'deleteUser', 'grantAdmin', 'getAdminState', 'countAdmins'], async () => {
        const [granter, admin] = [await createUser(), await createUser()];
        await adapter.grantAdmin({ userId: granter.id, grantedBy: admin.id, at: at(2) });
        await adapter.grantAdmin({ userId: admin.id, grantedBy: granter.id, at: at(3) });
        await adapter.deleteUser(granter.id);
        expect(await adapter.countAdmins([])).toBe(1);
        expect((await adapter.getAdminState(admin.id)).granted).toBe(true);
      });

      test("lists the actions on a user newest first, at most `limit`, with the actor's address", ['createUser', 'createAdminAction', 'listAdminActions'], async () => {
        const [user, admin, other] = [await createUser(), await createUser(), await createUser()];
        const action = (day: number, overrides: Partial<Omit<AdminActionRecord, 'actorEmail'>> = {}): Omit<AdminActionRecord, 'actorEmail'> => ({ id: randomUUID(), userId: user.id, actorId: admin.id, action: 'disable', detail: 'Sends spam', at: at(day), ...overrides });
        const actions = [action(3), action(5, { action: 'enable', detail: null }), action(4, { action: 'impersonate', detail: 'Ticket 42' })];
        for (const stored of actions) await adapter.createAdminAction(stored);
        await adapter.createAdminAction(action(6, { userId: other.id }));
        expect(await adapter.listAdminActions(user.id, 10)).toStrictEqual([actions[1], actions[2], actions[0]].map((stored) => ({ ...stored, actorEmail: admin.email })));
        expect((await adapter.listAdminActions(user.id, 2)).map((listed) => listed.id)).toEqual([actions[1]!.id, actions[2]!.id]);
        expect(await adapter.listAdminActions(admin.id, 10)).toEqual([]);
      });

      test("keeps an action once its admin is deleted (no actor), and a user's actions once the user is deleted (the admins' record)", ['createUser', 'deleteUser', 'createAdminAction', 'listAdminActions'], async () => {
        const [user, admin, other] = [await createUser(), await createUser(), await createUser()];
        const onUser = { id: randomUUID(), userId: user.id, actorId: admin.id, action: 'remove-two-factor', detail: null, at: at(3) };
        const onAdmin = { id: randomUUID(), userId: admin.id, actorId: other.id, action: 'grant-admin', detail: null, at: at(4) };
        await adapter.createAdminAction(onUser);
        await adapter.createAdminAction(onAdmin);
        await adapter.deleteUser(admin.id);
        expect(await adapter.listAdminActions(user.id, 10)).toStrictEqual([{ ...onUser, actorId: null, actorEmail: null }]);
        expect(await adapter.listAdminActions(admin.id, 10)).toStrictEqual([{ ...onAdmin, actorEmail: other.email }]);
      });

      test("stores an impersonation session as the user's session with its admin and the admin's own session", ['createUser', 'createSession', 'getSessionAndUser', 'listSessionsByUserId', 'createImpersonationSession', 'getImpersonation'], async () => {
        const [admin, user] = [await createUser(), await createUser()];
        const [adminSession] = await createSessions(admin.id, 1);
        const [ownSession] = await createSessions(user.id, 1);
        const impersonation = impersonationData(user.id, admin.id, adminSession!);
        await adapter.createImpersonationSession(impersonation);
        const { createdAt, userAgent, ...fields } = impersonation.session;
        expect((await adapter.getSessionAndUser(fields.sessionToken))?.user.id).toBe(user.id);
        expect((await adapter.listSessionsByUserId(user.id)).find((session) => session.sessionToken === fields.sessionToken)).toMatchObject({ ...fields, createdAt, lastSeenAt: createdAt, userAgent });
        expect(await adapter.getImpersonation(fields.sessionToken)).toStrictEqual({ adminId: admin.id, adminSessionToken: adminSession });
        expect(await adapter.getImpersonation(ownSession!)).toBeNull();
        expect(await adapter.getImpersonation(adminSession!)).toBeNull();
        expect(await adapter.getImpersonation(randomUUID())).toBeNull();
      });

      test("deleting an admin ends the sessions in which they act as another user", ['createUser', 'deleteUser', 'createSession', 'getSessionAndUser', 'createImpersonationSession', 'getImpersonation'], async () => {
        const [admin, user] = [await createUser(), await createUser()];
        const [adminSession] = await createSessions(admin.id, 1);
        const [userSession] = await createSessions(user.id, 1);
        const impersonation = impersonationData(user.id, admin.id, adminSession!);
        await adapter.createImpersonationSession(impersonation);
        await adapter.deleteUser(admin.id);
        expect(await adapter.getSessionAndUser(impersonation.session.sessionToken)).toBeNull();
        expect(await adapter.getImpersonation(impersonation.session.sessionToken)).toBeNull();
        expect((await adapter.getSessionAndUser(userSession!))?.user.id).toBe(user.id);
      });
    });

    describe('security events', () => {
      function eventData(userId: string, overrides: Partial<SecurityEvent> = {}): SecurityEvent {
        return {
          id: randomUUID(),
          userId,
          type: 'sign-in',
          at: new Date('2026-11-20T10:00:00.000Z'),
          method: 'github',
          ip: '203.0.113.7',
          userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0',
          detail: null,
          ...overrides,
        };
      }

      test("lists a user's events newest first, every field as stored, and no one else's", ['createUser', 'createSecurityEvent', 'listSecurityEvents'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const older = eventData(user.id, { at: new Date('2026-11-01T10:00:00.000Z'), type: 'sign-in-failed', method: 'password', userAgent: null });
        const newer = eventData(user.id, { at: new Date('2026-11-02T10:00:00.000Z'), type: 'api-key-created', method: null, ip: null, detail: 'CI deploys' });
        const newest = eventData(user.id, { at: new Date('2026-11-03T10:00:00.000Z') });
        for (const event of [newer, older, newest]) await adapter.createSecurityEvent(event);
        await adapter.createSecurityEvent(eventData(other.id));
        const listed = await adapter.listSecurityEvents(user.id, 10);
        expect(listed).toStrictEqual([newest, newer, older]);
        expect(listed[0]!.at).toBeInstanceOf(Date);
        expect(await adapter.listSecurityEvents(await unknownUserId(), 10)).toEqual([]);
      });

      test('lists at most `limit` events, the newest', ['createUser', 'createSecurityEvent', 'listSecurityEvents'], async () => {
        const user = await createUser();
        const events = [1, 2, 3, 4, 5].map((day) => eventData(user.id, { at: new Date(`2026-11-0${day}T10:00:00.000Z`) }));
        for (const event of events) await adapter.createSecurityEvent(event);
        expect((await adapter.listSecurityEvents(user.id, 2)).map((event) => event.id)).toEqual([events[4]!.id, events[3]!.id]);
        expect(await adapter.listSecurityEvents(user.id, 5)).toHaveLength(5);
      });

      test('deletes every event older than a time, of every user, and says how many', ['createUser', 'createSecurityEvent', 'listSecurityEvents', 'deleteSecurityEventsBefore'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        const cutoff = new Date('2026-11-10T00:00:00.000Z');
        const old = [eventData(user.id, { at: new Date('2026-11-01T10:00:00.000Z') }), eventData(other.id, { at: new Date('2026-11-09T23:59:59.000Z') })];
        const kept = [eventData(user.id, { at: cutoff }), eventData(other.id, { at: new Date('2026-11-11T10:00:00.000Z') })];
        for (const event of [...old, ...kept]) await adapter.createSecurityEvent(event);
        expect(await adapter.deleteSecurityEventsBefore(cutoff)).toBe(2);
        expect((await adapter.listSecurityEvents(user.id, 10)).map((event) => event.id)).toEqual([kept[0]!.id]);
        expect((await adapter.listSecurityEvents(other.id, 10)).map((event) => event.id)).toEqual([kept[1]!.id]);
        expect(await adapter.deleteSecurityEventsBefore(cutoff)).toBe(0);
      });

      test('refuses an event of a user that does not exist', ['createUser', 'deleteUser', 'createSecurityEvent', 'listSecurityEvents'], async () => {
        const userId = await unknownUserId();
        await expect(settle(() => adapter.createSecurityEvent(eventData(userId)))).rejects.toThrow();
        expect(await adapter.listSecurityEvents(userId, 10)).toEqual([]);
      });

      test("deleting a user deletes the user's events", ['createUser', 'deleteUser', 'createSecurityEvent', 'listSecurityEvents', 'deleteSecurityEventsBefore'], async () => {
        const [user, other] = [await createUser(), await createUser()];
        await adapter.createSecurityEvent(eventData(user.id));
        const othersEvent = eventData(other.id);
        await adapter.createSecurityEvent(othersEvent);
        await adapter.deleteUser(user.id);
        expect(await adapter.listSecurityEvents(user.id, 10)).toEqual([]);
        expect(await adapter.listSecurityEvents(other.id, 10)).toStrictEqual([othersEvent]);
        // Gone, not merely unlisted: pruning everything finds only the other user's event.
        expect(await adapter.deleteSecurityEventsBefore(new Date('2100-01-01T00:00:00.000Z'))).toBe(1);
      });
    });

    describe('rate limits', () => {
      afterEach(() => {
        vi.useRealTimers();
      });

      test('counts the hits on a key within one window', ['hitRateLimit'], async () => {
        const key = `key-${randomUUID()}`;
        const before = Date.now();
        const hits = [await adapter.hitRateLimit(key, 60), await adapter.hitRateLimit(key, 60), await adapter.hitRateLimit(key, 60)];
        expect(hits.map((hit) => hit.count)).toEqual([1, 2, 3]);
        expect(new Set(hits.map((hit) => hit.resetAt.getTime())).size).toBe(1);
        expect(hits[0]!.resetAt.getTime()).toBeGreaterThanOrEqual(before + 60_000);
        expect(hits[0]!.resetAt.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
      });

      test('counts each key on its own', ['hitRateLimit'], async () => {
        await adapter.hitRateLimit('key-a', 60);
        await adapter.hitRateLimit('key-a', 60);
        expect((await adapter.hitRateLimit('key-b', 60)).count).toBe(1);
      });

      test('gives concurrent hits on one key distinct counts', ['hitRateLimit'], async () => {
        const key = `key-${randomUUID()}`;
        const hits = await Promise.all(Array.from({ length: 25 }, () => settle(() => adapter.hitRateLimit(key, 60))));
        expect(hits.map((hit) => hit.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, index) => index + 1));
      });

      test('starts a new window once the window has ended', ['hitRateLimit'], async () => {
        vi.useFakeTimers({ toFake: ['Date'] });
        const key = `key-${randomUUID()}`;
        await adapter.hitRateLimit(key, 60);
        const second = await adapter.hitRateLimit(key, 60);
        vi.setSystemTime(second.resetAt.getTime() + 1);
        const next = await adapter.hitRateLimit(key, 60);
        expect(next.count).toBe(1);
        expect(next.resetAt.getTime()).toBe(second.resetAt.getTime() + 1 + 60_000);
      });

      test('forgets a key that is reset', ['hitRateLimit', 'resetRateLimit'], async () => {
        const key = `key-${randomUUID()}`;
        await adapter.hitRateLimit(key, 60);
        await adapter.hitRateLimit(key, 60);
        await adapter.resetRateLimit(key);
        expect((await adapter.hitRateLimit(key, 60)).count).toBe(1);
      });
    });
  });
}
