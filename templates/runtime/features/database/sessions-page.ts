/**
 * The signed-in user's sessions (`<mount>/sessions`): each one's browser, when it signed in and was last seen, a
 * button to end it (the current one is marked instead), and buttons to end all the others or all of them. Every
 * button is a form that POSTs with the CSRF token; nothing needs JavaScript.
 */
import type { SessionSummary } from './session-management.js';
import type { Theme } from '../../contracts.js';
import { type SafeHtml, html } from '../../pages/html.js';
import { formStyles } from '../../pages/form-styles.js';
import { layout } from '../../pages/layout.js';

/** The list of sessions, beyond the layout's and the forms' styles. */
const sessionListStyles = '.sessions{list-style:none;padding:0;margin:0 0 8px}.sessions li{border-top:1px solid var(--line);padding:12px 0}.sessions li:first-child{border-top:0;padding-top:0}.sessions p{margin:0}';

/** An ISO date as `2026-11-24 12:30 UTC`, or a dash for a session made before dates were stored. */
function shownDate(iso: string | null): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '—';
}

function endForm(mountPath: string, csrfToken: string, fields: Record<string, string>, label: string, secondary: boolean): SafeHtml {
  const hidden = Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form action="${mountPath}/sessions" method="POST"><input type="hidden" name="csrfToken" value="${csrfToken}">${hidden}<button type="submit"${secondary ? html` class="secondary"` : ''}>${label}</button></form>`;
}

export function renderSessionsPage(params: { mountPath: string; csrfToken: string; sessions: readonly SessionSummary[]; theme: Theme; signedInPages: readonly { path: string; text: string }[] }): string {
  const { mountPath, csrfToken, sessions } = params;
  const items = sessions.map(
    (session) =>
      html`<li><p><strong>${session.userAgent ?? 'Unknown browser'}</strong>${session.current ? html` <span class="muted">(this browser)</span>` : ''}</p><p class="hint">Signed in ${shownDate(session.createdAt)} · last seen ${shownDate(session.lastSeenAt)}</p>${session.current ? '' : endForm(mountPath, csrfToken, { action: 'end', id: session.id }, 'End this session', true)}</li>`,
  );
  const others = sessions.length > 1 ? endForm(mountPath, csrfToken, { action: 'end-others' }, 'End all other sessions', false) : '';
  // The account page links here; back to it when the app has one (the features' `signedInPage`: features/account/).
  const account = params.signedInPages.length > 0 ? html`<p class="actions">${params.signedInPages.map((page) => html`<a href="${mountPath}/${page.path}">${page.text}</a>`)}</p>` : '';
  const body = html`<h1>Your sessions</h1><ul class="sessions">${items}</ul>${others}${endForm(mountPath, csrfToken, { action: 'end-all' }, 'Sign out everywhere', true)}${account}`;
  return layout({ title: 'Your sessions', theme: params.theme, body, styles: formStyles + sessionListStyles });
}
