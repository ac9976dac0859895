/**
 * The password provider's pages, in the theme of the built-in pages: sign-up, "forgot your password" (the address),
 * the new-password form of a reset link, and "change your password" for a signed-in user. Every form POSTs with the
 * CSRF token and works without JavaScript; each field has its label, and a refused value is explained in words
 * right below its field (linked to it with `aria-describedby`).
 */
import { type SafeHtml, html } from '../../pages/html.js';
import { formStyles } from '../../pages/form-styles.js';
import { layout } from '../../pages/layout.js';
import type { Theme } from '../../contracts.js';

/** The fields a form may show an error for, and the form as a whole. */
export type PasswordFormErrors = Partial<Record<'email' | 'name' | 'password' | 'currentPassword' | 'newPassword' | 'form', string>>;

/** What every password page needs. */
export interface PasswordPageBase {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  errors?: PasswordFormErrors;
}

interface Field {
  name: 'email' | 'name' | 'password' | 'currentPassword' | 'newPassword';
  label: string;
  type: 'email' | 'text' | 'password';
  autocomplete: string;
  required: boolean;
  value?: string | undefined;
  hint?: string;
}

/** One labelled input with its hint and, when refused, its error. */
function field(spec: Field, errors: PasswordFormErrors): SafeHtml {
  const id = `password-${spec.name}`;
  const error = errors[spec.name];
  const described = [spec.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${id}">${spec.label}</label><input id="${id}" name="${spec.name}" type="${spec.type}" autocomplete="${spec.autocomplete}"${spec.value ? html` value="${spec.value}"` : ''}${spec.required ? html` required` : ''}${error ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}>${spec.hint ? html`<p class="hint" id="${id}-hint">${spec.hint}</p>` : ''}${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''}`;
}

function hiddenFields(csrfToken: string, extra: Record<string, string | undefined>): SafeHtml {
  const fields = Object.entries(extra).flatMap(([name, value]) => (value ? [html`<input type="hidden" name="${name}" value="${value}">`] : []));
  return html`<input type="hidden" name="csrfToken" value="${csrfToken}">${fields}`;
}

function formAlert(errors: PasswordFormErrors): SafeHtml | string {
  return errors.form ? html`<div class="error" role="alert"><p>${errors.form}</p></div>` : '';
}

function lengthHint(minLength: number): string {
  return `At least ${minLength} characters. A few unrelated words make a strong password.`;
}

/** GET `<mount>/signup`: address, password, optional name; a link back to the sign-in page. */
export function renderSignUpPage(params: PasswordPageBase & { providerId: string; callbackUrl: string | undefined; email?: string | undefined; name?: string | undefined; minLength: number }): string {
  const errors = params.errors ?? {};
  const signInHref = `${params.mountPath}/signin${params.callbackUrl ? `?${new URLSearchParams({ callbackUrl: params.callbackUrl })}` : ''}`;
  const body = html`<h1>Create an account</h1>${formAlert(errors)}<form action="${params.mountPath}/signup/${encodeURIComponent(params.providerId)}" method="POST" novalidate>${hiddenFields(params.csrfToken, { callbackUrl: params.callbackUrl })}${field({ name: 'email', label: 'Email', type: 'email', autocomplete: 'email', required: true, value: params.email }, errors)}${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', required: true, hint: lengthHint(params.minLength) }, errors)}${field({ name: 'name', label: 'Name (optional)', type: 'text', autocomplete: 'name', required: false, value: params.name }, errors)}<button type="submit">Create account</button></form><p class="actions"><a href="${signInHref}">Already have an account? Sign in</a></p>`;
  return layout({ title: 'Create an account', theme: params.theme, body, styles: formStyles });
}

/** GET `<mount>/reset-password`: the address to send a reset link to. */
export function renderResetRequestPage(params: PasswordPageBase & { email?: string | undefined }): string {
  const errors = params.errors ?? {};
  const body = html`<h1>Reset your password</h1>${formAlert(errors)}<p class="muted">Enter your account's email address and we will send you a link to choose a new password.</p><form action="${params.mountPath}/reset-password" method="POST" novalidate>${hiddenFields(params.csrfToken, {})}${field({ name: 'email', label: 'Email', type: 'email', autocomplete: 'email', required: true, value: params.email }, errors)}<button type="submit">Send reset link</button></form><p class="actions"><a href="${params.mountPath}/signin">Back to sign in</a></p>`;
  return layout({ title: 'Reset your password', theme: params.theme, body, styles: formStyles });
}

/** GET `<mount>/reset-password?token=…&email=…`: the new password; the token is used only when the form is sent. */
export function renderNewPasswordPage(params: PasswordPageBase & { token: string; email: string; minLength: number }): string {
  const errors = params.errors ?? {};
  const body = html`<h1>Choose a new password</h1>${formAlert(errors)}<p class="muted">Setting it signs this account out on every device. Passkeys, accounts linked from other providers and two-factor authentication stay as they are: review them once you are signed in.</p><form action="${params.mountPath}/reset-password" method="POST" novalidate>${hiddenFields(params.csrfToken, { token: params.token, email: params.email })}<input type="email" name="username" autocomplete="username" value="${params.email}" hidden>${field({ name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', required: true, hint: lengthHint(params.minLength) }, errors)}<button type="submit">Set password</button></form>`;
  return layout({ title: 'Choose a new password', theme: params.theme, body, styles: formStyles });
}

/** What the confirmation page shows: the link's token and address, kept in the forms. */
export interface ConfirmPageParams extends PasswordPageBase {
  providerId: string;
  token: string;
  email: string;
  callbackUrl: string | undefined;
  minLength: number;
}

/**
 * GET `<mount>/callback/<id>?token=…&email=…` (the confirmation link): two forms, each a POST that confirms the
 * address: the password chosen at sign-up, or a new password that replaces it. Opening the page changes nothing.
 */
export function renderConfirmPage(params: ConfirmPageParams): string {
  const errors = params.errors ?? {};
  const action = `${params.mountPath}/callback/${encodeURIComponent(params.providerId)}`;
  const hidden = hiddenFields(params.csrfToken, { token: params.token, email: params.email, callbackUrl: params.callbackUrl });
  const username = html`<input type="email" name="username" autocomplete="username" value="${params.email}" hidden>`;
  const body = html`<h1>Confirm your email address</h1>${formAlert(errors)}<p class="muted">To confirm <strong>${params.email}</strong>, enter the password chosen when this account was created.</p><form action="${action}" method="POST" novalidate>${hidden}${username}${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', required: true }, errors)}<button type="submit">Confirm and sign in</button></form><h2>Did not create this account, or forgot its password?</h2><p class="muted">Choose a new password: it replaces the one set at sign-up.</p><form action="${action}" method="POST" novalidate>${hidden}${username}${field({ name: 'newPassword', label: 'New password', type: 'password', autocomplete: 'new-password', required: true, hint: lengthHint(params.minLength) }, errors)}<button type="submit" class="secondary">Set password, confirm and sign in</button></form>`;
  return layout({ title: 'Confirm your email address', theme: params.theme, body, styles: formStyles });
}

/** GET `<mount>/password` (signed in): the current and the new password. */
export function renderChangePasswordPage(params: PasswordPageBase & { email: string | undefined; minLength: number; changed: boolean }): string {
  const errors = params.errors ?? {};
  const notice = params.changed ? html`<p role="status">Your password has been changed. Your other sessions were signed out.</p>` : '';
  const body = html`<h1>Change your password</h1>${notice}${formAlert(errors)}<form action="${params.mountPath}/password" method="POST" novalidate>${hiddenFields(params.csrfToken, {})}${params.email ? html`<input type="email" name="username" autocomplete="username" value="${params.email}" hidden>` : ''}${field({ name: 'currentPassword', label: 'Current password', type: 'password', autocomplete: 'current-password', required: true }, errors)}${field({ name: 'newPassword', label: 'New password', type: 'password', autocomplete: 'new-password', required: true, hint: lengthHint(params.minLength) }, errors)}<button type="submit">Change password</button></form><p class="actions"><a href="/">Back</a></p>`;
  return layout({ title: 'Change your password', theme: params.theme, body, styles: formStyles });
}
