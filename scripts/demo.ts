// `npm run demo`: builds the CLI, scaffolds ./demo-app with the default answers, installs it, starts a local
// OpenID provider on 127.0.0.1 beside it (the one of `framework-auth dev-idp`, src/dev-idp/), and runs the app
// until Ctrl-C.
// Sign-in works with nothing registered anywhere. `--self-test` signs in over HTTP instead of waiting, then stops.
// `--password` adds email and password accounts (SQLite): with no SMTP server set, the app prints its messages
// (the confirmation link) on its console, so sign-up works with nothing registered either.
//
// Environment: PORT (default 3000), DEMO_DIR (default ./demo-app).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { applyEdits, modify } from 'jsonc-parser';
import { cliVersion } from '../src/generator/version.js';
import { setEnvValue } from '../src/generator/edit/env-file.js';
import { DEFAULT_ACCOUNTS, startOidcProvider } from '../src/dev-idp/oidc-provider.js';
import type { RunningOidcProvider } from '../src/dev-idp/oidc-provider.js';
import { createJar, formBody } from '../test/support/cookie-jar.js';
import { findForm } from '../test/support/html-form.js';
import { freePort } from '../test/support/listen.js';
import { loginThroughProvider } from '../test/support/oidc-provider.js';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const demoDir = resolve(repoRoot, process.env.DEMO_DIR ?? 'demo-app');
const requestedPort = process.env.PORT ?? '3000';
const selfTest = process.argv.includes('--self-test');
const withPassword = process.argv.includes('--password');
/** The demo account of `--password`'s self-test. */
const demoAccount = { email: 'demo@example.test', password: 'violet staple orbit lantern' };
const mount = '/auth';

function say(line: string): void {
  console.log(`\x1b[36m[demo]\x1b[0m ${line}`);
}

