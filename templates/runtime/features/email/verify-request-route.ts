/** GET `<mount>/verify-request`: the "check your email" page after a link was emailed (or `pages.verifyRequest`). */
import type { RequestContext, Theme } from '../../contracts.js';
import { sendHtml, sendRedirect } from '../../context.js';
import { html } from '../../pages/html.js';
import { layout } from '../../pages/layout.js';
import { customPageUrl } from '../../http/redirect.js';
import { queryParams } from '../../http/request.js';

export function verifyRequestRoute(context: RequestContext): void {
  if (context.options.pages.verifyRequest) {
    // As Auth.js: the custom page learns which provider sent the link.
    const query = queryParams(context.req);
    const params = { provider: query.get('provider') ?? undefined, type: query.get('type') ?? undefined };
    return sendRedirect(context, customPageUrl(context, context.options.pages.verifyRequest, params));
  }
  const purpose = queryParams(context.req).get('type') === 'credentials' ? 'account' : 'sign-in';
  sendHtml(context, 200, renderVerifyRequestPage({ origin: context.origin, theme: context.options.theme, purpose }));
}

/** "Check your email" after a link was emailed: a sign-in link, or a message about an account (sign-up, reset). */
function renderVerifyRequestPage(params: { origin: string; theme: Theme; purpose?: 'sign-in' | 'account' }): string {
  const host = new URL(params.origin).host;
  const sent =
    params.purpose === 'account'
      ? 'If the address can receive it, a message has been sent to it. Open its link to continue.'
      : 'A sign-in link has been sent to your email address. Open it to finish signing in.';
  const body = html`<h1>Check your email</h1><p>${sent}</p><p class="muted">The link works once and expires after a while. If it does not arrive, check your spam folder or try again.</p><p class="actions"><a href="${params.origin}">Back to ${host}</a></p>`;
  return layout({ title: 'Check your email', theme: params.theme, body });
}

