/**
 * Where organizations live: the `organizations`, `organization_members`, `organization_invitations` and
 * `organization_events` tables of the SQL adapters and the active organization on each session's row
 * (`sessions.active_organization_id`), or maps in memory. An invitation's link is never stored: its SHA-256 digest,
 * looked up through a unique index. Deleting an organization deletes its memberships, invitations and events (the
 * foreign keys cascade) and clears it as any session's active one.
 *
 * The rule that an organization keeps an owner is one conditional statement after a lock on the organization's row
 * (PostgreSQL) or inside SQLite's single writer: of two concurrent demotions or removals of its last two owners, the
 * second finds one owner left and changes nothing.
 */
import type { AdapterUser, Awaitable } from '../../types.js';
import type { FeatureStorage, SqlDatabase } from '../database/adapter.js';
import { OWNER } from './roles.js';

/** An organization. */
export interface OrganizationRecord {
  id: string;
  /** Unique; its pages' path (`<mount>/organizations/<slug>`). */
  slug: string;
  name: string;
  createdAt: Date;
}

/** A user's membership of an organization: the organization and the one role they hold there. */
export interface Membership {
  organization: OrganizationRecord;
  role: string;
  joinedAt: Date;
}

/** A member as the organization's page lists them. */
export interface MemberRecord {
  userId: string;
  name: string | null;
  email: string;
  role: string;
  joinedAt: Date;
}

