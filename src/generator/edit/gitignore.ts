/**
 * Adds each entry not yet ignored as its own line (an entry counts as present when a line is exactly it or its
 * root-anchored form, e.g. `.env` or `/.env`). Existing lines stay as they were.
 */
export function ensureGitignoreEntries(text: string | undefined, entries: readonly string[]): string {
  const source = text ?? '';
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const present = new Set(source.split(/\r?\n/).map((line) => line.trim()));
  const missing = entries.filter((entry) => !present.has(entry) && !present.has(`/${entry}`));
  if (missing.length === 0) return source;
  const base = source === '' || source.endsWith('\n') ? source : source + eol;
  return `${base}${missing.join(eol)}${eol}`;
}
