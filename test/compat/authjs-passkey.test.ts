/**
 * The way back with passkeys (issue 46): `@auth/express` 0.12.3 with its Passkey provider, on our `SqliteAdapter` and
 * `PostgresAdapter` made as an app without a config of ours makes them (`features: [passkeys]`), on a SQLite file and
 * on PostgreSQL. A user signs up with a passkey and signs in with it again, each step through Auth.js's own code and
 * our tables; a software authenticator answers the ceremonies. A bare adapter, which has the core's methods only, is
 * refused by Auth.js for the authenticator methods it lacks. The types: our adapter's authenticator methods are
 * Auth.js's, and what keeps the whole adapter from being Auth.js's `Adapter` without a cast is named.
 *
 * @auth/core 0.41 calls @simplewebauthn/server with version 9's arguments and reads version 9's results (its peer
 * dependency); this repository has version 14 (for our `Passkey()`). Auth.js's provider takes the four functions as an
 * option (`simpleWebAuthn`), so each is given here wrapped to translate between the two versions.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Adapter as AuthJsAdapter, AdapterAccount as AuthJsAdapterAccount } from '@auth/core/adapters';
import { ExpressAuth, type ExpressAuthConfig } from '@auth/express';
import AuthJsPasskey from '@auth/express/providers/passkey';
import type { WebAuthnConfig as AuthJsWebAuthnConfig } from '@auth/core/providers/webauthn';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import Database from 'better-sqlite3';
import express from 'express';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { PostgresAdapter } from '../../templates/runtime/adapters/postgres.js';
import { SqliteAdapter } from '../../templates/runtime/adapters/sqlite.js';
import type { Adapter, AdapterAccount } from '../../templates/runtime/features/database/adapter.js';
import { passkeys } from '../../templates/runtime/features/passkey/index.js';
import { createJar, formBody, type CookieJar } from '../support/cookie-jar.js';
import { listen, type RunningApp } from '../support/listen.js';
import { createTestPool, startPostgres, type RunningPostgres } from '../support/postgres.js';
import { SoftwareAuthenticator, type AuthenticationOptionsJson, type RegistrationOptionsJson } from '../support/software-authenticator.js';
import { SECRET } from '../runtime/helpers.js';

const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

/** A credential as @auth/core 0.41 lists it for @simplewebauthn/server 9: the id as bytes. */
interface CredentialVersion9 {
  id: Uint8Array;
  transports?: string[];
}

/** @simplewebauthn/server 14 called with the arguments, and answering with the results, of version 9 (@auth/core's). */
const simpleWebAuthnVersion9 = {
  generateRegistrationOptions: (options: { userID: string; excludeCredentials?: CredentialVersion9[] } & Record<string, unknown>) =>
    generateRegistrationOptions({
      ...(options as unknown as Parameters<typeof generateRegistrationOptions>[0]),
      userID: new TextEncoder().encode(options.userID),
      excludeCredentials: options.excludeCredentials?.map((credential) => ({ id: base64url(credential.id) })),
    }),
  async verifyRegistrationResponse(options: Parameters<typeof verifyRegistrationResponse>[0]) {
    const { verified, registrationInfo } = await verifyRegistrationResponse(options);
    if (!registrationInfo) return { verified };
    const { credential, credentialDeviceType, credentialBackedUp } = registrationInfo;
    return {
      verified,
      registrationInfo: {
        credentialID: Buffer.from(credential.id, 'base64url'),
        credentialPublicKey: credential.publicKey,
        counter: credential.counter,
        credentialDeviceType,
        credentialBackedUp,
      },
    };
  },
  generateAuthenticationOptions: (options: { allowCredentials?: CredentialVersion9[] } & Record<string, unknown>) =>
    generateAuthenticationOptions({
      ...(options as unknown as Parameters<typeof generateAuthenticationOptions>[0]),
      allowCredentials: options.allowCredentials?.map((credential) => ({ id: base64url(credential.id) })),
    }),
  verifyAuthenticationResponse: ({
    authenticator,
    ...options
  }: { authenticator: { credentialID: Uint8Array; credentialPublicKey: Uint8Array; counter: number } } & Record<string, unknown>) =>
    verifyAuthenticationResponse({
      ...(options as unknown as Omit<Parameters<typeof verifyAuthenticationResponse>[0], 'credential'>),
      credential: { id: base64url(authenticator.credentialID), publicKey: new Uint8Array(authenticator.credentialPublicKey), counter: authenticator.counter },
    }),
} as unknown as AuthJsWebAuthnConfig['simpleWebAuthn'];

/** What `@auth/express` hands its logger's `error`, for the refusal's message. */
const loggedErrors: Error[] = [];
const logger = { error: (error: Error) => void loggedErrors.push(error), warn: () => {}, debug: () => {} };

/** An app on `@auth/express` with its Passkey provider, as its docs set one up (`app.use('/auth', ExpressAuth(config))`). */
async function authJsApp(adapter: Adapter): Promise<RunningApp> {
  const config: ExpressAuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    // Auth.js's `Adapter` has no credentials accounts, which ours may hand back (see the types below).
    adapter: adapter as AuthJsAdapter,
    providers: [AuthJsPasskey({ simpleWebAuthn: simpleWebAuthnVersion9 })],
    experimental: { enableWebAuthn: true },
  };
  const app = express();
  app.use('/auth', ExpressAuth(config));
  return listen(app);
}

