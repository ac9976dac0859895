import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installCommand, runScriptCommand } from '../../src/catalog/package-managers.js';
import { detectPackageManager } from '../../src/generator/io/install.js';
import { makeTempDir, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

describe('detectPackageManager', () => {
  it('takes --package-manager first', async () => {
    const root = await makeTempDir();
    await writeFile(join(root, 'yarn.lock'), '');
    expect(detectPackageManager(root, 'bun', { npm_config_user_agent: 'pnpm/9.0.0 npm/? node/v20' })).toEqual({ pm: 'bun', source: 'flag' });
  });

  it('then the packageManager field of package.json', async () => {
    const root = await makeTempDir();
    await writeFile(join(root, 'package.json'), JSON.stringify({ packageManager: 'pnpm@9.12.0+sha512.abc' }));
    await writeFile(join(root, 'yarn.lock'), '');
    expect(detectPackageManager(root, undefined, {})).toEqual({ pm: 'pnpm', source: 'packageManager field' });
  });

  it('then a lockfile', async () => {
    const root = await makeTempDir();
    await writeFile(join(root, 'yarn.lock'), '');
    expect(detectPackageManager(root, undefined, { npm_config_user_agent: 'pnpm/9.0.0 npm/? node/v20' })).toEqual({ pm: 'yarn', source: 'lockfile' });
  });

  it('then the package manager that runs the CLI (npm_config_user_agent)', async () => {
    const root = await makeTempDir();
    expect(detectPackageManager(root, undefined, { npm_config_user_agent: 'pnpm/9.0.0 npm/? node/v20.19.0 linux x64' })).toEqual({ pm: 'pnpm', source: 'user agent' });
  });

  it('else npm', async () => {
    expect(detectPackageManager(await makeTempDir(), undefined, {})).toEqual({ pm: 'npm', source: 'default' });
  });
});

describe('package manager commands', () => {
  it('installs quietly with npm and plainly with the others', () => {
    expect(installCommand('npm')).toEqual({ command: 'npm', args: ['install', '--no-audit', '--no-fund'] });
    expect(installCommand('pnpm')).toEqual({ command: 'pnpm', args: ['install'] });
  });

  it('runs scripts the way each one spells it', () => {
    expect(['npm', 'pnpm', 'yarn', 'bun'].map((pm) => runScriptCommand(pm as 'npm', 'dev'))).toEqual(['npm run dev', 'pnpm dev', 'yarn dev', 'bun run dev']);
  });
});
