/**
 * The frame of every built-in page: light and dark schemes (`theme.colorScheme`, or the browser's), the brand colour
 * and logo of `theme`, visible focus, no JavaScript; a feature's banner (`context.banner`) spans the top, above the card.
 */
import type { Theme } from '../contracts.js';
import { readableTextColor } from './color.js';
import { SafeHtml, html, safeColor, safeUrl } from './html.js';

// Every text colour below reaches 4.5:1 on the backgrounds it is drawn on, and field borders and the focus ring
// reach 3:1 (WCAG 1.4.3, 1.4.11), in both schemes.
const light =
  '--bg:#f3f4f6;--card:#ffffff;--text:#16181d;--muted:#4e5461;--line:#dadde3;--field:#767c89;--focus:#1d4ed8;--error-bg:#fdecec;--error-line:#c43c3c;--error-text:#7f1d1d;--button-edge:transparent';
const dark =
  '--bg:#111317;--card:#1c1f25;--text:#eef0f3;--muted:#b6bcc7;--line:#343943;--field:#8a919e;--focus:#93b4ff;--error-bg:#3b1d1d;--error-line:#e26d6d;--error-text:#ffd6d6;--button-edge:rgba(255,255,255,.3)';

const styles = `
:root{color-scheme:light dark;${light};--brand:#3451b2;--brand-text:#ffffff}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){${dark}}}
:root[data-theme=light]{color-scheme:light}
:root[data-theme=dark]{color-scheme:dark;${dark}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;overflow-wrap:anywhere}
main{width:100%;max-width:400px;padding:24px 16px;margin-block:auto}body>:not(main){align-self:stretch}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:32px 28px}
.logo{display:block;max-height:64px;max-width:180px;margin:0 auto 20px}
h1{font-size:1.4rem;line-height:1.3;margin:0 0 20px;text-align:center}
p{margin:0 0 16px}
.card>:last-child{margin-bottom:0}
form{margin:0}
button,.button{display:flex;align-items:center;justify-content:center;gap:10px;width:100%;min-height:44px;padding:10px 14px;margin-top:16px;border:1px solid var(--button-edge);border-radius:8px;background:var(--brand);color:var(--brand-text);font:inherit;font-weight:600;line-height:1.3;text-align:center;text-decoration:none;cursor:pointer}
button:hover,.button:hover{filter:brightness(1.08)}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.providers form+form{margin-top:10px}
.providers button{margin-top:0;background:var(--button-bg,var(--brand));color:var(--button-text,var(--brand-text))}
.providers img{width:22px;height:22px;flex:none}
.divider{display:flex;align-items:center;gap:10px;color:var(--muted);font-size:.9rem;margin:22px 0 18px}
.divider::before,.divider::after{content:"";flex:1;border-top:1px solid var(--line)}
.error{background:var(--error-bg);color:var(--error-text);border-left:4px solid var(--error-line);border-radius:8px;padding:12px 14px;margin:0 0 20px}
.error p{margin:0}.error .code{margin-top:6px;font-size:.9rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.95em}
.muted{color:var(--muted)}
.center{text-align:center}
.actions a{display:block;margin-top:14px;text-align:center}
a{color:inherit;text-underline-offset:2px}
@media (forced-colors:active){button,.button,.providers button{border:1px solid ButtonText}}
`;

/** The custom properties of `theme`'s brand colour and its button text (readable even without `buttonText`). */
function brandStyles(theme: Theme): string {
  const brand = safeColor(theme.brandColor);
  const configuredText = safeColor(theme.buttonText);
  const text = brand ? readableTextColor(brand, configuredText) : configuredText;
  const properties = [brand && `--brand:${brand}`, text && `--brand-text:${text}`].filter(Boolean);
  return properties.length > 0 ? `:root{${properties.join(';')}}` : '';
}

/** Wraps `body` in the themed document: one `main` landmark, a card with the logo (and a feature's own `styles`). */
export function layout(params: { title: string; theme: Theme; body: SafeHtml; styles?: string }): string {
  const { theme } = params;
  const logo = safeUrl(theme.logo);
  const scheme = theme.colorScheme === 'dark' || theme.colorScheme === 'light' ? theme.colorScheme : undefined;
  return `<!DOCTYPE html>${html`<html lang="en"${scheme ? html` data-theme="${scheme}"` : ''}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><meta name="referrer" content="same-origin"><title>${params.title}</title><style>${new SafeHtml(styles + (params.styles ?? '') + brandStyles(theme))}</style></head><body><main><div class="card">${logo ? html`<img class="logo" src="${logo}" alt="">` : ''}${params.body}</div></main></body></html>`}`;
}
