/**
 * The API-keys page (`<mount>/api-keys`), in the theme of the built-in pages: a new key shown once (selectable, with a
 * copy button that a small inline script adds: without JavaScript the key is selected and copied by hand), the form
 * that creates a key (errors by their fields), and the user's keys, each with its revoke button. Every form POSTs
 * with the CSRF token.
 */
import { createHash } from 'node:crypto';
import type { Theme } from '../../contracts.js';
import { SafeHtml, html } from '../../pages/html.js';
import { formStyles } from '../../pages/form-styles.js';
import { layout } from '../../pages/layout.js';
import type { ApiKeyRecord } from './storage.js';

/** A refused field of the create form (`form`: the whole form, as when the user holds the most keys). */
export type NewKeyErrors = Partial<Record<'name' | 'scopes' | 'expiresInDays' | 'organization' | 'form', string>>;

/** What the page shows. */
export interface ApiKeysPage {
  mountPath: string;
  csrfToken: string;
  theme: Theme;
  settings: { scopes: readonly string[]; expiresInDays: number; maxExpiresInDays: number };
  keys: readonly ApiKeyRecord[];
  /** The organizations a key may be made for (features/organizations/); none without them. */
  organizations: readonly { id: string; slug: string; name: string }[];
  /** Now, in milliseconds: which keys have expired. */
  now: number;
  /** A key just created: shown this once. */
  created?: { name: string; key: string } | undefined;
  /** A refused create form: its errors, and what was sent, kept in the fields. */
  errors?: NewKeyErrors | undefined;
  sent?: Record<string, unknown> | undefined;
}

/** The copy button: shown and wired by this script, so that a page without JavaScript shows no dead button. */
const copyKeyScript = `(() => {
  const input = document.getElementById('new-api-key');
  const button = document.getElementById('copy-api-key');
  if (!input || !button || !navigator.clipboard) return;
  button.hidden = false;
  input.addEventListener('focus', () => input.select());
  button.addEventListener('click', () => {
    input.select();
    navigator.clipboard.writeText(input.value).then(() => { button.textContent = 'Copied'; }, () => { button.textContent = 'Select the key and copy it'; });
  });
})();`;

/** The script's CSP source expression (`sha256-<base64>`). */
export const copyKeyScriptHash = `sha256-${createHash('sha256').update(copyKeyScript).digest('base64')}`;

// The layout's `button{display:flex}` would outrank the `hidden` attribute's display:none: the copy button stays
// hidden until the script shows it.
const styles = formStyles + 'h2{font-size:1.1rem;margin:24px 0 8px}.new-key{border:1px solid var(--line);border-radius:8px;padding:14px;margin:0 0 20px}.new-key input{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}.new-key button[hidden]{display:none}fieldset{border:0;padding:0;margin:14px 0 0}legend{font-weight:600;padding:0;margin-bottom:4px}.check{display:flex;align-items:center;gap:8px;font-weight:400;margin:4px 0}.check input{width:auto;min-height:0}';

/** A date as `2026-11-24`, or a dash. */
function shownDay(date: Date | null): string {
  return date ? date.toISOString().slice(0, 10) : '—';
}

function hiddenFields(params: ApiKeysPage, fields: Record<string, string>): SafeHtml {
  return html`<input type="hidden" name="csrfToken" value="${params.csrfToken}">${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}`;
}

function fieldError(id: string, error: string | undefined): SafeHtml | string {
  return error ? html`<p class="field-error" id="${id}-error">${error}</p>` : '';
}

/** The scopes sent with a refused form, to keep them checked. */
function sentScopes(sent: Record<string, unknown> | undefined): string[] {
  const value = sent?.['scopes'];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((scope): scope is string => typeof scope === 'string') : [];
}

