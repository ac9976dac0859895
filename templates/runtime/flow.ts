/**
 * What a provider's module brings to the routes (the provider carries it under `providerFlow`, contracts.ts, which
 * says why): the routes and the sign-in page call these functions.
 */
import type { RequestContext, ResolvedFlowProvider, ResolvedOAuthProvider, CarriedFlow, FlowCheckContext } from './contracts.js';
import type { OAuthCallbackResult } from './oauth/callback.js';
import type { SafeHtml } from './pages/html.js';

/** What the sign-in page hands a provider's form. */
export interface SignInFormContext {
  mountPath: string;
  /** The hidden CSRF token (and `callbackUrl`) fields every form posts. */
  hidden: SafeHtml;
  /** The address typed into an email form, shown again with an error. */
  email: string | undefined;
}

/** The sign-in flow of a credentials, email or passkey provider. Every route it leaves out refuses the provider. */
export interface ProviderFlow<Provider extends ResolvedFlowProvider = ResolvedFlowProvider> extends CarriedFlow {
  check?(provider: Provider, config: FlowCheckContext): void;
  /** POST `<mount>/signin/<id>`, after the CSRF check. */
  signIn?(context: RequestContext, provider: Provider, body: Record<string, unknown>): Promise<void>;
  /** `<mount>/callback/<id>` (either method: the flow refuses the one it does not take). */
  callback?(context: RequestContext, provider: Provider, method: 'GET' | 'POST'): Promise<void>;
  /** The provider's form on the built-in sign-in page. */
  signInForm?(provider: Provider, form: SignInFormContext): SafeHtml;
  /** An inline script the form needs, allowed by its hash in the page's Content-Security-Policy. */
  pageScript?: { source: string; hash: string };
  /** The styles the form needs beyond the layout's (pages/form-styles.ts). */
  pageStyles?: string;
}

/** The flow of an OAuth version other than 2 (the microblog provider's OAuth 1.0a). */
export interface OAuthProtocol extends CarriedFlow {
  /** POST `<mount>/signin/<id>`: where to send the browser. */
  authorizationUrl(context: RequestContext, provider: ResolvedOAuthProvider, query: URLSearchParams): Promise<string>;
  /** `<mount>/callback/<id>`: the user, account and profile of a completed authorization. */
  callback(context: RequestContext, provider: ResolvedOAuthProvider, parameters: URLSearchParams): Promise<OAuthCallbackResult>;
}

/** The flow a resolved provider carries (the config types it loosely, as it sits below the request context). */
export function flowOf(provider: ResolvedFlowProvider): ProviderFlow {
  return provider.flow as ProviderFlow;
}
