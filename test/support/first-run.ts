/**
 * A new user's first run, step by step, as the README gives it (issue 23): the CLI installed from its packed tarball
 * as npx installs it, a project scaffolded by it and installed with a real package manager (the devDependency on
 * create-framework-auth pointing at the tarball), `framework-auth dev-idp --write-env` on its first use (it adds
 * oidc-provider to the project), `<pm> run dev`, and a sign-in as alice through the app's own sign-in page. The
 * end-to-end test asserts each step; the bench times the whole of it on a warm and a cold package cache.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { execa } from 'execa';
import { createJar } from './cookie-jar.js';
import type { CookieJar } from './cookie-jar.js';
import { formBody } from './cookie-jar.js';
import { parseForms } from './html-form.js';
import { freePort } from './listen.js';
import { loginThroughProvider } from './oidc-provider.js';

/** The package managers a first run is tried with. */
export type FirstRunPackageManager = 'npm' | 'pnpm';

/** Where the steps run and what they may use. */
export interface FirstRunOptions {
  /** The packed CLI (`npm pack` of this repo). */
  tarball: string;
  /** An empty folder: the npx-like install and the project go below it. */
  workDir: string;
  packageManager: FirstRunPackageManager;
  /** The environment of every child process (PATH must reach the package manager; npm_config_cache picks the cache). */
  env: NodeJS.ProcessEnv;
}

/** A started child process that is stopped with its whole process group. */
export interface RunningChild {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** What the first run gave, for the test to check. */
export interface FirstRun {
  projectDir: string;
  /** The bin of the npx-like install. */
  cliBin: (name: CliBinName) => string;
  idp?: RunningChild;
  devServer?: RunningChild;
  /** What dev-idp printed on stderr (its announcement of the first-use install). */
  devIdpMessages: string;
  issuer: string;
  appUrl: string;
  /** `/me` as JSON after the sign-in. */
  me: unknown;
  /** Milliseconds of each step, in order. */
  steps: { name: string; ms: number }[];
  stop: () => Promise<void>;
}

function startChild(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): RunningChild {
  // Its own process group: `npm run dev` starts tsx, which starts node; stopping the group stops all three.
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return;
    }
    await exited;
  };
  return { child, output: () => stripVTControlCharacters(output), stop };
}

/** Resolves with the first match of `pattern` in the child's output; rejects when it exits first or after `ms`. */
function waitFor(running: RunningChild, pattern: RegExp, what: string, ms: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const match = pattern.exec(running.output());
      if (match) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(match);
      }
      return match !== null;
    };
    const poll = setInterval(check, 50);
    const timer = setTimeout(() => {
      clearInterval(poll);
      reject(new Error(`${what} did not happen within ${ms / 1000} s:\n${running.output()}`));
    }, ms);
    running.child.once('exit', (code) => {
      if (check()) return;
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`${what}: the process exited with ${code}:\n${running.output()}`));
    });
  });
}

/** One of the CLI's two bins. */
export type CliBinName = 'create-framework-auth' | 'framework-auth';

/**
 * Installs the packed CLI as npx does, into a folder of its own without a lockfile; resolves to the path of a bin.
 * `env` replaces the environment (a fresh npm cache, say); the default is this process's.
 */
export async function installLikeNpx(tarball: string, dir: string, env?: NodeJS.ProcessEnv): Promise<(name: CliBinName) => string> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), '{ "name": "npx-like", "version": "1.0.0", "private": true }\n');
  await execa('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', tarball], { cwd: dir, stdin: 'ignore', ...(env && { env, extendEnv: false }) });
  return (name) => join(dir, 'node_modules/create-framework-auth/bin', `${name}.js`);
}

