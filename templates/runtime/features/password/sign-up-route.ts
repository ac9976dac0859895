/**
 * GET `<mount>/signup` (the sign-up page) and POST `<mount>/signup/<id>` (the form): a new address gets a user, the
 * password's hash and a confirmation link, a known one a message; both get the same "check your email" answer.
 */
import { randomUUID } from 'node:crypto';
import { callAdapter } from '../database/adapter.js';
import type { RequestContext, Route } from '../../contracts.js';
import { configuredActionUrl, sendHtml } from '../../context.js';
import { csrfTokenOf, verifyCsrf } from '../../http/csrf.js';
import { InvalidEmailAddress } from '../../email-address.js';
import { InvalidRequest, MethodNotAllowed } from '../../errors.js';
import { emitEvent } from '../../events.js';
import { safeCallbackParam } from '../../http/redirect.js';
import { requestedCallbackUrl } from '../../http/requested-callback-url.js';
import { queryParams, readBody } from '../../http/request.js';
import { consumeClientRateLimit, consumeRateLimit } from '../rate-limit/rate-limit.js';
import { consumeRecipientRateLimit } from '../email/recipient-limits.js';
import { hashPassword } from './hash.js';
import { type PasswordFormErrors, renderSignUpPage } from './pages.js';
import {
  type ResolvedPasswordProvider,
  MAX_PASSWORD_INPUT,
  adapterOf,
  addressOf,
  afterAnswer,
  breachedPasswordProblem,
  checkYourEmail,
  messageOf,
  newPasswordProblem,
  refuseForm,
  sendConfirmationLink,
  sendLater,
  textField,
} from './shared.js';

/** The longest name accepted at sign-up, in characters. */
const MAX_NAME_LENGTH = 100;

/** `<mount>/signup[/<id>]`. */
export async function signUpRoute(context: RequestContext, route: Route, provider: ResolvedPasswordProvider): Promise<void> {
  if (route.providerId !== undefined && route.providerId !== provider.id) throw new InvalidRequest(`Sign-up is at ${context.mountPath}/signup/${provider.id}.`);
  if (route.method === 'GET') return sendHtml(context, 200, signUpPage(context, provider));
  if (route.providerId === undefined) throw new MethodNotAllowed(`Post the sign-up form to ${context.mountPath}/signup/${provider.id}`, { allow: ['GET'] });
  await signUp(context, provider);
}

/** GET `<mount>/signup`: the sign-up page. */
function signUpPage(context: RequestContext, provider: ResolvedPasswordProvider, values: { email?: string; name?: string; errors?: PasswordFormErrors } = {}): string {
  return renderSignUpPage({
    mountPath: context.mountPath,
    csrfToken: csrfTokenOf(context),
    theme: context.options.theme,
    providerId: provider.id,
    callbackUrl: safeCallbackParam(context, queryParams(context.req).get('callbackUrl') ?? context.cookies.get(context.cookieOptions.callbackUrl.name)),
    minLength: provider.minLength,
    ...values,
  });
}

/** POST `<mount>/signup/<id>`. */
async function signUp(context: RequestContext, provider: ResolvedPasswordProvider): Promise<void> {
  const body = await readBody(context.req);
  verifyCsrf(context, body);
  const typed = textField(body, 'email', 320);
  const password = textField(body, 'password', MAX_PASSWORD_INPUT);
  const name = textField(body, 'name', MAX_NAME_LENGTH * 4)?.trim() || undefined;
  const errors: PasswordFormErrors = {};
  let email: string | undefined;
  try {
    email = addressOf(typed);
  } catch (error) {
    errors.email = error instanceof InvalidEmailAddress ? error.message : 'Enter a valid email address.';
  }
  if (name !== undefined && ([...name].length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name))) errors.name = `Use up to ${MAX_NAME_LENGTH} characters, without line breaks.`;
  const problem = newPasswordProblem(provider, password, email ?? typed);
  if (problem) errors.password = problem;
  const refuse = (): void =>
    refuseForm(context, errors, () => signUpPage(context, provider, { ...(typed !== undefined && { email: typed.slice(0, 320) }), ...(name && { name }), errors }));
  if (email === undefined || Object.keys(errors).length > 0) return refuse();
  // The client first: its limit also caps how many address counters one client can create.
  await consumeClientRateLimit(context, 'passwordEmailPerClient');
  await consumeRateLimit(context.options, 'passwordEmailPerAddress', email);
  await consumeRecipientRateLimit(context.options, email);
  const breached = await breachedPasswordProblem(context, provider, password!);
  if (breached) {
    errors.password = breached;
    return refuse();
  }
  const adapter = adapterOf(context);
  // Hashed for every address alike: a known address costs the same time as a new one.
  const hash = await hashPassword(password!, undefined, { request: context.req });
  const holder = await callAdapter(adapter, 'getUserByEmail', email);
  const callbackUrl = requestedCallbackUrl(context, body);
  checkYourEmail(context, provider);
  // What differs between a known and a new address happens after the answer (afterAnswer).
  if (holder) {
    const signIn = configuredActionUrl(context, 'signin');
    sendLater(context, provider, messageOf(context, 'sign-up-attempt', email, signIn, configuredActionUrl(context, 'reset-password')));
    return;
  }
  afterAnswer(context, async () => {
    const user = await callAdapter(adapter, 'createUser', { id: randomUUID(), email, emailVerified: null, ...(name && { name }) });
    try {
      await callAdapter(adapter, 'setPasswordHash', user.id, hash);
    } catch (error) {
      await callAdapter(adapter, 'deleteUser', user.id).catch((cleanup: Error) => context.options.logger.error(cleanup));
      throw error;
    }
    await emitEvent(context.options, 'createUser', { user });
    await sendConfirmationLink(context, provider, email, callbackUrl);
  });
}
