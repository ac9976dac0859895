// Issue 36: a JavaScript Express app gets the auth module as JavaScript in its own module system (CommonJS for
// express-generator's app, ES modules for a "type": "module" app), declarations beside it, no build step; it loads
// with require()/import, serves its routes and signs in; the project commands work on it.
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar } from '../support/cookie-jar.js';
import { startOidcProvider } from '../support/oidc-provider.js';
import type { RunningOidcProvider } from '../support/oidc-provider.js';
import { startApp } from '../e2e/helpers/project.js';
import type { RunningApp } from '../e2e/helpers/project.js';
import { signInWithOidc } from '../e2e/helpers/sign-in.js';
import { mountInProject, printedMount } from '../e2e/matrix/fixture-helpers.js';
import { fillEnv } from '../e2e/helpers/project.js';
import { projectTree } from './helpers/project-tree.js';
import { makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const apps: RunningApp[] = [];
let provider: RunningOidcProvider;

beforeAll(async () => {
  provider = await startOidcProvider();
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await provider?.close();
  await removeTempDirs();
});

async function copyFixture(name: string): Promise<string> {
  const target = join(await makeTempDir('cfa-js-'), name);
  await cp(join(repoRoot, 'test/fixtures', name), target, { recursive: true });
  return target;
}

/** The repo's node_modules, linked into the app (Express 4 from the repo's `express4` alias when asked). */
async function linkRepoDeps(projectDir: string, express: 4 | 5): Promise<void> {
  const target = join(projectDir, 'node_modules');
  await mkdir(target);
  for (const name of await readdir(join(repoRoot, 'node_modules'))) {
    if (name.startsWith('.') || name === 'express') continue;
    await symlink(join(repoRoot, 'node_modules', name), join(target, name), 'dir');
  }
  await symlink(join(repoRoot, 'node_modules', express === 4 ? 'express4' : 'express'), join(target, 'express'), 'dir');
}

function filesUnder(tree: Record<string, string>, dir: string): string[] {
  return Object.keys(tree).filter((path) => path.startsWith(`${dir}/`)).sort();
}

/** Registers the app's callback with the loopback provider, signs in, and returns what /me answers. */
async function signIn(projectDir: string, entry: string, clientId: string): Promise<{ app: RunningApp; me: { user: { email: string } } }> {
  await fillEnv(projectDir, { AUTH_OIDC_ID: clientId, AUTH_OIDC_SECRET: `${clientId}-secret`, AUTH_OIDC_ISSUER: provider.issuer });
  const app = await startApp(projectDir, entry, { PORT: '0' });
  apps.push(app);
  await provider.setClient({ client_id: clientId, client_secret: `${clientId}-secret`, redirect_uris: [`${app.url}/auth/callback/oidc`] });
  const jar = createJar();
  expect(await signInWithOidc(jar, app.url, '/auth', `${app.url}/me`)).toBe(`${app.url}/me`);
  const me = await jar.fetch(`${app.url}/me`);
  expect(me.status).toBe(200);
  return { app, me: (await me.json()) as { user: { email: string } } };
}

/**
 * `tsc --checkJs` over the app's JavaScript and the auth module's own files (config, index, env), every import of the
 * module checked against the declarations beside it. The runtime copy's JavaScript (core/) is described by its
 * declarations, which is what an editor reads for it.
 */
async function checkJs(projectDir: string, module: 'commonjs' | 'esm'): Promise<string> {
  const tsconfig = {
    compilerOptions: {
      allowJs: true,
      checkJs: true,
      noEmit: true,
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      types: ['node'],
      skipLibCheck: true,
      strict: false,
    },
    include: ['**/*.js'],
    exclude: ['node_modules', 'auth/core'],
  };
  const consumer =
    module === 'commonjs'
      ? "const { getSession, requireAuth } = require('./auth');\n/** @param {import('express').Request} req */\nasync function who(req) {\n  /** @type {import('./auth/index.js').Session | null} */\n  const session = await getSession(req);\n  return session?.user.email ?? null;\n}\nmodule.exports = { who, guard: requireAuth({ redirectTo: '/login' }) };\n"
      : "import { getSession, requireAuth } from './auth/index.js';\n/** @param {import('express').Request} req */\nexport async function who(req) {\n  /** @type {import('./auth/index.js').Session | null} */\n  const session = await getSession(req);\n  return session?.user.email ?? null;\n}\nexport const guard = requireAuth({ redirectTo: '/login' });\n";
  await writeFile(join(projectDir, 'tsconfig.check.json'), JSON.stringify(tsconfig));
  await writeFile(join(projectDir, 'who.js'), consumer);
  const result = await execa(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.check.json'], { cwd: projectDir, reject: false, all: true });
  return result.all ?? '';
}

describe('create-framework-auth in express-generator\'s app (CommonJS JavaScript, Express 4)', () => {
  const fixture = 'js-express4-cjs';
  let projectDir: string;
  let before: Record<string, string>;
  let stdout: string;

  beforeAll(async () => {
    projectDir = await copyFixture(fixture);
    before = await projectTree(projectDir);
    const result = await runInProcess('create-framework-auth', ['.', '--yes', '--no-install'], { cwd: projectDir });
    if (result.exitCode !== 0) throw new Error(`create failed:\n${result.stdout}\n${result.stderr}`);
    stdout = result.stdout;
  }, 120_000);

  it('writes the module as CommonJS JavaScript with declarations beside it, and no TypeScript', async () => {
    const tree = await projectTree(projectDir);
    const auth = filesUnder(tree, 'auth');
    expect(auth).toEqual(expect.arrayContaining(['auth/config.js', 'auth/config.d.ts', 'auth/env.js', 'auth/index.js', 'auth/index.d.ts', 'auth/core/index.js', 'auth/core/index.d.ts']));
    expect(auth.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))).toEqual([]);
    for (const path of auth.filter((file) => file.endsWith('.js'))) expect(auth).toContain(path.replace(/\.js$/, '.d.ts'));
    expect(existsSync(join(projectDir, 'tsconfig.json'))).toBe(false);
    expect(tree['auth/index.js']).toContain("const { authConfig } = require('./config.js');");
    expect(tree['auth/index.js']).toContain('module.exports = {');
    expect(tree['auth/core/http/redirect.js']).toContain('Where users are sent after sign-in and sign-out.');
    expect(tree['auth/config.js']).toMatchInlineSnapshot(`
      "// Written by create-framework-auth 0.1.0. This file is yours: read it, edit it.
      'use strict';
      require('./env.js');
      const OIDC = require('./core/providers/oidc.js').default;

      /**
       * The auth configuration used by the handler, getSession and the guards in ./index.ts.
       * Provider secrets come from .env (AUTH_<ID>_ID, AUTH_<ID>_SECRET, ...); \`npx framework-auth add-provider <id>\`
       * adds one to the list below.
       * @type {import('./core/index.js').FrameworkAuthConfig}
       */
      const authConfig = {
        basePath: '/auth',
        providers: [
          OIDC(),
        ],
      };

      module.exports = { authConfig };
      "
    `);
  });

  it('changes no file of the user\'s but package.json (dependencies only, still CommonJS) and .gitignore', async () => {
    const after = await projectTree(projectDir);
    const changed = Object.keys(before).filter((path) => path !== '.env' && before[path] !== after[path]);
    expect(changed.sort()).toEqual(['.gitignore', 'package.json']);
    const pkg = JSON.parse(after['package.json'] ?? '{}') as Record<string, unknown>;
    expect(pkg).toMatchObject({ type: 'commonjs', scripts: { start: 'node ./bin/www' } });
    expect(pkg.dependencies).toEqual({ express: '^4.22.3', jose: expect.any(String) as string, oauth4webapi: expect.any(String) as string });
    expect(pkg.devDependencies).toEqual({ 'create-framework-auth': '0.1.0' });
  });

  it('records the module\'s language in the manifest, and a re-run writes nothing', async () => {
    expect(JSON.parse(await readFile(join(projectDir, 'framework-auth.json'), 'utf8'))).toMatchObject({ code: 'javascript-commonjs' });
    const again = await runInProcess('create-framework-auth', ['.', '--yes', '--no-install'], { cwd: projectDir });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('Nothing to write: the project is up to date');
  });

  it('prints the require and the Express 4 mount for app.js', () => {
    expect(printedMount(stdout)).toEqual({
      file: 'app.js',
      importLine: "const { authHandler, requireAuth, sessionLocals } = require('./auth');",
      appLines: [
        "app.set('trust proxy', Number(process.env.TRUST_PROXY) || 'loopback');  // X-Forwarded-* only from your proxy: its hop count, never true",
        "app.use('/auth/*', authHandler);",
        'app.use(sessionLocals);',
        "app.get('/me', requireAuth(), (req, res) => res.json({ user: res.locals.session.user }));",
      ],
    });
    expect(stdout).not.toContain('Build the auth module');
  });

  it('loads with require() from the app\'s folder in a child node, with no build step and no loader', async () => {
    await linkRepoDeps(projectDir, 4);
    const script = "const { authHandler, requireAuth, sessionLocals, getSession } = require('./auth'); console.log([authHandler, requireAuth, sessionLocals, getSession].map((value) => typeof value).join(' '));";
    const result = await execa(process.execPath, ['-e', script], { cwd: projectDir, env: { AUTH_OIDC_ID: 'x', AUTH_OIDC_SECRET: 'y', AUTH_OIDC_ISSUER: 'http://127.0.0.1:1' }, reject: false, all: true });
    expect(result.all).toBe('function function function function');
  }, 30_000);

  it('serves /auth/providers and /auth/csrf, and signs in through the loopback OpenID provider, once the printed lines are in app.js', async () => {
    await mountInProject(projectDir, stdout);
    const { app, me } = await signIn(projectDir, 'bin/www', 'js-cjs-app');
    expect(me.user.email).toBe('alice@example.test');
    const providers = await fetch(`${app.url}/auth/providers`);
    expect(providers.status).toBe(200);
    expect(Object.keys((await providers.json()) as object)).toEqual(['oidc']);
    const csrf = await fetch(`${app.url}/auth/csrf`);
    expect(((await csrf.json()) as { csrfToken: string }).csrfToken).toMatch(/^[0-9a-f]{64}$/);
    expect(await (await fetch(`${app.url}/health`)).json()).toEqual({ ok: true });
  }, 60_000);

  it('type-checks with tsc --checkJs against the declarations beside the JavaScript', async () => {
    expect(await checkJs(projectDir, 'commonjs')).toBe('');
  }, 120_000);
});

