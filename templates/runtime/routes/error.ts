/** GET `<mount>/error?error=<type>`: the error page (or a redirect to `pages.error`). */
import type { RequestContext } from '../contracts.js';
import { sendHtml, sendRedirect } from '../context.js';
import { renderErrorPage } from '../pages/other.js';
import { customPageUrl } from '../http/redirect.js';
import { queryParams } from '../http/request.js';

export function errorRoute(context: RequestContext): void {
  const query = queryParams(context.req);
  const error = query.get('error') ?? undefined;
  const code = query.get('code') ?? undefined;
  if (context.options.pages.error) {
    return sendRedirect(context, customPageUrl(context, context.options.pages.error, { error, code }));
  }
  const page = renderErrorPage({ error, code, mountPath: context.mountPath, theme: context.options.theme, messages: context.options.pageMessages });
  sendHtml(context, page.status, page.body);
}
