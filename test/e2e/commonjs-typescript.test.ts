// Issue 36 item 3: a TypeScript Express 5 app that tsc compiles to CommonJS ("module": "commonjs", no "type") gets
// the auth module from the packed CLI as it is: its own tsc compiles it to CommonJS, its own start script runs it
// (jose and oauth4webapi load through Node's require(esm)), and a user signs in and out through the loopback OpenID
// provider over HTTP.
import { cp, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar } from '../support/cookie-jar.js';
import { startOidcProvider } from '../support/oidc-provider.js';
import type { RunningOidcProvider } from '../support/oidc-provider.js';
import { compileProject, fillEnv, makeTempDir, removeTempDirs, startApp } from './helpers/project.js';
import { runPackedCreate } from './helpers/packed-cli.js';
import type { CliRun, RunningApp } from './helpers/project.js';
import { signInWithOidc, signOut } from './helpers/sign-in.js';

afterAll(removeTempDirs);

const fixtureDir = fileURLToPath(new URL('../fixtures/ts-express5-commonjs/', import.meta.url));

describe('scaffolding into TypeScript compiled to CommonJS', () => {
  let projectDir: string;
  let scaffold: CliRun;
  let provider: RunningOidcProvider | undefined;
  let app: RunningApp | undefined;

  beforeAll(async () => {
    projectDir = join(await makeTempDir(), 'orders');
    await cp(fixtureDir, projectDir, { recursive: true });
    scaffold = await runPackedCreate(projectDir, ['.', '--yes']);
    if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
  }, 600_000);

  afterAll(async () => {
    await app?.stop();
    await provider?.close();
  });

  it('keeps the project CommonJS: no "type" in package.json, tsconfig.json and the sources as they were', async () => {
    expect(JSON.parse(await readFile(join(projectDir, 'package.json'), 'utf8'))).not.toHaveProperty('type');
    for (const file of ['tsconfig.json', 'src/index.ts', 'src/app.ts', 'src/routes/orders.ts']) {
      expect(await readFile(join(projectDir, file), 'utf8')).toBe(await readFile(join(fixtureDir, file), 'utf8'));
    }
    expect(scaffold.stdout).toContain('CommonJS TypeScript (tsconfig.json "module": "commonjs")');
  });

  it('compiles with the project\'s own tsc to CommonJS, with zero errors', async () => {
    const result = await compileProject(projectDir);
    expect(result.output).toBe('');
    expect(result.exitCode).toBe(0);
    const compiled = await readFile(join(projectDir, 'dist/auth/core/session/jwt.js'), 'utf8');
    expect(compiled).toContain('require("jose")');
    expect(compiled).not.toMatch(/^import /m);
  }, 60_000);

  it('starts with its own start script once mounted as the next steps say, and signs in and out over HTTP', async () => {
    // The lines the next steps print, pasted where they say: the import beside the others, the rest after express().
    expect(scaffold.stdout).toContain('Mount the auth module in src/app.ts:');
    const importLine = "import { authHandler, requireAuth, sessionLocals } from './auth/index.js';";
    expect(scaffold.stdout).toContain(importLine);
    const appFile = join(projectDir, 'src/app.ts');
    const source = await readFile(appFile, 'utf8');
    await writeFile(
      appFile,
      source
        .replace("import { ordersRouter } from './routes/orders';", `$&\n${importLine}`)
        .replace(
          'export const app = express();',
          "$&\napp.set('trust proxy', 'loopback');\napp.use('/auth/*splat', authHandler);\napp.use(sessionLocals);\napp.get('/me', requireAuth(), (_req, res) => { res.json({ user: res.locals.session?.user ?? null }); });",
        ),
    );
    const compiled = await compileProject(projectDir);
    expect(compiled.output).toBe('');

    provider = await startOidcProvider();
    await fillEnv(projectDir, { AUTH_OIDC_ID: 'orders', AUTH_OIDC_SECRET: 'orders-secret', AUTH_OIDC_ISSUER: provider.issuer });
    const start = (JSON.parse(await readFile(join(projectDir, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start ?? '';
    const entry = /^node (\S+)$/.exec(start)?.[1];
    expect(entry).toBe('dist/index.js');
    expect(existsSync(join(projectDir, entry ?? ''))).toBe(true);
    app = await startApp(projectDir, entry);
    await provider.setClient({ client_id: 'orders', client_secret: 'orders-secret', redirect_uris: [`${app.url}/auth/callback/oidc`] });

    const providers = await fetch(`${app.url}/auth/providers`);
    expect(providers.status).toBe(200);
    expect(Object.keys((await providers.json()) as Record<string, unknown>)).toEqual(['oidc']);

    const jar = createJar();
    expect(await signInWithOidc(jar, app.url, '/auth', `${app.url}/me`)).toBe(`${app.url}/me`);
    const me = await jar.fetch(`${app.url}/me`);
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe('alice@example.test');
    expect(await (await fetch(`${app.url}/orders`)).json()).toEqual([{ id: 7, item: 'sprocket' }]);

    const out = await signOut(jar, app.url, '/auth');
    expect(out.status).toBe(302);
    expect(await (await jar.fetch(`${app.url}/auth/session`)).json()).toBeNull();
    expect((await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } })).status).toBe(401);
    // require(esm) is not experimental any more on the Node lines that have it unflagged (20.19+, 22.12+).
    expect(app.output()).not.toMatch(/ExperimentalWarning|ERR_REQUIRE_ESM/);
  }, 120_000);
});
