/**
 * The events of organizations (SPEC §14): each kept with its organization (members with `member:remove` see them on
 * its page) and recorded as a security event of the member who acted, with the organization's id (SPEC §13, handed
 * to `events.onSecurityEvent`). A detail is a role or a name, never an email address.
 */
import type { RequestContext, SecurityEventType } from '../../contracts.js';
import { recordSecurityEvent } from '../../events.js';
import { callAdapter } from '../database/adapter.js';

declare module '../../contracts.js' {
  interface SecurityEventTypes {
    'organization-created': true;
    'organization-updated': true;
    'organization-deleted': true;
    'member-invited': true;
    'member-joined': true;
    'member-left': true;
    'member-removed': true;
    'member-role-changed': true;
    'ownership-transferred': true;
    'invitation-cancelled': true;
    'invitation-declined': true;
  }
}

/** What each event is called, on the organization's page and the account's (`Feature.securityEventLabels`). */
export const organizationEventLabels = {
  'organization-created': 'Organization created',
  'organization-updated': 'Organization renamed',
  'organization-deleted': 'Organization deleted',
  'member-invited': 'Member invited',
  'member-joined': 'Member joined',
  'member-left': 'Member left',
  'member-removed': 'Member removed',
  'member-role-changed': 'Role changed',
  'ownership-transferred': 'Ownership transferred',
  'invitation-cancelled': 'Invitation cancelled',
  'invitation-declined': 'Invitation declined',
} as const satisfies { readonly [Type in SecurityEventType]?: string };

/** An event of an organization, as the route that made it tells it. */
export interface OrganizationEventInput {
  type: keyof typeof organizationEventLabels;
  organizationId: string;
  /** The member who acted. */
  actorId: string;
  /** The member it happened to (a removed member, a new role's holder), when not the actor alone. */
  subjectId?: string | null;
  /** A role or a name; never an email address. */
  detail?: string | null;
}

/**
 * Keeps the event with its organization and records it as the actor's security event. The deletion of an organization
 * is the actor's security event only: its events are deleted with it.
 */
export async function recordOrganizationEvent(context: Pick<RequestContext, 'req' | 'options'>, event: OrganizationEventInput): Promise<void> {
  const { type, organizationId, actorId } = event;
  const detail = event.detail ?? null;
  if (type !== 'organization-deleted') {
    await callAdapter(context.options.adapter!, 'createOrganizationEvent', { id: crypto.randomUUID(), organizationId, type, at: new Date(), actorId, subjectId: event.subjectId ?? null, detail });
  }
  await recordSecurityEvent(context, { type, userId: actorId, organizationId, detail });
}