/** A pending invitation, without its link. */
export interface InvitationRecord {
  id: string;
  organizationId: string;
  /** The invited address, normalised (email-address.ts). */
  email: string;
  role: string;
  /** Who invited; null once their account is deleted. */
  inviterId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** An invitation as stored: its record and the SHA-256 digest of its link's token (hex). */
export interface StoredInvitation extends InvitationRecord {
  digest: string;
}

/** An invitation with its organization and the inviter's name, as its page shows it. */
export interface InvitationWithOrganization extends InvitationRecord {
  organization: OrganizationRecord;
  inviterName: string | null;
}

/** An event of an organization, as its page lists it (the actor's and the subject's names read with it). */
export interface OrganizationEventRecord {
  id: string;
  organizationId: string;
  type: string;
  at: Date;
  actorId: string | null;
  actorName: string | null;
  subjectId: string | null;
  subjectName: string | null;
  /** A role, a name: never a secret or an address. */
  detail: string | null;
}

/** What a change to a membership did: done, refused because it would leave the organization no owner, or no such member. */
export type MembershipChange = 'done' | 'last-owner' | 'not-member';

/** The memberships one check needs (`findMemberships`): the session's active one and the one its request names. */
export interface FoundMemberships {
  active: Membership | null;
  named: Membership | null;
}

declare module '../../contracts.js' {
  interface Adapter {
    /**
     * Not part of Auth.js's interface: stores a new organization with `ownerId` its owner, in one transaction; false
     * when its slug is taken. Organizations (features/organizations/) need it and the methods below.
     */
    createOrganization?(organization: OrganizationRecord, ownerId: AdapterUser['id']): Awaitable<boolean>;
    /** Not part of Auth.js's interface: the organization with this slug or id, or null. */
    getOrganization?(slugOrId: string): Awaitable<OrganizationRecord | null>;
    /** Not part of Auth.js's interface: renames an organization. */
    updateOrganization?(id: string, name: string): Awaitable<void>;
    /** Not part of Auth.js's interface: deletes an organization, its memberships, invitations and events; true when it existed. */
    deleteOrganization?(id: string): Awaitable<boolean>;
    /** Not part of Auth.js's interface: the user's memberships, oldest first. */
    listMemberships?(userId: AdapterUser['id']): Awaitable<Membership[]>;
    /**
     * Not part of Auth.js's interface, read on the requests that check an organization, in one query: the user's
     * membership of the active organization of the session `sessionToken`, and of the organization `organization`
     * names (a slug or an id).
     */
    findMemberships?(userId: AdapterUser['id'], lookup: { sessionToken: string | null; organization: string | null }): Awaitable<FoundMemberships>;
    /** Not part of Auth.js's interface: makes an organization (or none) the session's active one. */
    setActiveOrganization?(sessionToken: string, organizationId: string | null): Awaitable<void>;
    /** Not part of Auth.js's interface: an organization's members, owners first, then by when they joined. */
    listMembers?(organizationId: string): Awaitable<MemberRecord[]>;
    /** Not part of Auth.js's interface: gives a member another role, unless that would leave the organization no owner. */
    changeMemberRole?(organizationId: string, userId: AdapterUser['id'], role: string): Awaitable<MembershipChange>;
    /** Not part of Auth.js's interface: removes a member, unless that would leave the organization no owner. */
    removeMember?(organizationId: string, userId: AdapterUser['id']): Awaitable<MembershipChange>;
    /** Not part of Auth.js's interface: makes `toUserId` (a member) an owner and `fromUserId` (an owner) `formerRole`, in one transaction. */
    transferOwnership?(organizationId: string, fromUserId: AdapterUser['id'], toUserId: AdapterUser['id'], formerRole: string): Awaitable<boolean>;
    /**
     * Not part of Auth.js's interface: stores an invitation, replacing any earlier one to the same address in the
     * organization, unless its members and pending invitations would then number more than `maxMembers`; true when
     * stored.
     */
    createInvitation?(invitation: StoredInvitation, maxMembers: number): Awaitable<boolean>;
    /** Not part of Auth.js's interface: an organization's unexpired invitations, newest first. */
    listInvitations?(organizationId: string, now: Date): Awaitable<InvitationRecord[]>;
    /** Not part of Auth.js's interface: the unexpired invitations to an address, newest first. */
    listInvitationsByEmail?(email: string, now: Date): Awaitable<InvitationWithOrganization[]>;
    /** Not part of Auth.js's interface: the invitation with this digest (expired or not), or null. */
    getInvitation?(digest: string): Awaitable<(InvitationWithOrganization & { digest: string }) | null>;
    /** Not part of Auth.js's interface: deletes an organization's invitation; true when it was there. */
    deleteInvitation?(organizationId: string, id: string): Awaitable<boolean>;
    /** Not part of Auth.js's interface: deletes every invitation to an address (its account deleted, or the address changed). */
    deleteInvitationsTo?(email: string): Awaitable<void>;
    /**
     * Not part of Auth.js's interface: turns the unexpired invitation with this digest into a membership of `userId`
     * (its role; a member keeps the role they hold) and deletes it, in one transaction; false when it was not there.
     */
    acceptInvitation?(digest: string, userId: AdapterUser['id'], now: Date): Awaitable<boolean>;
    /** Not part of Auth.js's interface: stores an organization's event. */
    createOrganizationEvent?(event: Omit<OrganizationEventRecord, 'actorName' | 'subjectName'>): Awaitable<void>;
    /** Not part of Auth.js's interface: an organization's events, newest first, at most `limit`. */
    listOrganizationEvents?(organizationId: string, limit: number): Awaitable<OrganizationEventRecord[]>;
    /** Not part of Auth.js's interface: the organizations of which the user is the only owner while others are members. */
    listSoleOwnerships?(userId: AdapterUser['id']): Awaitable<OrganizationRecord[]>;
    /** Not part of Auth.js's interface: how many memberships hold each role, in every organization. */
    countMembersByRole?(): Awaitable<{ role: string; members: number }[]>;
  }
}

/** The adapter methods organizations call. */
export const organizationMethods = [
  'getUser',
  'getUserByEmail',
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
] as const;

type When = Date | number;

interface MembershipRow {
  id: string;
  slug: string;
  name: string;
  created_at: When;
  role: string;
  joined_at: When;
}

interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: string;
  inviter_id: string | null;
  digest: string;
  created_at: When;
  expires_at: When;
}

const organizationOf = (row: Pick<MembershipRow, 'id' | 'slug' | 'name' | 'created_at'>): OrganizationRecord => ({ id: row.id, slug: row.slug, name: row.name, createdAt: new Date(row.created_at) });
const membershipOf = (row: MembershipRow): Membership => ({ organization: organizationOf(row), role: row.role, joinedAt: new Date(row.joined_at) });

