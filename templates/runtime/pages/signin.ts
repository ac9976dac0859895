/**
 * The built-in sign-in page: a "Sign in with <name>" button per OAuth provider in its brand colour, then a form per
 * credentials provider, an address form per email provider, and passkey buttons per WebAuthn provider (the page's
 * only script, see passkey-script.ts). Every form posts its CSRF token and works without JavaScript; the passkey
 * buttons, which cannot, say so.
 */
import type { Theme } from '../theme.js';
import type { ResolvedProvider } from '../providers/resolve.js';
import { readableTextColor } from './color.js';
import { SafeHtml, html, safeColor, safeUrl } from './html.js';
import { layout } from './layout.js';
import { displayableCode, messageFor, signInErrorMessages } from './messages.js';
import { passkeyScript, passkeyScriptHash } from './passkey-script.js';

/** The CSP hashes of the inline scripts the sign-in page has with these providers (for `sendHtml`). */
export function signInPageScriptHashes(providers: readonly ResolvedProvider[]): string[] {
  return providers.some((provider) => provider.type === 'webauthn') ? [passkeyScriptHash] : [];
}

type Provider<Type extends ResolvedProvider['type']> = Extract<ResolvedProvider, { type: Type }>;

/**
 * The button of an OAuth provider, in `style.brandColor` with `style.logo`. The text is `style.text` when it is
 * readable on the brand colour (4.5:1), otherwise black or white, whichever contrasts more.
 */
function providerButton(provider: Provider<'oauth' | 'oidc'>, mountPath: string, hidden: SafeHtml): SafeHtml {
  const brand = safeColor(provider.style?.brandColor ?? provider.style?.bg);
  const configuredText = safeColor(provider.style?.text);
  const text = brand ? readableTextColor(brand, configuredText) : configuredText;
  const logo = safeUrl(provider.style?.logo);
  const style = [brand && `--button-bg:${brand}`, text && `--button-text:${text}`].filter(Boolean).join(';');
  return html`<form action="${mountPath}/signin/${encodeURIComponent(provider.id)}" method="POST">${hidden}<button type="submit"${style ? html` style="${style}"` : ''}>${logo ? html`<img src="${logo}" alt="" width="22" height="22">` : ''}<span>Sign in with ${provider.name}</span></button></form>`;
}

/** The `autocomplete` of a credentials field the configuration left without one, so password managers can help. */
function defaultAutocomplete(name: string, type: string): string | undefined {
  if (type === 'password') return 'current-password';
  if (type === 'email' || /^(username|user|login|email)$/i.test(name)) return 'username';
  return undefined;
}

/** A form built from the provider's `credentials` fields, each with its label. */
function credentialsForm(provider: Provider<'credentials'>, mountPath: string, hidden: SafeHtml): SafeHtml {
  const fields = Object.entries(provider.credentials).map(([name, input]) => {
    const id = `input-${provider.id}-${name}`;
    const type = input.type ?? 'text';
    const autocomplete = input.autocomplete ?? defaultAutocomplete(name, type);
    return html`<label for="${id}">${input.label ?? name}</label><input id="${id}" name="${name}" type="${type}"${input.placeholder ? html` placeholder="${input.placeholder}"` : ''}${autocomplete ? html` autocomplete="${autocomplete}"` : ''}${input.required === false ? '' : html` required`}>`;
  });
  return html`<form action="${mountPath}/callback/${encodeURIComponent(provider.id)}" method="POST">${hidden}${fields}<button type="submit">Sign in with ${provider.name}</button></form>`;
}

function emailForm(provider: Provider<'email'>, mountPath: string, hidden: SafeHtml, email: string | undefined): SafeHtml {
  const id = `input-email-for-${provider.id}-provider`;
  return html`<form action="${mountPath}/signin/${encodeURIComponent(provider.id)}" method="POST">${hidden}<label for="${id}">Email</label><input id="${id}" name="email" type="email" autocomplete="email" placeholder="email@example.com"${email ? html` value="${email}"` : ''} required><button type="submit">Sign in with ${provider.name}</button></form>`;
}

