/**
 * Just enough HTML form scraping for tests: find <form> elements, their action/method and the values of their
 * <input> fields (hidden ones included), so a test can submit a page's form like a browser would. Not a general
 * HTML parser: it expects the well-formed markup that oidc-provider and our own templates produce.
 */

export interface HtmlForm {
  /** Absolute action URL (the page URL when the form has no action). */
  action: string;
  /** Upper-cased method, GET when absent. */
  method: string;
  /** name → value of every named <input> that has a value (checkboxes/radios only when checked, no submit inputs). */
  fields: Record<string, string>;
  /** Names of every named input, including ones with no value (e.g. an empty password field). */
  inputNames: string[];
  /** Raw attributes of the <form> tag. */
  attributes: Record<string, string>;
}

export function parseForms(html: string, pageUrl: string | URL): HtmlForm[] {
  const forms: HtmlForm[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form\s*>/gi)) {
    const attributes = parseAttributes(match[1] ?? '');
    const inner = match[2] ?? '';
    const fields: Record<string, string> = {};
    const inputNames: string[] = [];
    for (const input of inner.matchAll(/<input\b([^>]*)>/gi)) {
      const attrs = parseAttributes(input[1] ?? '');
      const name = attrs.name;
      if (name === undefined) continue;
      inputNames.push(name);
      const type = (attrs.type ?? 'text').toLowerCase();
      if ((type === 'checkbox' || type === 'radio') && !('checked' in attrs)) continue;
      if (type === 'submit' || type === 'button' || type === 'image') continue;
      if (attrs.value !== undefined) fields[name] = attrs.value;
    }
    forms.push({
      action: new URL(attributes.action || String(pageUrl), pageUrl).href,
      method: (attributes.method ?? 'GET').toUpperCase(),
      fields,
      inputNames,
      attributes,
    });
  }
  return forms;
}

/** The first form that has an input named `inputName` (or the first form at all when omitted). */
export function findForm(html: string, pageUrl: string | URL, inputName?: string): HtmlForm | undefined {
  return parseForms(html, pageUrl).find((f) => inputName === undefined || f.inputNames.includes(inputName));
}

/** Absolute href of every <a> on the page. */
export function parseLinks(html: string, pageUrl: string | URL): string[] {
  const links: string[] = [];
  for (const match of html.matchAll(/<a\b([^>]*)>/gi)) {
    const href = parseAttributes(match[1] ?? '').href;
    if (href !== undefined) links.push(new URL(href, pageUrl).href);
  }
  return links;
}

function parseAttributes(source: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of source.matchAll(/([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g)) {
    const name = match[1]?.toLowerCase();
    if (name === undefined || name in attributes) continue;
    attributes[name] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[\da-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isNaN(code) ? whole : String.fromCodePoint(code);
    }
    return NAMED_ENTITIES[entity.toLowerCase()] ?? whole;
  });
}
