// The OWASP ASVS 5.0 maps of docs/security.md ("OWASP ASVS 5.0: V6 and V7", "OWASP ASVS 5.0: V8 Authorization"): one
// row per level 1 and level 2 requirement of V6 (Authentication), V7 (Session Management) and V8 (Authorization), each
// held by named tests, not applicable, or missing with the issue that tracks it. This file checks the tables against
// the standard's ids and against the test files they name, and holds the few claims of the maps that no other test
// holds.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { featureCatalog, optInLines } from '../src/catalog/features.js';
import { providerCatalog } from '../src/catalog/providers.js';
import { MemoryAdapter } from '../templates/runtime/adapters/memory.js';
import { migrate } from '../templates/runtime/adapters/sqlite.js';
import { resolveConfig } from '../templates/runtime/config.js';
import { UnsupportedStrategy } from '../templates/runtime/errors.js';
import { Organizations } from '../templates/runtime/features/organizations/index.js';
import { OWNER, builtInPermissions, defaultRoles } from '../templates/runtime/features/organizations/roles.js';
import { allRateLimitDefaults as defaultRateLimitRules } from './support/all-features.js';
import { allFeatures } from './support/all-features.js';

const root = new URL('../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

/**
 * The level 1 and level 2 requirements of V6 and V7 in OWASP ASVS 5.0.0 (tag v5.0.0_release of OWASP/ASVS,
 * 5.0/en/0x15-V6-Authentication.md and 5.0/en/0x16-V7-Session-Management.md), in the standard's order, with their
 * level. Level 3 requirements (6.3.5–6.3.8, 6.4.5, 6.4.6, 6.5.6–6.5.8, 6.6.4, 6.7.1, 6.7.2, 7.5.3) are out of scope.
 */
const REQUIREMENTS: ReadonlyArray<readonly [id: string, level: 1 | 2]> = [
  ['6.1.1', 1], ['6.1.2', 2], ['6.1.3', 2],
  ['6.2.1', 1], ['6.2.2', 1], ['6.2.3', 1], ['6.2.4', 1], ['6.2.5', 1], ['6.2.6', 1], ['6.2.7', 1], ['6.2.8', 1],
  ['6.2.9', 2], ['6.2.10', 2], ['6.2.11', 2], ['6.2.12', 2],
  ['6.3.1', 1], ['6.3.2', 1], ['6.3.3', 2], ['6.3.4', 2],
  ['6.4.1', 1], ['6.4.2', 1], ['6.4.3', 2], ['6.4.4', 2],
  ['6.5.1', 2], ['6.5.2', 2], ['6.5.3', 2], ['6.5.4', 2], ['6.5.5', 2],
  ['6.6.1', 2], ['6.6.2', 2], ['6.6.3', 2],
  ['6.8.1', 2], ['6.8.2', 2], ['6.8.3', 2], ['6.8.4', 2],
  ['7.1.1', 2], ['7.1.2', 2], ['7.1.3', 2],
  ['7.2.1', 1], ['7.2.2', 1], ['7.2.3', 1], ['7.2.4', 1],
  ['7.3.1', 2], ['7.3.2', 2],
  ['7.4.1', 1], ['7.4.2', 1], ['7.4.3', 2], ['7.4.4', 2], ['7.4.5', 2],
  ['7.5.1', 2], ['7.5.2', 2],
  ['7.6.1', 2], ['7.6.2', 2],
];

/**
 * The requirements of V8 in OWASP ASVS 5.0.0 (5.0/en/0x17-V8-Authorization.md), in the standard's order, with their
 * level: every level 1 and level 2 one must have a row; of level 3, only those listed here may (8.3.2: changes to
 * authorization values applied at once, which organizations hold; 8.4.2: administrative interfaces, issue 49's
 * administration). 8.1.3, 8.1.4, 8.2.4 and 8.3.3 (level 3, environmental attributes, intermediaries) are out of scope.
 */
const V8_REQUIREMENTS: ReadonlyArray<readonly [id: string, level: 1 | 2 | 3]> = [
  ['8.1.1', 1], ['8.1.2', 2],
  ['8.2.1', 1], ['8.2.2', 1], ['8.2.3', 2],
  ['8.3.1', 1], ['8.3.2', 3],
  ['8.4.1', 2], ['8.4.2', 3],
];

const STATUSES = ['held', 'not applicable', 'missing'] as const;
type Status = (typeof STATUSES)[number];

/**
 * Missing rows found by the map for which no issue was filed yet: they say "No issue yet" instead of an issue
 * number. Take an id off this list once its row names its issue; the list may only shrink.
 */
const NO_ISSUE_YET: readonly string[] = ['6.1.2', '6.2.11', '6.5.2', '7.1.1', '7.2.3', '7.4.4', '7.5.2', '8.4.2'];

const SECTION = '## OWASP ASVS 5.0: V6 and V7';

/** The map of V8 (organizations, issue 48), in the same form. */
const V8_SECTION = '## OWASP ASVS 5.0: V8 Authorization';

/** The rows of other chapters that the security reviews brought (review 5: 3.4.4, 3.7.2, 14.2.7), in the same form. */
const BEYOND_SECTION = '## OWASP ASVS 5.0: beyond V6, V7 and V8';

interface NamedTest {
  file: string;
  name: string;
}

interface Row {
  /** The line in docs/security.md, 1-based, for the messages. */
  line: number;
  id: string;
  level: string;
  requirement: string;
  status: string;
  tests: NamedTest[];
  note: string;
}

/** The rows of the ASVS tables of a security.md's `section`, and what could not be read as a row. */
function asvsTables(markdown: string, section = SECTION): { rows: Row[]; problems: string[] } {
  const lines = markdown.split('\n');
  const start = lines.indexOf(section);
  if (start === -1) return { rows: [], problems: [`docs/security.md has no "${section}" section`] };
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  const rows: Row[] = [];
  const problems: string[] = [];
  lines.slice(start + 1, end === -1 ? undefined : end).forEach((text, offset) => {
    const line = start + 2 + offset;
    if (!text.startsWith('|') || /^\|[\s|:-]+\|$/.test(text) || /^\| id \|/.test(text)) return;
    const cells = text.trim().replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim());
    if (cells.length !== 6) {
      problems.push(`line ${line}: ${cells.length} cells instead of 6 (id, level, requirement, status, tests, note): ${text.slice(0, 60)}…`);
      return;
    }
    const [id, level, requirement, status, testsCell, note] = cells as [string, string, string, string, string, string];
    const tests: NamedTest[] = [];
    for (const entry of testsCell === '' ? [] : testsCell.split('<br>')) {
      const match = /^`([^`]+)` › "(.+)"$/.exec(entry.trim());
      if (match) tests.push({ file: match[1]!, name: match[2]! });
      else problems.push(`${id} (line ${line}): a test must be written as \`file\` › "name", not ${entry.trim()}`);
    }
    rows.push({ line, id, level, requirement, status, tests, note });
  });
  return { rows, problems };
}

