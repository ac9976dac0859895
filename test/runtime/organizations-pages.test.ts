// The organizations' pages as rendered (features/organizations/pages.ts): each form only with the permission that
// allows it, every form with the CSRF token, names escaped, a refused form's errors beside its fields, and the
// invitation's page never showing the invited address to another user nor the link's token.
import { describe, expect, it } from 'vitest';
import { renderInvitationPage, renderOrganizationPage, renderOrganizationsPage } from '../../templates/runtime/features/organizations/pages.js';
import { CSRF, TOKEN, everyPermission, invitation, invitationPage, listPage, noPermission, organizationPage } from '../support/organization-pages.js';

/** The actions of the page's forms, in order. */
function actionsOf(page: string): string[] {
  return [...page.matchAll(/name="action" value="([^"]+)"/g)].map((match) => match[1]!);
}

function expectEveryFormHasCsrf(page: string): void {
  const forms = page.match(/<form /g) ?? [];
  expect(forms.length).toBeGreaterThan(0);
  expect((page.match(new RegExp(`<input type="hidden" name="csrfToken" value="${CSRF}">`, 'g')) ?? []).length).toBe(forms.length);
  expect((page.match(/method="POST"/g) ?? []).length).toBe(forms.length);
}

describe('the organizations page', () => {
  it('lists each membership with its role, marks the active one, and offers Switch for the others and Leave for each', () => {
    const page = renderOrganizationsPage(listPage());
    expect(page).toContain('<a href="/auth/organizations/acme">Acme &lt;script&gt;alert(1)&lt;/script&gt;</a> <span class="muted">(owner)</span><span class="badge">active</span>');
    expect(page).toContain('<a href="/auth/organizations/beta">Beta</a> <span class="muted">(member)</span></span>');
    expect(actionsOf(page)).toEqual(['leave', 'switch', 'leave', 'create']);
    expect(page).toContain('<input type="hidden" name="action" value="switch"><input type="hidden" name="organization" value="org-2"><button type="submit" class="secondary" aria-label="Switch to Beta">Switch</button>');
    expect(page).toContain('name="organization" value="org-1"><button type="submit" class="secondary" aria-label="Leave Acme &lt;script&gt;alert(1)&lt;/script&gt;">Leave</button>');
    expect(page).toContain('<form action="/auth/organizations" method="POST">');
    expectEveryFormHasCsrf(page);
    expect(page).not.toContain('<script>');
  });

  it('lists the invitations to the user with organization, role, inviter and expiry, and says to open the email’s link', () => {
    const page = renderOrganizationsPage(listPage());
    expect(page).toContain('<strong>Beta</strong> <span class="muted">(member)</span><p class="hint">Invited by Olive &lt;b&gt;Owner&lt;/b&gt; · expires 2026-02-08 00:00 UTC</p>');
    expect(page).toContain('open the link in the email');
    expect(page).not.toContain('/organizations/invitations/');
  });

  it('shows the create form with a name and an optional slug with its hint, only when the user may create', () => {
    const page = renderOrganizationsPage(listPage());
    expect(page).toContain('<label for="org-name">Name</label><input id="org-name" name="name" type="text" maxlength="100" required value="">');
    expect(page).toContain('<label for="org-slug">Address (optional)</label><input id="org-slug" name="slug"');
    expect(page).toContain('aria-describedby="org-slug-hint"><p class="hint" id="org-slug-hint">');
    const refused = renderOrganizationsPage(listPage({ mayCreate: false }));
    expect(refused).not.toContain('name="action" value="create"');
    expect(refused).not.toContain('id="org-name"');
  });

  it('says when the user belongs to no organization and has no invitations', () => {
    const page = renderOrganizationsPage(listPage({ memberships: [], invitations: [] }));
    expect(page).toContain('You belong to no organization yet.');
    expect(page).toContain('No invitations to your address.');
    expect(actionsOf(page)).toEqual(['create']);
  });

  it('shows a refused create form’s errors beside its fields, keeping what was sent (escaped)', () => {
    const page = renderOrganizationsPage(listPage({ errors: { slug: 'The address "acme" is taken.' }, sent: { action: 'create', name: 'Acme "2"', slug: 'acme' } }));
    expect(page).toContain('<input id="org-slug" name="slug" type="text" maxlength="48" autocapitalize="none" spellcheck="false" value="acme" aria-invalid="true" aria-describedby="org-slug-hint org-slug-error">');
    expect(page).toContain('<p class="field-error" id="org-slug-error">The address &quot;acme&quot; is taken.</p>');
    expect(page).toContain('value="Acme &quot;2&quot;">');
    expect(page).toContain('<div class="error" role="alert"><p>The form was not accepted: see the field below.</p></div>');
  });

  it('shows a refused Leave beside that organization’s buttons', () => {
    const page = renderOrganizationsPage(listPage({ errors: { organization: 'You are the last owner of Acme.' }, sent: { action: 'leave', organization: 'org-1' } }));
    expect(page).toContain('aria-label="Leave Acme &lt;script&gt;alert(1)&lt;/script&gt;" aria-describedby="membership-0-error">Leave</button>');
    expect(page).toContain('<p class="field-error" id="membership-0-error">You are the last owner of Acme.</p>');
    expect(page).not.toContain('membership-1-error');
  });

  it('shows an error no form takes at the top, and a notice', () => {
    const page = renderOrganizationsPage(listPage({ errors: { form: 'You have too many <organizations>.' }, sent: { action: 'create' }, notice: 'Switched to Beta.' }));
    expect(page).toContain('<div class="error" role="alert"><p>You have too many &lt;organizations&gt;.</p></div>');
    expect(page).toContain('<div class="notice" role="status"><p>Switched to Beta.</p></div>');
  });
});

