/** The sign-out confirmation and error pages. */
import type { Theme, PageMessages } from '../contracts.js';
import { html } from './html.js';
import { layout } from './layout.js';
import { displayableCode, messageFor } from './messages.js';

/**
 * The sign-out confirmation: a form that POSTs with the CSRF token (a GET must not sign anyone out, or any page
 * could embed the link), and a way back for a user who changed their mind.
 */
export function renderSignOutPage(params: { mountPath: string; csrfToken: string; callbackUrl: string | undefined; theme: Theme }): string {
  const body = html`<h1>Sign out</h1><p class="muted center">Are you sure you want to sign out?</p><form action="${params.mountPath}/signout" method="POST"><input type="hidden" name="csrfToken" value="${params.csrfToken}">${params.callbackUrl ? html`<input type="hidden" name="callbackUrl" value="${params.callbackUrl}">` : ''}<button type="submit">Sign out</button></form><p class="actions"><a href="${params.callbackUrl ?? '/'}">Stay signed in</a></p>`;
  return layout({ title: 'Sign out', theme: params.theme, body });
}

/**
 * The error page for `?error=<type>`: a heading and a message per type (unknown types get the default), the `code`
 * of a `CredentialsSignin`, and a link back to the sign-in page of this mount.
 */
export function renderErrorPage(params: {
  error: string | undefined;
  code?: string | undefined;
  /** A request error's own safe message (wrong method, unknown route), shown instead of the type's text. */
  requestProblem?: string | undefined;
  mountPath: string;
  theme: Theme;
  messages: PageMessages;
}): {
  status: number;
  body: string;
} {
  const known = messageFor(params.messages.errorPage, params.error);
  const entry = params.requestProblem ? { ...known, heading: 'Request not accepted', message: params.requestProblem } : known;
  const code = params.error === 'CredentialsSignin' ? displayableCode(params.code) : undefined;
  const body = html`<h1>${entry.heading}</h1><p>${entry.message}</p>${code ? html`<p class="muted">Error code: <code>${code}</code></p>` : ''}<a class="button" href="${params.mountPath}/signin">Sign in</a>`;
  return { status: entry.status, body: layout({ title: entry.heading, theme: params.theme, body }) };
}
