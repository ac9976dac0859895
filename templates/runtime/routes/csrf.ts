/** GET `<mount>/csrf`: the CSRF token for forms of your own (the cookie is set once and kept while valid). */
import type { RequestContext } from '../contracts.js';
import { sendJson } from '../context.js';
import { csrfTokenOf } from '../http/csrf.js';

export function csrfRoute(context: RequestContext): void {
  sendJson(context, 200, { csrfToken: csrfTokenOf(context) });
}
