/**
 * Organizations (SPEC §14): add `Organizations()` to the config's `features`. Signed-in users create organizations,
 * invite colleagues by email and give each member one role at `<mount>/organizations`; an app guards its routes by
 * what a member may do with `requirePermission('project:create', { organization: (req) => req.params.slug })`, and
 * `getSession(req).organization` is the active organization with the role held there. Membership and role are read
 * from the database on the request that needs them. Needs an adapter and database sessions (`migrate` adds the
 * tables and the sessions' `active_organization_id`).
 * @example
 * features: [Organizations({ roles: { developer: ['organization:read', 'project:create'] } })]
 * app.post('/orgs/:slug/projects', requirePermission('project:create', { organization: (req) => req.params.slug }), createProject)
 */
import type { Feature } from '../../contracts.js';
import { UnsupportedStrategy } from '../../errors.js';
import type { AuthEnv } from '../../types.js';
import { assertAdapterFor } from '../database/adapter-needs.js';
import { recipientLimits } from '../email/recipient-limits.js';
import { resolveMailer } from '../email/smtp.js';
import { rateLimits } from '../rate-limit/index.js';
import { SecurityEvents } from '../security-events/index.js';
import { organizationsAccountPart } from './account.js';
import { type SessionOrganization, keyOrganizations, sessionOrganization, undefinedRoles, useOrganizations } from './access.js';
import { organizationEventLabels } from './events.js';
import { useOrganizationMailer } from './mail.js';
import { invitationRateLimits } from './organization-route.js';
import { organizationsRoute, organizationsSubpaths } from './organizations-route.js';
import { type OrganizationsOptions, resolveOrganizations } from './roles.js';
import { organizationMethods, organizationStorage } from './storage.js';

export { createRequirePermission, hasPermissionFor, undefinedRoles } from './access.js';
export type { RequirePermissionOptions, SessionOrganization } from './access.js';
export type { OrganizationMessage, OrganizationMessageKind } from './mail.js';
export type { OrganizationPermissions, OrganizationsOptions, Permission } from './roles.js';
export type { InvitationRecord, MemberRecord, Membership, OrganizationRecord } from './storage.js';

declare module '../../types.js' {
  interface DefaultSession {
    /**
     * The session's active organization and the role the user holds there, read on this request (never from the
     * cookie); null when it has none or the user is no longer a member. With an API key made for an organization,
     * that organization.
     */
    organization?: SessionOrganization | null;
  }
}

declare module '../../contracts.js' {
  interface FeatureWarningCodes {
    'organizations-email-printed-to-console': true;
  }
}

/**
 * The organizations' feature: its routes (`<mount>/organizations`), tables, column on sessions, the session's field,
 * events, rate limits and startup checks. `server`, `from` and `sendMessage` choose how its messages are sent.
 */
export function Organizations(options: OrganizationsOptions = {}, env: AuthEnv = process.env): Feature {
  const settings = resolveOrganizations(options);
  const mailer = resolveMailer('Organizations()', options, env);
  return {
    id: 'organizations',
    routes: { organizations: { methods: ['GET', 'POST'], provider: 'none', errors: 'page', subpaths: organizationsSubpaths, run: organizationsRoute } },
    signedInPage: { path: 'organizations', text: 'Your organizations' },
    storage: organizationStorage,
    securityEventLabels: organizationEventLabels,
    rateLimits: invitationRateLimits,
    // Its events are security events too (SPEC §13), each with the organization's id; an invitation is a mailed link,
    // counted with the app's others per recipient.
    features: [SecurityEvents, rateLimits, recipientLimits],
    warnings: {
      'organizations-email-printed-to-console':
        'AUTH_EMAIL_SERVER is empty, so the organization email below (an invitation, or a removal notice) is printed here instead of sent (development only: in production invitations are refused without it).',
    },
    session: sessionOrganization,
    apiKeyOrganizations: keyOrganizations,
    account: organizationsAccountPart,
    check(resolved) {
      assertAdapterFor({ id: 'organizations', type: 'feature' }, resolved.adapter, resolved.session.strategy, { what: 'organizations, members and invitations are kept', methods: organizationMethods });
      if (resolved.session.strategy !== 'database') {
        throw new UnsupportedStrategy('Organizations keep the active organization on the session\'s row: use database sessions (session.strategy "database", the default with an adapter).');
      }
      useOrganizations(resolved, settings);
      useOrganizationMailer(resolved, mailer);
      // A role that members hold and the config no longer defines grants nothing: said at startup, without waiting.
      undefinedRoles(resolved).then(
        (roles) => {
          if (roles.length === 0) return;
          const named = roles.map(({ role, members }) => `"${role}" (${members} ${members === 1 ? 'member' : 'members'})`).join(', ');
          resolved.logger.error(new TypeError(`Organizations: memberships hold roles that Organizations({ roles }) does not define, which grant nothing: ${named}. Define them again, or give those members another role.`));
        },
        (error: unknown) => resolved.logger.error(error instanceof Error ? error : new Error(String(error))),
      );
    },
  };
}
