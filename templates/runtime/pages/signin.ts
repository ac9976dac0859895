/**
 * The built-in sign-in page: a "Sign in with <name>" button per OAuth provider in its brand colour, then the form of
 * each other provider, which its flow renders (credentials fields, an address, passkey buttons with the page's only
 * script). Every form posts its CSRF token and works without JavaScript; the passkey buttons, which cannot, say so.
 */
import { type SignInFormContext, flowOf } from '../flow.js';
import type { ResolvedOAuthProvider, ResolvedProvider, Theme, PageMessages } from '../contracts.js';
import { isOAuthProvider } from '../providers/resolve.js';
import { readableTextColor } from './color.js';
import { SafeHtml, html, safeColor, safeUrl } from './html.js';
import { layout } from './layout.js';
import { displayableCode, messageFor } from './messages.js';

/** The inline scripts of the providers' forms, once each. */
function pageScripts(providers: readonly ResolvedProvider[]): { source: string; hash: string }[] {
  const scripts: { source: string; hash: string }[] = [];
  for (const provider of providers) {
    if (isOAuthProvider(provider)) continue;
    const script = flowOf(provider).pageScript;
    if (script && !scripts.includes(script)) scripts.push(script);
  }
  return scripts;
}

/** The CSP hashes of the inline scripts the sign-in page has with these providers (for `sendHtml`). */
export function signInPageScriptHashes(providers: readonly ResolvedProvider[]): string[] {
  return pageScripts(providers).map((script) => script.hash);
}

/** The button of an OAuth provider, in `style.brandColor` with `style.logo`, its text readable (`readableTextColor`). */
function providerButton(provider: ResolvedOAuthProvider, mountPath: string, hidden: SafeHtml, reauth: boolean): SafeHtml {
  const brand = safeColor(provider.style?.brandColor ?? provider.style?.bg);
  const configuredText = safeColor(provider.style?.text);
  const text = brand ? readableTextColor(brand, configuredText) : configuredText;
  const logo = safeUrl(provider.style?.logo);
  const style = [brand && `--button-bg:${brand}`, text && `--button-text:${text}`].filter(Boolean).join(';');
  // Re-authenticating posts to <mount>/reauth, which asks the provider to authenticate the user again.
  const action = reauth ? `${mountPath}/reauth` : `${mountPath}/signin/${encodeURIComponent(provider.id)}`;
  const which = reauth ? html`<input type="hidden" name="provider" value="${provider.id}">` : '';
  return html`<form action="${action}" method="POST">${hidden}${which}<button type="submit"${style ? html` style="${style}"` : ''}>${logo ? html`<img src="${logo}" alt="" width="22" height="22">` : ''}<span>Sign in with ${provider.name}</span></button></form>`;
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
  /** The app's error texts: the core's and its features' (the resolved config's `pageMessages`). */
  messages: PageMessages;
  /** Re-authentication (`<mount>/reauth`): who is signed in; the page asks them to sign in again. */
  reauth?: { who: string } | undefined;
  /** Who is signed in already, and the pages of theirs to link (the features' `signedInPage`). */
  signedIn?: { who: string; pages: readonly { path: string; text: string }[] } | undefined;
}): string {
  const { providers, mountPath, csrfToken, callbackUrl, error } = params;
  const hidden = html`<input type="hidden" name="csrfToken" value="${csrfToken}">${callbackUrl ? html`<input type="hidden" name="callbackUrl" value="${callbackUrl}">` : ''}`;
  // Provider buttons first, together; then each form in the configured order, with "or" between groups.
  const buttons: SafeHtml[] = [];
  const forms: SafeHtml[] = [];
  const styles: string[] = [];
  const formContext: SignInFormContext = { mountPath, hidden, email: params.email };
  for (const provider of providers) {
    if (isOAuthProvider(provider)) buttons.push(providerButton(provider, mountPath, hidden, params.reauth !== undefined));
    else {
      const flow = flowOf(provider);
      const form = flow.signInForm?.(provider, formContext);
      if (form) forms.push(form);
      if (flow.pageStyles && !styles.includes(flow.pageStyles)) styles.push(flow.pageStyles);
    }
  }
  const groups = [...(buttons.length > 0 ? [html`<div class="providers">${buttons}</div>`] : []), ...forms];
  const divider = html`<div class="divider" aria-hidden="true">or</div>`;
  const sections = groups.map((group, index) => (index === 0 ? group : html`${divider}${group}`));

  const message = params.errorMessage ?? (error ? messageFor(params.messages.signIn, error) : undefined);
  const code = error === 'CredentialsSignin' ? displayableCode(params.code) : undefined;
  const alert = message ? html`<div class="error" role="alert"><p>${message}</p>${code ? html`<p class="code">Error code: <code>${code}</code></p>` : ''}</div>` : '';
  const scripts = pageScripts(providers).map((script) => html`<script>${new SafeHtml(script.source)}</script>`);
  const heading = params.reauth
    ? html`<h1>Confirm it is you</h1><p class="muted">Signed in as <strong>${params.reauth.who}</strong>. Sign in again to continue.</p>`
    : html`<h1>Sign in</h1>${params.signedIn ? html`<p class="muted">Signed in as <strong>${params.signedIn.who}</strong>.${params.signedIn.pages.map((page) => html` <a href="${mountPath}/${page.path}">${page.text}</a>`)}</p>` : ''}`;
  const body = html`${heading}${alert}${sections}${sections.length > 0 ? '' : html`<p class="muted center">No sign-in methods are configured.</p>`}${scripts}`;
  return layout({ title: params.reauth ? 'Confirm it is you' : 'Sign in', theme: params.theme, body, styles: styles.join('') });
}