/** The names given to `it()`/`test()` (also `it.each(…)(…)`, `it.skipIf(…)(…)`, `test.only(…)`) as literal strings. */
function testNamesOf(source: string, fileName = 'file.ts'): Set<string> {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const isTestFunction = (node: ts.Expression): boolean =>
    (ts.isIdentifier(node) && (node.text === 'it' || node.text === 'test')) ||
    (ts.isPropertyAccessExpression(node) && isTestFunction(node.expression)) ||
    (ts.isCallExpression(node) && isTestFunction(node.expression));
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && isTestFunction(node.expression)) {
      const first = node.arguments[0];
      if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) names.add(first.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/** What is wrong with each row's status: unknown, or without what it needs (a test, a reason, an issue). */
function statusProblems(rows: readonly Row[]): string[] {
  const problems: string[] = [];
  for (const row of rows) {
    const where = `${row.id} (line ${row.line})`;
    if (!STATUSES.includes(row.status as Status)) {
      problems.push(`${where}: status "${row.status}" is not one of ${STATUSES.join(', ')}`);
      continue;
    }
    const status = row.status as Status;
    if (status === 'held' && row.tests.length === 0) problems.push(`${where}: held, but names no test`);
    if (status === 'not applicable' && row.note === '') problems.push(`${where}: not applicable, but the note does not say why`);
    if (status === 'missing') {
      const issue = /\bissue #\d+/i.test(row.note);
      const unfiled = /\bno issue yet\b/i.test(row.note);
      if (!issue && !(unfiled && NO_ISSUE_YET.includes(row.id))) problems.push(`${where}: missing, but the note names no issue ("issue #N")`);
    }
  }
  return problems;
}

/** The named tests that do not exist: a file outside test/ or missing, or no it()/test() of that name in it. */
function unknownTestProblems(rows: readonly Row[]): string[] {
  const problems: string[] = [];
  const namesByFile = new Map<string, Set<string>>();
  for (const row of rows) {
    for (const { file, name } of row.tests) {
      const where = `${row.id} (line ${row.line})`;
      if (!/^test\/[\w./-]+\.ts$/.test(file) || file.split('/').includes('..')) {
        problems.push(`${where}: ${file} is not a file under test/`);
        continue;
      }
      if (!existsSync(new URL(file, root))) {
        problems.push(`${where}: ${file} does not exist`);
        continue;
      }
      if (!namesByFile.has(file)) namesByFile.set(file, testNamesOf(read(file), file));
      if (!namesByFile.get(file)!.has(name)) problems.push(`${where}: ${file} has no test named "${name}"`);
    }
  }
  return problems;
}

const { rows, problems: unreadable } = asvsTables(read('docs/security.md'));

describe('the OWASP ASVS map in docs/security.md', () => {
  it('reads every line of its tables as a row of six cells', () => {
    expect(unreadable).toEqual([]);
    expect(rows.length).toBeGreaterThan(0);
  });

  it('has one row per level 1 and level 2 requirement of V6 and V7, in the standard\'s order, each with its level', () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      if (!/^\d+\.\d+\.\d+$/.test(row.id)) problems.push(`line ${row.line}: "${row.id}" is not an id of the form n.n.n`);
      if (seen.has(row.id)) problems.push(`${row.id} (line ${row.line}): a second row for this id`);
      seen.add(row.id);
      const expected = REQUIREMENTS.find(([id]) => id === row.id);
      if (!expected) problems.push(`${row.id} (line ${row.line}): not a level 1 or 2 requirement of ASVS 5.0.0 V6 or V7`);
      else if (row.level !== String(expected[1])) problems.push(`${row.id} (line ${row.line}): level ${row.level}, the standard says ${expected[1]}`);
      if (row.requirement === '') problems.push(`${row.id} (line ${row.line}): no requirement text`);
    }
    for (const [id] of REQUIREMENTS) if (!seen.has(id)) problems.push(`${id}: no row`);
    expect(problems).toEqual([]);
    expect(rows.map((row) => row.id)).toEqual(REQUIREMENTS.map(([id]) => id));
  });

  it('gives every row a status of held, not applicable or missing, and what that status needs', () => {
    const problems = statusProblems(rows);
    // An unfiled row may be in the map of V8 too (8.4.2).
    const everyRow = [...rows, ...asvsTables(read('docs/security.md'), V8_SECTION).rows];
    for (const id of NO_ISSUE_YET) {
      const row = everyRow.find((candidate) => candidate.id === id);
      if (row?.status !== 'missing' || !/\bno issue yet\b/i.test(row.note) || /\bissue #\d+/i.test(row.note)) {
        problems.push(`${id}: on NO_ISSUE_YET in test/docs-asvs.test.ts, but its row is not missing with "No issue yet": take it off the list`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('names only tests that exist: each file under test/, each name given to it() or test() in that file', () => {
    expect(unknownTestProblems(rows)).toEqual([]);
  });

  it('finds test names as vitest is given them, and nothing else (the check itself works)', () => {
    const source = [
      "it('plain', () => {});",
      'test("double \\"quoted\\"", async () => {});',
      'it.each([[1], [2]])(\n  `each %s`,\n  () => {},\n);',
      "it.skipIf(process.env.CI)('skipped on CI', () => {});",
      "test.only('only', () => {});",
      "describe('a describe', () => {});",
      'it(`built ${name}`, () => {});',
      "expect('it').toBe('it');",
    ].join('\n');
    expect([...testNamesOf(source)].sort()).toEqual(['double "quoted"', 'each %s', 'only', 'plain', 'skipped on CI']);
    const bad = asvsTables(`${SECTION}\n\n| id | level | requirement | status | tests | note |\n|---|---|---|---|---|---|\n| 6.2.2 | 1 | x | held | test/a.test.ts › "no backticks" | |\n| 6.2.3 | 1 | x | held |\n`);
    expect(bad.problems).toEqual([
      '6.2.2 (line 5): a test must be written as `file` › "name", not test/a.test.ts › "no backticks"',
      'line 6: 4 cells instead of 6 (id, level, requirement, status, tests, note): | 6.2.3 | 1 | x | held |…',
    ]);
  });
});

describe('the ASVS map of V8 (Authorization) in docs/security.md', () => {
  const v8 = asvsTables(read('docs/security.md'), V8_SECTION);

  it('reads every line of its table as a row of six cells', () => {
    expect(v8.problems).toEqual([]);
    expect(v8.rows.length).toBeGreaterThan(0);
  });

  it('has one row per level 1 and level 2 requirement of V8, in the standard\'s order, each with its level (and only listed level 3 ones)', () => {
    const problems: string[] = [];
    for (const row of v8.rows) {
      const expected = V8_REQUIREMENTS.find(([id]) => id === row.id);
      if (!expected) problems.push(`${row.id} (line ${row.line}): not a requirement of ASVS 5.0.0 V8 this map takes`);
      else if (row.level !== String(expected[1])) problems.push(`${row.id} (line ${row.line}): level ${row.level}, the standard says ${expected[1]}`);
      if (row.requirement === '') problems.push(`${row.id} (line ${row.line}): no requirement text`);
    }
    for (const [id, level] of V8_REQUIREMENTS) if (level < 3 && !v8.rows.some((row) => row.id === id)) problems.push(`${id}: no row`);
    expect(problems).toEqual([]);
    const order = V8_REQUIREMENTS.map(([id]) => id);
    expect(v8.rows.map((row) => row.id)).toEqual(order.filter((id) => v8.rows.some((row) => row.id === id)));
  });

  it('gives every row a status of held, not applicable or missing, and what that status needs', () => {
    expect(statusProblems(v8.rows)).toEqual([]);
  });

  it('names only tests that exist: each file under test/, each name given to it() or test() in that file', () => {
    expect(unknownTestProblems(v8.rows)).toEqual([]);
  });
});

describe('the ASVS rows beyond V6, V7 and V8 in docs/security.md', () => {
  const beyond = asvsTables(read('docs/security.md'), BEYOND_SECTION);

  it('reads every line of its table as a row of six cells, each a requirement of another chapter with its level', () => {
    expect(beyond.problems).toEqual([]);
    expect(beyond.rows.length).toBeGreaterThan(0);
    const misplaced = beyond.rows.filter((row) => !/^\d+\.\d+\.\d+$/.test(row.id) || /^[678]\./.test(row.id) || !['1', '2', '3'].includes(row.level));
    expect(misplaced.map((row) => `${row.id} (line ${row.line})`)).toEqual([]);
  });

  it('gives every row a status of held, not applicable or missing, and what that status needs', () => {
    expect(statusProblems(beyond.rows)).toEqual([]);
  });

  it('names only tests that exist: each file under test/, each name given to it() or test() in that file', () => {
    expect(unknownTestProblems(beyond.rows)).toEqual([]);
  });
});

describe('claims of the ASVS map that no other test holds', () => {
  it('gives every rate-limit rule in SECURITY.md the default the runtime has', () => {
    const documented = Object.fromEntries(
      [...read('SECURITY.md').matchAll(/^\| `(\w+)` \|.*\| (\d+) per (?:(\d+) min|(minute)|(\d+) h) \|$/gm)].map(([, name, max, minutes, minute, hours]) => [
        name,
        { window: minute ? 60 : hours ? Number(hours) * 60 * 60 : Number(minutes) * 60, max: Number(max) },
      ]),
    );
    expect(documented).toEqual(defaultRateLimitRules);
  });

  it('lists in SECURITY.md the default roles with exactly the permissions roles.ts gives them, and every built-in permission', () => {
    const section = read('SECURITY.md').split(/^## /m).find((part) => part.startsWith('Organizations')) ?? '';
    const documented = Object.fromEntries(
      [...section.matchAll(/^\| `([a-z-]+)` \| ([^|]*) \|$/gm)].map(([, role, cell]) => [role, [...cell!.matchAll(/`([a-z-]+:[a-z-]+)`/g)].map((match) => match[1]!)]),
    );
    expect(Object.keys(documented)).toEqual([OWNER, ...Object.keys(defaultRoles)]);
    for (const [role, permissions] of Object.entries(defaultRoles)) expect(documented[role], role).toEqual([...permissions]);
    expect(documented[OWNER]).toEqual([...builtInPermissions]);
  });

  it('refuses Organizations() with JWT sessions when the config is resolved: the active organization lives on the session row', () => {
    const config = { secret: 'a'.repeat(32), adapter: MemoryAdapter(), session: { strategy: 'jwt' as const }, providers: [], features: [Organizations({ sendMessage: () => {} })] };
    expect(() => resolveConfig(config)).toThrow(UnsupportedStrategy);
    expect(() => resolveConfig({ ...config, session: { strategy: 'database' as const } })).not.toThrow();
  });

  it('draws every random value of the runtime from node:crypto: no Math.random in templates/runtime', () => {
    const runtime = new URL('templates/runtime/', root);
    const files = (readdirSync(runtime, { recursive: true }) as string[]).filter((path) => path.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((path) => /\bMath\.random\b/.test(readFileSync(new URL(path, runtime), 'utf8')))).toEqual([]);
  });

  it('starts with no account: a new SQLite database holds no user, and the scaffolded credentials provider signs nobody in', () => {
    const database = new Database(':memory:');
    try {
      migrate({ database, features: allFeatures });
      expect(database.prepare('SELECT count(*) AS users FROM users').get()).toEqual({ users: 0 });
    } finally {
      database.close();
    }
    const credentials = providerCatalog.find((entry) => entry.id === 'credentials')!;
    for (const snippet of [credentials.snippet, credentials.snippetWith(optInLines('credentials', featureCatalog))]) expect(snippet).toMatch(/\n {2}authorize: async \(\) => null,\n/);
  });

  it('keeps no password hint, secret question or password expiry: no column for one in the users and passwords tables', () => {
    const database = new Database(':memory:');
    try {
      migrate({ database, features: allFeatures });
      const tables = (database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((table) => table.name);
      expect(tables).toEqual(expect.arrayContaining(['users', 'passwords']));
      expect(tables.filter((name) => /hint|question|answer/i.test(name))).toEqual([]);
      const columns = ['users', 'passwords'].flatMap((table) =>
        (database.pragma(`table_info(${table})`) as { name: string }[]).map((column) => `${table}.${column.name}`),
      );
      expect(columns).toContain('passwords.hash');
      expect(columns.filter((column) => /hint|question|answer|expir|rotat|must_change/i.test(column))).toEqual([]);
    } finally {
      database.close();
    }
  });
});
