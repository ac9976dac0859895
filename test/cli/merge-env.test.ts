import { describe, expect, it } from 'vitest';
import { appendEnvGroups, findEnvLine, readEnvLines, removeEnvKeys, setEnvValue } from '../../src/generator/edit/env-file.js';
import { ensureGitignoreEntries } from '../../src/generator/edit/gitignore.js';

const groups = [
  { comment: ['Secret.'], entries: [{ key: 'AUTH_SECRET', value: 's3cret' }] },
  { comment: ['OIDC.'], entries: [{ key: 'AUTH_OIDC_ID', value: '' }, { key: 'AUTH_OIDC_SECRET', value: '' }] },
];

describe('.env editing', () => {
  it('creates a file with commented groups', () => {
    expect(appendEnvGroups(undefined, groups)).toMatchInlineSnapshot(`
      "# Secret.
      AUTH_SECRET=s3cret

      # OIDC.
      AUTH_OIDC_ID=
      AUTH_OIDC_SECRET=
      "
    `);
  });

  it('appends only the missing keys and keeps every existing byte, CRLF included', () => {
    const text = 'PORT=8080\r\nAUTH_OIDC_ID=abc # mine\r\nexport API_KEY="x y"';
    const result = appendEnvGroups(text, groups);
    expect(result.startsWith(`${text}\r\n`)).toBe(true);
    expect(result.slice(text.length)).toBe('\r\n\r\n# Secret.\r\nAUTH_SECRET=s3cret\r\n\r\n# OIDC.\r\nAUTH_OIDC_SECRET=\r\n');
  });

  it('adds nothing when every key exists', () => {
    const text = appendEnvGroups(undefined, groups);
    expect(appendEnvGroups(text, groups)).toBe(text);
  });

  it('matches keys exactly, never by prefix', () => {
    expect(findEnvLine('AUTH_SECRET_OLD=1\nMY_AUTH_SECRET=2\n', 'AUTH_SECRET')).toBeUndefined();
  });

  it('reads quoted values, export prefixes and unquoted comments', () => {
    expect(readEnvLines('export A="x # y"\nB=plain # note\nC=\'q\'\n# D=no\n').map((line) => [line.key, line.value])).toEqual([
      ['A', 'x # y'],
      ['B', 'plain'],
      ['C', 'q'],
    ]);
  });

  it('replaces one key in place, keeping its export prefix and line ending', () => {
    expect(setEnvValue('A=1\r\nexport AUTH_SECRET=old\r\nB=2\r\n', 'AUTH_SECRET', 'new')).toBe('A=1\r\nexport AUTH_SECRET=new\r\nB=2\r\n');
  });
});

describe('.env groups placed before another key (issue 24: add-provider writes what create writes)', () => {
  const github = { comment: ['GitHub.'], entries: [{ key: 'AUTH_GITHUB_ID', value: '' }] };

  it('puts the groups before the paragraph of the key, and removeEnvKeys takes them out again', () => {
    const text = 'AUTH_SECRET=x\n\n# Database.\n# file: or postgres://\nDATABASE_URL=file:./data/auth.db\n';
    const added = appendEnvGroups(text, [github], { before: 'DATABASE_URL' });
    expect(added).toBe('AUTH_SECRET=x\n\n# GitHub.\nAUTH_GITHUB_ID=\n\n# Database.\n# file: or postgres://\nDATABASE_URL=file:./data/auth.db\n');
    expect(removeEnvKeys(added, ['AUTH_GITHUB_ID'])).toBe(text);
  });

  it('keeps CRLF line endings', () => {
    const text = 'AUTH_SECRET=x\r\n\r\nDATABASE_URL=file:a\r\n';
    expect(appendEnvGroups(text, [github], { before: 'DATABASE_URL' })).toBe('AUTH_SECRET=x\r\n\r\n# GitHub.\r\nAUTH_GITHUB_ID=\r\n\r\nDATABASE_URL=file:a\r\n');
  });

  it('appends as before when the key is absent, and adds nothing for keys already there', () => {
    expect(appendEnvGroups('A=1\n', [github], { before: 'DATABASE_URL' })).toBe(appendEnvGroups('A=1\n', [github]));
    const text = 'AUTH_GITHUB_ID=abc\nDATABASE_URL=x\n';
    expect(appendEnvGroups(text, [github], { before: 'DATABASE_URL' })).toBe(text);
  });
});

describe('.gitignore editing', () => {
  it('appends .env after the existing lines', () => {
    expect(ensureGitignoreEntries('node_modules\ndist', ['.env'])).toBe('node_modules\ndist\n.env\n');
  });

  it('counts /.env as present', () => {
    expect(ensureGitignoreEntries('/.env\n', ['.env'])).toBe('/.env\n');
  });
});