describe('create-framework-auth in an ESM JavaScript app (Express 5, "type": "module")', () => {
  const fixture = 'js-express5-esm';
  let projectDir: string;
  let before: Record<string, string>;
  let stdout: string;

  beforeAll(async () => {
    projectDir = await copyFixture(fixture);
    before = await projectTree(projectDir);
    const result = await runInProcess('create-framework-auth', ['.', '--yes', '--no-install'], { cwd: projectDir });
    if (result.exitCode !== 0) throw new Error(`create failed:\n${result.stdout}\n${result.stderr}`);
    stdout = result.stdout;
  }, 120_000);

  it('writes the module as ES modules with declarations beside it, and no TypeScript toolchain', async () => {
    const tree = await projectTree(projectDir);
    const auth = filesUnder(tree, 'auth');
    expect(auth.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))).toEqual([]);
    expect(auth).toEqual(expect.arrayContaining(['auth/config.js', 'auth/config.d.ts', 'auth/index.js', 'auth/index.d.ts']));
    expect(tree['auth/index.js']).toContain("import { authConfig } from './config.js';");
    expect(tree['auth/index.js']).toContain('export const authHandler = FrameworkAuth(authConfig);');
    expect(existsSync(join(projectDir, 'tsconfig.json'))).toBe(false);
    const changed = Object.keys(before).filter((path) => path !== '.env' && before[path] !== tree[path]);
    expect(changed.sort()).toEqual(['.gitignore', 'package.json']);
    const pkg = JSON.parse(tree['package.json'] ?? '{}') as Record<string, unknown>;
    expect(pkg).toMatchObject({ type: 'module', scripts: { start: 'node server.js' } });
    expect(pkg.devDependencies).toEqual({ 'create-framework-auth': '0.1.0' });
    expect(JSON.parse(tree['framework-auth.json'] ?? '{}')).toMatchObject({ code: 'javascript-esm' });
  });

  it('prints the import and the Express 5 mount for app.js', () => {
    const mount = printedMount(stdout);
    expect(mount.file).toBe('app.js');
    expect(mount.importLine).toBe("import { authHandler, requireAuth, sessionLocals } from './auth/index.js';");
    expect(mount.appLines).toContain("app.use('/auth/*splat', authHandler);");
  });

  it('loads with import in a child node', async () => {
    await linkRepoDeps(projectDir, 5);
    const script = "const { authHandler, requireAuth, sessionLocals, getSession } = await import('./auth/index.js'); console.log([authHandler, requireAuth, sessionLocals, getSession].map((value) => typeof value).join(' '));";
    const result = await execa(process.execPath, ['--input-type=module', '-e', script], { cwd: projectDir, env: { AUTH_OIDC_ID: 'x', AUTH_OIDC_SECRET: 'y', AUTH_OIDC_ISSUER: 'http://127.0.0.1:1' }, reject: false, all: true });
    expect(result.all).toBe('function function function function');
  }, 30_000);

  it('serves /auth/providers and signs in, once the printed lines are in app.js', async () => {
    await mountInProject(projectDir, stdout);
    const { app, me } = await signIn(projectDir, 'server.js', 'js-esm-app');
    expect(me.user.email).toBe('alice@example.test');
    expect((await fetch(`${app.url}/auth/providers`)).status).toBe(200);
  }, 60_000);

  it('type-checks with tsc --checkJs against the declarations beside the JavaScript', async () => {
    expect(await checkJs(projectDir, 'esm')).toBe('');
  }, 120_000);
});

