// The built bins as a user runs them: --version, --help, and the questions in a real pseudo-terminal
// (util-linux `script`), where Ctrl-C must exit 130 and leave nothing behind.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, runBuiltCli, removeTempDirs } from './helpers/project.js';
import { builtBins, prepareSharedDeps, repoRoot } from './helpers/shared-deps.js';

afterAll(removeTempDirs);

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Runs a bin inside a pseudo-terminal, typing each key after `delay` ms; resolves with the exit code and screen. */
function runInTerminal(args: string[], cwd: string, typed: { after: string; keys: string }[]): Promise<{ exitCode: number | null; screen: string }> {
  const command = [process.execPath, builtBins.create, ...args].map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(' ');
  // A pty made by `script` has no size; clack would wrap every character onto its own line.
  const child = spawn('script', ['-q', '-e', '-c', `stty cols 120 rows 40; ${command}`, '/dev/null'], { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'xterm', COLUMNS: '120' } });
  let screen = '';
  const pending = [...typed];
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    const next = pending[0];
    if (next && stripVTControlCharacters(screen).includes(next.after)) {
      pending.shift();
      setTimeout(() => child.stdin.write(next.keys), 100);
    }
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, screen: stripVTControlCharacters(screen) });
    });
  });
}

describe('the built bins', () => {
  beforeAll(async () => {
    await prepareSharedDeps();
  }, 600_000);

  it('print their version', async () => {
    const version = (JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
    for (const bin of ['create', 'frameworkAuth'] as const) {
      const result = await runBuiltCli(bin, ['--version'], { cwd: repoRoot });
      expect(result.stdout.trim()).toBe(version);
    }
  });

  it('print help with examples for every command', async () => {
    for (const [bin, args] of [['create', ['--help']], ['frameworkAuth', ['--help']], ['frameworkAuth', ['add-provider', '--help']], ['frameworkAuth', ['secret', '--help']], ['frameworkAuth', ['migrate', '--help']]] as const) {
      const result = await runBuiltCli(bin, args, { cwd: repoRoot });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('Examples:');
    }
  });

  it('work from the packed tarball installed elsewhere', async () => {
    const nodeModules = await prepareSharedDeps();
    const parent = await makeTempDir();
    const result = await execa(join(nodeModules, '.bin/create-framework-auth'), ['app', '--yes', '--no-install'], { cwd: parent, reject: false });
    expect(result.exitCode).toBe(0);
    const copied = await readFile(join(parent, 'app/src/auth/core/index.ts'), 'utf8');
    expect(copied.split('\n').slice(1).join('\n')).toBe(await readFile(join(repoRoot, 'templates/runtime/index.ts'), 'utf8'));
  });

  it.skipIf(!hasScript)('asks its questions in a terminal and scaffolds with the defaults on Enter', async () => {
    const parent = await makeTempDir();
    const result = await runInTerminal(['app', '--no-install'], parent, [
      { after: 'Which sign-in providers?', keys: '\r' },
      { after: 'Let users create API keys', keys: '\r' },
      { after: 'Add an account page', keys: '\r' },
      { after: 'Add organizations', keys: '\r' },
      { after: 'Mount path of the auth routes?', keys: '\r' },
      { after: 'Where should sessions live?', keys: '\r' },
      { after: 'Write these files?', keys: '\r' },
    ]);
    expect(result.exitCode).toBe(0);
    expect(existsSync(join(parent, 'app/src/auth/config.ts'))).toBe(true);
    expect(await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8')).toContain('    OIDC(),\n');
  });

  it.skipIf(!hasScript)('exits 130 on Ctrl-C in a terminal and leaves nothing behind', async () => {
    const parent = await makeTempDir();
    const result = await runInTerminal(['app', '--no-install'], parent, [{ after: 'Which sign-in providers?', keys: '\x03' }]);
    expect(result.exitCode).toBe(130);
    expect(result.screen).toContain('Cancelled; nothing was changed.');
    expect(await readdir(parent)).toEqual([]);
  });
});
