/**
 * Roles and permissions of organizations (SPEC §14): a permission is `resource:action`, a role a set of permissions,
 * a member holds one role. `owner` holds every permission; `admin` and `member` have defaults an app may replace, and
 * an app adds its own roles. The permission names are a type (`OrganizationPermissions`, which an app extends with
 * `declare module`), so that `requirePermission('projet:create')` is a compile error; a JavaScript app gets the same
 * refusal when the guard is made.
 */
import type { AdapterUser, Awaitable } from '../../types.js';
import type { OrganizationsMailOptions } from './mail.js';

/**
 * The permissions roles grant: the feature's own below; an app adds its own by declaration:
 * @example
 * declare module './core/features/organizations/index.js' {
 *   interface OrganizationPermissions { 'project:create': true }
 * }
 */
export interface OrganizationPermissions {
  'organization:read': true;
  'organization:update': true;
  'organization:delete': true;
  'member:invite': true;
  'member:remove': true;
  'member:role': true;
  'invitation:cancel': true;
  'api-key:create': true;
}

/** A permission's name (`member:invite`). */
export type Permission = keyof OrganizationPermissions & string;

/** The role that holds every permission, of which an organization always keeps one. */
export const OWNER = 'owner';

/** The feature's own permissions, which `owner` holds with every permission a role of the config names. */
export const builtInPermissions: readonly Permission[] = [
  'organization:read',
  'organization:update',
  'organization:delete',
  'member:invite',
  'member:remove',
  'member:role',
  'invitation:cancel',
  'api-key:create',
];

/** The default roles beside `owner` (SPEC §14). */
export const defaultRoles: Readonly<Record<string, readonly Permission[]>> = {
  admin: ['organization:read', 'organization:update', 'member:invite', 'member:remove', 'member:role', 'invitation:cancel', 'api-key:create'],
  member: ['organization:read'],
};

/**
 * The options of `Organizations()`; `server`, `from` and `sendMessage` choose how invitations and removal notices are
 * sent (AUTH_EMAIL_SERVER and AUTH_EMAIL_FROM by default; printed on the console outside production without them).
 */
export interface OrganizationsOptions extends OrganizationsMailOptions {
  /**
   * Roles beside `owner` (who holds every permission), by name: each its permissions. A role named here replaces the
   * default of that name (`admin`, `member`); the others are kept. A membership whose role the config no longer
   * defines has no permission (named at startup and by `doctor`).
   * @default { admin: [organization:read, organization:update, member:invite, member:remove, member:role, invitation:cancel, api-key:create], member: [organization:read] }
   * @example roles: { member: ['organization:read', 'project:read'], developer: ['organization:read', 'project:read', 'project:create'] }
   */
  roles?: Readonly<Record<string, readonly Permission[]>>;
  /** Days an invitation's link works. @default 7 */
  invitationExpiresInDays?: number;
  /** The most members an organization may have, its pending invitations counted. @default 100 */
  maxMembers?: number;
  /** Whether a signed-in user may create organizations (a function decides per user). @default true */
  allowUserToCreate?: boolean | ((user: AdapterUser) => Awaitable<boolean>);
}

/** The options checked, with their defaults: every role (owner first) with its permissions. */
export interface OrganizationSettings {
  roles: ReadonlyMap<string, ReadonlySet<string>>;
  /** Every permission some role grants: what a guard may name. */
  permissions: ReadonlySet<string>;
  invitationExpiresInDays: number;
  maxMembers: number;
  allowUserToCreate: (user: AdapterUser) => Awaitable<boolean>;
}

/** A role's name: lowercase letters, digits and `-`, starting with a letter. */
const roleName = /^[a-z][a-z0-9-]{0,31}$/;
/** A permission's name: `resource:action`, each lowercase letters, digits and `-`. */
const permissionName = /^[a-z][a-z0-9-]*:[a-z][a-z0-9-]*$/;

