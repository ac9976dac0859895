// `framework-auth dev-idp --write-env` through the generated project's own bin: with it running, the scaffolded
// app completes an OIDC sign-in over HTTP using only what dev-idp wrote into .env.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar } from '../support/cookie-jar.js';
import { compileProject, makeTempDir, removeTempDirs, runBuiltCli, startApp } from './helpers/project.js';
import type { RunningApp } from './helpers/project.js';
import { linkSharedDeps, prepareSharedDeps } from './helpers/shared-deps.js';
import { signInWithOidc } from './helpers/sign-in.js';

afterAll(removeTempDirs);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('framework-auth dev-idp in a generated project', () => {
  let projectDir: string;
  let idp: ChildProcess | undefined;
  let app: RunningApp | undefined;
  let document: { issuer: string; clientId: string };
  let appPort: number;

  beforeAll(async () => {
    await prepareSharedDeps();
    const root = await makeTempDir();
    const scaffold = await runBuiltCli('create', ['app', '--yes', '--no-install'], { cwd: root });
    if (scaffold.exitCode !== 0) throw new Error(scaffold.stderr);
    projectDir = join(root, 'app');
    await linkSharedDeps(projectDir);
    const compiled = await compileProject(projectDir);
    if (compiled.exitCode !== 0) throw new Error(compiled.output);
    appPort = await freePort();
    // The app will listen on PORT with AUTH_URL naming it (startApp); dev-idp reads the same AUTH_URL to register
    // the callback URL, as it reads the scaffold's AUTH_URL=http://localhost:3000 from .env for a user.
    idp = spawn(join(projectDir, 'node_modules/.bin/framework-auth'), ['dev-idp', '--port', '0', '--write-env', '--json'], {
      cwd: projectDir,
      env: { PATH: process.env.PATH, PORT: String(appPort), AUTH_URL: `http://127.0.0.1:${appPort}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    document = await new Promise((resolve, reject) => {
      let out = '';
      let err = '';
      idp?.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
      idp?.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        try {
          resolve(JSON.parse(out) as { issuer: string; clientId: string });
        } catch {
          // Not the whole document yet.
        }
      });
      idp?.once('exit', (code) => reject(new Error(`dev-idp exited with ${code}: ${err}`)));
    });
  }, 600_000);

  afterAll(async () => {
    await app?.stop();
    if (idp && idp.exitCode === null) {
      const exited = new Promise((resolve) => idp?.once('exit', resolve));
      idp.kill('SIGINT');
      await exited;
    }
  });

  it('signs in over HTTP with nothing but what dev-idp wrote to .env', async () => {
    expect(document.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // No AUTH_OIDC_* in the app's environment: the generated env.ts reads them from .env.
    app = await startApp(projectDir, 'dist/server.js', { PORT: String(appPort) });
    const jar = createJar();
    const landed = await signInWithOidc(jar, app.url, '/auth', `${app.url}/me`);
    expect(landed).toBe(`${app.url}/me`);
    const me = await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ user: { id: 'alice-sub', name: 'Alice Example', email: 'alice@example.test' } });
  });

  it('stops on Ctrl-C with exit code 130', async () => {
    const exited = new Promise<number | null>((resolve) => idp?.once('exit', (code) => resolve(code)));
    idp?.kill('SIGINT');
    expect(await exited).toBe(130);
  });
});
