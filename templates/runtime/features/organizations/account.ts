/**
 * The organizations' part of the account (`Feature.account`): a section listing the user's organizations and roles
 * with a link to `<mount>/organizations` (and the same in the page's JSON), the memberships in the export, and a
 * refusal to delete the account of an organization's only owner while others are members: an organization always
 * keeps an owner, so the user transfers its ownership or deletes it first. The invitations to an address the user no
 * longer has are deleted with it.
 */
import { html } from '../../pages/html.js';
import type { AccountPart, AccountPartRequest } from '../database/account-parts.js';
import { callAdapter } from '../database/adapter.js';
import type { Membership } from './storage.js';

function membershipsOf({ adapter, user }: AccountPartRequest): Promise<Membership[]> {
  return callAdapter(adapter, 'listMemberships', user.id);
}

export const organizationsAccountPart: AccountPart = {
  order: 5,
  async view(request) {
    const memberships = await membershipsOf(request);
    return {
      json: { organizations: memberships.map(({ organization: { id, slug, name }, role }) => ({ id, slug, name, role })) },
      links: { organizations: true },
      html: (page) => ({
        section: {
          heading: 'Organizations',
          rows:
            memberships.length > 0
              ? memberships.map(({ organization, role }) => html`<li><a href="${page.mountPath}/organizations/${encodeURIComponent(organization.slug)}">${organization.name}</a> <span class="muted">(${role})</span></li>`)
              : [html`<li class="muted">You belong to no organization yet.</li>`],
          links: [html`<a href="${page.mountPath}/organizations">Your organizations</a>`],
        },
      }),
    };
  },
  async export(request) {
    const memberships = await membershipsOf(request);
    return { organizations: memberships.map(({ organization: { slug, name }, role, joinedAt }) => ({ slug, name, role, joinedAt: new Date(joinedAt).toISOString() })) };
  },
  // Invitations are keyed by the address alone: no cascade from the user reaches them.
  async forgetAddress(_options, adapter, email) {
    await callAdapter(adapter, 'deleteInvitationsTo', email);
  },
  async beforeDelete({ adapter, user }) {
    const sole = await callAdapter(adapter, 'listSoleOwnerships', user.id);
    if (sole.length === 0) return undefined;
    const names = sole.map((organization) => organization.name).join(', ');
    return `You are the only owner of ${names}, where others are members. Transfer ownership of ${names} or delete ${sole.length === 1 ? 'it' : 'them'} first.`;
  },
};
