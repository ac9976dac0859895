// The auth module is found one way by every command (issue 15): the manifest's record, else a usual folder that holds
// config.ts beside core/index.ts, else src/auth.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { locateAuthModule } from '../../src/generator/project/auth-module.js';
import { makeTempDir, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

async function authModuleAt(root: string, dir: string): Promise<void> {
  await mkdir(join(root, dir, 'core'), { recursive: true });
  await writeFile(join(root, dir, 'config.ts'), 'export const authConfig = { providers: [] };\n');
  await writeFile(join(root, dir, 'core/index.ts'), 'export {};\n');
}

describe('locateAuthModule', () => {
  it('answers src/auth in a project without an auth module', async () => {
    expect(locateAuthModule(await makeTempDir())).toBe('src/auth');
  });

  it('finds a module the scaffolder put beside lib/ sources, without a manifest', async () => {
    const root = await makeTempDir();
    await authModuleAt(root, 'lib/auth');
    expect(locateAuthModule(root)).toBe('lib/auth');
  });

  it('prefers the folder the manifest records', async () => {
    const root = await makeTempDir();
    await authModuleAt(root, 'src/auth');
    await authModuleAt(root, 'server/auth');
    const manifest = { files: { 'server/auth/config.ts': 'x', 'server/auth/core/index.ts': 'y' } } as unknown as Parameters<typeof locateAuthModule>[1];
    expect(locateAuthModule(root, manifest)).toBe('server/auth');
  });
});