/** The user's sign-in: the app's sign-in page, its "Sign in with OIDC" form, alice at the provider, then `/me`. */
export async function signInThroughPages(jar: CookieJar, appUrl: string): Promise<unknown> {
  const page = await jar.fetch(`${appUrl}/auth/signin?callbackUrl=${encodeURIComponent(`${appUrl}/me`)}`);
  if (page.status !== 200) throw new Error(`GET /auth/signin answered ${page.status}`);
  const form = parseForms(await page.text(), `${appUrl}/auth/signin`).find((candidate) => candidate.action === `${appUrl}/auth/signin/oidc`);
  if (!form) throw new Error('the sign-in page has no form for the OIDC provider');
  const start = await jar.fetch(form.action, { method: 'POST', ...formBody(form.fields) });
  const authorizationUrl = start.headers.get('location');
  if (start.status !== 302 || !authorizationUrl) throw new Error(`POST ${form.action} answered ${start.status}`);
  const callback = await loginThroughProvider(jar, authorizationUrl);
  const finish = await jar.fetch(callback);
  const landed = new URL(finish.headers.get('location') ?? '', appUrl).href;
  if (finish.status !== 302 || landed !== `${appUrl}/me`) throw new Error(`the callback answered ${finish.status} to ${landed}`);
  const me = await jar.fetch(`${appUrl}/me`, { headers: { accept: 'application/json' } });
  if (me.status !== 200) throw new Error(`GET /me answered ${me.status} after the sign-in`);
  return me.json();
}

/**
 * Runs the whole first run; every step must succeed (an Error says which did not). The caller stops what it
 * started with `stop()` (also after a failure: the partial run is returned through `onStarted`).
 */
export async function runFirstRun(options: FirstRunOptions, onStarted: (run: Partial<FirstRun>) => void = () => {}): Promise<FirstRun> {
  const { tarball, workDir, packageManager: pm, env } = options;
  const steps: FirstRun['steps'] = [];
  const step = async <T>(name: string, action: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await action();
    steps.push({ name, ms: performance.now() - started });
    return result;
  };
  const run = (command: string, args: string[], cwd: string) => execa(command, args, { cwd, env, extendEnv: false, stdin: 'ignore', all: true });

  // 1. `npx create-framework-auth`: npx installs the package into a folder of its own and runs its bin.
  const npxDir = join(workDir, 'npx');
  const cliBin = await step('npx installs the CLI', () => installLikeNpx(tarball, npxDir, env));
  const projectDir = join(workDir, 'app');
  await step('create-framework-auth app --yes', () =>
    run(process.execPath, [cliBin('create-framework-auth'), 'app', '--yes', '--no-install', '--package-manager', pm], workDir),
  );

  // 2. The project's install, its devDependency on the CLI pointing at the tarball (the version is not published).
  await step(`${pm} install`, async () => {
    const path = join(projectDir, 'package.json');
    const manifest = JSON.parse(await readFile(path, 'utf8')) as { devDependencies: Record<string, string> };
    manifest.devDependencies['create-framework-auth'] = `file:${tarball}`;
    await writeFile(path, `${JSON.stringify(manifest, null, 2)}\n`);
    await run(pm, ['install'], projectDir);
  });

  // 3. dev-idp on its first use, on free ports the app is then started on.
  const appPort = await freePort();
  const appUrl = `http://127.0.0.1:${appPort}`;
  const appEnv = { ...env, PORT: String(appPort), HOST: '127.0.0.1', AUTH_URL: appUrl };
  const partial: Partial<FirstRun> = { projectDir, cliBin, steps };
  const stop = async (): Promise<void> => {
    await partial.devServer?.stop();
    await partial.idp?.stop();
  };
  partial.stop = stop;
  onStarted(partial);
  const idp = startChild(join(projectDir, 'node_modules/.bin/framework-auth'), ['dev-idp', '--port', '0', '--write-env', '--json'], projectDir, appEnv);
  partial.idp = idp;
  const issuer = await step('framework-auth dev-idp --write-env (first use)', async () => {
    const match = await waitFor(idp, /"issuer":\s*"([^"]+)"/, 'dev-idp listening', 300_000);
    return match[1] ?? '';
  });

  // 4. `npm run dev` (tsx watch), then the sign-in.
  const devServer = startChild(pm, ['run', 'dev'], projectDir, appEnv);
  partial.devServer = devServer;
  await step(`${pm} run dev`, () => waitFor(devServer, /Listening on http:\/\/\S+/, 'the app listening', 60_000));
  const me = await step('sign in as alice, GET /me', () => signInThroughPages(createJar(), appUrl));
  return { projectDir, cliBin, idp, devServer, devIdpMessages: idp.output(), issuer, appUrl, me, steps, stop };
}
