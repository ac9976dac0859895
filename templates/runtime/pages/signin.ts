/** The built-in sign-in page: a button per OAuth provider, a form per credentials provider. */
import type { Theme } from '../config.js';
import type { ResolvedProvider } from '../providers/resolve.js';
import { html, safeColor, safeUrl, type SafeHtml } from './html.js';
import { layout } from './layout.js';
import { signInErrorMessages } from './messages.js';

/** Renders the sign-in page. */
export function renderSignInPage(params: {
  providers: ResolvedProvider[];
  mountPath: string;
  csrfToken: string;
  callbackUrl: string | undefined;
  error: string | undefined;
  theme: Theme;
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
    }
  }
  const message = error ? (signInErrorMessages[error] ?? signInErrorMessages['default']) : undefined;
  const body = html`<h1>Sign in</h1>${message ? html`<div class="error" role="alert">${message}</div>` : ''}${sections}${sections.length ? '' : html`<p class="muted">No sign-in methods are configured.</p>`}`;
  return layout({ title: 'Sign in', theme: params.theme, body });
}
