/**
 * The built-in sign-in page: a button per OAuth provider, a form per credentials provider, an address form per email
 * provider, and passkey buttons per WebAuthn provider (the page's only script, see passkey-script.ts).
 */
import type { Theme } from '../config.js';
import type { ResolvedProvider } from '../providers/resolve.js';
import { SafeHtml, html, safeColor, safeUrl } from './html.js';
import { layout } from './layout.js';
import { messageFor, signInErrorMessages } from './messages.js';
import { passkeyScript, passkeyScriptHash } from './passkey-script.js';

/** The CSP hashes of the inline scripts the sign-in page has with these providers (for `sendHtml`). */
export function signInPageScriptHashes(providers: readonly ResolvedProvider[]): string[] {
  return providers.some((provider) => provider.type === 'webauthn') ? [passkeyScriptHash] : [];
}

/** Renders the sign-in page. */
export function renderSignInPage(params: {
  providers: ResolvedProvider[];
  mountPath: string;
  csrfToken: string;
  callbackUrl: string | undefined;
  error: string | undefined;
  theme: Theme;
  /** The address typed into the email form, shown again with an error. */
  email?: string | undefined;
  /** A message that replaces the one of `error` (a refused address says why). */
  errorMessage?: string | undefined;
}): string {
  const { providers, mountPath, csrfToken, callbackUrl, error } = params;
  const hidden = html`<input type="hidden" name="csrfToken" value="${csrfToken}">${callbackUrl ? html`<input type="hidden" name="callbackUrl" value="${callbackUrl}">` : ''}`;
  const sections: SafeHtml[] = [];
  for (const provider of providers) {
    if (provider.type === 'oauth' || provider.type === 'oidc') {
      const brand = safeColor(provider.style?.brandColor ?? provider.style?.bg);
      const text = safeColor(provider.style?.text);
      const logo = safeUrl(provider.style?.logo);
      const style = [brand ? `--button-bg:${brand}` : '', text ? `--button-text:${text}` : ''].filter(Boolean).join(';');
      sections.push(html`<form class="provider" action="${mountPath}/signin/${encodeURIComponent(provider.id)}" method="POST">${hidden}<button type="submit"${style ? html` style="${style}"` : ''}>${logo ? html`<img src="${logo}" alt="">` : ''}<span>Sign in with ${provider.name}</span></button></form>`);
    } else if (provider.type === 'credentials') {
      const fields = Object.entries(provider.credentials).map(([name, input]) => {
        const id = `input-${provider.id}-${name}`;
        return html`<label for="${id}">${input.label ?? name}</label><input id="${id}" name="${name}" type="${input.type ?? 'text'}"${input.placeholder ? html` placeholder="${input.placeholder}"` : ''}${input.autocomplete ? html` autocomplete="${input.autocomplete}"` : ''}${input.required === false ? '' : html` required`}>`;
      });
      if (sections.length) sections.push(html`<div class="divider">or</div>`);
      sections.push(html`<form action="${mountPath}/callback/${encodeURIComponent(provider.id)}" method="POST">${hidden}${fields}<button type="submit">Sign in with ${provider.name}</button></form>`);
    } else if (provider.type === 'email') {
      const id = `input-email-for-${provider.id}-provider`;
      if (sections.length) sections.push(html`<div class="divider">or</div>`);
      sections.push(html`<form action="${mountPath}/signin/${encodeURIComponent(provider.id)}" method="POST">${hidden}<label for="${id}">Email</label><input id="${id}" name="email" type="email" autocomplete="email" placeholder="email@example.com"${params.email ? html` value="${params.email}"` : ''} required><button type="submit">Sign in with ${provider.name}</button></form>`);
    } else if (provider.type === 'webauthn') {
      const id = `input-email-for-${provider.id}-provider`;
      const hint = `hint-${provider.id}-provider`;
      const encoded = encodeURIComponent(provider.id);
      if (sections.length) sections.push(html`<div class="divider">or</div>`);
      sections.push(
        html`<form action="${mountPath}/callback/${encoded}" method="POST" data-webauthn-options="${mountPath}/webauthn-options/${encoded}">${hidden}<label for="${id}">Email for a new ${provider.name.toLowerCase()}</label><input id="${id}" name="email" type="email" autocomplete="username webauthn" aria-describedby="${hint}"><p id="${hint}" class="muted">Leave it empty to sign in with a ${provider.name.toLowerCase()} you have.</p><button type="submit" data-webauthn-action="authenticate">Sign in with ${provider.name}</button><button type="submit" data-webauthn-action="register">Create a ${provider.name.toLowerCase()}</button><p class="muted" role="status" aria-live="polite" data-webauthn-status></p></form>`,
      );
    }
  }
  const scripts = signInPageScriptHashes(providers).length > 0 ? html`<script>${new SafeHtml(passkeyScript)}</script>` : '';
  const message = params.errorMessage ?? (error ? messageFor(signInErrorMessages, error) : undefined);
  const body = html`<h1>Sign in</h1>${message ? html`<div class="error" role="alert">${message}</div>` : ''}${sections}${sections.length ? '' : html`<p class="muted">No sign-in methods are configured.</p>`}${scripts}`;
  return layout({ title: 'Sign in', theme: params.theme, body });
}
