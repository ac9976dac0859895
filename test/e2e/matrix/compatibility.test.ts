// Issue 11: the compatibility matrix. Each cell scaffolds a project with the CLI run on the cell's Node, lets the CLI
// install with the cell's package manager (CI set, as in .ci/run), builds it with `<pm> run build` (tsc), starts the
// generated server on that Node and completes an OIDC sign-in against oidc-provider on 127.0.0.1.
// Cells run one after the other: two cores, and the suite's other files run beside this one.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar } from '../../support/cookie-jar.js';
import { startOidcProvider } from '../../support/oidc-provider.js';
import type { RunningOidcProvider } from '../../support/oidc-provider.js';
import { fillEnv, makeTempDir, removeTempDirs } from '../helpers/project.js';
import { builtBins, packedTarball, prepareSharedDeps, repoRoot } from '../helpers/shared-deps.js';
import { signInWithOidc } from '../helpers/sign-in.js';
import { express4Ranges } from '../../../src/generator/plan/dependencies.js';
import { cellEnv, nodeBinary, nodeVersions, packageManagerBin, packageManagerVersions, startWithNode, toolRoot } from './toolchain.js';
import type { CellApp, NodeLine } from './toolchain.js';

interface Cell {
  node: NodeLine;
  express: 4 | 5;
  pm: 'npm' | 'pnpm' | 'yarn';
}

/** Node 20/22/24 × Express 5 × npm, and Node 20 × Express 4 × npm/pnpm/yarn. */
const cells: Cell[] = [
  { node: 20, express: 5, pm: 'npm' },
  { node: 22, express: 5, pm: 'npm' },
  { node: 24, express: 5, pm: 'npm' },
  { node: 20, express: 4, pm: 'npm' },
  { node: 20, express: 4, pm: 'pnpm' },
  { node: 20, express: 4, pm: 'yarn' },
];

interface CellResult {
  cell: string;
  node: string;
  result: 'pass' | 'fail';
  seconds: Record<string, number>;
}

const results: CellResult[] = [];
let provider: RunningOidcProvider;
let pmBin: string;
let toolSeconds = 0;
const apps: CellApp[] = [];

const cellName = (cell: Cell): string => `Node ${cell.node} × Express ${cell.express} × ${cell.pm}`;

beforeAll(async () => {
  const started = Date.now();
  await prepareSharedDeps();
  // Fetched once per machine (cached in the OS temp dir), so a warm run downloads nothing.
  pmBin = await packageManagerBin();
  await Promise.all([nodeBinary(22), nodeBinary(24)]);
  toolSeconds = (Date.now() - started) / 1000;
  provider = await startOidcProvider();
}, 1_200_000);

afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await provider?.close();
  await removeTempDirs();
  const lines = results.map((entry) => {
    const steps = Object.entries(entry.seconds).map(([step, seconds]) => `${step} ${seconds.toFixed(1)} s`).join(', ');
    return `  ${entry.result === 'pass' ? '✓' : '✗'} ${entry.cell} (node ${entry.node}): ${steps}`;
  });
  console.log(`Compatibility matrix (tools ready in ${toolSeconds.toFixed(1)} s, cached in ${toolRoot}):\n${lines.join('\n')}`);
  await mkdir(join(repoRoot, 'test-results'), { recursive: true });
  await writeFile(join(repoRoot, 'test-results/compat-matrix.json'), `${JSON.stringify({ toolSeconds, cells: results }, null, 2)}\n`);
});

