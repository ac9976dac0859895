/**
 * The database feature: users, accounts and sessions kept through the adapter. With it, a sign-in finds, links or
 * creates its user by the rules of sign-in.ts, sessions may live in the database (session.ts; the default with an
 * adapter), `getAccessToken` keeps tokens in the account row (access-token.ts), and users list and end their
 * sessions at `<mount>/sessions` (sessions-route.ts, session-management.ts). The built-in adapters carry it; pass it
 * in `features` beside an Auth.js adapter.
 * @example
 * import { PrismaAdapter } from '@auth/prisma-adapter'
 * export const authConfig: FrameworkAuthConfig = { adapter: PrismaAdapter(prisma), features: [database], providers }
 */
import type { Feature } from '../../contracts.js';
import { databaseAccessToken } from './access-token.js';
import { endDatabaseSession, readDatabaseSession } from './session.js';
import { reauthRoute } from './reauth-route.js';
import { ReauthenticationRequired } from './recent-auth.js';
import { sessionsRoute } from './sessions-route.js';
import { reauthMaxAgeOf } from './signed-in.js';
import { askSecondFactor } from './second-factor.js';
import { counterStorage } from './counters.js';
import { storeFeatures } from './adapter.js';
import { existingUserOf, openSession, resolveSignIn } from './sign-in.js';

export type { AccountTokens, Adapter, AdapterMethod, FeatureStorage, NewAdapterSession, UpdateAccountTokensParams } from './adapter.js';

declare module '../../contracts.js' {
  interface SecurityEventTypes {
    'account-linked': true;
    'session-ended': true;
  }
  interface Feature {
    /** What the account's history calls the security event types it declares ("Passkey added"). */
    securityEventLabels?: { readonly [Type in SecurityEventType]?: string };
  }
}

export const database: Feature = {
  id: 'database',
  securityEventLabels: { 'account-linked': 'Account linked', 'session-ended': 'Session ended' },
  routes: {
    sessions: { methods: ['GET', 'POST'], provider: 'none', errors: 'page', run: sessionsRoute },
    reauth: { methods: ['GET', 'POST'], provider: 'none', errors: 'redirect', run: reauthRoute },
  },
  errors: [ReauthenticationRequired],
  // A bad `session.reauthMaxAge` fails when the app starts, not at the first sensitive change.
  check: (options) => void reauthMaxAgeOf(options),
  // The counters' table, where app processes take their lease on a token refresh (access-token.ts).
  storage: counterStorage,
  database: {
    userOfAccount: existingUserOf,
    resolveSignIn,
    openSession,
    readSession: readDatabaseSession,
    endSession: endDatabaseSession,
    accessToken: databaseAccessToken,
    askSecondFactor,
    useFeatures: (adapter, features) => adapter[storeFeatures]?.(features),
  },
};
