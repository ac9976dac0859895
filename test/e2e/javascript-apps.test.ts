// Issue 36 item 6: existing JavaScript apps as they are — express-generator's CommonJS app on Express 4 and an ESM
// app on Express 5 — get the auth module from the packed CLI (the tarball `npm pack` makes, installed), which
// installs the project's dependencies with npm; the lines the next steps print are pasted where they say, the app
// starts with its own start script, and a user signs in and out through the loopback OpenID provider over HTTP.
import { existsSync } from 'node:fs';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar } from '../support/cookie-jar.js';
import { startOidcProvider } from '../support/oidc-provider.js';
import type { RunningOidcProvider } from '../support/oidc-provider.js';
import { mountInProject, printedMount } from './matrix/fixture-helpers.js';
import { fillEnv, makeTempDir, removeTempDirs, startApp } from './helpers/project.js';
import type { CliRun, RunningApp } from './helpers/project.js';
import { runPackedCreate } from './helpers/packed-cli.js';
import { signInWithOidc, signOut } from './helpers/sign-in.js';

afterAll(removeTempDirs);

const shapes = [
  { name: 'express-generator\'s CommonJS app on Express 4', fixture: 'js-express4-cjs', express: 4, loads: "require('./auth')" },
  { name: 'an ESM JavaScript app on Express 5', fixture: 'js-express5-esm', express: 5, loads: "from './auth/index.js'" },
] as const;

describe.each(shapes)('$name, scaffolded by the packed CLI', ({ fixture, express, loads }) => {
  const fixtureDir = fileURLToPath(new URL(`../fixtures/${fixture}/`, import.meta.url));
  let projectDir: string;
  let scaffold: CliRun;
  let provider: RunningOidcProvider | undefined;
  let app: RunningApp | undefined;

  beforeAll(async () => {
    projectDir = join(await makeTempDir('cfa-js-app-'), 'app');
    await cp(fixtureDir, projectDir, { recursive: true });
    scaffold = await runPackedCreate(projectDir, ['.', '--yes', '--providers', 'oidc']);
    if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
  }, 900_000);

  afterAll(async () => {
    await app?.stop();
    await provider?.close();
  });

  it('writes JavaScript with declarations, installs, and leaves the project in its module system without a TypeScript toolchain', async () => {
    expect(existsSync(join(projectDir, 'auth/index.js'))).toBe(true);
    expect(existsSync(join(projectDir, 'auth/index.d.ts'))).toBe(true);
    expect(existsSync(join(projectDir, 'auth/index.ts'))).toBe(false);
    expect(existsSync(join(projectDir, 'tsconfig.json'))).toBe(false);
    const before = JSON.parse(await readFile(join(fixtureDir, 'package.json'), 'utf8')) as { type?: string; scripts: Record<string, string> };
    const after = JSON.parse(await readFile(join(projectDir, 'package.json'), 'utf8')) as { type?: string; scripts: Record<string, string>; devDependencies?: Record<string, string> };
    expect(after.type).toBe(before.type);
    expect(after.scripts).toEqual(before.scripts);
    // No TypeScript toolchain: the only devDependency is the CLI itself.
    expect(Object.keys(after.devDependencies ?? {})).toEqual(['create-framework-auth']);
    const installed = JSON.parse(await readFile(join(projectDir, 'node_modules/express/package.json'), 'utf8')) as { version: string };
    expect(installed.version.startsWith(`${express}.`)).toBe(true);
    expect(existsSync(join(projectDir, 'node_modules/jose/package.json'))).toBe(true);
    expect(printedMount(scaffold.stdout).importLine).toContain(loads);
  });

  it('starts with its own start script once the printed lines are pasted, and signs in and out over HTTP', async () => {
    await mountInProject(projectDir, scaffold.stdout);
    const start = (JSON.parse(await readFile(join(projectDir, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['start'] ?? '';
    // The start script is `node <entry>`: run as it says (startApp waits for the app's "Listening on" line).
    const entry = /^node (\S+)$/.exec(start)?.[1];
    expect(entry, start).toBeDefined();
    provider = await startOidcProvider();
    const clientId = `js-${fixture}`;
    await fillEnv(projectDir, { AUTH_OIDC_ID: clientId, AUTH_OIDC_SECRET: `${clientId}-secret`, AUTH_OIDC_ISSUER: provider.issuer });
    app = await startApp(projectDir, entry!, { PORT: '0' });
    await provider.setClient({ client_id: clientId, client_secret: `${clientId}-secret`, redirect_uris: [`${app.url}/auth/callback/oidc`] });
    const jar = createJar();
    expect(await signInWithOidc(jar, app.url, '/auth', `${app.url}/me`)).toBe(`${app.url}/me`);
    const me = await jar.fetch(`${app.url}/me`);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe('alice@example.test');
    expect((await signOut(jar, app.url, '/auth')).status).toBe(302);
    expect((await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } })).status).toBe(401);
    // No warning of Node's about loading the ESM-only dependencies from CommonJS.
    expect(app.output()).not.toMatch(/ExperimentalWarning|ERR_REQUIRE_ESM/);
  }, 120_000);
});