describe("an organization's page", () => {
  it('shows the name (escaped), the viewer’s role and the members with name, address, role and join date', () => {
    const page = renderOrganizationPage(organizationPage({ may: noPermission, role: 'member', userId: 'user-member' }));
    expect(page).toContain('<h1>Acme &lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(page).toContain('<title>Acme &lt;script&gt;alert(1)&lt;/script&gt;</title>');
    expect(page).toContain('Your role: member');
    expect(page).toContain('<td>&lt;img src=x onerror=alert(1)&gt;<br><span class="hint">adam@example.test</span></td><td>admin</td><td class="nowrap">2026-01-05</td>');
    expect(page).toContain('<td>mia@example.test</td><td>member <span class="muted">(you)</span></td><td class="nowrap">2026-01-06</td>');
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img src=x');
  });

  it('offers no form to a member without permissions, nor the pending invitations’ forms or the events', () => {
    const page = renderOrganizationPage(organizationPage({ may: noPermission, role: 'member', userId: 'user-member', invitations: [] }));
    expect(page).not.toContain('<form');
    expect(page).not.toContain('Activity');
    expect(page).not.toContain('Invite someone');
    expect(page).not.toContain('Delete this organization');
  });

  it('gives an owner every form: role, remove and transfer for the other members, invite, cancel, rename, delete', () => {
    const page = renderOrganizationPage(organizationPage());
    expect(actionsOf(page)).toEqual(['role', 'remove', 'transfer', 'role', 'remove', 'transfer', 'invite', 'cancel-invitation', 'update', 'delete']);
    expectEveryFormHasCsrf(page);
    expect(page.match(/<form action="\/auth\/organizations\/acme" method="POST">/g)).toHaveLength(9);
    expect(page).toContain('<form class="danger" action="/auth/organizations/acme" method="POST">');
    // The member's role form: a labelled select of the grantable roles, the current one chosen.
    expect(page).toContain(
      '<input type="hidden" name="userId" value="user-member"><label class="visually-hidden" for="member-2-role">Role of mia@example.test</label><select id="member-2-role" name="role"><option value="owner">owner</option><option value="admin">admin</option><option value="member" selected>member</option></select>',
    );
    expect(page).toContain('name="userId" value="user-admin"><button type="submit" class="secondary" aria-label="Transfer ownership to &lt;img src=x onerror=alert(1)&gt;">Transfer ownership</button>');
    // Their own row has no buttons.
    expect(page).not.toContain('value="user-owner"');
  });

  it('lets an admin change and remove only non-owners, never transfer or delete', () => {
    const page = renderOrganizationPage(
      organizationPage({ role: 'admin', userId: 'user-admin', may: { ...everyPermission, transfer: false, delete: false }, grantable: ['admin', 'member'] }),
    );
    expect(actionsOf(page)).toEqual(['role', 'remove', 'invite', 'cancel-invitation', 'update']);
    expect(page).toContain('name="userId" value="user-member"');
    expect(page).not.toContain('name="userId" value="user-owner"');
    expect(page).toContain('<select id="invite-role" name="role"><option value="admin">admin</option><option value="member" selected>member</option></select>');
  });

  it('offers no role form for a member whose role the viewer may not give', () => {
    const page = renderOrganizationPage(organizationPage({ role: 'admin', userId: 'user-admin', may: { ...noPermission, role: true }, grantable: ['member'], members: [{ userId: 'u', name: 'Bo', email: 'bo@example.test', role: 'billing', joinedAt: new Date(0) }] }));
    expect(page).not.toContain('<form');
  });

  it('lists pending invitations with address, role and expiry, and Cancel only with the permission', () => {
    const withCancel = renderOrganizationPage(organizationPage());
    expect(withCancel).toContain('new@example.test <span class="muted">(member)</span><br><span class="hint">expires 2026-02-08 00:00 UTC</span>');
    expect(withCancel).toContain('<input type="hidden" name="action" value="cancel-invitation"><input type="hidden" name="id" value="inv-1"><button type="submit" class="secondary" aria-label="Cancel the invitation to new@example.test">Cancel</button>');
    const withoutCancel = renderOrganizationPage(organizationPage({ may: { ...everyPermission, cancel: false } }));
    expect(withoutCancel).toContain('new@example.test');
    expect(withoutCancel).not.toContain('cancel-invitation');
  });

  it('asks for the slug typed to delete, and says a recent sign-in is needed', () => {
    const page = renderOrganizationPage(organizationPage());
    expect(page).toContain('<label for="org-delete-confirm">Type <code>acme</code> to confirm</label><input id="org-delete-confirm" name="confirm" type="text"');
    expect(page).toContain('needs a recent sign-in');
    expect(page).toContain('<button type="submit">Delete Acme &lt;script&gt;alert(1)&lt;/script&gt;</button>');
  });

  it('lists the events with their labels, actor, subject, detail and date; an unlabelled type as "Organization event"', () => {
    const page = renderOrganizationPage(organizationPage());
    expect(page).toContain('<li><strong>Role changed</strong> <span class="muted">(admin)</span><br><span class="hint">by Olive Owner · mia@example.test · 2026-02-02 10:30 UTC</span></li>');
    expect(page).toContain('<li><strong>Organization event</strong><br><span class="hint">by a deleted account · 2026-02-03 00:00 UTC</span></li>');
    expect(page).not.toContain('function Object');
    // A member who joined is the event's actor and subject: named once.
    const joined = { id: 'e3', organizationId: 'org-acme', type: 'member-joined', at: new Date('2026-02-04T00:00:00Z'), actorId: 'user-mia', actorName: 'Mia', subjectId: 'user-mia', subjectName: 'Mia', detail: 'member' };
    expect(renderOrganizationPage(organizationPage({ events: [joined] }))).toContain('<span class="hint">by Mia · 2026-02-04 00:00 UTC</span>');
  });

  it('shows a refused invite’s errors beside its fields, keeping the address and role sent', () => {
    const page = renderOrganizationPage(organizationPage({ errors: { email: 'Enter an email address.', role: 'You may not give "owner".' }, sent: { action: 'invite', email: 'not-an-address', role: 'admin' } }));
    expect(page).toContain('<input id="invite-email" name="email" type="email" autocomplete="off" required value="not-an-address" aria-invalid="true" aria-describedby="invite-email-error"><p class="field-error" id="invite-email-error">Enter an email address.</p>');
    expect(page).toContain('<select id="invite-role" name="role" aria-invalid="true" aria-describedby="invite-role-error"><option value="owner">owner</option><option value="admin" selected>admin</option>');
    expect(page).toContain('<p class="field-error" id="invite-role-error">You may not give &quot;owner&quot;.</p>');
    // The members' role selects are another form: untouched.
    expect(page).not.toMatch(/id="member-\d-role-error"/);
  });

  it('shows a refused role change beside that member’s select, and a refused removal beside that member’s buttons', () => {
    const role = renderOrganizationPage(organizationPage({ errors: { role: 'The organization needs an owner.' }, sent: { action: 'role', userId: 'user-admin', role: 'owner' } }));
    expect(role).toContain('<select id="member-1-role" name="role" aria-invalid="true" aria-describedby="member-1-role-error"><option value="owner" selected>owner</option><option value="admin">admin</option><option value="member">member</option>');
    expect(role).toContain('<p class="field-error" id="member-1-role-error">The organization needs an owner.</p>');
    expect(role).not.toContain('invite-role-error');
    // Only that member's select keeps the role sent; the others show the role held.
    expect(role).toContain('<select id="member-2-role" name="role"><option value="owner">owner</option><option value="admin">admin</option><option value="member" selected>member</option>');
    const remove = renderOrganizationPage(organizationPage({ errors: { userId: 'No such member.' }, sent: { action: 'remove', userId: 'user-member' } }));
    expect(remove).toContain('aria-label="Remove mia@example.test" aria-describedby="member-2-error">Remove</button>');
    expect(remove).toContain('aria-label="Transfer ownership to mia@example.test" aria-describedby="member-2-error">');
    expect(remove).toContain('<p class="field-error" id="member-2-error">No such member.</p>');
  });

  it('shows refused rename and delete errors beside their fields', () => {
    const rename = renderOrganizationPage(organizationPage({ errors: { name: 'Name it.' }, sent: { action: 'update', name: '' } }));
    expect(rename).toContain('<input id="org-name" name="name" type="text" maxlength="100" required value="" aria-invalid="true" aria-describedby="org-name-error"><p class="field-error" id="org-name-error">Name it.</p>');
    const remove = renderOrganizationPage(organizationPage({ errors: { confirm: 'Type acme to confirm.' }, sent: { action: 'delete', confirm: 'acm' } }));
    expect(remove).toContain('required aria-invalid="true" aria-describedby="org-delete-confirm-error"><p class="field-error" id="org-delete-confirm-error">Type acme to confirm.</p>');
    expect(remove).not.toContain('value="acm"');
  });

  it('keeps the rename field filled with the current name', () => {
    expect(renderOrganizationPage(organizationPage())).toContain('<input id="org-name" name="name" type="text" maxlength="100" required value="Acme &lt;script&gt;alert(1)&lt;/script&gt;">');
  });
});

describe("an invitation's page", () => {
  it('shows the organization, inviter, role and expiry with Accept and Decline to the invited user, posting to the page itself', () => {
    const page = renderInvitationPage(invitationPage());
    expect(page).toContain('<h1>Join Acme &lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(page).toContain('Olive &lt;b&gt;Owner&lt;/b&gt; invited you to join <strong>Acme &lt;script&gt;alert(1)&lt;/script&gt;</strong> as <strong>admin</strong>.');
    expect(page).toContain('expires 2026-02-08 00:00 UTC');
    expect(page).toContain(`<form method="POST"><input type="hidden" name="csrfToken" value="${CSRF}"><input type="hidden" name="action" value="accept"><button type="submit">Accept invitation</button></form>`);
    expect(page).toContain('<input type="hidden" name="action" value="decline"><button type="submit" class="secondary">Decline</button>');
    expectEveryFormHasCsrf(page);
  });

  it('never holds the link’s token: the forms post to the page’s own address', () => {
    for (const signedIn of [null, { email: 'someone@example.test', matches: false }, { email: invitation.email, matches: true }]) {
      const page = renderInvitationPage(invitationPage({ signedIn }));
      expect(page).not.toContain(TOKEN);
      expect(page).not.toMatch(/<form[^>]* action=/);
    }
  });

  it('tells another signed-in user it was sent to another address, without naming it, and offers no buttons', () => {
    const page = renderInvitationPage(invitationPage({ signedIn: { email: 'someone@example.test', matches: false } }));
    expect(page).toContain('This invitation was sent to another address. Sign in with the invited address.');
    expect(page).toContain('You are signed in as someone@example.test.');
    expect(page).not.toContain(invitation.email);
    expect(page).not.toContain('invited@');
    expect(page).not.toContain('<form');
    expect(page).not.toContain('<button');
  });

  it('asks a signed-out visitor to sign in or sign up first, with no buttons and without the address', () => {
    const page = renderInvitationPage(invitationPage({ signedIn: null }));
    expect(page).toContain('<a class="button" href="/auth/signin?callbackUrl=%2Fauth%2Forganizations%2Finvitations%2Fx">Sign in</a>');
    expect(page).toContain('<a href="/auth/signup">New here? Create an account with that address</a>');
    expect(page).not.toContain(invitation.email);
    expect(page).not.toContain('<form');
    expect(renderInvitationPage(invitationPage({ signedIn: null, signUpUrl: null }))).not.toContain('Create an account');
  });

  it('says an unknown invitation is no longer valid', () => {
    const page = renderInvitationPage(invitationPage({ invitation: null }));
    expect(page).toContain('<div class="error" role="alert"><p>This invitation is no longer valid');
    expect(page).not.toContain('<form');
  });

  it('shows a refused answer as an alert', () => {
    expect(renderInvitationPage(invitationPage({ error: 'The organization is <full>.' }))).toContain('<div class="error" role="alert"><p>The organization is &lt;full&gt;.</p></div>');
  });
});