describe('the project commands in a CommonJS JavaScript project', () => {
  let projectDir: string;
  let withoutApiKeys: Record<string, string>;
  const moduleFiles = async (): Promise<Record<string, string>> => ({
    config: await readFile(join(projectDir, 'auth/config.js'), 'utf8'),
    index: await readFile(join(projectDir, 'auth/index.js'), 'utf8'),
    declarations: await readFile(join(projectDir, 'auth/index.d.ts'), 'utf8'),
  });

  beforeAll(async () => {
    projectDir = await copyFixture('js-express4-cjs');
    const result = await runInProcess('create-framework-auth', ['.', '--yes', '--no-install', '--adapter', 'memory'], { cwd: projectDir });
    if (result.exitCode !== 0) throw new Error(`create failed:\n${result.stdout}\n${result.stderr}`);
  }, 120_000);

  it('add-provider adds a require and the provider to config.js, and the provider\'s JavaScript and declarations', async () => {
    const result = await runInProcess('framework-auth', ['add-provider', 'github'], { cwd: projectDir });
    expect(result.exitCode).toBe(0);
    const config = await readFile(join(projectDir, 'auth/config.js'), 'utf8');
    expect(config).toContain("const OIDC = require('./core/providers/oidc.js').default;\nconst GitHub = require('./core/providers/github.js').default;\nconst { MemoryAdapter } = require('./core/adapters/memory.js');");
    expect(config).toContain('    OIDC(),\n    GitHub(),\n  ],');
    expect(existsSync(join(projectDir, 'auth/core/providers/github.js'))).toBe(true);
    expect(existsSync(join(projectDir, 'auth/core/providers/github.d.ts'))).toBe(true);
    expect(existsSync(join(projectDir, 'auth/core/providers/github.ts'))).toBe(false);
  });

  it('remove-provider takes it out again, its require and its files', async () => {
    const result = await runInProcess('framework-auth', ['remove-provider', 'github'], { cwd: projectDir });
    expect(result.exitCode).toBe(0);
    const config = await readFile(join(projectDir, 'auth/config.js'), 'utf8');
    expect(config).not.toContain('GitHub');
    expect(existsSync(join(projectDir, 'auth/core/providers/github.js'))).toBe(false);
  });

  it('add-two-factor adds the feature to config.js as CommonJS', async () => {
    expect((await runInProcess('framework-auth', ['add-provider', 'credentials'], { cwd: projectDir })).exitCode).toBe(0);
    const result = await runInProcess('framework-auth', ['add-two-factor', '--no-install'], { cwd: projectDir });
    expect(result.exitCode, result.stderr).toBe(0);
    const config = await readFile(join(projectDir, 'auth/config.js'), 'utf8');
    expect(config).toContain("const { TwoFactor } = require('./core/features/two-factor/index.js');");
    expect(config).toContain('features: [TwoFactor()],');
    expect(existsSync(join(projectDir, 'auth/core/features/two-factor/index.js'))).toBe(true);
  });

  it('remove-two-factor takes the feature out of config.js again, and its JavaScript', async () => {
    const result = await runInProcess('framework-auth', ['remove-two-factor'], { cwd: projectDir });
    expect(result.exitCode, result.stderr).toBe(0);
    const config = await readFile(join(projectDir, 'auth/config.js'), 'utf8');
    expect(config).not.toContain('TwoFactor');
    expect(existsSync(join(projectDir, 'auth/core/features/two-factor/index.js'))).toBe(false);
    expect(existsSync(join(projectDir, 'auth/core/features/two-factor/index.d.ts'))).toBe(false);
  });

  it('add-api-keys adds ApiKeys to config.js, and createApiKey to index.js and its declarations, as CommonJS', async () => {
    withoutApiKeys = await moduleFiles();
    const result = await runInProcess('framework-auth', ['add-api-keys', '--no-install'], { cwd: projectDir });
    expect(result.exitCode, result.stderr).toBe(0);
    const { config, index, declarations } = await moduleFiles();
    expect(config).toContain("const { ApiKeys } = require('./core/features/api-keys/index.js');");
    expect(config).toContain("features: [ApiKeys({ scopes: ['read', 'write'] })],");
    expect(index).toContain("const { createApiKey: createApiKeyFor } = require('./core/features/api-keys/index.js');");
    expect(index).toContain('function createApiKey(request) {\n  return createApiKeyFor(authConfig, request);\n}');
    expect(index).toMatch(/module\.exports = \{[^}]*\n {2}createApiKey,\n/);
    expect(index).toContain('`options.scopes` checks the');
    expect(declarations).toContain("export type { CreatedApiKey, NewApiKey } from './core/features/api-keys/index.js';");
    expect(declarations).toContain('export declare function createApiKey(request: NewApiKey & {\n    userId: string;\n}): Promise<CreatedApiKey>;');
    for (const file of ['index.js', 'index.d.ts', 'api-keys.js', 'api-keys.d.ts']) expect(existsSync(join(projectDir, 'auth/core/features/api-keys', file)), file).toBe(true);
    expect(existsSync(join(projectDir, 'auth/core/features/api-keys/index.ts'))).toBe(false);
  });

  it('remove-api-keys gives config.js, index.js and index.d.ts back as they were, and deletes its JavaScript', async () => {
    const result = await runInProcess('framework-auth', ['remove-api-keys'], { cwd: projectDir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await moduleFiles()).toEqual(withoutApiKeys);
    expect(existsSync(join(projectDir, 'auth/core/features/api-keys/index.js'))).toBe(false);
    expect(existsSync(join(projectDir, 'auth/core/features/api-keys/index.d.ts'))).toBe(false);
  });

  it('update 3-way merges a changed runtime file with the user\'s edit of its JavaScript', async () => {
    const templates = join(await makeTempDir('cfa-js-templates-'), 'templates');
    await cp(join(repoRoot, 'templates'), templates, { recursive: true });
    const upstream = join(templates, 'runtime/http/redirect.ts');
    const original = '/** Resolves `url` against the origin when it is same-origin; null otherwise. */';
    await writeFile(upstream, (await readFile(upstream, 'utf8')).replace(original, '/** Resolves `url` against the origin when it is same-origin (changed upstream); null otherwise. */'));
    const mine = join(projectDir, 'auth/core/http/redirect.js');
    await writeFile(mine, (await readFile(mine, 'utf8')).replace('/** A configured custom page', '// A note of mine.\n/** A configured custom page'));
    const result = await runInProcess('framework-auth', ['update'], { cwd: projectDir, env: { FRAMEWORK_AUTH_TEMPLATES_DIR: templates } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('Merged with your changes: auth/core/http/redirect.js');
    const merged = await readFile(mine, 'utf8');
    expect(merged).toContain('(changed upstream)');
    expect(merged).toContain('// A note of mine.');
  }, 120_000);

  it('doctor checks it as CommonJS JavaScript: no "type" and no tsconfig asked for', async () => {
    const result = await runInProcess('framework-auth', ['doctor', '--offline', '--json'], { cwd: projectDir });
    const { findings } = JSON.parse(result.stdout) as { findings: { id: string; status: string; message: string }[] };
    expect(findings.find((finding) => finding.id === 'package-type')).toMatchObject({ status: 'ok', message: 'package.json is "type": "commonjs"; the auth module is CommonJS JavaScript.' });
    expect(findings.find((finding) => finding.id === 'tsconfig')).toMatchObject({ status: 'ok' });
    expect(findings.filter((finding) => finding.id.startsWith('tsconfig-'))).toEqual([]);
  });
});

describe('framework-auth migrate in a CommonJS JavaScript project', () => {
  it('creates the SQLite tables by running the project\'s JavaScript adapter, without tsx', async () => {
    const projectDir = await copyFixture('js-express4-cjs');
    const created = await runInProcess('create-framework-auth', ['.', '--yes', '--no-install', '--adapter', 'sqlite'], { cwd: projectDir });
    expect(created.exitCode, created.stderr).toBe(0);
    expect(existsSync(join(projectDir, 'auth/core/adapters/sqlite.js'))).toBe(true);
    await linkRepoDeps(projectDir, 4);
    const result = await runInProcess('framework-auth', ['migrate'], { cwd: projectDir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('Tables in place in file:./data/auth.db (created where missing): users, accounts, sessions');
  }, 120_000);
});