/**
 * The passkey form. Its buttons start disabled, with a note that passkeys need JavaScript: the script enables them
 * and clears the note, so a browser without JavaScript shows why they do nothing rather than posting an empty form.
 */
function passkeyForm(provider: Provider<'webauthn'>, mountPath: string, hidden: SafeHtml): SafeHtml {
  const id = `input-email-for-${provider.id}-provider`;
  const hint = `hint-${provider.id}-provider`;
  const encoded = encodeURIComponent(provider.id);
  const noun = provider.name.toLowerCase();
  return html`<form action="${mountPath}/callback/${encoded}" method="POST" data-webauthn-options="${mountPath}/webauthn-options/${encoded}">${hidden}<label for="${id}">Email for a new ${noun}</label><input id="${id}" name="email" type="email" autocomplete="username webauthn" aria-describedby="${hint}"><p id="${hint}" class="hint">Leave it empty to sign in with a ${noun} you have.</p><button type="submit" data-webauthn-action="authenticate" disabled>Sign in with ${provider.name}</button><button type="submit" class="secondary" data-webauthn-action="register" disabled>Create a ${noun}</button><p class="note" role="status" aria-live="polite" data-webauthn-status>${provider.name} sign-in needs JavaScript. Turn it on, or use another way to sign in.</p></form>`;
}

/** Renders the sign-in page. */
export function renderSignInPage(params: {
  providers: ResolvedProvider[];
  mountPath: string;
  csrfToken: string;
  callbackUrl: string | undefined;
  /** The `error` query parameter: its message is shown above the forms. */
  error: string | undefined;
  /** The `code` query parameter, shown with `CredentialsSignin` when it looks like a code. */
  code?: string | undefined;
  theme: Theme;
  /** The address typed into the email form, shown again with an error. */
  email?: string | undefined;
  /** A message that replaces the one of `error` (a refused address says why). */
  errorMessage?: string | undefined;
}): string {
  const { providers, mountPath, csrfToken, callbackUrl, error } = params;
  const hidden = html`<input type="hidden" name="csrfToken" value="${csrfToken}">${callbackUrl ? html`<input type="hidden" name="callbackUrl" value="${callbackUrl}">` : ''}`;
  // Provider buttons first, together; then each form in the configured order, with "or" between groups.
  const buttons: SafeHtml[] = [];
  const forms: SafeHtml[] = [];
  for (const provider of providers) {
    if (provider.type === 'oauth' || provider.type === 'oidc') buttons.push(providerButton(provider, mountPath, hidden));
    else if (provider.type === 'credentials') forms.push(credentialsForm(provider, mountPath, hidden));
    else if (provider.type === 'email') forms.push(emailForm(provider, mountPath, hidden, params.email));
    else if (provider.type === 'webauthn') forms.push(passkeyForm(provider, mountPath, hidden));
  }
  const groups = [...(buttons.length > 0 ? [html`<div class="providers">${buttons}</div>`] : []), ...forms];
  const divider = html`<div class="divider" aria-hidden="true">or</div>`;
  const sections = groups.map((group, index) => (index === 0 ? group : html`${divider}${group}`));

  const message = params.errorMessage ?? (error ? messageFor(signInErrorMessages, error) : undefined);
  const code = error === 'CredentialsSignin' ? displayableCode(params.code) : undefined;
  const alert = message ? html`<div class="error" role="alert"><p>${message}</p>${code ? html`<p class="code">Error code: <code>${code}</code></p>` : ''}</div>` : '';
  const scripts = signInPageScriptHashes(providers).length > 0 ? html`<script>${new SafeHtml(passkeyScript)}</script>` : '';
  const body = html`<h1>Sign in</h1>${alert}${sections}${sections.length > 0 ? '' : html`<p class="muted center">No sign-in methods are configured.</p>`}${scripts}`;
  return layout({ title: 'Sign in', theme: params.theme, body });
}