/** The project a user starts from: a package.json with the CLI as a devDependency (the packed tarball, SPEC §4). */
function seedPackageJson(cell: Cell): string {
  const manifest = {
    name: `matrix-node${cell.node}-express${cell.express}-${cell.pm}`,
    private: true,
    ...(cell.pm === 'npm' ? {} : { packageManager: `${cell.pm}@${packageManagerVersions[cell.pm]}` }),
    ...(cell.express === 4 ? { dependencies: { express: express4Ranges().express } } : {}),
    devDependencies: { 'create-framework-auth': `file:${packedTarball()}` },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

// CFA_MATRIX_ONLY="yarn" (any part of a cell's name) runs only the matching cells, for work on one of them.
const selected = cells.filter((cell) => !process.env.CFA_MATRIX_ONLY || cellName(cell).includes(process.env.CFA_MATRIX_ONLY));

describe('compatibility matrix', () => {
  it.each(selected)('$node × Express $express × $pm: scaffolds, installs, builds and signs in', async (cell) => {
    const seconds: Record<string, number> = {};
    const time = async <T>(step: string, run: () => Promise<T>): Promise<T> => {
      const started = Date.now();
      try {
        return await run();
      } finally {
        seconds[step] = (Date.now() - started) / 1000;
      }
    };
    const node = await nodeBinary(cell.node);
    const result: CellResult = { cell: cellName(cell), node: nodeVersions[cell.node], result: 'fail', seconds };
    results.push(result);
    const env = cellEnv(node, pmBin);
    const dir = join(await makeTempDir('cfa-matrix-'), 'app');
    await mkdir(dir);
    await writeFile(join(dir, 'package.json'), seedPackageJson(cell));

    const scaffold = await time('scaffold+install', () =>
      execa(node, [builtBins.create, '.', '--yes', '--providers', 'oidc'], { cwd: dir, env, extendEnv: false, reject: false, all: true, timeout: 600_000 }),
    );
    expect(scaffold.exitCode, String(scaffold.all)).toBe(0);
    expect(scaffold.all).toContain(`Installed dependencies with ${cell.pm}`);
    expect(await readFile(join(dir, 'src/server.ts'), 'utf8')).toContain(`app.use('${cell.express === 4 ? '/auth/*' : '/auth/*splat'}', authHandler);`);
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.devDependencies['@types/express']?.startsWith(cell.express === 4 ? '^4.' : '^5.')).toBe(true);
    const lockfile = { npm: 'package-lock.json', pnpm: 'pnpm-lock.yaml', yarn: 'yarn.lock' }[cell.pm];
    expect(existsSync(join(dir, lockfile)), lockfile).toBe(true);
    // Yarn 4 installs with Plug'n'Play by default (no node_modules): tsc runs through Yarn, node with its loader.
    if (cell.pm === 'yarn') expect(existsSync(join(dir, '.pnp.cjs'))).toBe(true);

    const build = await time('build', () => execa(cell.pm, ['run', 'build'], { cwd: dir, env, extendEnv: false, reject: false, all: true, timeout: 300_000 }));
    expect(build.exitCode, String(build.all)).toBe(0);

    await time('start+sign-in', async () => {
      await fillEnv(dir, { AUTH_OIDC_ID: `cell-${cell.node}-${cell.express}-${cell.pm}`, AUTH_OIDC_SECRET: 'cell-secret', AUTH_OIDC_ISSUER: provider.issuer });
      const app = await startWithNode(node, dir, 'dist/server.js');
      apps.push(app);
      await provider.setClient({ client_id: `cell-${cell.node}-${cell.express}-${cell.pm}`, client_secret: 'cell-secret', redirect_uris: [`${app.url}/auth/callback/oidc`] });
      const jar = createJar();
      expect(await signInWithOidc(jar, app.url, '/auth', `${app.url}/me`)).toBe(`${app.url}/me`);
      const me = await jar.fetch(`${app.url}/me`);
      expect(((await me.json()) as { user: { email: string } }).user.email).toBe('alice@example.test');
      await app.stop();
    });
    const express = JSON.parse(await readFile(join(dir, 'node_modules/express/package.json'), 'utf8').catch(() => '{}')) as { version?: string };
    if (express.version !== undefined) expect(express.version.startsWith(`${cell.express}.`)).toBe(true);
    result.result = 'pass';
  }, 900_000);
});
