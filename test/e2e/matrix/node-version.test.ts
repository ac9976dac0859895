// Issue 11: the bins refuse a Node older than package.json "engines" with one line, before loading the CLI.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { minimumNodeVersion } from '../../../src/cli/node-version.js';
import { builtBins, prepareSharedDeps, repoRoot } from '../helpers/shared-deps.js';

// Node 18 stands in through its version string: the check reads process.versions.node, nothing else.
const pretendNode18 = `data:text/javascript,Object.defineProperty(process.versions, "node", { value: "18.20.4" })`;

describe('the bins on an unsupported Node', () => {
  beforeAll(async () => {
    await prepareSharedDeps();
  }, 600_000);

  it.each([['create-framework-auth', 'create'], ['framework-auth', 'frameworkAuth']] as const)('%s says what it needs in one line and exits 1', async (name, bin) => {
    const result = await execa(process.execPath, ['--import', pretendNode18, builtBins[bin], '--version'], { reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${name} needs Node.js ${minimumNodeVersion} or newer (20, 22 and 24 are supported); this is Node.js 18.20.4.`);
  });

  it('states the same minimum in package.json "engines"', async () => {
    const pkg = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${minimumNodeVersion}`);
  });
});
