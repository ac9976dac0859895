/** Where a sign-in form of a provider's flow (email, passkeys, password) asks to go afterwards. */
import type { RequestContext } from '../contracts.js';
import { bodyField, queryParams } from './request.js';

/** The `callbackUrl` of a sign-in form post: the body's, the query's, or the one kept in the callback-url cookie. */
export function requestedCallbackUrl(context: RequestContext, body: Record<string, unknown>): string | undefined {
  return bodyField(body, 'callbackUrl') ?? queryParams(context.req).get('callbackUrl') ?? context.cookies.get(context.cookieOptions.callbackUrl.name);
}
