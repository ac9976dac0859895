/**
 * The API keys' part of the account (`Feature.account`): a link to the keys' page (`<mount>/api-keys`), and the
 * user's keys in the export (name, scopes and dates; never the key, its digest or its start).
 */
import { html } from '../../pages/html.js';
import type { AccountPart } from '../database/account-parts.js';
import { callAdapter } from '../database/adapter.js';

declare module '../../contracts.js' {
  interface SecurityEventTypes {
    'api-key-created': true;
    'api-key-revoked': true;
  }
}

const iso = (date: Date | null | undefined): string | null => (date ? new Date(date).toISOString() : null);

export const apiKeysAccountPart: AccountPart = {
  order: 2,
  async view() {
    return { links: { apiKeys: true }, html: (page) => ({ links: [html`<a href="${page.mountPath}/api-keys">API keys</a>`] }) };
  },
  async export({ adapter, user }) {
    const keys = typeof adapter.listApiKeys === 'function' ? await callAdapter(adapter, 'listApiKeys', user.id) : [];
    return { apiKeys: keys.map((key) => ({ name: key.name, scopes: [...key.scopes], createdAt: iso(key.createdAt), lastUsedAt: iso(key.lastUsedAt), expiresAt: iso(key.expiresAt) })) };
  },
};
