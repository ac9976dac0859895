import { describe, expect, it } from 'vitest';
import { appendEnvGroups, findEnvLine, readEnvLines, setEnvValue } from '../../src/generator/merge/env-file.js';
import { ensureGitignoreEntries } from '../../src/generator/merge/gitignore.js';

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

describe('.gitignore editing', () => {
  it('appends .env after the existing lines', () => {
    expect(ensureGitignoreEntries('node_modules\ndist', ['.env'])).toBe('node_modules\ndist\n.env\n');
  });

  it('counts /.env as present', () => {
    expect(ensureGitignoreEntries('/.env\n', ['.env'])).toBe('/.env\n');
  });
});