function wholeNumber(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new TypeError(`Organizations({ ${name} }) must be a whole number from ${min} to ${max} (got ${String(value)})`);
  return value;
}

/** Checks `Organizations()`'s options when the config is written, each refusal naming the option and what is valid. */
export function resolveOrganizations(options: OrganizationsOptions): OrganizationSettings {
  const given = options.roles ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new TypeError('Organizations({ roles }) must map role names to lists of permissions, like { developer: ["project:create"] }');
  if (Object.hasOwn(given, OWNER)) throw new TypeError('Organizations({ roles }) cannot define "owner": an owner holds every permission.');
  const named = { ...defaultRoles, ...given };
  const roles = new Map<string, ReadonlySet<string>>();
  const every = new Set<string>(builtInPermissions);
  for (const [role, permissions] of Object.entries(named)) {
    if (!roleName.test(role)) throw new TypeError(`Organizations({ roles }): "${role}" is not a role name: use lowercase letters, digits and "-" (like "billing-admin").`);
    if (!Array.isArray(permissions) || permissions.some((permission) => typeof permission !== 'string' || !permissionName.test(permission))) {
      throw new TypeError(`Organizations({ roles: { ${role} } }) must be a list of permissions named "resource:action" (like "project:create").`);
    }
    for (const permission of permissions) every.add(permission);
    roles.set(role, new Set(permissions));
  }
  const all = new Map<string, ReadonlySet<string>>([[OWNER, every], ...roles]);
  const allow = options.allowUserToCreate ?? true;
  if (typeof allow !== 'boolean' && typeof allow !== 'function') throw new TypeError('Organizations({ allowUserToCreate }) must be true, false or a function of the user.');
  return {
    roles: all,
    permissions: every,
    invitationExpiresInDays: wholeNumber('invitationExpiresInDays', options.invitationExpiresInDays ?? 7, 1, 365),
    maxMembers: wholeNumber('maxMembers', options.maxMembers ?? 100, 1, 1_000_000),
    allowUserToCreate: typeof allow === 'function' ? allow : () => allow,
  };
}

/** Whether `role` grants `permission`: a role the config does not define grants nothing. */
export function roleGrants(settings: OrganizationSettings, role: string, permission: string): boolean {
  return settings.roles.get(role)?.has(permission) ?? false;
}

/** Whether role `actor` holds every permission of role `role`; only an owner holds `owner`. */
function holdsRole(settings: OrganizationSettings, actor: string, role: string): boolean {
  if (role === OWNER) return actor === OWNER;
  const granted = settings.roles.get(role);
  return granted !== undefined && [...granted].every((permission) => roleGrants(settings, actor, permission));
}

/**
 * Whether a member with role `actor` may give (or take away) role `role`: they hold `member:role` and every
 * permission of that role; only an owner gives or takes `owner`.
 */
export function mayGrant(settings: OrganizationSettings, actor: string, role: string): boolean {
  return roleGrants(settings, actor, 'member:role') && holdsRole(settings, actor, role);
}

/**
 * Whether a member with role `actor` may invite someone as `role`: they hold `member:invite` and every permission of
 * that role (an invitation grants the role once accepted); only an owner invites an owner.
 */
export function mayInviteAs(settings: OrganizationSettings, actor: string, role: string): boolean {
  return roleGrants(settings, actor, 'member:invite') && holdsRole(settings, actor, role);
}

/** The names of the permissions a guard was given, checked against the config's roles when the guard is made. */
export function checkedPermissions(settings: OrganizationSettings, permissions: string | readonly string[], where: string): readonly string[] {
  const list = typeof permissions === 'string' ? [permissions] : [...permissions];
  if (list.length === 0) throw new TypeError(`${where}: name at least one permission.`);
  for (const permission of list) {
    if (typeof permission !== 'string' || !settings.permissions.has(permission)) {
      throw new TypeError(`${where}: no role grants the permission ${JSON.stringify(permission)}; the roles grant ${[...settings.permissions].sort().join(', ')}.`);
    }
  }
  return list;
}
