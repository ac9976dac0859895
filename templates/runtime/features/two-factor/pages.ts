/**
 * The two-factor pages, in the theme of the built-in pages, each form posting to `<mount>/two-factor` with the CSRF
 * token and working without JavaScript: the code form of a pending sign-in, setting up (the QR code as inline SVG,
 * made by uqr, and the secret as text), the recovery codes (shown once), and managing two-factor once it is on.
 */
import { renderSVG } from 'uqr';
import { SafeHtml, html } from '../../pages/html.js';
import { formStyles } from '../../pages/form-styles.js';
import { layout } from '../../pages/layout.js';
import type { Theme } from '../../contracts.js';

/** The styles of these pages beyond the layout's. */
const styles = formStyles + 'h2{font-size:1.1rem;margin:24px 0 8px}.qr{display:inline-block;border-radius:8px}.recovery-codes{columns:2;padding-left:20px;margin:0 0 16px}';

/** What every two-factor page needs. */
export interface TwoFactorPageBase {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  /** A refused value, said below its field: `code` or `recoveryCode`. */
  errors?: Partial<Record<'code' | 'recoveryCode', string>> | undefined;
  /** The action whose form was refused (the manage page has several), so that the error shows by that form only. */
  refused?: string | undefined;
}

/** A labelled input for a code, with its hint and, when refused, its error. */
function codeField(name: 'code' | 'recoveryCode', prefix: string, errors: TwoFactorPageBase['errors']): SafeHtml {
  const id = `${prefix}-${name}`;
  const error = errors?.[name];
  const recovery = name === 'recoveryCode';
  const hint = recovery ? 'One of the codes you saved, like abcde-23456. Each works once.' : 'The 6-digit code your authenticator app shows now.';
  const described = `${id}-hint${error ? ` ${id}-error` : ''}`;
  return html`<label for="${id}">${recovery ? 'Recovery code' : 'Authentication code'}</label><input id="${id}" name="${name}" type="text"${recovery ? '' : html` inputmode="numeric" pattern="[0-9 ]*"`} autocomplete="${recovery ? 'off' : 'one-time-code'}" required${error ? html` aria-invalid="true"` : ''} aria-describedby="${described}"><p class="hint" id="${id}-hint">${hint}</p>${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''}`;
}

function form(params: TwoFactorPageBase, action: string | undefined, fields: SafeHtml, button: string, secondary = false): SafeHtml {
  return html`<form action="${params.mountPath}/two-factor" method="POST"><input type="hidden" name="csrfToken" value="${params.csrfToken}">${action ? html`<input type="hidden" name="action" value="${action}">` : ''}${fields}<button type="submit"${secondary ? html` class="secondary"` : ''}>${button}</button></form>`;
}

/** GET `<mount>/two-factor` during a pending sign-in: a code, or a recovery code. */
export function renderCodePage(params: TwoFactorPageBase): string {
  const body = html`<h1>Two-factor authentication</h1><p class="muted">Enter the code from your authenticator app to finish signing in.</p>${form(params, undefined, codeField('code', 'sign-in', params.errors), 'Verify')}<div class="divider" aria-hidden="true">or</div>${form(params, undefined, codeField('recoveryCode', 'sign-in', params.errors), 'Use recovery code', true)}<p class="actions"><a href="${params.mountPath}/signin">Cancel and sign in again</a></p>`;
  return layout({ title: 'Two-factor authentication', theme: params.theme, body, styles });
}

/** Signed in, two-factor off: what it is, and the button that begins setting it up. */
export function renderOffPage(params: TwoFactorPageBase): string {
  const body = html`<h1>Two-factor authentication</h1><p>Two-factor authentication is off. With it on, signing in with your password also asks for a code from an authenticator app on your phone.</p>${form(params, 'enroll', html``, 'Set up two-factor authentication')}<p class="actions"><a href="/">Back</a></p>`;
  return layout({ title: 'Two-factor authentication', theme: params.theme, body, styles });
}

/** The QR code of `uri` as inline SVG, named for screen readers. */
function qrCode(uri: string): SafeHtml {
  const svg = renderSVG(uri, { border: 2 }).replace('<svg ', '<svg role="img" aria-label="QR code to scan with your authenticator app" width="200" height="200" class="qr" ');
  return new SafeHtml(svg);
}

/** Setting up: the QR code, the secret to type instead, and the code that confirms it. */
export function renderEnrollPage(params: TwoFactorPageBase & { secret: string; uri: string }): string {
  const grouped = params.secret.replace(/(.{4})/g, '$1 ').trim();
  const body = html`<h1>Set up two-factor authentication</h1><p>Scan this QR code with your authenticator app, then enter the code it shows.</p><p class="center">${qrCode(params.uri)}</p><p class="muted">Cannot scan it? Enter this key in the app instead:</p><p class="center"><code id="two-factor-secret">${grouped}</code></p>${form(params, 'enable', codeField('code', 'enable', params.errors), 'Turn on')}`;
  return layout({ title: 'Set up two-factor authentication', theme: params.theme, body, styles });
}

/** The recovery codes, shown once, after turning on or regenerating. */
export function renderRecoveryCodesPage(params: { mountPath: string; theme: Theme; codes: readonly string[] }): string {
  const items = params.codes.map((code) => html`<li><code>${code}</code></li>`);
  const body = html`<h1>Save your recovery codes</h1><p role="status">Two-factor authentication is on.</p><p>If you lose your phone, each of these codes signs you in once. Keep them somewhere safe: they are shown only now.</p><ul class="recovery-codes">${items}</ul><p class="actions"><a href="${params.mountPath}/two-factor">Done</a></p>`;
  return layout({ title: 'Save your recovery codes', theme: params.theme, body, styles });
}

function errorsOf(params: TwoFactorPageBase, action: string): TwoFactorPageBase['errors'] {
  return params.refused === action ? params.errors : undefined;
}

/** Signed in, two-factor on: new recovery codes, or turning it off. */
export function renderManagePage(params: TwoFactorPageBase & { recoveryCodesLeft: number }): string {
  const body = html`<h1>Two-factor authentication</h1><p>Two-factor authentication is on. You have ${String(params.recoveryCodesLeft)} unused recovery code${params.recoveryCodesLeft === 1 ? '' : 's'}.</p><h2>New recovery codes</h2><p class="muted">Replaces the old ones.</p>${form(params, 'regenerate', codeField('code', 'regenerate', errorsOf(params, 'regenerate')), 'Make new recovery codes')}<h2>Turn off</h2>${form(params, 'disable', codeField('code', 'disable', errorsOf(params, 'disable')), 'Turn off with a code', true)}${form(params, 'disable', codeField('recoveryCode', 'disable', errorsOf(params, 'disable')), 'Turn off with a recovery code', true)}<p class="actions"><a href="/">Back</a></p>`;
  return layout({ title: 'Two-factor authentication', theme: params.theme, body, styles });
}
