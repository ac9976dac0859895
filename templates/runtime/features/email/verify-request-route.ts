/** GET `<mount>/verify-request`: the "check your email" page after a link was emailed (or `pages.verifyRequest`). */
import type { RequestContext } from '../../contracts.js';
import { sendHtml, sendRedirect } from '../../context.js';
import { renderVerifyRequestPage } from '../../pages/other.js';
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