function invitationOf(row: InvitationRow): StoredInvitation {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    role: row.role,
    inviterId: row.inviter_id,
    digest: row.digest,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
  };
}

/** An invitation without its digest. */
function listed({ digest: _digest, ...record }: StoredInvitation): InvitationRecord {
  return record;
}

const membershipColumns = 'o.id, o.slug, o.name, o.created_at, m.role, m.created_at AS joined_at';
const invitationColumns = 'i.id, i.organization_id, i.email, i.role, i.inviter_id, i.digest, i.created_at, i.expires_at';
const withOrganization = `${invitationColumns}, o.slug, o.name, o.created_at AS organization_created_at, u.name AS inviter_name
  FROM organization_invitations i JOIN organizations o ON o.id = i.organization_id LEFT JOIN users u ON u.id = i.inviter_id`;

type InvitationJoinRow = InvitationRow & { slug: string; name: string; organization_created_at: When; inviter_name: string | null };

function invitationWithOrganization(row: InvitationJoinRow): InvitationWithOrganization & { digest: string } {
  return {
    ...invitationOf(row),
    organization: { id: row.organization_id, slug: row.slug, name: row.name, createdAt: new Date(row.organization_created_at) },
    inviterName: row.inviter_name,
  };
}

/**
 * Locks the organization's row for the rest of the transaction (PostgreSQL: a concurrent change of its members waits,
 * then reads what this one wrote; SQLite writes one transaction at a time already).
 */
const lockOrganization = 'UPDATE organizations SET name = name WHERE id = ?';
/** Holds while the organization has another owner than `user_id` (its two placeholders: the organization, the user). */
const anotherOwner = `EXISTS (SELECT 1 FROM organization_members other WHERE other.organization_id = ? AND other.role = '${OWNER}' AND other.user_id <> ?)`;

/** The change a conditional statement made: done, refused for the last owner, or no such member. */
async function changeOutcome(database: SqlDatabase, changed: number, organizationId: string, userId: string): Promise<MembershipChange> {
  if (changed > 0) return 'done';
  const [row] = await database.all<{ role: string }>('SELECT role FROM organization_members WHERE organization_id = ? AND user_id = ?', [organizationId, userId]);
  return row ? 'last-owner' : 'not-member';
}

