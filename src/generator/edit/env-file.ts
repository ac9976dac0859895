/** One `KEY=value` line to add when the key is missing. */
export interface EnvEntry {
  key: string;
  value: string;
}

/** Entries added together under a comment (one `# ...` line per element). */
export interface EnvGroup {
  comment: readonly string[];
  entries: readonly EnvEntry[];
}

/** A `KEY=value` line found in a .env file. */
export interface EnvLine {
  /** Index in the list of lines (split on "\n"). */
  index: number;
  key: string;
  /** The value with quotes removed and an unquoted trailing comment dropped. */
  value: string;
}

const assignment = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=(.*)$/;

function unquote(raw: string): string {
  const value = raw.trim();
  const quote = value[0];
  if ((quote === '"' || quote === "'" || quote === '`') && value.length >= 2) {
    const end = value.indexOf(quote, 1);
    return end === -1 ? value.slice(1) : value.slice(1, end);
  }
  const comment = value.indexOf(' #');
  return (comment === -1 ? value : value.slice(0, comment)).trim();
}

/** Every assignment line of a .env text, matched by exact key (never by substring). */
export function readEnvLines(text: string): EnvLine[] {
  const result: EnvLine[] = [];
  text.split('\n').forEach((rawLine, index) => {
    const match = assignment.exec(rawLine.replace(/\r$/, ''));
    if (match?.[1] !== undefined) result.push({ index, key: match[1], value: unquote(match[2] ?? '') });
  });
  return result;
}

/** The last line that assigns `key` (the one dotenv parsers use), or undefined. */
export function findEnvLine(text: string, key: string): EnvLine | undefined {
  return readEnvLines(text)
    .filter((line) => line.key === key)
    .at(-1);
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/**
 * Appends the groups' missing keys to a .env text (or creates it). Existing lines stay byte-for-byte; a group
 * whose keys all exist adds nothing. With `before`, a key the text assigns, the groups go in front of that key's
 * paragraph instead (a provider's placeholders before the database's, where a new project has them).
 */
export function appendEnvGroups(text: string | undefined, groups: readonly EnvGroup[], options: { before?: string } = {}): string {
  const anchor = text === undefined || options.before === undefined ? undefined : findEnvLine(text, options.before);
  if (text !== undefined && anchor !== undefined) {
    const lines = text.split('\n');
    let start = anchor.index;
    while (start > 0 && (lines[start - 1] ?? '').trim() !== '') start -= 1;
    const missing = groups.map((group) => ({ ...group, entries: group.entries.filter((entry) => findEnvLine(text, entry.key) === undefined) }));
    const inserted = appendEnvGroups(undefined, missing);
    if (inserted === '') return text;
    const cr = eolOf(text) === '\r\n' ? '\r' : '';
    const block = inserted.replace(/\n$/, '').split('\n').map((line) => `${line}${cr}`);
    return [...lines.slice(0, start), ...block, cr, ...lines.slice(start)].join('\n');
  }
  const existing = new Set(readEnvLines(text ?? '').map((line) => line.key));
  const eol = text === undefined ? '\n' : eolOf(text);
  const blocks: string[] = [];
  for (const group of groups) {
    const missing = group.entries.filter((entry) => !existing.has(entry.key));
    if (missing.length === 0) continue;
    for (const entry of missing) existing.add(entry.key);
    const lines = [...group.comment.map((line) => `# ${line}`), ...missing.map((entry) => `${entry.key}=${entry.value}`)];
    blocks.push(lines.join(eol));
  }
  if (blocks.length === 0) return text ?? '';
  let base = text ?? '';
  if (base !== '' && !base.endsWith('\n')) base += eol;
  const separator = base.trim() === '' ? '' : eol;
  return `${base}${separator}${blocks.join(eol + eol)}${eol}`;
}

/**
 * Sets `key` to `value`: replaces only the last line assigning it (keeping an `export ` prefix and its line ending),
 * or appends one line. Every other byte stays as it was.
 */
export function setEnvValue(text: string | undefined, key: string, value: string): string {
  const source = text ?? '';
  const found = findEnvLine(source, key);
  if (found === undefined) return appendEnvGroups(text, [{ comment: [], entries: [{ key, value }] }]);
  const lines = source.split('\n');
  const line = lines[found.index] ?? '';
  const carriageReturn = line.endsWith('\r') ? '\r' : '';
  const prefix = /^\s*export\s+/.test(line) ? 'export ' : '';
  lines[found.index] = `${prefix}${key}=${value}${carriageReturn}`;
  return lines.join('\n');
}

/**
 * Removes every line assigning one of `keys`. A paragraph (lines between blank lines) left with only its `#`
 * comment goes with it, as does the blank line before it: the inverse of {@link appendEnvGroups}, so that adding
 * then removing a group gives the text back as it was. Every other byte stays.
 */
export function removeEnvKeys(text: string, keys: readonly string[]): string {
  const wanted = new Set(keys);
  const lines = text.split('\n');
  const assigned = new Map(readEnvLines(text).map((line) => [line.index, line.key]));
  const remove = new Set<number>();
  for (const [index, key] of assigned) if (wanted.has(key)) remove.add(index);
  if (remove.size === 0) return text;
  const isBlank = (index: number): boolean => (lines[index] ?? '').trim() === '';
  const isComment = (index: number): boolean => /^\s*#/.test(lines[index] ?? '');
  // Paragraphs whose assignments all go lose their comments and one blank line around them.
  let start = 0;
  while (start < lines.length) {
    if (isBlank(start)) {
      start += 1;
      continue;
    }
    let end = start;
    while (end + 1 < lines.length && !isBlank(end + 1)) end += 1;
    const indices = Array.from({ length: end - start + 1 }, (_, offset) => start + offset);
    const assignments = indices.filter((index) => assigned.has(index));
    const onlyRemoved = assignments.length > 0 && assignments.every((index) => remove.has(index)) && indices.every((index) => assigned.has(index) || isComment(index));
    if (onlyRemoved) {
      for (const index of indices) remove.add(index);
      if (start > 0 && isBlank(start - 1)) remove.add(start - 1);
      else if (end + 1 < lines.length - 1 && isBlank(end + 1)) remove.add(end + 1);
    }
    start = end + 1;
  }
  return lines.filter((_, index) => !remove.has(index)).join('\n');
}