/** Builds and packs this repo, so that the demo app installs the CLI the way a user's project would. */
async function buildAndPack(): Promise<string> {
  say('Building the CLI (npm run build)...');
  await execa('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'inherit' });
  const packDir = join(tmpdir(), 'create-framework-auth-demo');
  await rm(packDir, { recursive: true, force: true });
  await mkdir(packDir, { recursive: true });
  await execa('npm', ['pack', '--silent', '--pack-destination', packDir], { cwd: repoRoot });
  return join(packDir, `create-framework-auth-${cliVersion}.tgz`);
}

/**
 * Points the app's create-framework-auth devDependency at the fresh tarball (the version is not on the registry
 * while it is being developed). On a later run the old tarball's lock entry would fail its integrity check.
 */
async function seedPackageJson(tarball: string): Promise<void> {
  const path = join(demoDir, 'package.json');
  await mkdir(demoDir, { recursive: true });
  const text = existsSync(path)
    ? await readFile(path, 'utf8')
    : `${JSON.stringify({ name: 'demo-app', version: '0.1.0', private: true }, null, 2)}\n`;
  const edits = modify(text, ['devDependencies', 'create-framework-auth'], `file:${tarball}`, { formattingOptions: { insertSpaces: true, tabSize: 2 } });
  await writeFile(path, applyEdits(text, edits));
  await rm(join(demoDir, 'package-lock.json'), { force: true });
  await rm(join(demoDir, 'node_modules/create-framework-auth'), { recursive: true, force: true });
}

async function fillEnv(values: Record<string, string>): Promise<void> {
  const path = join(demoDir, '.env');
  let text = await readFile(path, 'utf8');
  for (const [key, value] of Object.entries(values)) text = setEnvValue(text, key, value);
  await writeFile(path, text);
}

/** PORT, or a free port when PORT is 0 (tests): the app's AUTH_URL must name the port before it starts. */
async function appPort(): Promise<string> {
  return requestedPort === '0' ? String(await freePort()) : requestedPort;
}

function startApp(port: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const tsx = join(demoDir, 'node_modules/tsx/dist/cli.mjs');
  const child = spawn(process.execPath, [tsx, 'src/server.ts'], {
    cwd: demoDir,
    env: { ...process.env, PORT: port, HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      process.stdout.write(chunk);
      const match = /Listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolvePromise({ child, url: match[1], output: () => output });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the demo app exited with ${code} (is port ${port} free? set PORT=...)`)));
  });
}

/** What a user does in the browser, over HTTP: sign in with the test login and read /me. */
async function signInOverHttp(appUrl: string): Promise<unknown> {
  const jar = createJar();
  const { csrfToken } = (await (await jar.fetch(`${appUrl}${mount}/csrf`)).json()) as { csrfToken: string };
  const start = await jar.fetch(`${appUrl}${mount}/signin/oidc`, { method: 'POST', ...formBody({ csrfToken, callbackUrl: `${appUrl}/me` }) });
  const callback = await loginThroughProvider(jar, start.headers.get('location') ?? '', { login: 'alice' });
  await jar.fetch(callback);
  const me = await jar.fetch(`${appUrl}/me`, { headers: { accept: 'application/json' } });
  if (me.status !== 200) throw new Error(`/me answered ${me.status} after signing in`);
  return me.json();
}

/**
 * `--password`'s self-test: signs up, opens the confirmation link the app printed on its console (no SMTP server is
 * set), and reads /me.
 */
async function signUpOverHttp(appUrl: string, output: () => string): Promise<unknown> {
  const jar = createJar();
  const { csrfToken } = (await (await jar.fetch(`${appUrl}${mount}/csrf`)).json()) as { csrfToken: string };
  const signUp = await jar.fetch(`${appUrl}${mount}/signup/password`, { method: 'POST', ...formBody({ csrfToken, ...demoAccount }) });
  if (signUp.status !== 302) throw new Error(`sign-up answered ${signUp.status}`);
  const deadline = Date.now() + 10_000;
  let link: string | undefined;
  while (!link && Date.now() < deadline) {
    link = /https?:\/\/\S+\/callback\/password\?\S+/.exec(output())?.[0];
    if (!link) await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  if (!link) throw new Error('the app printed no confirmation link');
  // The link opens a page; its form confirms the address with the password chosen at sign-up.
  const form = findForm(await (await jar.fetch(link)).text(), link, 'password');
  if (!form) throw new Error('the confirmation link opened no form');
  const confirmed = await jar.fetch(form.action, { method: 'POST', ...formBody({ ...form.fields, password: demoAccount.password }) });
  if (confirmed.status !== 302) throw new Error(`confirming the address answered ${confirmed.status}`);
  const me = await jar.fetch(`${appUrl}/me`, { headers: { accept: 'application/json' } });
  if (me.status !== 200) throw new Error(`/me answered ${me.status} after confirming the address`);
  return me.json();
}

async function main(): Promise<void> {
  const tarball = await buildAndPack();
  await seedPackageJson(tarball);
  say(`Scaffolding ${demoDir} with the default answers (create-framework-auth --yes)...`);
  const choices = withPassword ? ['--providers', 'oidc,password', '--adapter', 'sqlite'] : [];
  await execa(process.execPath, [join(repoRoot, 'bin/create-framework-auth.js'), demoDir, '--yes', '--package-manager', 'npm', ...choices], {
    stdio: 'inherit',
    env: { npm_config_prefer_offline: 'true' },
  });

  const provider: RunningOidcProvider = await startOidcProvider();
  const clientSecret = randomBytes(24).toString('base64url');
  const port = await appPort();
  // The app listens on 127.0.0.1; AUTH_URL says so, so that every URL it builds (and its cookies) stay on that origin.
  await fillEnv({ AUTH_URL: `http://127.0.0.1:${port}`, AUTH_OIDC_ID: 'demo-app', AUTH_OIDC_SECRET: clientSecret, AUTH_OIDC_ISSUER: provider.issuer });
  say(`Local OpenID provider: ${provider.issuer} (client "demo-app" written to ${join(demoDir, '.env')})`);

  const app = await startApp(port);
  const origins = [`http://127.0.0.1:${port}`];
  await provider.setClient({
    client_id: 'demo-app',
    client_secret: clientSecret,
    redirect_uris: origins.map((origin) => `${origin}${mount}/callback/oidc`),
  });

  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    app.child.kill('SIGTERM');
    await provider.close();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  if (selfTest) {
    const me = await signInOverHttp(app.url);
    say(`Self-test: signed in, /me answered ${JSON.stringify(me)}`);
    if (withPassword) say(`Self-test: signed up with a password, /me answered ${JSON.stringify(await signUpOverHttp(app.url, app.output))}`);
    await stop(0);
    return;
  }
  const account = DEFAULT_ACCOUNTS.alice;
  console.log(`
  The demo app is running: ${origins[0]}
    sign in:   ${origins[0]}${mount}/signin   (or open ${origins[0]}/me)
    test login: "alice" with any password  (${account?.name ?? 'Alice'}, ${account?.email ?? ''})${
      withPassword ? `\n    sign up:   ${origins[0]}${mount}/signup   (the confirmation email is printed here, in this console)` : ''
    }
    session:   ${origins[0]}${mount}/session
  The code is yours to read in ${join(demoDir, 'src')}. Press Ctrl-C to stop the app and the provider.
`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
