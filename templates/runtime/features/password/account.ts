/**
 * The password's part of the account (`Feature.account`): whether the user has a password, with a link to change or
 * set one (in "How you sign in", the page's JSON and the export), a password counted as a way to sign in, and the
 * confirmation and reset links still stored under an address its user no longer has (deleted, or changed).
 */
import type { ResolvedConfig } from '../../contracts.js';
import { isOAuthProvider } from '../../providers/resolve.js';
import { html } from '../../pages/html.js';
import type { AccountPart, AccountPartRequest } from '../database/account-parts.js';
import { type Adapter, callAdapter } from '../database/adapter.js';
import { resetIdentifier, verifyIdentifier } from './shared.js';

declare module '../../contracts.js' {
  interface SecurityEventTypes {
    'password-set': true;
    'password-changed': true;
    'password-reset': true;
  }
}

/** Whether the app signs in with a password (its pages: change, reset) and the adapter keeps the hashes. */
function passwordOn(options: ResolvedConfig, adapter: Adapter): boolean {
  return options.providers.some((provider) => !isOAuthProvider(provider) && provider.type === 'credentials') && typeof adapter.getPasswordHash === 'function';
}

async function hasPassword({ adapter, user }: AccountPartRequest): Promise<boolean> {
  return (await callAdapter(adapter, 'getPasswordHash', user.id)) !== null;
}

export const passwordAccountPart: AccountPart = {
  order: 3,
  async view(request) {
    if (!passwordOn(request.context.options, request.adapter)) return { links: { password: false } };
    const set = await hasPassword(request);
    return {
      json: { password: set },
      links: { password: true },
      html: (page) => ({
        methods: [html`<li class="inline"><span>Password: ${set ? 'set' : 'not set'}</span><a href="${page.mountPath}/${set ? 'password' : 'reset-password'}">${set ? 'Change' : 'Set one'}</a></li>`],
      }),
    };
  },
  async export(request) {
    return { password: passwordOn(request.context.options, request.adapter) ? { set: await hasPassword(request) } : null };
  },
  async waysToSignIn(request) {
    return request.user.email && passwordOn(request.context.options, request.adapter) && (await hasPassword(request)) ? 1 : 0;
  },
  async forgetAddress(_options, adapter, email) {
    if (typeof adapter.deleteVerificationTokens !== 'function') return;
    for (const identifier of [verifyIdentifier(email), resetIdentifier(email)]) await callAdapter(adapter, 'deleteVerificationTokens', identifier);
  },
};
