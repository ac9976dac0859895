// --adapter: the catalog against the runtime files, what a plan writes for each database, re-runs, and
// `framework-auth migrate`'s refusals (the database e2e is test/e2e/database-adapters.test.ts).
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { adapterCatalog, findAdapter } from '../../src/catalog/adapters.js';
import { cliVersion } from '../../src/generator/version.js';
import { cliPackageRoot, packageTemplateDirs, runtimeTemplateDir } from '../../src/generator/paths.js';
import { planProject } from '../../src/generator/plan/project.js';
import { readTemplates } from '../../src/generator/release.js';
import { readProjectShape } from '../../src/generator/project/shape.js';
import { snapshotOf } from '../../src/generator/project/snapshot.js';
import type { ProjectPlan } from '../../src/generator/plan/project.js';
import type { AdapterId } from '../../src/catalog/adapters.js';
import type { PackageManager } from '../../src/catalog/package-managers.js';
import { snapshotTree } from '../e2e/helpers/project.js';
import { makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

interface OwnPackageJson {
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
}

const own = JSON.parse(readFileSync(join(cliPackageRoot, 'package.json'), 'utf8')) as OwnPackageJson;
const create = (argv: readonly string[], cwd: string) => runInProcess('create-framework-auth', argv, { cwd });
const migrate = (argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  runInProcess('framework-auth', ['migrate', ...argv], { cwd, env });

describe('adapter catalog against the runtime', () => {
  const withRuntime = adapterCatalog.filter((entry) => entry.runtimeFile !== null);

  it.each(withRuntime.map((entry) => [entry.id, entry] as const))('%s: importName is an exported factory of its runtime file', async (_id, entry) => {
    const runtime = (await import(pathToFileURL(join(runtimeTemplateDir, entry.runtimeFile ?? '')).href)) as Record<string, unknown>;
    expect(Object.keys(runtime)).toContain(entry.importName);
    expect(typeof runtime[entry.importName ?? '']).toBe('function');
    expect(entry.importPath).toBe(`./core/${(entry.runtimeFile ?? '').replace(/\.ts$/, '.js')}`);
    expect(entry.snippet).toBe(`${entry.importName}()`);
    expect(typeof runtime.migrate === 'function').toBe(entry.migrate);
  });

  it.each(adapterCatalog.map((entry) => [entry.id, entry] as const))('%s: dependencies are the ones this repo tests the runtime with', (_id, entry) => {
    for (const [name, range] of Object.entries({ ...entry.dependencies, ...entry.devDependencies })) {
      expect(own.devDependencies[name], name).toBe(range);
    }
    for (const name of entry.installScripts) expect(own.allowScripts[name], name).toBe(true);
  });

  it('names the SQLite factory SqliteAdapter', () => {
    expect(findAdapter('sqlite')).toMatchObject({ importName: 'SqliteAdapter', snippet: 'SqliteAdapter()' });
  });
});

/** A plan for a new project (or one with these files), on a snapshot made in memory: no folder is involved. */
async function plan(adapter: AdapterId, packageManager: PackageManager = 'npm', files: Record<string, string> = {}): Promise<ProjectPlan> {
  const root = join(tmpdir(), 'create-framework-auth-never-created', 'app');
  const project = snapshotOf({ root, files, shape: readProjectShape(root, { packageJson: undefined }) });
  return planProject({ project, answers: { providers: ['oidc'], mount: '/auth', adapter }, force: false, release: { version: cliVersion, templates: readTemplates(packageTemplateDirs) }, packageManager, secret: 'a-test-secret-of-forty-three-characters-xyz' });
}

function content(projectPlan: ProjectPlan, path: string): string {
  const file = projectPlan.files.find((candidate) => candidate.path === path);
  if (!file) throw new Error(`${path} is not in the plan`);
  return file.content;
}

function packageJson(projectPlan: ProjectPlan): Record<string, Record<string, unknown>> {
  return JSON.parse(content(projectPlan, 'package.json')) as Record<string, Record<string, unknown>>;
}

describe('the plan for --adapter sqlite', () => {
  it('adds better-sqlite3 with its types, at the ranges this repo tests with', async () => {
    const result = await plan('sqlite');
    expect(result.addedDependencies).toMatchObject({
      'better-sqlite3': own.devDependencies['better-sqlite3'],
      '@types/better-sqlite3': own.devDependencies['@types/better-sqlite3'],
    });
    const pkg = packageJson(result);
    expect(pkg.dependencies?.['better-sqlite3']).toBe(own.devDependencies['better-sqlite3']);
    expect(pkg.devDependencies?.['@types/better-sqlite3']).toBe(own.devDependencies['@types/better-sqlite3']);
  });

  it('allows better-sqlite3\'s install script, which npm 11 skips otherwise', async () => {
    const result = await plan('sqlite');
    expect(packageJson(result).allowScripts).toEqual({ 'better-sqlite3': true });
    expect(result.files.find((file) => file.path === 'package.json')?.reason).toContain("allows better-sqlite3's install script");
    expect(packageJson(result).pnpm).toBeUndefined();
    expect(packageJson(result).trustedDependencies).toBeUndefined();
  });

  it('also lists better-sqlite3 in pnpm.onlyBuiltDependencies for pnpm, and trustedDependencies for bun', async () => {
    expect(packageJson(await plan('sqlite', 'pnpm')).pnpm).toEqual({ onlyBuiltDependencies: ['better-sqlite3'] });
    expect(packageJson(await plan('sqlite', 'bun')).trustedDependencies).toEqual(['better-sqlite3']);
  });

  it('keeps the allowScripts entries a project has', async () => {
    const result = await plan('sqlite', 'npm', { 'package.json': '{\n  "name": "mine",\n  "allowScripts": { "esbuild": true, "better-sqlite3@12.0.0": true }\n}\n' });
    expect(packageJson(result).allowScripts).toEqual({ esbuild: true, 'better-sqlite3@12.0.0': true });
  });

  it('writes DATABASE_URL=file:./data/auth.db to .env and .env.example, and ignores data/', async () => {
    const result = await plan('sqlite');
    for (const path of ['.env', '.env.example']) {
      expect(content(result, path)).toContain(
        '# SQLite adapter: the database file (a file: URL or a path, relative to where the app starts).\n' +
          '# Its tables are created on first use, or now with `npx framework-auth migrate`.\n' +
          'DATABASE_URL=file:./data/auth.db\n',
      );
    }
    expect(content(result, '.gitignore').split('\n')).toContain('data/');
  });

  it('copies the sqlite adapter only, and sets adapter: SqliteAdapter() in the config', async () => {
    const result = await plan('sqlite');
    const paths = result.files.map((file) => file.path);
    expect(paths).toContain('src/auth/core/adapters/sqlite.ts');
    expect(paths).not.toContain('src/auth/core/adapters/postgres.ts');
    expect(paths).not.toContain('src/auth/core/adapters/memory.ts');
    const config = content(result, 'src/auth/config.ts');
    expect(config).toContain("import { SqliteAdapter } from './core/adapters/sqlite.js';\n");
    expect(config).toContain('  adapter: SqliteAdapter(),\n};');
  });
});

describe('the plan for --adapter postgres', () => {
  it('adds pg with its types, and allows no install script', async () => {
    const result = await plan('postgres');
    expect(result.addedDependencies).toMatchObject({ pg: own.devDependencies.pg, '@types/pg': own.devDependencies['@types/pg'] });
    expect(packageJson(result).allowScripts).toBeUndefined();
  });

  it('writes an empty DATABASE_URL with the URL form in a comment, and ignores no data folder', async () => {
    const result = await plan('postgres');
    for (const path of ['.env', '.env.example']) {
      expect(content(result, path)).toContain(
        '# PostgreSQL adapter: the connection URL, e.g. postgres://user:password@127.0.0.1:5432/app\n' +
          '# Then create the tables with `npx framework-auth migrate`.\n' +
          'DATABASE_URL=\n',
      );
    }
    expect(content(result, '.gitignore').split('\n')).not.toContain('data/');
    expect(content(result, 'src/auth/config.ts')).toContain("import { PostgresAdapter } from './core/adapters/postgres.js';\n");
  });
});

describe('create-framework-auth --adapter', () => {
  it('--dry-run shows the driver, the install-script permission and DATABASE_URL, and writes nothing', async () => {
    const parent = await makeTempDir();
    const result = await create(['app', '--yes', '--providers', 'oidc', '--adapter', 'sqlite', '--dry-run'], parent);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('create  src/auth/core/adapters/sqlite.ts');
    expect(result.stdout).toContain("allows better-sqlite3's install script");
    expect(result.stdout).toContain('create  .env  (adds AUTH_SECRET, AUTH_URL, AUTH_OIDC_ID, AUTH_OIDC_SECRET, AUTH_OIDC_ISSUER, DATABASE_URL)');
    expect(result.stdout).toMatch(/Dependencies to add: .*better-sqlite3@\^12.*@types\/better-sqlite3@/);
    expect(existsSync(join(parent, 'app'))).toBe(false);
  });

  it('prints migrate after scaffolding with sqlite, saying the tables are also created on first use', async () => {
    const result = await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'sqlite'], await makeTempDir());
    expect(result.stdout).toContain('Database (SQLite): file:./data/auth.db, from DATABASE_URL in .env.');
    expect(result.stdout).toContain('The tables are created automatically on first use; to create them now: npx framework-auth migrate');
  });

  it('prints the DATABASE_URL to fill, then migrate, after scaffolding with postgres', async () => {
    const result = await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'postgres', '--package-manager', 'pnpm'], await makeTempDir());
    expect(result.stdout).toContain('Database (PostgreSQL): set DATABASE_URL in .env, e.g.\n│    DATABASE_URL=postgres://user:password@127.0.0.1:5432/app\n│    then create the tables: pnpm exec framework-auth migrate');
  });

  it('changes nothing when run again, with --adapter sqlite or with --yes alone', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'sqlite'], parent);
    const before = await snapshotTree(join(parent, 'app'));
    for (const argv of [['--adapter', 'sqlite'], []]) {
      const again = await create(['app', '--yes', '--no-install', '--providers', 'oidc', ...argv], parent);
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toContain('Nothing to write: the project is up to date');
      // --yes keeps the project's adapter instead of the default none, so the next steps still name the database.
      expect(again.stdout).toContain('Database (SQLite)');
    }
    expect(await snapshotTree(join(parent, 'app'))).toEqual(before);
  });

  it('adds sqlite to a project scaffolded with none: config edit, adapter file, dependency, env, .gitignore', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc'], parent);
    const configPath = join(parent, 'app/src/auth/config.ts');
    await writeFile(configPath, (await readFile(configPath, 'utf8')).replace("basePath: '/auth',", "basePath: '/auth', // mounted in server.ts"));
    const result = await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'sqlite'], parent);
    expect(result.exitCode).toBe(0);
    // Created: adapters/sqlite.ts, the row mapping and the features' table rendering it shares with the PostgreSQL
    // adapter (adapters/sql-rows.ts, adapters/sql-tables.ts) and the database feature the adapter carries
    // (features/database/: the adapter's methods, account linking and addresses, database sessions, tokens in the
    // account row, the counters' table of the refresh lease, session management with its route and page, recent
    // authentication, the re-authentication route, the second-factor hook and the session token's format: 15 files), and the styles of the
    // features' forms that its pages use (pages/form-styles.ts) and the browser a session lists (http/user-agent.ts). Updated among others: src/auth/index.ts and
    // src/server.ts, which the user had not changed, rendered again (the session helpers, a link to the sessions page).
    expect(result.stdout).toMatch(/Planned \d+ files: 20 created, \d+ updated, \d+ unchanged\n/);
    expect(await readFile(join(parent, 'app/src/auth/index.ts'), 'utf8')).toContain("from './core/features/database/session-management.js'");
    const config = await readFile(configPath, 'utf8');
    expect(config.replace(/^\/\/ Written by .*\n/, '')).toMatchInlineSnapshot(`
      "import './env.js';
      import type { FrameworkAuthConfig } from './core/index.js';
      import OIDC from './core/providers/oidc.js';
      import { SqliteAdapter } from './core/adapters/sqlite.js';

      /**
       * The auth configuration used by the handler, getSession and the guards in ./index.ts.
       * Provider secrets come from .env (AUTH_<ID>_ID, AUTH_<ID>_SECRET, ...); \`npx framework-auth add-provider <id>\`
       * adds one to the list below.
       */
      export const authConfig: FrameworkAuthConfig = {
        basePath: '/auth', // mounted in server.ts
        providers: [
          OIDC(),
        ],
        adapter: SqliteAdapter(),
      };
      "
    `);
    expect(existsSync(join(parent, 'app/src/auth/core/adapters/sqlite.ts'))).toBe(true);
    expect(await readFile(join(parent, 'app/.env'), 'utf8')).toContain('DATABASE_URL=file:./data/auth.db\n');
    expect(await readFile(join(parent, 'app/.gitignore'), 'utf8')).toContain('data/\n');
    const pkg = JSON.parse(await readFile(join(parent, 'app/package.json'), 'utf8')) as { dependencies: Record<string, string>; allowScripts: unknown };
    expect(pkg.dependencies['better-sqlite3']).toBeDefined();
    expect(pkg.allowScripts).toEqual({ 'better-sqlite3': true });
    const again = await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'sqlite'], parent);
    expect(again.stdout).toContain('Nothing to write: the project is up to date');
  });

  it('keeps a src/auth/index.ts the user changed when an adapter is added, and says how to merge it', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc'], parent);
    const indexPath = join(parent, 'app/src/auth/index.ts');
    const edited = `${await readFile(indexPath, 'utf8')}\nexport const mine = 1;\n`;
    await writeFile(indexPath, edited);
    const result = await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'sqlite'], parent);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('src/auth/index.ts: differs from what this version generates');
    expect(await readFile(indexPath, 'utf8')).toBe(edited);
  });

  it('refuses to switch a project from sqlite to postgres, saying what to do, and changes nothing (exit 2)', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'sqlite'], parent);
    const before = await snapshotTree(join(parent, 'app'));
    const result = await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'postgres'], parent);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('src/auth/config.ts already uses the sqlite adapter; --adapter postgres would replace it.');
    expect(result.stderr).toContain("change `adapter:` in src/auth/config.ts to PostgresAdapter() (import { PostgresAdapter } from './core/adapters/postgres.js')");
    expect(result.stderr).toContain('--force');
    expect(await snapshotTree(join(parent, 'app'))).toEqual(before);
    const forced = await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'postgres', '--force'], parent);
    expect(forced.exitCode).toBe(0);
    expect(await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8')).toContain('  adapter: PostgresAdapter(),\n');
  });

  it('switches after the user changed the config by hand', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'memory'], parent);
    const configPath = join(parent, 'app/src/auth/config.ts');
    const config = await readFile(configPath, 'utf8');
    await writeFile(
      configPath,
      config
        .replace("import { MemoryAdapter } from './core/adapters/memory.js';", "import { PostgresAdapter } from './core/adapters/postgres.js';")
        .replace('adapter: MemoryAdapter(),', "adapter: PostgresAdapter({ url: process.env['APP_DATABASE_URL'] }),"),
    );
    const result = await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'postgres'], parent);
    expect(result.exitCode).toBe(0);
    expect(existsSync(join(parent, 'app/src/auth/core/adapters/postgres.ts'))).toBe(true);
    expect(await readFile(configPath, 'utf8')).toContain("adapter: PostgresAdapter({ url: process.env['APP_DATABASE_URL'] }),");
  });
});

