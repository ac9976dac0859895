/** GET `<mount>/webauthn-options/<provider>`: the passkey options of a provider whose flow serves them (webauthn.ts). */
import type { RequestContext } from '../context.js';
import { flowOf } from '../flow.js';
import { isOAuthProvider } from '../providers/resolve.js';
import { type Route, findProvider, unsupportedProvider } from '../router.js';

export async function webauthnOptionsRoute(context: RequestContext, route: Route): Promise<void> {
  const provider = findProvider(context, route.providerId!);
  if (isOAuthProvider(provider)) return unsupportedProvider(provider);
  const flow = flowOf(provider);
  if (!flow.webauthnOptions) return unsupportedProvider(provider);
  await flow.webauthnOptions(context, provider);
}