/** GET `<mount>/webauthn-options/passkey`: Auth.js's options and its challenge cookie. */
async function webAuthnOptions<Options>(jar: CookieJar, url: string, query: Record<string, string>): Promise<Options> {
  const response = await jar.fetch(`${url}/auth/webauthn-options/passkey?${new URLSearchParams(query)}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { options: Options }).options;
}

/** POST `<mount>/callback/passkey` with the authenticator's answer, as Auth.js's sign-in page script posts it. */
function passkeyCallback(jar: CookieJar, url: string, action: 'register' | 'authenticate', data: unknown): Promise<Response> {
  return jar.fetch(`${url}/auth/callback/passkey`, { method: 'POST', ...formBody({ action, data: JSON.stringify(data) }) });
}

async function sessionOf(jar: CookieJar, url: string): Promise<{ user?: { email?: string } } | null> {
  return (await (await jar.fetch(`${url}/auth/session`)).json()) as { user?: { email?: string } } | null;
}

/** One store: a way to make our adapter on it, and its authenticator counter read beside the adapter. */
interface Store {
  adapter(options: { features?: typeof passkeys[] }): Adapter;
  counterOf(credentialID: string): Promise<number | undefined>;
}

function runWayBack(name: string, start: () => Promise<Store>, stop: () => Promise<void>): void {
  describe(`@auth/express with its Passkey provider on ${name}`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await start();
    });
    afterAll(stop);

    it('refuses the bare adapter, naming the four authenticator methods it lacks', async () => {
      const app = await authJsApp(store.adapter({}));
      try {
        loggedErrors.length = 0;
        const response = await createJar().fetch(`${app.url}/auth/webauthn-options/passkey?action=authenticate`);
        expect(response.status).toBe(500);
        expect(loggedErrors.map((error) => error.message)).toContainEqual(
          expect.stringContaining('Required adapter methods were missing: getAuthenticator, createAuthenticator, listAuthenticatorsByUserId, updateAuthenticatorCounter'),
        );
      } finally {
        await app.close();
      }
    });

    it('signs a new user up with a passkey and signs them in with it again, on the adapter made with features: [passkeys]', async () => {
      const app = await authJsApp(store.adapter({ features: [passkeys] }));
      try {
        const authenticator = new SoftwareAuthenticator();
        const signUp = createJar();
        const registration = await webAuthnOptions<RegistrationOptionsJson>(signUp, app.url, { action: 'register', email: 'ada@example.test' });
        const registered = await passkeyCallback(signUp, app.url, 'register', authenticator.register(registration, app.url));
        expect(registered.status).toBe(302);
        expect((await sessionOf(signUp, app.url))?.user?.email).toBe('ada@example.test');

        const signIn = createJar();
        const authentication = await webAuthnOptions<AuthenticationOptionsJson>(signIn, app.url, { action: 'authenticate' });
        const authenticated = await passkeyCallback(signIn, app.url, 'authenticate', authenticator.authenticate(authentication, app.url));
        expect(authenticated.status).toBe(302);
        expect((await sessionOf(signIn, app.url))?.user?.email).toBe('ada@example.test');
        // Auth.js stores the credential id as standard base64; the sign-in moved its counter on.
        expect(await store.counterOf(authenticator.credentialId.toString('base64'))).toBe(1);
      } finally {
        await app.close();
      }
    });
  });
}

let folder: string;
let sqlite: Database.Database;
runWayBack(
  'SqliteAdapter (a file)',
  async () => {
    folder = await mkdtemp(join(tmpdir(), 'framework-auth-authjs-passkey-'));
    sqlite = new Database(join(folder, 'auth.db'));
    return {
      adapter: ({ features }) => SqliteAdapter({ database: sqlite, ...(features && { features }) }),
      counterOf: async (credentialID) =>
        (sqlite.prepare('SELECT counter FROM authenticators WHERE credential_id = ?').get(credentialID) as { counter: number } | undefined)?.counter,
    };
  },
  async () => {
    sqlite?.close();
    await rm(folder, { recursive: true, force: true });
  },
);

let postgres: RunningPostgres | undefined;
let pool: Pool | undefined;
runWayBack(
  'PostgresAdapter',
  async () => {
    postgres = await startPostgres();
    const connected = createTestPool({ connectionString: postgres.url });
    pool = connected;
    return {
      adapter: ({ features }) => PostgresAdapter({ pool: connected, ...(features && { features }) }),
      counterOf: async (credentialID) => {
        const { rows } = await connected.query<{ counter: string }>('SELECT counter FROM authenticators WHERE credential_id = $1', [credentialID]);
        return rows[0] && Number(rows[0].counter);
      },
    };
  },
  async () => {
    await pool?.end();
    await postgres?.stop();
  },
);

describe('the types of our adapter against @auth/core 0.41', () => {
  type AuthenticatorMethod = 'createAuthenticator' | 'getAuthenticator' | 'listAuthenticatorsByUserId' | 'updateAuthenticatorCounter';

  it('has the four authenticator methods with the types of Auth.js\'s', () => {
    expectTypeOf<Required<Pick<ReturnType<typeof SqliteAdapter>, AuthenticatorMethod>>>().toExtend<Required<Pick<AuthJsAdapter, AuthenticatorMethod>>>();
    expectTypeOf<Required<Pick<ReturnType<typeof PostgresAdapter>, AuthenticatorMethod>>>().toExtend<Required<Pick<AuthJsAdapter, AuthenticatorMethod>>>();
  });

  it('is Auth.js\'s Adapter but for the accounts it hands back, which may be credentials accounts (Auth.js stores none)', () => {
    type AccountMethod = 'linkAccount' | 'unlinkAccount' | 'getAccount';
    expectTypeOf<Omit<Adapter, AccountMethod>>().toExtend<AuthJsAdapter>();
    expectTypeOf<Exclude<AdapterAccount['type'], AuthJsAdapterAccount['type']>>().toEqualTypeOf<'credentials'>();
  });
});