function createForm(params: ApiKeysPage): SafeHtml {
  const { errors, sent, settings } = params;
  const name = typeof sent?.['name'] === 'string' ? sent['name'] : '';
  const days = typeof sent?.['expiresInDays'] === 'string' ? sent['expiresInDays'] : String(settings.expiresInDays);
  const checked = sentScopes(sent);
  const invalid = (field: keyof NewKeyErrors, id: string, hint = false): SafeHtml | string =>
    errors?.[field] ? html` aria-invalid="true" aria-describedby="${hint ? `${id}-hint ` : ''}${id}-error"` : hint ? html` aria-describedby="${id}-hint"` : '';
  const scopes = settings.scopes.length
    ? html`<fieldset${errors?.scopes ? html` aria-describedby="key-scopes-error"` : ''}><legend>Scopes</legend>${settings.scopes.map(
        (scope, index) => html`<label class="check" for="key-scope-${String(index)}"><input type="checkbox" id="key-scope-${String(index)}" name="scopes" value="${scope}"${checked.includes(scope) ? html` checked` : ''}>${scope}</label>`,
      )}</fieldset>${fieldError('key-scopes', errors?.scopes)}`
    : '';
  const sentOrganization = typeof sent?.['organization'] === 'string' ? sent['organization'] : '';
  const organization = params.organizations.length
    ? html`<label for="key-organization">Acts in</label><select id="key-organization" name="organization"${invalid('organization', 'key-organization')}><option value="">Your account (every organization you belong to)</option>${params.organizations.map(
        (offer) => html`<option value="${offer.id}"${sentOrganization === offer.id ? html` selected` : ''}>${offer.name} only</option>`,
      )}</select>${fieldError('key-organization', errors?.organization)}`
    : '';
  return html`<form action="${params.mountPath}/api-keys" method="POST">${hiddenFields(params, { action: 'create' })}${errors?.form ? html`<div class="error" role="alert"><p>${errors.form}</p></div>` : ''}<label for="key-name">Name</label><input id="key-name" name="name" type="text" maxlength="100" required value="${name}"${invalid('name', 'key-name')}>${fieldError('key-name', errors?.name)}${scopes}<label for="key-days">Expires in (days)</label><input id="key-days" name="expiresInDays" type="number" min="1" max="${String(settings.maxExpiresInDays)}" required value="${days}"${invalid('expiresInDays', 'key-days', true)}><p class="hint" id="key-days-hint">At most ${String(settings.maxExpiresInDays)} days.</p>${fieldError('key-days', errors?.expiresInDays)}${organization}<button type="submit">Create API key</button></form>`;
}

function keyItem(params: ApiKeysPage, key: ApiKeyRecord): SafeHtml {
  const expired = key.expiresAt.valueOf() <= params.now;
  const organization = key.organizationId === null ? undefined : params.organizations.find((offer) => offer.id === key.organizationId);
  const where = key.organizationId === null ? '' : ` · acts in ${organization?.name ?? 'one organization'} only`;
  const scopes = key.scopes.length ? key.scopes.join(', ') : 'none';
  return html`<li><p><strong>${key.name}</strong> <code>${key.start}…</code>${expired ? html` <span class="muted">(expired)</span>` : ''}</p><p class="hint">Scopes: ${scopes} · created ${shownDay(key.createdAt)} · last used ${shownDay(key.lastUsedAt)} · expires ${shownDay(key.expiresAt)}${where}</p><form action="${params.mountPath}/api-keys" method="POST">${hiddenFields(params, { action: 'revoke', id: key.id })}<button type="submit" class="secondary" aria-label="Revoke ${key.name}">Revoke</button></form></li>`;
}

export function renderApiKeysPage(params: ApiKeysPage): string {
  const { created } = params;
  const shown = created
    ? html`<div class="new-key" role="status"><p>Copy your new key now: it is shown only this once.</p><label for="new-api-key">API key “${created.name}”</label><input id="new-api-key" type="text" readonly value="${created.key}" autocomplete="off" spellcheck="false"><button type="button" id="copy-api-key" class="secondary" hidden>Copy</button></div><script>${new SafeHtml(copyKeyScript)}</script>`
    : '';
  const list = params.keys.length ? html`<ul class="sessions">${params.keys.map((key) => keyItem(params, key))}</ul>` : html`<p class="muted">You have no API keys.</p>`;
  const body = html`<h1>API keys</h1>${shown}<p class="muted">A key lets a script or app call this site's API as you: send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p><h2>Your keys</h2>${list}<h2>New key</h2>${createForm(params)}<p class="actions"><a href="/">Back</a></p>`;
  return layout({ title: 'API keys', theme: params.theme, body, styles });
}
