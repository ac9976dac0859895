// Sample data for the organizations' pages (features/organizations/pages.ts): an owner's view of an organization
// named with markup, its members, a pending invitation and events, and an invitation to it; each builder takes
// overrides. Shared by the pages' unit test and their browser test.
import type { InvitationPage, OrganizationPage, OrganizationsPage } from '../../templates/runtime/features/organizations/pages.js';
import type { InvitationWithOrganization, OrganizationRecord } from '../../templates/runtime/features/organizations/storage.js';

export const CSRF = 'csrf-token-value';
export const TOKEN = 'invitation-link-token-0123456789abcdef';
export const acme: OrganizationRecord = { id: 'org-1', slug: 'acme', name: 'Acme <script>alert(1)</script>', createdAt: new Date('2026-01-02T03:04:05Z') };
export const beta: OrganizationRecord = { id: 'org-2', slug: 'beta', name: 'Beta', createdAt: new Date('2026-01-03T00:00:00Z') };

export const invitation: InvitationWithOrganization = {
  id: 'inv-1',
  organizationId: acme.id,
  email: 'invited@example.test',
  role: 'admin',
  inviterId: 'user-owner',
  createdAt: new Date('2026-02-01T00:00:00Z'),
  expiresAt: new Date('2026-02-08T00:00:00Z'),
  organization: acme,
  inviterName: 'Olive <b>Owner</b>',
};

export const noPermission = { invite: false, cancel: false, role: false, remove: false, update: false, transfer: false, delete: false, events: false };
export const everyPermission = { invite: true, cancel: true, role: true, remove: true, update: true, transfer: true, delete: true, events: true };

export function listPage(overrides: Partial<OrganizationsPage> = {}): OrganizationsPage {
  return {
    mountPath: '/auth',
    csrfToken: CSRF,
    theme: {},
    memberships: [
      { organization: acme, role: 'owner', joinedAt: new Date('2026-01-02T03:04:05Z'), active: true },
      { organization: beta, role: 'member', joinedAt: new Date('2026-01-04T00:00:00Z'), active: false },
    ],
    invitations: [{ ...invitation, organization: beta, role: 'member' }],
    mayCreate: true,
    ...overrides,
  };
}

export function organizationPage(overrides: Partial<OrganizationPage> = {}): OrganizationPage {
  return {
    mountPath: '/auth',
    csrfToken: CSRF,
    theme: {},
    organization: acme,
    role: 'owner',
    userId: 'user-owner',
    may: everyPermission,
    grantable: ['owner', 'admin', 'member'],
    members: [
      { userId: 'user-owner', name: 'Olive Owner', email: 'olive@example.test', role: 'owner', joinedAt: new Date('2026-01-02T00:00:00Z') },
      { userId: 'user-admin', name: '<img src=x onerror=alert(1)>', email: 'adam@example.test', role: 'admin', joinedAt: new Date('2026-01-05T00:00:00Z') },
      { userId: 'user-member', name: null, email: 'mia@example.test', role: 'member', joinedAt: new Date('2026-01-06T00:00:00Z') },
    ],
    invitations: [{ id: 'inv-1', organizationId: acme.id, email: 'new@example.test', role: 'member', inviterId: 'user-owner', createdAt: new Date('2026-02-01T00:00:00Z'), expiresAt: new Date('2026-02-08T00:00:00Z') }],
    events: [
      { id: 'e1', organizationId: acme.id, type: 'organization-member-role-changed', at: new Date('2026-02-02T10:30:00Z'), actorId: 'user-owner', actorName: 'Olive Owner', subjectId: 'user-member', subjectName: null, detail: 'admin' },
      { id: 'e2', organizationId: acme.id, type: 'constructor', at: new Date('2026-02-03T00:00:00Z'), actorId: null, actorName: null, subjectId: null, subjectName: null, detail: null },
    ],
    eventLabels: { 'organization-member-role-changed': 'Role changed' },
    ...overrides,
  };
}

export function invitationPage(overrides: Partial<InvitationPage> = {}): InvitationPage {
  return { mountPath: '/auth', csrfToken: CSRF, theme: {}, invitation, signedIn: { email: invitation.email, matches: true }, signInUrl: '/auth/signin?callbackUrl=%2Fauth%2Forganizations%2Finvitations%2Fx', signUpUrl: '/auth/signup', ...overrides };
}