export const organizationStorage: FeatureStorage = {
  tables: [
    {
      name: 'organizations',
      columns: { id: 'text', slug: 'text', name: 'text', created_at: 'date' },
      primaryKey: ['id'],
      unique: ['slug'],
    },
    {
      name: 'organization_members',
      columns: { organization_id: 'text', user_id: 'text', role: 'text', created_at: 'date' },
      primaryKey: ['organization_id', 'user_id'],
      indexes: ['user_id'],
      references: { organization_id: { table: 'organizations', onDelete: 'cascade' } },
    },
    {
      name: 'organization_invitations',
      columns: { id: 'text', organization_id: 'text', email: 'text', role: 'text', inviter_id: 'text', digest: 'text', created_at: 'date', expires_at: 'date' },
      nullable: ['inviter_id'],
      primaryKey: ['id'],
      unique: ['digest', ['organization_id', 'email']],
      indexes: ['email'],
      references: { organization_id: { table: 'organizations', onDelete: 'cascade' }, inviter_id: { table: 'users', onDelete: 'set null' } },
    },
    {
      name: 'organization_events',
      columns: { id: 'text', organization_id: 'text', type: 'text', at: 'date', actor_id: 'text', subject_id: 'text', detail: 'text' },
      nullable: ['actor_id', 'subject_id', 'detail'],
      primaryKey: ['id'],
      indexes: [['organization_id', 'at']],
      references: {
        organization_id: { table: 'organizations', onDelete: 'cascade' },
        actor_id: { table: 'users', onDelete: 'set null' },
        subject_id: { table: 'users', onDelete: 'set null' },
      },
    },
  ],
  columns: [{ table: 'sessions', name: 'active_organization_id', type: 'text', nullable: true, references: { table: 'organizations', onDelete: 'set null' } }],
  sql: (database) => ({
    async createOrganization(organization, ownerId) {
      const { id, slug, name, createdAt } = organization;
      if ((await database.all('SELECT 1 FROM organizations WHERE slug = ?', [slug])).length > 0) return false;
      try {
        await database.batch([
          ['INSERT INTO organizations (id, slug, name, created_at) VALUES (?, ?, ?, ?)', [id, slug, name, createdAt]],
          ['INSERT INTO organization_members (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)', [id, ownerId, OWNER, createdAt]],
        ]);
      } catch (error) {
        // Another request took the slug between the read and the write: the unique index refused it.
        if ((await database.all('SELECT 1 FROM organizations WHERE slug = ?', [slug])).length > 0) return false;
        throw error;
      }
      return true;
    },
    async getOrganization(slugOrId) {
      const [row] = await database.all<MembershipRow>('SELECT id, slug, name, created_at FROM organizations WHERE slug = ? OR id = ?', [slugOrId, slugOrId]);
      return row ? organizationOf(row) : null;
    },
    async updateOrganization(id, name) {
      await database.run('UPDATE organizations SET name = ? WHERE id = ?', [name, id]);
    },
    async deleteOrganization(id) {
      // The explicit deletes also cover a SQLite connection opened with foreign_keys off.
      const [, , , , deleted] = await database.batch([
        ['UPDATE sessions SET active_organization_id = NULL WHERE active_organization_id = ?', [id]],
        ['DELETE FROM organization_events WHERE organization_id = ?', [id]],
        ['DELETE FROM organization_invitations WHERE organization_id = ?', [id]],
        ['DELETE FROM organization_members WHERE organization_id = ?', [id]],
        ['DELETE FROM organizations WHERE id = ?', [id]],
      ]);
      return (deleted ?? 0) > 0;
    },
    async listMemberships(userId) {
      const rows = await database.all<MembershipRow>(`SELECT ${membershipColumns} FROM organization_members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ? ORDER BY m.created_at, o.slug`, [userId]);
      return rows.map(membershipOf);
    },
    async findMemberships(userId, { sessionToken, organization }) {
      // Each membership found by its key (organization, user): the session's active organization, and the one the
      // request names by slug or id; never a scan of the user's memberships. Without a name, the simpler statement.
      const active = '(SELECT active_organization_id FROM sessions WHERE session_token = ? AND user_id = ?)';
      const rows = await database.all<MembershipRow & { active_id: string | null }>(
        organization === null
          ? `SELECT ${membershipColumns}, o.id AS active_id FROM organization_members m JOIN organizations o ON o.id = m.organization_id
             WHERE m.organization_id = ${active} AND m.user_id = ?`
          : `SELECT ${membershipColumns}, a.active_organization_id AS active_id FROM (SELECT ${active} AS active_organization_id) a
             JOIN organization_members m ON m.user_id = ? AND m.organization_id IN (a.active_organization_id, (SELECT id FROM organizations WHERE slug = ?), ?)
             JOIN organizations o ON o.id = m.organization_id`,
        organization === null ? [sessionToken, userId, userId] : [sessionToken, userId, userId, organization, organization],
      );
      const named = organization === null ? undefined : rows.find((row) => row.slug === organization || row.id === organization);
      const found = rows.find((row) => row.id === row.active_id);
      return { active: found ? membershipOf(found) : null, named: named ? membershipOf(named) : null };
    },
    async setActiveOrganization(sessionToken, organizationId) {
      await database.run('UPDATE sessions SET active_organization_id = ? WHERE session_token = ?', [organizationId, sessionToken]);
    },
    async listMembers(organizationId) {
      const rows = await database.all<{ user_id: string; name: string | null; email: string; role: string; created_at: When }>(
        `SELECT m.user_id, u.name, u.email, m.role, m.created_at FROM organization_members m JOIN users u ON u.id = m.user_id
         WHERE m.organization_id = ? ORDER BY CASE WHEN m.role = '${OWNER}' THEN 0 ELSE 1 END, m.created_at, u.email`,
        [organizationId],
      );
      return rows.map((row) => ({ userId: row.user_id, name: row.name, email: row.email, role: row.role, joinedAt: new Date(row.created_at) }));
    },
    async changeMemberRole(organizationId, userId, role) {
      const [, changed] = await database.batch([
        [lockOrganization, [organizationId]],
        [`UPDATE organization_members SET role = ? WHERE organization_id = ? AND user_id = ? AND (role <> '${OWNER}' OR ? = '${OWNER}' OR ${anotherOwner})`, [role, organizationId, userId, role, organizationId, userId]],
      ]);
      return changeOutcome(database, changed ?? 0, organizationId, userId);
    },
    async removeMember(organizationId, userId) {
      // A session that keeps the organization active finds no membership there on its next request (findMemberships).
      const [, removed] = await database.batch([
        [lockOrganization, [organizationId]],
        [`DELETE FROM organization_members WHERE organization_id = ? AND user_id = ? AND (role <> '${OWNER}' OR ${anotherOwner})`, [organizationId, userId, organizationId, userId]],
      ]);
      return changeOutcome(database, removed ?? 0, organizationId, userId);
    },
    async transferOwnership(organizationId, fromUserId, toUserId, formerRole) {
      const [, promoted, demoted] = await database.batch([
        [lockOrganization, [organizationId]],
        [`UPDATE organization_members SET role = '${OWNER}' WHERE organization_id = ? AND user_id = ? AND EXISTS (SELECT 1 FROM organization_members f WHERE f.organization_id = ? AND f.user_id = ? AND f.role = '${OWNER}')`, [organizationId, toUserId, organizationId, fromUserId]],
        // Only once the other member is an owner: a transfer to someone who is not a member changes nothing.
        [
          `UPDATE organization_members SET role = ? WHERE organization_id = ? AND user_id = ? AND role = '${OWNER}' AND user_id <> ?
           AND EXISTS (SELECT 1 FROM organization_members t WHERE t.organization_id = ? AND t.user_id = ? AND t.role = '${OWNER}')`,
          [formerRole, organizationId, fromUserId, toUserId, organizationId, toUserId],
        ],
      ]);
      return (promoted ?? 0) > 0 && (demoted ?? 0) > 0;
    },
    async createInvitation(invitation, maxMembers) {
      const { id, organizationId, email, role, inviterId, digest, createdAt, expiresAt } = invitation;
      // The members and the other addresses' unexpired invitations, counted after the lock (two concurrent
      // invitations are counted one after the other): over the cap, the earlier invitation to this address stays.
      const fits = `(SELECT count(*) FROM organization_members WHERE organization_id = ?)
        + (SELECT count(*) FROM organization_invitations WHERE organization_id = ? AND email <> ? AND expires_at > ?) < ?`;
      const [, , stored] = await database.batch([
        [lockOrganization, [organizationId]],
        [`DELETE FROM organization_invitations WHERE organization_id = ? AND email = ? AND ${fits}`, [organizationId, email, organizationId, organizationId, email, createdAt, maxMembers]],
        [
          `INSERT INTO organization_invitations (id, organization_id, email, role, inviter_id, digest, created_at, expires_at)
           SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE ${fits}`,
          [id, organizationId, email, role, inviterId, digest, createdAt, expiresAt, organizationId, organizationId, email, createdAt, maxMembers],
        ],
      ]);
      return (stored ?? 0) > 0;
    },
    async listInvitations(organizationId, now) {
      const rows = await database.all<InvitationRow>(`SELECT ${invitationColumns} FROM organization_invitations i WHERE i.organization_id = ? AND i.expires_at > ? ORDER BY i.created_at DESC, i.id`, [organizationId, now]);
      return rows.map((row) => listed(invitationOf(row)));
    },
    async listInvitationsByEmail(email, now) {
      const rows = await database.all<InvitationJoinRow>(`SELECT ${withOrganization} WHERE i.email = ? AND i.expires_at > ? ORDER BY i.created_at DESC, i.id`, [email, now]);
      return rows.map((row) => listed(invitationWithOrganization(row)) as InvitationWithOrganization);
    },
    async getInvitation(digest) {
      const [row] = await database.all<InvitationJoinRow>(`SELECT ${withOrganization} WHERE i.digest = ?`, [digest]);
      return row ? invitationWithOrganization(row) : null;
    },
    async deleteInvitation(organizationId, id) {
      return (await database.run('DELETE FROM organization_invitations WHERE organization_id = ? AND id = ?', [organizationId, id])) > 0;
    },
    async deleteInvitationsTo(email) {
      await database.run('DELETE FROM organization_invitations WHERE email = ?', [email]);
    },
    async acceptInvitation(digest, userId, now) {
      const [, , used] = await database.batch([
        // Locks the invitation's row (PostgreSQL): a concurrent acceptance waits, then finds it gone and adds no member.
        ['UPDATE organization_invitations SET role = role WHERE digest = ?', [digest]],
        [
          `INSERT INTO organization_members (organization_id, user_id, role, created_at)
           SELECT organization_id, ?, role, ? FROM organization_invitations WHERE digest = ? AND expires_at > ?
           ON CONFLICT (organization_id, user_id) DO NOTHING`,
          [userId, now, digest, now],
        ],
        ['DELETE FROM organization_invitations WHERE digest = ? AND expires_at > ?', [digest, now]],
      ]);
      return (used ?? 0) > 0;
    },
    async createOrganizationEvent(event) {
      const { id, organizationId, type, at, actorId, subjectId, detail } = event;
      await database.run('INSERT INTO organization_events (id, organization_id, type, at, actor_id, subject_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)', [id, organizationId, type, at, actorId, subjectId, detail]);
    },
    async listOrganizationEvents(organizationId, limit) {
      const rows = await database.all<{ id: string; organization_id: string; type: string; at: When; actor_id: string | null; actor_name: string | null; subject_id: string | null; subject_name: string | null; detail: string | null }>(
        `SELECT e.id, e.organization_id, e.type, e.at, e.actor_id, a.name AS actor_name, e.subject_id, s.name AS subject_name, e.detail
         FROM organization_events e LEFT JOIN users a ON a.id = e.actor_id LEFT JOIN users s ON s.id = e.subject_id
         WHERE e.organization_id = ? ORDER BY e.at DESC, e.id LIMIT ?`,
        [organizationId, limit],
      );
      return rows.map((row) => ({ id: row.id, organizationId: row.organization_id, type: row.type, at: new Date(row.at), actorId: row.actor_id, actorName: row.actor_name, subjectId: row.subject_id, subjectName: row.subject_name, detail: row.detail }));
    },
    async listSoleOwnerships(userId) {
      const rows = await database.all<MembershipRow>(
        `SELECT o.id, o.slug, o.name, o.created_at FROM organization_members m JOIN organizations o ON o.id = m.organization_id
         WHERE m.user_id = ? AND m.role = '${OWNER}'
           AND NOT EXISTS (SELECT 1 FROM organization_members other WHERE other.organization_id = o.id AND other.role = '${OWNER}' AND other.user_id <> m.user_id)
           AND EXISTS (SELECT 1 FROM organization_members other WHERE other.organization_id = o.id AND other.user_id <> m.user_id)
         ORDER BY o.slug`,
        [userId],
      );
      return rows.map(organizationOf);
    },
    async countMembersByRole() {
      const rows = await database.all<{ role: string; members: number | string }>('SELECT role, count(*) AS members FROM organization_members GROUP BY role ORDER BY role', []);
      return rows.map((row) => ({ role: row.role, members: Number(row.members) }));
    },
  }),
  memory: memoryOrganizations,
};

