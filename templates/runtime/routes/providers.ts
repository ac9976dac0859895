/** GET `<mount>/providers`: each configured provider with its sign-in and callback URLs, keyed by id (as Auth.js). */
import type { RequestContext } from '../contracts.js';
import { actionUrl, sendJson } from '../context.js';

export function providersRoute(context: RequestContext): void {
  const providers: Record<string, { id: string; name: string; type: string; signinUrl: string; callbackUrl: string }> = {};
  for (const provider of context.options.providers) {
    providers[provider.id] = {
      id: provider.id,
      name: provider.name,
      type: provider.type,
      signinUrl: actionUrl(context, `signin/${provider.id}`),
      callbackUrl: actionUrl(context, `callback/${provider.id}`),
    };
  }
  sendJson(context, 200, providers);
}
