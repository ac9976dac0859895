// The CLI extends an existing Express project: every edit of the user's files is shown as a snapshot, nothing of
// theirs is lost, the auth module compiles, and once mounted as the next steps say, sign-in works.
import { cp, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar } from '../support/cookie-jar.js';
import { startOidcProvider } from '../support/oidc-provider.js';
import type { RunningOidcProvider } from '../support/oidc-provider.js';
import { compileProject, fillEnv, makeTempDir, runBuiltCli, snapshotTree, startApp, removeTempDirs } from './helpers/project.js';
import type { CliRun, RunningApp } from './helpers/project.js';
import { linkSharedDeps, prepareSharedDeps } from './helpers/shared-deps.js';
import { signInWithOidc } from './helpers/sign-in.js';

afterAll(removeTempDirs);

const fixtureDir = fileURLToPath(new URL('../fixtures/existing-express-app/', import.meta.url));
const userEnv = 'PORT=8080\n# the service\'s own settings\nAPI_KEY="abc def"\n';

describe('scaffolding into an existing Express project', () => {
  let projectDir: string;
  let scaffold: CliRun;
  let provider: RunningOidcProvider | undefined;
  let app: RunningApp | undefined;

  beforeAll(async () => {
    await prepareSharedDeps();
    projectDir = join(await makeTempDir(), 'service');
    await cp(fixtureDir, projectDir, { recursive: true });
    await writeFile(join(projectDir, '.env'), userEnv);
    scaffold = await runBuiltCli('create', ['--yes', '--no-install'], { cwd: projectDir });
    if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
    await linkSharedDeps(projectDir);
  }, 600_000);

  afterAll(async () => {
    await app?.stop();
    await provider?.close();
  });

  it('adds type, build script and dependencies to package.json, keeping everything else', async () => {
    expect(await readFile(join(projectDir, 'package.json'), 'utf8')).toMatchInlineSnapshot(`
      "{
        "name": "existing-express-app",
        "version": "1.4.2",
        "description": "An Express service that existed before create-framework-auth ran.",
        "private": true,
        "main": "build/index.js",
        "type": "module",
        "scripts": {
          "dev": "tsx watch src/index.ts",
          "build": "tsc -p .",
          "start": "node build/index.js",
          "lint": "echo \\"no lint yet\\""
        },
        "dependencies": {
          "express": "^5.1.0",
          "jose": "^6.2.17",
          "oauth4webapi": "^3.8.8"
        },
        "devDependencies": {
          "@types/express": "^5.0.3",
          "@types/node": "^20.19.0",
          "create-framework-auth": "0.1.0",
          "tsx": "^4.23.15",
          "typescript": "^6.0.3"
        }
      }
      "
    `);
  });

  it('merges tsconfig.json keeping its comments and options', async () => {
    expect(await readFile(join(projectDir, 'tsconfig.json'), 'utf8')).toMatchInlineSnapshot(`
      "{
        // The service's compiler settings: keep these comments!
        "compilerOptions": {
          "target": "ES2022",
          "module": "ES2022", // bundler-style for now
          "moduleResolution": "Bundler",
          "rootDir": "src",
          "outDir": "build", /* compiled output */
          "types": ["node"],
          "skipLibCheck": true,
          "strict": true,
        },
        "include": ["src"], // only the sources
      }
      "
    `);
  });

  it('adds .env to .gitignore below the existing lines', async () => {
    expect(await readFile(join(projectDir, '.gitignore'), 'utf8')).toMatchInlineSnapshot(`
      "# build output
      node_modules
      build
      .env
      "
    `);
  });

  it('appends AUTH_SECRET and the provider placeholders to .env, keeping the user\'s lines byte for byte', async () => {
    const env = await readFile(join(projectDir, '.env'), 'utf8');
    expect(env.startsWith(userEnv)).toBe(true);
    expect(env.replace(/^AUTH_SECRET=.*$/m, 'AUTH_SECRET=<secret>')).toMatchInlineSnapshot(`
      "PORT=8080
      # the service's own settings
      API_KEY="abc def"

      # Encrypts sessions and signs CSRF tokens: 32+ random characters, never committed.
      # Replace it with \`npx framework-auth secret --force\` (signs everyone out).
      AUTH_SECRET=<secret>

      # The app's public URL: sign-in links, callback URLs and redirects are built on it, never on a request's Host header.
      # In production, the https URL users reach the app at.
      AUTH_URL=http://localhost:8080

      # OpenID Connect: register http://localhost:8080/auth/callback/oidc as the callback URL.
      AUTH_OIDC_ID=
      AUTH_OIDC_SECRET=
      AUTH_OIDC_ISSUER=
      "
    `);
    expect(/^AUTH_SECRET=([A-Za-z0-9_-]{43})$/m.test(env)).toBe(true);
  });

  it('leaves the user\'s server and routes untouched and writes no server of its own', async () => {
    for (const file of ['src/index.ts', 'src/routes/health.ts']) {
      expect(await readFile(join(projectDir, file), 'utf8')).toBe(await readFile(join(fixtureDir, file), 'utf8'));
    }
    expect(existsSync(join(projectDir, 'src/server.ts'))).toBe(false);
    expect(existsSync(join(projectDir, 'src/auth/index.ts'))).toBe(true);
    expect(existsSync(join(projectDir, 'src/auth/core/index.ts'))).toBe(true);
  });

  it('tells how to mount the auth module in the existing entry', () => {
    expect(scaffold.stdout).toContain('Mount the auth module in src/index.ts:');
    expect(scaffold.stdout).toContain("import { authHandler, requireAuth, sessionLocals } from './auth/index.js';");
    expect(scaffold.stdout).toContain("app.use('/auth/*splat', authHandler);");
  });

  it('changes nothing when run again', async () => {
    const before = await snapshotTree(projectDir);
    const again = await runBuiltCli('create', ['--yes', '--no-install'], { cwd: projectDir });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('Nothing to write: the project is up to date');
    expect(await snapshotTree(projectDir)).toEqual(before);
  });

  it('compiles with tsc with zero errors', async () => {
    const result = await compileProject(projectDir);
    expect(result.output).toBe('');
    expect(result.exitCode).toBe(0);
    expect(existsSync(join(projectDir, 'build/auth/index.js'))).toBe(true);
  }, 60_000);

  it('signs in through the user\'s own server once mounted as the next steps say', async () => {
    const entry = join(projectDir, 'src/index.ts');
    const source = await readFile(entry, 'utf8');
    await writeFile(
      entry,
      source
        .replace("import { healthRouter } from './routes/health.js';", "$&\nimport { authHandler, requireAuth, sessionLocals } from './auth/index.js';")
        .replace(
          "app.use(express.json());",
          "app.set('trust proxy', true);\napp.use('/auth/*splat', authHandler);\napp.use(sessionLocals);\n$&\napp.get('/me', requireAuth(), (_req, res) => { res.json({ user: res.locals.session?.user ?? null }); });",
        ),
    );
    const result = await compileProject(projectDir);
    expect(result.output).toBe('');
    provider = await startOidcProvider();
    await fillEnv(projectDir, { AUTH_OIDC_ID: 'service', AUTH_OIDC_SECRET: 'service-secret', AUTH_OIDC_ISSUER: provider.issuer });
    app = await startApp(projectDir, 'build/index.js');
    await provider.setClient({ client_id: 'service', client_secret: 'service-secret', redirect_uris: [`${app.url}/auth/callback/oidc`] });

    const jar = createJar();
    expect(await signInWithOidc(jar, app.url, '/auth', `${app.url}/me`)).toBe(`${app.url}/me`);
    const me = await jar.fetch(`${app.url}/me`);
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe('alice@example.test');
    expect(await (await fetch(`${app.url}/health`)).json()).toEqual({ ok: true });
  }, 60_000);
});
