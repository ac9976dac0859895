/**
 * `<mount>/session`: GET answers the session (or null; with an API key in `Authorization: Bearer`, the key's, and no
 * cookie); POST with the CSRF token updates it (`trigger: 'update'`).
 */
import type { RequestContext, Route } from '../contracts.js';
import { sendJson } from '../context.js';
import { verifyCsrf } from '../http/csrf.js';
import { readBody } from '../http/request.js';
import { readSession, withFeatureFields } from '../session/session.js';

export async function sessionRoute(context: RequestContext, route: Route): Promise<void> {
  const bearer = context.options.bearer?.resultOf(context.req, context.options);
  if (bearer) {
    const result = await bearer;
    return result.session ? sendJson(context, 200, result.session) : context.options.bearer!.refuse(context.res, result, {});
  }
  let update: { trigger: 'update'; newSession: unknown } | undefined;
  if (route.method === 'POST') {
    const body = await readBody(context.req);
    verifyCsrf(context, body);
    update = { trigger: 'update', newSession: body['data'] };
  }
  const result = await readSession(context.req, context.options, { write: true, cookies: context.cookies, cookieOptions: context.cookieOptions, ...update });
  context.outgoing.push(...result.cookies);
  sendJson(context, 200, await withFeatureFields(context.req, context.options, result.session));
}
