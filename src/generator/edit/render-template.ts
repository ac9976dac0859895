import Handlebars from 'handlebars';
import type { Templates } from '../release.js';

/**
 * A TypeScript string literal for `value` (single quotes, escaped), so a template never builds one by hand.
 */
export function quoteTs(value: string): string {
  const escaped = value
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\r/g, '\\r')
    .replace(/\n/g, '\\n')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `'${escaped}'`;
}

/** Indents every line but the first of `text` by `spaces` spaces (for multi-line snippets inside a list). */
export function indentLines(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line, index) => (index === 0 || line === '' ? line : pad + line))
    .join('\n');
}

const handlebars = Handlebars.create();
handlebars.registerHelper('quote', (value: unknown) => {
  if (typeof value !== 'string') throw new TypeError(`quote expects a string, got ${typeof value}`);
  return quoteTs(value);
});
handlebars.registerHelper('indent', (value: unknown, spaces: unknown) => {
  if (typeof value !== 'string' || typeof spaces !== 'number') throw new TypeError('indent expects (string, number)');
  return indentLines(value, spaces);
});

// `{{#section 'imports'}}…{{/section}}` in a partial: its lines only where the partial is called with that section
// (`{{> (lookup . 'partial') section='imports'}}`), so one partial holds all that a feature adds to a file.
handlebars.registerHelper('section', function (this: { section?: unknown }, name: unknown, options: Handlebars.HelperOptions) {
  if (typeof name !== 'string') throw new TypeError('section expects a name');
  return this.section === name ? options.fn(this) : '';
});

const compiled = new Map<string, HandlebarsTemplateDelegate>();

// Keyed by the source, so that a changed template (tests edit copies of templates/) is compiled again.
function compile(source: string): HandlebarsTemplateDelegate {
  let template = compiled.get(source);
  if (!template) {
    template = handlebars.compile(source, { strict: true, noEscape: true });
    compiled.set(source, template);
  }
  return template;
}

/**
 * Renders `templates/project/<name>` (a `.hbs` file) with `data`. Templates only fill blanks: strict (a missing
 * value throws), no HTML escaping (the output is code). Every other `.hbs` file is a partial, named by its path
 * without `.hbs` (`auth/features/api-keys.ts`).
 */
export function renderTemplate(name: string, data: Record<string, unknown>, templates: Templates): string {
  const partials = Object.fromEntries([...templates.project].filter(([path]) => path.endsWith('.hbs') && path !== name).map(([path, source]) => [path.slice(0, -'.hbs'.length), compile(source)]));
  return compile(readProjectTemplate(name, templates))(data, { partials });
}

/** A file of `templates/project/` (a dotfile is stored under an npm-safe name such as `_gitignore`). */
export function readProjectTemplate(name: string, templates: Templates): string {
  const text = templates.project.get(name);
  if (text === undefined) throw new Error(`templates/project/${name} is missing from the release's templates`);
  return text;
}
