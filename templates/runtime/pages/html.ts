/**
 * The smallest HTML toolkit the built-in pages need: every interpolated value is escaped unless it is already
 * `SafeHtml`, so provider names, error codes and callback URLs render inert.
 */

/** HTML that is already escaped. */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for use in HTML content and quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (character) => escapes[character] ?? character);
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (value instanceof SafeHtml) return value.value;
  return escapeHtml(value);
}

/** Tagged template: `html\`<p>${name}</p>\`` escapes `name`. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let output = strings[0] ?? '';
  values.forEach((value, index) => {
    output += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(output);
}

/** A CSS colour from configuration, or undefined when it is not a plain colour (it goes into a style attribute). */
export function safeColor(color: string | undefined): string | undefined {
  if (!color) return undefined;
  return /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]+|rgba?\([\d\s.,%]+\)|hsla?\([\d\s.,%deg]+\))$/.test(color.trim()) ? color.trim() : undefined;
}

/** A URL for `src`/`href` from configuration: http(s), a relative path, or an image data URI; anything else is dropped. */
export function safeUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const trimmed = url.trim();
  if (/^https?:\/\//i.test(trimmed) || (trimmed.startsWith('/') && !trimmed.startsWith('//')) || /^data:image\/(png|svg\+xml|jpeg|gif|webp)[;,]/i.test(trimmed)) {
    return trimmed;
  }
  return undefined;
}
