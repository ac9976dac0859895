import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, runChild, runInProcess, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const secret = (argv: readonly string[], cwd: string) => runInProcess('framework-auth', ['secret', ...argv], { cwd });
const secretPattern = /^[A-Za-z0-9_-]{43}$/;

describe('framework-auth secret', () => {
  it('--raw prints only a 43-character base64url secret and writes nothing', async () => {
    const dir = await makeTempDir();
    const result = await runChild('framework-auth', ['secret', '--raw'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(secretPattern);
    expect(existsSync(join(dir, '.env'))).toBe(false);
  });

  it('gives a different secret every time', async () => {
    const dir = await makeTempDir();
    const first = await secret(['--raw'], dir);
    const second = await secret(['--raw'], dir);
    expect(first.stdout).not.toBe(second.stdout);
  });

  it('creates .env with AUTH_SECRET, readable by its owner only', async () => {
    const dir = await makeTempDir();
    const result = await secret([], dir);
    expect(result.exitCode).toBe(0);
    const env = await readFile(join(dir, '.env'), 'utf8');
    expect(env).toMatch(/^AUTH_SECRET=[A-Za-z0-9_-]{43}\n$/);
    expect((await stat(join(dir, '.env'))).mode & 0o777).toBe(0o600);
  });

  it('appends AUTH_SECRET and keeps every other line byte for byte', async () => {
    const dir = await makeTempDir();
    const before = '# mine\r\nPORT=3000\r\nexport KEY="a b" # c\r\nNO_NEWLINE=1';
    await writeFile(join(dir, '.env'), before);
    await secret([], dir);
    const after = await readFile(join(dir, '.env'), 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toMatch(/^\r\n\r\nAUTH_SECRET=[A-Za-z0-9_-]{43}\r\n$/);
  });

  it('fills an empty AUTH_SECRET placeholder in place', async () => {
    const dir = await makeTempDir();
    await writeFile(join(dir, '.env'), 'A=1\nAUTH_SECRET=\nB=2\n');
    await secret([], dir);
    const lines = (await readFile(join(dir, '.env'), 'utf8')).split('\n');
    expect(lines[0]).toBe('A=1');
    expect(lines[1]?.slice('AUTH_SECRET='.length)).toMatch(secretPattern);
    expect(lines.slice(2)).toEqual(['B=2', '']);
  });

  it('keeps an existing secret (exit 0) and says how to replace it', async () => {
    const dir = await makeTempDir();
    const before = 'A=1\nAUTH_SECRET=existing-secret-that-is-long-enough-1234\nB=2\n';
    await writeFile(join(dir, '.env'), before);
    const result = await secret([], dir);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('AUTH_SECRET is already set in .env; kept it.');
    expect(result.stdout).toContain('--force');
    expect(await readFile(join(dir, '.env'), 'utf8')).toBe(before);
  });

  it('--force replaces only the AUTH_SECRET line', async () => {
    const dir = await makeTempDir();
    await writeFile(join(dir, '.env'), 'A=1\nAUTH_SECRET=old-old-old-old-old-old-old-old-old\nB=2\n');
    const result = await secret(['--force'], dir);
    expect(result.exitCode).toBe(0);
    const lines = (await readFile(join(dir, '.env'), 'utf8')).split('\n');
    expect([lines[0], lines[2], lines[3]]).toEqual(['A=1', 'B=2', '']);
    expect(lines[1]?.slice('AUTH_SECRET='.length)).toMatch(secretPattern);
  });

  it('writes into --cwd', async () => {
    const dir = await makeTempDir();
    await runInProcess('framework-auth', ['secret', '--cwd', dir], { cwd: '/' });
    expect(await readFile(join(dir, '.env'), 'utf8')).toMatch(/^AUTH_SECRET=/);
  });

  it('refuses a --cwd that is not a directory (exit 2)', async () => {
    const dir = await makeTempDir();
    const result = await secret(['--cwd', join(dir, 'missing')], dir);
    expect(result.exitCode).toBe(2);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });
});
