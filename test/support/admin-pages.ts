// Sample data for the administration's pages (features/admin/pages.ts): a list of users with one disabled, one admin
// and a name with markup, and one user's page with every section filled (accounts, password, two-factor, two
// passkeys, an impersonation's session, an organization, events and admin actions); each builder takes overrides.
// Shared by the pages' unit test and their browser test.
import type { UserPage, renderUserListPage } from '../../templates/runtime/features/admin/pages.js';
import type { SecurityEvent } from '../../templates/runtime/features/security-events/index.js';

/** What the list page is given (pages.ts keeps the type to itself). */
type UserListPage = Parameters<typeof renderUserListPage>[0];

export const CSRF = 'csrf-token-value';

export function userListPage(overrides: Partial<UserListPage> = {}): UserListPage {
  return {
    mountPath: '/auth',
    theme: {},
    adminId: 'user-admin',
    users: [
      { id: 'user-admin', email: 'ada@example.test', name: 'Ada Admin', emailVerified: new Date('2026-01-01T00:00:00Z'), createdAt: new Date('2026-01-01T00:00:00Z'), lastSignInAt: new Date('2026-02-01T10:00:00Z'), disabledAt: null, granted: false, admin: true },
      { id: 'user-1', email: 'mia@example.test', name: '<img src=x onerror=alert(1)>', emailVerified: null, createdAt: new Date('2026-01-05T00:00:00Z'), lastSignInAt: null, disabledAt: null, granted: false, admin: false },
      { id: 'user/2', email: 'max@example.test', name: null, emailVerified: new Date('2026-01-06T00:00:00Z'), createdAt: null, lastSignInAt: new Date('2026-01-20T08:00:00Z'), disabledAt: new Date('2026-01-21T09:00:00Z'), granted: false, admin: false },
    ],
    query: '',
    page: 1,
    pages: 1,
    total: 3,
    ...overrides,
  };
}

const event = (id: string, type: string, at: string, extra: Partial<SecurityEvent> = {}): SecurityEvent => ({
  id,
  userId: 'user-1',
  type: type as SecurityEvent['type'],
  at: new Date(at),
  method: null,
  ip: '203.0.113.9',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  detail: null,
  ...extra,
});

export function userPage(overrides: Partial<UserPage> = {}): UserPage {
  return {
    mountPath: '/auth',
    csrfToken: CSRF,
    theme: {},
    user: { id: 'user-1', email: 'mia@example.test', name: 'Mia <b>Member</b>', emailVerified: new Date('2026-01-05T00:00:00Z') },
    self: false,
    state: { createdAt: new Date('2026-01-05T00:00:00Z'), disabledAt: null, disabledReason: null, granted: false, configured: false },
    methods: {
      accounts: [{ provider: 'github', providerName: 'GitHub', providerAccountId: '5821' }],
      password: true,
      twoFactor: true,
      passkeys: [
        { id: 'credential-a', deviceType: 'multiDevice', backedUp: true },
        { id: 'credential-b', deviceType: 'singleDevice', backedUp: false },
      ],
    },
    sessions: [
      { id: 'session-id-1', createdAt: new Date('2026-02-01T10:00:00Z'), lastSeenAt: new Date('2026-02-02T11:00:00Z'), expires: new Date('2026-03-01T10:00:00Z'), userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', impersonation: false },
      { id: 'session-id-2', createdAt: new Date('2026-02-03T09:00:00Z'), lastSeenAt: null, expires: new Date('2026-02-03T10:00:00Z'), userAgent: null, impersonation: true },
    ],
    memberships: [{ slug: 'acme', name: 'Acme <script>alert(1)</script>', role: 'owner' }],
    events: [
      event('e1', 'admin-two-factor-removed', '2026-02-04T12:00:00Z', { actorId: 'user-admin' }),
      event('e2', 'sign-in', '2026-02-01T10:00:00Z', { method: 'github' }),
      event('e3', 'constructor', '2026-01-30T10:00:00Z', { ip: null, userAgent: null }),
    ],
    eventLabels: new Map([
      ['sign-in', 'Signed in'],
      ['admin-two-factor-removed', 'An administrator removed two-factor'],
    ]),
    providerNames: new Map([['github', 'GitHub']]),
    actions: [
      { id: 'a1', userId: 'user-1', actorId: 'user-admin', actorEmail: 'ada@example.test', action: 'two-factor-removed', detail: 'Lost her phone <script>', at: new Date('2026-02-04T12:00:00Z') },
      { id: 'a2', userId: 'user-1', actorId: null, actorEmail: null, action: 'impersonated', detail: 'Ticket 42', at: new Date('2026-02-03T09:00:00Z') },
    ],
    may: { disable: true, enable: false, endSessions: true, removeTwoFactor: true, removePasskey: true, sendReset: true, grantAdmin: true, revokeAdmin: false, impersonate: true, delete: true },
    impersonationMinutes: 60,
    ...overrides,
  };
}
