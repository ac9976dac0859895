/**
 * Administration's part of the account (`Feature.account`): an admin's account page links the administration pages
 * (nobody else's does: to anyone else they answer 404), and the export says whether the user is an admin and since
 * when they exist. The admins' record of actions (with their reasons) stays the admins'.
 */
import { html } from '../../pages/html.js';
import type { AccountPart } from '../database/account-parts.js';
import { callAdapter } from '../database/adapter.js';
import { isAdmin } from './access.js';

export const adminAccountPart: AccountPart = {
  order: 5,
  async view({ context, user }) {
    if (!(await isAdmin(context.options, user))) return {};
    return { links: { admin: true }, html: (page) => ({ links: [html`<a href="${page.mountPath}/admin">Administration</a>`] }) };
  },
  async export({ context, adapter, user }) {
    const state = await callAdapter(adapter, 'getAdminState', user.id);
    return { administration: { admin: await isAdmin(context.options, user), adminByGrant: state.granted, createdAt: state.createdAt?.toISOString() ?? null } };
  },
};
