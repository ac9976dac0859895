/**
 * `<mount>/account` and the paths below it, each answered here by its method:
 * - GET `account`: the page (or JSON to a client that prefers it), signed in;
 * - POST `account/email`, `account/unlink`, `account/delete`, the features' forms (`Feature.account.forms`:
 *   `account/passkeys/remove`) and GET `account/export`: signed in with a cookie session (handler.ts refuses API keys
 *   below the mount), each POST with the CSRF token, and all of them after a recent authentication
 *   (`session.reauthMaxAge`; `<mount>/reauth` otherwise);
 * - GET and POST `account/email/confirm`: the confirmation link, confirmed only from the asking user's own signed-in
 *   browser (email-change.ts).
 */
import type { RequestContext, Route } from '../../contracts.js';
import { verifyCsrf } from '../../http/csrf.js';
import { MethodNotAllowed } from '../../errors.js';
import { prefersJson, queryParams, readBody } from '../../http/request.js';
import { noticeOf, sendAccount } from './account-view.js';
import { deleteAccountRoute } from './delete-account.js';
import { confirmEmailChangeRoute, requestEmailChangeRoute } from './email-change.js';
import { exportRoute } from './export.js';
import { accountSettingsOf, recentOrAsk, signedInOrAsk } from './settings.js';
import { featureFormRoute, unlinkRoute } from './sign-in-methods.js';

/**
 * The paths below `<mount>/account` (`RouteSpec.subpaths`): the account's own, and `passkeys/remove`, always served
 * (sign-in-methods.ts); `Account()`'s startup check adds the other forms of the app's features.
 */
export const accountSubpaths = ['email', 'email/confirm', 'unlink', 'passkeys/remove', 'export', 'delete'] as const;

/** The methods of each path: the page and the export are read, everything else is a form. */
function methodsOf(subpath: string | undefined): readonly ('GET' | 'POST')[] {
  if (subpath === 'email/confirm') return ['GET', 'POST'];
  return subpath === undefined || subpath === 'export' ? ['GET'] : ['POST'];
}

export async function accountRoute(context: RequestContext, route: Route): Promise<void> {
  const { subpath } = route;
  const methods = methodsOf(subpath);
  if (!methods.includes(route.method)) throw new MethodNotAllowed(`${route.method} is not allowed here; use ${methods.join(' or ')}`, { allow: methods });
  const adapter = context.options.adapter!;
  const settings = accountSettingsOf(context.options);
  if (subpath === 'email/confirm') return confirmEmailChangeRoute(context, route.method, adapter, settings);
  const json = prefersJson(context.req);
  const body = route.method === 'POST' ? await readBody(context.req) : undefined;
  if (body) verifyCsrf(context, body);
  const signedIn = await signedInOrAsk(context, adapter, json);
  if (!signedIn) return;
  const request = { context, adapter, settings, signedIn, json };
  if (subpath === undefined) {
    const notice = noticeOf(context.options, queryParams(context.req).get('notice'));
    return sendAccount(request, 200, notice ? { notice } : {});
  }
  // What changes how the account signs in, or hands out what is stored about it, asks who is there.
  if (!recentOrAsk(request, subpath === 'export' ? 'account/export' : 'account')) return;
  if (subpath === 'export') return exportRoute(request);
  if (subpath === 'email') return requestEmailChangeRoute(request, body!);
  if (subpath === 'unlink') return unlinkRoute(request, body!);
  if (subpath === 'delete') return deleteAccountRoute(request, body!);
  return featureFormRoute(request, subpath, body!);
}
