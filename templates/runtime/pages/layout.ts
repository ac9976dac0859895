/**
 * The frame of every built-in page: light/dark colour scheme from `theme`, brand colour and logo, no JavaScript.
 */
import type { Theme } from '../config.js';
import { SafeHtml, html, safeColor, safeUrl } from './html.js';

const styles = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--text:#16181d;--muted:#555b66;--border:#d5d9e0;--brand:#3451b2;--brand-text:#fff;--error-bg:#fdecec;--error-text:#8a1c1c}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--bg:#14161a;--card:#1e2127;--text:#eef0f3;--muted:#b4bac5;--border:#3a3f48;--error-bg:#3b1d1d;--error-text:#ffd2d2}}
:root[data-theme=dark]{color-scheme:dark;--bg:#14161a;--card:#1e2127;--text:#eef0f3;--muted:#b4bac5;--border:#3a3f48;--error-bg:#3b1d1d;--error-text:#ffd2d2}
:root[data-theme=light]{color-scheme:light}
*{box-sizing:border-box}body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:100%;max-width:380px;padding:24px}
.card{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:28px}
.logo{display:block;max-height:64px;max-width:160px;margin:0 auto 16px}
h1{font-size:1.35rem;margin:0 0 20px;text-align:center}
p{margin:0 0 16px}
form{margin:0 0 12px}
label{display:block;font-weight:600;margin:12px 0 4px}
input{width:100%;padding:10px 12px;border:1px solid var(--border);border-radius:8px;background:var(--card);color:var(--text);font-size:1rem}
button,.button{display:flex;align-items:center;justify-content:center;gap:10px;width:100%;padding:11px 14px;margin-top:12px;border:0;border-radius:8px;background:var(--brand);color:var(--brand-text);font-size:1rem;font-weight:600;text-decoration:none;cursor:pointer}
button:focus-visible,.button:focus-visible,input:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
button img{width:22px;height:22px}
.provider button{background:var(--button-bg,var(--brand));color:var(--button-text,var(--brand-text))}
.divider{display:flex;align-items:center;gap:8px;color:var(--muted);margin:20px 0 8px}.divider::before,.divider::after{content:"";flex:1;border-top:1px solid var(--border)}
.error{background:var(--error-bg);color:var(--error-text);border-radius:8px;padding:12px 14px;margin-bottom:16px}
.muted{color:var(--muted);text-align:center}
a{color:inherit}
`;

/** Wraps page content in the themed document. */
export function layout(params: { title: string; theme: Theme; body: SafeHtml }): string {
  const { theme } = params;
  const brand = safeColor(theme.brandColor);
  const buttonText = safeColor(theme.buttonText);
  const logo = safeUrl(theme.logo);
  const scheme = theme.colorScheme === 'dark' || theme.colorScheme === 'light' ? theme.colorScheme : undefined;
  const brandStyle = brand || buttonText ? `:root{${brand ? `--brand:${brand};` : ''}${buttonText ? `--brand-text:${buttonText};` : ''}}` : '';
  return `<!DOCTYPE html>${html`<html lang="en"${scheme ? html` data-theme="${scheme}"` : ''}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${params.title}</title><style>${new SafeHtml(styles + brandStyle)}</style></head><body><main><div class="card">${logo ? html`<img class="logo" src="${logo}" alt="">` : ''}${params.body}</div></main></body></html>`}`;
}