/** The same methods over maps, for MemoryAdapter: one process, so each method is atomic by running to its end. */
function memoryOrganizations(users: ReadonlyMap<string, AdapterUser>): ReturnType<FeatureStorage['memory']> {
  const organizations = new Map<string, OrganizationRecord>();
  /** Members by organization id, then user id: role and when they joined. */
  const members = new Map<string, Map<string, { role: string; joinedAt: Date }>>();
  const invitations = new Map<string, StoredInvitation>();
  let events: Omit<OrganizationEventRecord, 'actorName' | 'subjectName'>[] = [];
  /** Active organization by session token (its membership is checked when read). */
  const active = new Map<string, string>();
  const byKey = (slugOrId: string): OrganizationRecord | undefined => organizations.get(slugOrId) ?? [...organizations.values()].find((organization) => organization.slug === slugOrId);
  const membership = (organizationId: string, userId: string): Membership | null => {
    const organization = organizations.get(organizationId);
    const member = members.get(organizationId)?.get(userId);
    return organization && member ? { organization: structuredClone(organization), role: member.role, joinedAt: new Date(member.joinedAt) } : null;
  };
  const owners = (organizationId: string): string[] => [...(members.get(organizationId) ?? new Map()).entries()].filter(([, member]) => member.role === OWNER).map(([userId]) => userId);
  const keepsOwner = (organizationId: string, userId: string): boolean => owners(organizationId).some((owner) => owner !== userId);
  const pending = (organizationId: string, now: Date): StoredInvitation[] =>
    [...invitations.values()].filter((invitation) => invitation.organizationId === organizationId && invitation.expiresAt > now).sort((a, b) => b.createdAt.valueOf() - a.createdAt.valueOf());
  const withOrganization = (invitation: StoredInvitation): InvitationWithOrganization & { digest: string } => ({
    ...structuredClone(invitation),
    organization: structuredClone(organizations.get(invitation.organizationId)!),
    inviterName: (invitation.inviterId === null ? undefined : users.get(invitation.inviterId)?.name) ?? null,
  });
  return {
    forgetUser(userId) {
      for (const group of members.values()) group.delete(userId);
      for (const invitation of invitations.values()) if (invitation.inviterId === userId) invitation.inviterId = null;
      for (const event of events) {
        if (event.actorId === userId) event.actorId = null;
        if (event.subjectId === userId) event.subjectId = null;
      }
    },
    methods: {
      async createOrganization(organization, ownerId) {
        if (!users.has(ownerId)) throw new Error(`createOrganization: no user has the id ${JSON.stringify(ownerId)}`);
        if (byKey(organization.slug)) return false;
        organizations.set(organization.id, structuredClone(organization));
        members.set(organization.id, new Map([[ownerId, { role: OWNER, joinedAt: new Date(organization.createdAt) }]]));
        return true;
      },
      async getOrganization(slugOrId) {
        const found = byKey(slugOrId);
        return found ? structuredClone(found) : null;
      },
      async updateOrganization(id, name) {
        const found = organizations.get(id);
        if (found) found.name = name;
      },
      async deleteOrganization(id) {
        if (!organizations.delete(id)) return false;
        members.delete(id);
        for (const [key, invitation] of invitations) if (invitation.organizationId === id) invitations.delete(key);
        events = events.filter((event) => event.organizationId !== id);
        for (const [token, organizationId] of active) if (organizationId === id) active.delete(token);
        return true;
      },
      async listMemberships(userId) {
        const found = [...organizations.keys()].map((id) => membership(id, userId)).filter((entry): entry is Membership => entry !== null);
        return found.sort((a, b) => a.joinedAt.valueOf() - b.joinedAt.valueOf() || a.organization.slug.localeCompare(b.organization.slug));
      },
      async findMemberships(userId, { sessionToken, organization }) {
        const activeId = sessionToken === null ? undefined : active.get(sessionToken);
        const named = organization === null ? undefined : byKey(organization);
        return {
          active: activeId === undefined ? null : membership(activeId, userId),
          named: named ? membership(named.id, userId) : null,
        };
      },
      async setActiveOrganization(sessionToken, organizationId) {
        if (organizationId === null) active.delete(sessionToken);
        else active.set(sessionToken, organizationId);
      },
      async listMembers(organizationId) {
        const list = [...(members.get(organizationId) ?? new Map<string, { role: string; joinedAt: Date }>()).entries()].flatMap(([userId, member]) => {
          const user = users.get(userId);
          return user ? [{ userId, name: user.name ?? null, email: user.email, role: member.role, joinedAt: new Date(member.joinedAt) }] : [];
        });
        return list.sort((a, b) => Number(b.role === OWNER) - Number(a.role === OWNER) || a.joinedAt.valueOf() - b.joinedAt.valueOf() || a.email.localeCompare(b.email));
      },
      async changeMemberRole(organizationId, userId, role) {
        const member = members.get(organizationId)?.get(userId);
        if (!member) return 'not-member';
        if (member.role === OWNER && role !== OWNER && !keepsOwner(organizationId, userId)) return 'last-owner';
        member.role = role;
        return 'done';
      },
      async removeMember(organizationId, userId) {
        const group = members.get(organizationId);
        const member = group?.get(userId);
        if (!group || !member) return 'not-member';
        if (member.role === OWNER && !keepsOwner(organizationId, userId)) return 'last-owner';
        group.delete(userId);
        return 'done';
      },
      async transferOwnership(organizationId, fromUserId, toUserId, formerRole) {
        const group = members.get(organizationId);
        const from = group?.get(fromUserId);
        const to = group?.get(toUserId);
        if (!from || !to || from.role !== OWNER || fromUserId === toUserId) return false;
        to.role = OWNER;
        from.role = formerRole;
        return true;
      },
      async createInvitation(invitation, maxMembers) {
        if (!organizations.has(invitation.organizationId)) throw new Error(`createInvitation: no organization has the id ${JSON.stringify(invitation.organizationId)}`);
        const earlier = [...invitations.values()].find((stored) => stored.organizationId === invitation.organizationId && stored.email === invitation.email);
        const taken = (members.get(invitation.organizationId)?.size ?? 0) + pending(invitation.organizationId, invitation.createdAt).filter((stored) => stored !== earlier).length;
        if (taken + 1 > maxMembers) return false;
        if (earlier) invitations.delete(earlier.id);
        invitations.set(invitation.id, structuredClone(invitation));
        return true;
      },
      async listInvitations(organizationId, now) {
        return pending(organizationId, now).map((invitation) => listed(structuredClone(invitation)));
      },
      async listInvitationsByEmail(email, now) {
        const found = [...invitations.values()].filter((invitation) => invitation.email === email && invitation.expiresAt > now);
        return found.sort((a, b) => b.createdAt.valueOf() - a.createdAt.valueOf()).map((invitation) => listed(withOrganization(invitation)) as InvitationWithOrganization);
      },
      async getInvitation(digest) {
        const found = [...invitations.values()].find((invitation) => invitation.digest === digest);
        return found ? withOrganization(found) : null;
      },
      async deleteInvitation(organizationId, id) {
        if (invitations.get(id)?.organizationId !== organizationId) return false;
        return invitations.delete(id);
      },
      async deleteInvitationsTo(email) {
        for (const [id, invitation] of invitations) if (invitation.email === email) invitations.delete(id);
      },
      async acceptInvitation(digest, userId, now) {
        if (!users.has(userId)) throw new Error(`acceptInvitation: no user has the id ${JSON.stringify(userId)}`);
        const found = [...invitations.values()].find((invitation) => invitation.digest === digest && invitation.expiresAt > now);
        if (!found) return false;
        invitations.delete(found.id);
        const group = members.get(found.organizationId);
        if (group && !group.has(userId)) group.set(userId, { role: found.role, joinedAt: new Date(now) });
        return true;
      },
      async createOrganizationEvent(event) {
        if (!organizations.has(event.organizationId)) throw new Error(`createOrganizationEvent: no organization has the id ${JSON.stringify(event.organizationId)}`);
        events.push(structuredClone(event));
      },
      async listOrganizationEvents(organizationId, limit) {
        const own = events.filter((event) => event.organizationId === organizationId).sort((a, b) => b.at.valueOf() - a.at.valueOf());
        const nameOf = (id: string | null): string | null => (id === null ? null : (users.get(id)?.name ?? null));
        return own.slice(0, limit).map((event) => ({ ...structuredClone(event), actorName: nameOf(event.actorId), subjectName: nameOf(event.subjectId) }));
      },
      async listSoleOwnerships(userId) {
        const found = [...organizations.values()].filter((organization) => {
          const group = members.get(organization.id);
          return group?.get(userId)?.role === OWNER && !keepsOwner(organization.id, userId) && group.size > 1;
        });
        return found.sort((a, b) => a.slug.localeCompare(b.slug)).map((organization) => structuredClone(organization));
      },
      async countMembersByRole() {
        const counts = new Map<string, number>();
        for (const group of members.values()) for (const member of group.values()) counts.set(member.role, (counts.get(member.role) ?? 0) + 1);
        return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([role, count]) => ({ role, members: count }));
      },
    },
  };
}
