// The CLI scaffolds a new project; the project compiles, starts, and signs a user in through a real OpenID
// provider on loopback (SPEC §8), with the default mount and with --mount /api/auth.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar } from '../support/cookie-jar.js';
import { startOidcProvider } from '../support/oidc-provider.js';
import type { RunningOidcProvider } from '../support/oidc-provider.js';
import { compileProject, fillEnv, makeTempDir, runBuiltCli, startApp, removeTempDirs } from './helpers/project.js';
import type { RunningApp } from './helpers/project.js';
import { linkSharedDeps, prepareSharedDeps } from './helpers/shared-deps.js';
import { fetchCsrfToken, signInWithOidc, signOut } from './helpers/sign-in.js';

afterAll(removeTempDirs);

const cases = [
  { mount: '/auth', args: ['--yes'] },
  { mount: '/api/auth', args: ['--yes', '--mount', '/api/auth'] },
] as const;

describe.each(cases)('a new project scaffolded with $args', ({ mount, args }) => {
  let provider: RunningOidcProvider;
  let app: RunningApp;
  let projectDir: string;
  let scaffold: { exitCode: number; stdout: string; stderr: string };
  let compile: { exitCode: number; output: string };

  beforeAll(async () => {
    await prepareSharedDeps();
    provider = await startOidcProvider();
    const root = await makeTempDir();
    projectDir = join(root, 'my-app');
    scaffold = await runBuiltCli('create', ['my-app', ...args, '--no-install'], { cwd: root });
    if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
    await linkSharedDeps(projectDir);
    compile = await compileProject(projectDir);
    await fillEnv(projectDir, { AUTH_OIDC_ID: 'my-app', AUTH_OIDC_SECRET: 'my-app-secret', AUTH_OIDC_ISSUER: provider.issuer });
    app = await startApp(projectDir);
    await provider.setClient({ client_id: 'my-app', client_secret: 'my-app-secret', redirect_uris: [`${app.url}${mount}/callback/oidc`] });
  }, 600_000);

  afterAll(async () => {
    await app?.stop();
    await provider?.close();
  });

  it('prints the callback URL to register and the env vars to fill', () => {
    expect(scaffold.stdout).toContain(`OpenID Connect: http://localhost:3000${mount}/callback/oidc`);
    expect(scaffold.stdout).toContain('AUTH_OIDC_ISSUER=');
    expect(scaffold.stdout).toContain('npm install');
  });

  it('writes the mount path into the config and the server', async () => {
    expect(await readFile(join(projectDir, 'src/auth/config.ts'), 'utf8')).toContain(`basePath: '${mount}',`);
    expect(await readFile(join(projectDir, 'src/server.ts'), 'utf8')).toContain(`app.use('${mount}/*splat', authHandler);`);
  });

  it('compiles with tsc with zero errors', () => {
    expect(compile.output).toBe('');
    expect(compile.exitCode).toBe(0);
  });

  // exactOptionalPropertyTypes is left out until the runtime compiles with it (the repo's tsconfig turns it off).
  it('also compiles under the strict options users turn on', async () => {
    await writeFile(
      join(projectDir, 'tsconfig.strict.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: {
          noEmit: true,
          noUnusedLocals: true,
          noUnusedParameters: true,
          noUncheckedIndexedAccess: true,
          noImplicitReturns: true,
          noImplicitOverride: true,
          noFallthroughCasesInSwitch: true,
          verbatimModuleSyntax: true,
        },
      }),
    );
    const result = await execa(process.execPath, [join(projectDir, 'node_modules/typescript/bin/tsc'), '-p', join(projectDir, 'tsconfig.strict.json')], { reject: false, all: true });
    expect(result.all).toBe('');
  }, 60_000);

  it('lists the OIDC provider with callback URLs below the mount path', async () => {
    const response = await fetch(`${app.url}${mount}/providers`);
    expect(response.status).toBe(200);
    const providers = (await response.json()) as Record<string, { id: string; callbackUrl: string; signinUrl: string }>;
    expect(Object.keys(providers)).toEqual(['oidc']);
    expect(providers.oidc?.callbackUrl).toBe(`${app.url}${mount}/callback/oidc`);
    expect(providers.oidc?.signinUrl).toBe(`${app.url}${mount}/signin/oidc`);
  });

  it('redirects /me without a session to the sign-in page with a callbackUrl', async () => {
    const response = await fetch(`${app.url}/me`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location') ?? '', app.url);
    expect(location.pathname).toBe(`${mount}/signin`);
    expect(location.searchParams.get('callbackUrl')).toContain('/me');
  });

  it('answers /me without a session with 401 JSON to a client that asks for JSON', async () => {
    const response = await fetch(`${app.url}/me`, { headers: { accept: 'application/json' }, redirect: 'manual' });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toContain('application/json');
  });

  it('signs in with OIDC code + PKCE, then /me answers the user, then signs out', async () => {
    const jar = createJar();
    const landing = await signInWithOidc(jar, app.url, mount, `${app.url}/me`);
    expect(landing).toBe(`${app.url}/me`);

    const me = await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } });
    expect(me.status).toBe(200);
    const body = (await me.json()) as { user: { name?: string; email?: string } };
    expect(body.user).toMatchObject({ name: 'Alice Example', email: 'alice@example.test' });

    const session = await jar.fetch(`${app.url}${mount}/session`);
    expect(((await session.json()) as { user?: { email?: string } } | null)?.user?.email).toBe('alice@example.test');

    const signedOut = await signOut(jar, app.url, mount);
    expect([200, 302, 303]).toContain(signedOut.status);
    const after = await jar.fetch(`${app.url}${mount}/session`);
    expect(await after.json()).toBeNull();
    const meAfter = await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } });
    expect(meAfter.status).toBe(401);
  });

  it('refuses a sign-in POST without the CSRF token', async () => {
    const jar = createJar();
    await fetchCsrfToken(jar, app.url, mount);
    const response = await jar.fetch(`${app.url}${mount}/signin/oidc`, { method: 'POST', body: new URLSearchParams({}) });
    expect(response.status).not.toBe(500);
    expect(response.headers.get('location') ?? '').not.toContain(provider.issuer);
  });
});