describe('framework-auth migrate refuses (exit 2)', () => {
  it('outside a scaffolded project', async () => {
    const result = await migrate([], await makeTempDir());
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('No auth module in');
    expect(result.stderr).toContain('src/auth/config.ts is missing');
  });

  it('a --cwd that is not a directory', async () => {
    const result = await migrate(['--cwd', 'nowhere'], await makeTempDir());
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('is not a directory');
  });

  it('a project with adapter none, naming the adapters that need it', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc'], parent);
    const result = await migrate(['--cwd', 'app'], parent);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('src/auth/config.ts sets no adapter (JWT sessions in a cookie): there is no database to create tables in; migrate is for the sqlite and postgres adapters.');
  });

  it('a project with the memory adapter', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'memory'], parent);
    const result = await migrate(['--cwd', 'app'], parent);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('uses the memory adapter, which keeps everything in memory: there are no tables to create');
  });

  it('a postgres project without DATABASE_URL, showing the URL form', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'postgres'], parent);
    const result = await migrate(['--cwd', 'app'], parent);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('DATABASE_URL is not set');
    expect(result.stderr).toContain('DATABASE_URL=postgres://user:password@127.0.0.1:5432/app');
  });
});

describe('framework-auth migrate', () => {
  it('fails (exit 1) in a project whose dependencies are not installed, saying to install them', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'sqlite'], parent);
    const result = await migrate(['--cwd', 'app'], parent);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('tsx is not installed in');
    expect(result.stderr).toContain('npm install');
  });

  it('reads the adapter from the config\'s import, also through a constant', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'postgres'], parent);
    const configPath = join(parent, 'app/src/auth/config.ts');
    const config = await readFile(configPath, 'utf8');
    await writeFile(
      configPath,
      config
        .replace('export const authConfig', "const database = PostgresAdapter({ url: process.env['DATABASE_URL'] });\n\nexport const authConfig")
        .replace('adapter: PostgresAdapter(),', 'adapter: database,'),
    );
    await mkdir(join(parent, 'app/node_modules'));
    // Past the adapter check: the next refusal is the missing DATABASE_URL of a postgres project.
    const result = await migrate(['--cwd', 'app'], parent);
    expect(result.stderr).toContain('DATABASE_URL is not set');
  });

  it('prints --help with examples', async () => {
    const result = await migrate(['--help'], await makeTempDir());
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Usage: framework-auth migrate [options]');
    expect(result.stdout).toContain('--cwd <dir>');
    expect(result.stdout).toContain('Examples:\n  $ npx framework-auth migrate');
  });
});
