/**
 * `<mount>/admin` and the paths below it (SPEC §15), pages to a browser and JSON to a client that prefers it:
 * - GET `admin`: the users, searched and paged (admin-view.ts `showUserList`).
 * - GET `admin/users/<id>`: one user (`showUser`); POST: an action on them (actions.ts).
 * - POST `admin/stop-impersonating`: back to the admin's own session (impersonation.ts).
 * Every page and action asks `adminOf` first, read from the database on the request: a visitor is asked to sign in,
 * anyone but an admin gets 404 (as a path that does not exist), an admin without a second factor is sent to enrol
 * one, and an action needs a recent authentication; then a POST needs its CSRF token. An API key never gets here
 * (handler.ts refuses it below the mount), and while an admin acts as a user every POST but the way back is refused
 * before (impersonation.ts's guard).
 */
import type { RequestContext, Route } from '../../contracts.js';
import { MethodNotAllowed } from '../../errors.js';
import { verifyCsrf } from '../../http/csrf.js';
import { prefersJson, readBody } from '../../http/request.js';
import { adminOf } from './access.js';
import { runAdminAction } from './actions.js';
import { showUser, showUserList } from './admin-view.js';
import { stopImpersonatingRoute } from './impersonation.js';

const STOP_IMPERSONATING = 'stop-impersonating';
const USERS = 'users/';

/** The paths below `<mount>/admin` (`RouteSpec.subpaths`): a user's page, and the way back from an impersonation. */
export const adminSubpaths = [`${USERS}*`, STOP_IMPERSONATING] as const;

/** The route of `<mount>/admin` (`Feature.routes`): each path below it to its own function. */
export async function adminRoute(context: RequestContext, route: Route): Promise<void> {
  const { subpath } = route;
  // The way back is the impersonated session's, not an admin's: it needs no admin, only its CSRF token.
  if (subpath === STOP_IMPERSONATING) return stopImpersonatingRoute(context, route);
  const json = prefersJson(context.req);
  const post = route.method === 'POST';
  const admin = await adminOf(context, json, post);
  if (!admin) return;
  if (subpath === undefined) {
    if (post) throw new MethodNotAllowed('POST is not allowed here; an action is posted to a user\'s page', { allow: ['GET'] });
    return showUserList(context, admin, json);
  }
  const userId = subpath.slice(USERS.length);
  if (!post) return showUser(context, admin, userId, json);
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  return runAdminAction(context, admin, userId, body, json);
}
