/**
 * Two-factor's part of the account (`Feature.account`): whether it is on, with a link to manage or turn it on (in
 * "How you sign in", the page's JSON and the export).
 */
import { html } from '../../pages/html.js';
import type { AccountPart, AccountPartRequest } from '../database/account-parts.js';
import { callAdapter } from '../database/adapter.js';

declare module '../../contracts.js' {
  interface SecurityEventTypes {
    'two-factor-on': true;
    'two-factor-off': true;
    'recovery-code-used': true;
  }
}

/** Whether two-factor is on for the user; undefined when the adapter keeps no two-factor settings. */
async function twoFactorOf({ adapter, user }: AccountPartRequest): Promise<boolean | undefined> {
  if (typeof adapter.getTwoFactor !== 'function') return undefined;
  return Boolean((await callAdapter(adapter, 'getTwoFactor', user.id))?.enabledAt);
}

export const twoFactorAccountPart: AccountPart = {
  order: 4,
  async view(request) {
    const on = await twoFactorOf(request);
    if (on === undefined) return { links: { twoFactor: false } };
    return {
      json: { twoFactor: on },
      links: { twoFactor: true },
      html: (page) => ({ methods: [html`<li class="inline"><span>Two-factor: ${on ? 'on' : 'off'}</span><a href="${page.mountPath}/two-factor">${on ? 'Manage' : 'Turn on'}</a></li>`] }),
    };
  },
  async export(request) {
    const on = await twoFactorOf(request);
    return { twoFactor: on === undefined ? null : { on } };
  },
};
