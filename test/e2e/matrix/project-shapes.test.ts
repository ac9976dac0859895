// Issue 11: existing projects of the common shapes are extended without loss (only the expected merges happen),
// compile, start, and sign in through oidc-provider once the printed mount lines are pasted where the CLI says.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar } from '../../support/cookie-jar.js';
import { startOidcProvider } from '../../support/oidc-provider.js';
import type { RunningOidcProvider } from '../../support/oidc-provider.js';
import { compileProject, fillEnv, removeTempDirs, runBuiltCli, snapshotTree, startApp } from '../helpers/project.js';
import type { CliRun, RunningApp } from '../helpers/project.js';
import { linkProjectDeps, packedTarball, prepareSharedDeps } from '../helpers/shared-deps.js';
import { signInWithOidc } from '../helpers/sign-in.js';
import { copyFixture, editFile, isGeneratedPath, linkDepsWithExpress4, mountInProject, readFixtureFile, treeChanges } from './fixture-helpers.js';

let provider: RunningOidcProvider;
const apps: RunningApp[] = [];

beforeAll(async () => {
  await prepareSharedDeps();
  provider = await startOidcProvider();
}, 600_000);

afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await provider?.close();
  await removeTempDirs();
});

/** Fills .env, starts the app, registers its callback, signs in, and returns the user /me answers. */
async function signInto(projectDir: string, entry: string, clientId: string): Promise<{ app: RunningApp; email: string }> {
  await fillEnv(projectDir, { AUTH_OIDC_ID: clientId, AUTH_OIDC_SECRET: `${clientId}-secret`, AUTH_OIDC_ISSUER: provider.issuer });
  const app = await startApp(projectDir, entry);
  apps.push(app);
  await provider.setClient({ client_id: clientId, client_secret: `${clientId}-secret`, redirect_uris: [`${app.url}/auth/callback/oidc`] });
  const jar = createJar();
  expect(await signInWithOidc(jar, app.url, '/auth', `${app.url}/me`)).toBe(`${app.url}/me`);
  const me = await jar.fetch(`${app.url}/me`);
  expect(me.status).toBe(200);
  const { user } = (await me.json()) as { user: { email: string } };
  return { app, email: user.email };
}

const quiet = { npm_config_user_agent: '' };

describe('a plain JavaScript Express 4 app in CommonJS (express-generator layout)', () => {
  const fixture = 'js-express4-cjs';
  let projectDir: string;
  let before: Record<string, string>;
  let converted: CliRun;

  beforeAll(async () => {
    projectDir = await copyFixture(fixture);
    before = await snapshotTree(projectDir);
  });

  it('without --convert-esm plans the module as CommonJS JavaScript (issue 36; test/cli/javascript-project.test.ts runs it), and --dry-run writes nothing', async () => {
    const result = await runBuiltCli('create', ['--yes', '--no-install', '--dry-run'], { cwd: projectDir, env: quiet });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('auth/index.js');
    expect(result.stdout).not.toContain('tsconfig.json');
    expect(await snapshotTree(projectDir)).toEqual(before);
  });

  it('with --convert-esm changes package.json (type, build script, dependencies) and .gitignore, and lists the sources to convert', async () => {
    converted = await runBuiltCli('create', ['--yes', '--no-install', '--convert-esm'], { cwd: projectDir, env: quiet });
    expect(converted.stderr).toBe('');
    expect(converted.exitCode).toBe(0);
    expect(converted.stdout).toContain('--convert-esm: set package.json "type" to "module"');
    expect(converted.stdout).toContain('--convert-esm did not rewrite your sources; change these before you start the app:');
    expect(converted.stdout).toContain("app.js: require() → import; module.exports → export; './routes/health' → './routes/health.js'");
    const changes = treeChanges(before, await snapshotTree(projectDir));
    expect(changes.changed).toEqual(['.gitignore', 'package.json']);
    expect(changes.removed).toEqual([]);
    expect(changes.added.filter((path) => !isGeneratedPath(path, 'auth', ['tsconfig.json']))).toEqual([]);
    expect(changes.added).toContain('auth/index.ts');
    expect(await readFile(join(projectDir, '.gitignore'), 'utf8')).toBe('node_modules\n.env\n');
    for (const file of ['app.js', 'bin/www', 'routes/health.js']) {
      expect(await readFile(join(projectDir, file), 'utf8')).toBe(await readFixtureFile(fixture, file));
    }
    expect(await readFile(join(projectDir, 'package.json'), 'utf8')).toMatchInlineSnapshot(`
      "{
        "name": "js-express4-app",
        "version": "0.3.0",
        "description": "A plain JavaScript Express 4 app in CommonJS, laid out as express-generator does.",
        "private": true,
        "type": "module",
        "scripts": {
          "start": "node ./bin/www",
          "build": "tsc"
        },
        "dependencies": {
          "express": "^4.22.3",
          "jose": "^6.2.17",
          "oauth4webapi": "^3.8.8"
        },
        "devDependencies": {
          "@types/express": "^4.17.25",
          "@types/node": "^20.19.43",
          "create-framework-auth": "0.1.0",
          "tsx": "^4.23.15",
          "typescript": "^6.0.3"
        }
      }
      "
    `);
  });

  it('compiles the auth module alone to dist/, with a tsconfig of its own', async () => {
    expect(await readFile(join(projectDir, 'tsconfig.json'), 'utf8')).toContain('"include": ["auth"]');
    await linkDepsWithExpress4(projectDir);
    const result = await compileProject(projectDir);
    expect(result.output).toBe('');
    expect(existsSync(join(projectDir, 'dist/auth/index.js'))).toBe(true);
  }, 60_000);

  it('signs in once the listed files are converted and the printed lines pasted into app.js', async () => {
    // The user's part of the conversion, exactly the edits the CLI listed.
    await editFile(projectDir, 'app.js', [
      ["const express = require('express');", "import express from 'express';"],
      ["const healthRouter = require('./routes/health');", "import healthRouter from './routes/health.js';"],
      ['module.exports = app;', 'export default app;'],
    ]);
    await editFile(projectDir, 'routes/health.js', [
      ["const { Router } = require('express');", "import { Router } from 'express';"],
      ['module.exports = router;', 'export default router;'],
    ]);
    await editFile(projectDir, 'bin/www', [["const app = require('../app');", "import app from '../app.js';"]]);
    const mount = await mountInProject(projectDir, converted.stdout);
    expect(mount.file).toBe('app.js');
    expect(mount.importLine).toBe("import { authHandler, requireAuth, sessionLocals } from './dist/auth/index.js';");
    expect(mount.appLines).toContain("app.use('/auth/*', authHandler);");

    const { app, email } = await signInto(projectDir, 'bin/www', 'js-app');
    expect(email).toBe('alice@example.test');
    expect(await (await fetch(`${app.url}/health`)).json()).toEqual({ ok: true });
  }, 60_000);

  it('changes nothing when run again on the converted app, now ESM', async () => {
    const current = await snapshotTree(projectDir);
    const again = await runBuiltCli('create', ['--yes', '--no-install'], { cwd: projectDir, env: quiet });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('Nothing to write: the project is up to date');
    expect(await snapshotTree(projectDir)).toEqual(current);
  });

  it('lets framework-auth add-provider find the module in auth/', async () => {
    const result = await runBuiltCli('frameworkAuth', ['add-provider', 'github'], { cwd: projectDir, env: quiet });
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(projectDir, 'auth/config.ts'), 'utf8')).toContain("from './core/providers/github.js'");
    expect(existsSync(join(projectDir, 'auth/core/providers/github.ts'))).toBe(true);
  });
});

describe('a TypeScript Express 5 app whose src/app.ts makes the app and src/index.ts listens', () => {
  const fixture = 'ts-express5-app-split';
  let projectDir: string;
  let before: Record<string, string>;
  let scaffold: CliRun;

  beforeAll(async () => {
    projectDir = await copyFixture(fixture);
    before = await snapshotTree(projectDir);
    scaffold = await runBuiltCli('create', ['--yes', '--no-install'], { cwd: projectDir, env: quiet });
    if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
  });

  it('writes no server of its own and merges only package.json and .gitignore', async () => {
    expect(existsSync(join(projectDir, 'src/server.ts'))).toBe(false);
    const changes = treeChanges(before, await snapshotTree(projectDir));
    expect(changes.changed).toEqual(['.gitignore', 'package.json']);
    expect(changes.removed).toEqual([]);
    expect(changes.added.filter((path) => !isGeneratedPath(path, 'src/auth'))).toEqual([]);
    for (const file of ['src/app.ts', 'src/index.ts', 'src/routes/widgets.ts', 'tsconfig.json']) {
      expect(await readFile(join(projectDir, file), 'utf8')).toBe(await readFixtureFile(fixture, file));
    }
    expect(await readFile(join(projectDir, 'package.json'), 'utf8')).toMatchInlineSnapshot(`
      "{
        "name": "widgets-service",
        "version": "2.1.0",
        "private": true,
        "type": "module",
        "main": "dist/index.js",
        "scripts": {
          "dev": "tsx watch src/index.ts",
          "build": "tsc",
          "start": "node dist/index.js"
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
          "tsx": "^4.20.0",
          "typescript": "^6.0.3"
        }
      }
      "
    `);
  });

  it('says to mount the auth module in src/app.ts, where express() is called', () => {
    expect(scaffold.stdout).toContain('Mount the auth module in src/app.ts:');
    expect(scaffold.stdout).toContain("import { authHandler, requireAuth, sessionLocals } from './auth/index.js';");
    expect(scaffold.stdout).toContain("app.use('/auth/*splat', authHandler);");
  });

  it('compiles and signs in through src/index.ts once the printed lines are in src/app.ts', async () => {
    await mountInProject(projectDir, scaffold.stdout);
    await linkProjectDeps(projectDir, []);
    const result = await compileProject(projectDir);
    expect(result.output).toBe('');
    const { app, email } = await signInto(projectDir, 'dist/index.js', 'split-app');
    expect(email).toBe('alice@example.test');
    expect(await (await fetch(`${app.url}/widgets`)).json()).toEqual([{ id: 1, name: 'sprocket' }]);
  }, 60_000);

  it('changes nothing when run again after the user mounted it', async () => {
    const current = await snapshotTree(projectDir);
    const again = await runBuiltCli('create', ['--yes', '--no-install'], { cwd: projectDir, env: quiet });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('Nothing to write: the project is up to date');
    expect(await snapshotTree(projectDir)).toEqual(current);
  });
});

describe('a TypeScript app with path aliases and a custom outDir', () => {
  const fixture = 'ts-path-aliases';
  let projectDir: string;
  let before: Record<string, string>;
  let scaffold: CliRun;

  beforeAll(async () => {
    projectDir = await copyFixture(fixture);
    before = await snapshotTree(projectDir);
    scaffold = await runBuiltCli('create', ['--yes', '--no-install'], { cwd: projectDir, env: quiet });
    if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
  });

  it('keeps tsconfig.json (aliases, out/) as it is and merges package.json, keeping its build script', async () => {
    const changes = treeChanges(before, await snapshotTree(projectDir));
    expect(changes.changed).toEqual(['.gitignore', 'package.json']);
    expect(changes.added.filter((path) => !isGeneratedPath(path, 'src/auth'))).toEqual([]);
    expect(await readFile(join(projectDir, 'tsconfig.json'), 'utf8')).toBe(await readFixtureFile(fixture, 'tsconfig.json'));
    expect(scaffold.stdout).toContain('tsconfig.json "paths" kept');
    expect(scaffold.stdout).toContain('kept your "build" script ("tsc -p tsconfig.json")');
    expect(scaffold.stdout).toContain('Mount the auth module in src/main.ts:');
    expect(await readFile(join(projectDir, 'package.json'), 'utf8')).toMatchInlineSnapshot(`
      "{
        "name": "greeter-api",
        "version": "1.0.0",
        "private": true,
        "type": "module",
        "imports": {
          "#lib/*": "./out/lib/*"
        },
        "scripts": {
          "build": "tsc -p tsconfig.json",
          "start": "node out/main.js"
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

  it('compiles to out/ and signs in, the aliases still resolving at run time', async () => {
    await mountInProject(projectDir, scaffold.stdout);
    await linkProjectDeps(projectDir, []);
    const result = await compileProject(projectDir);
    expect(result.output).toBe('');
    expect(existsSync(join(projectDir, 'out/auth/index.js'))).toBe(true);
    const { app, email } = await signInto(projectDir, 'out/main.js', 'alias-app');
    expect(email).toBe('alice@example.test');
    expect(await (await fetch(`${app.url}/hello/world`)).json()).toEqual({ message: 'Hello, world!' });
  }, 60_000);
});

describe('a package of an npm workspace (scaffolded into packages/api, installed from the root)', () => {
  const fixture = 'npm-workspace';
  let rootDir: string;
  let apiDir: string;
  let before: Record<string, string>;
  let scaffold: CliRun;

  beforeAll(async () => {
    rootDir = await copyFixture(fixture);
    apiDir = join(rootDir, 'packages/api');
    // The user already has the CLI as a devDependency (here: the packed tarball of this repo, SPEC §4).
    await editFile(apiDir, 'package.json', [['"@types/node": "^20.19.0",', `"@types/node": "^20.19.0",\n    "create-framework-auth": "file:${packedTarball()}",`]]);
    before = await snapshotTree(rootDir);
    scaffold = await runBuiltCli('create', ['--yes'], { cwd: apiDir, env: { ...quiet, npm_config_prefer_offline: 'true' } });
    if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
  }, 600_000);

  it('installs once at the workspace root: one lockfile, no install inside the package', () => {
    expect(scaffold.stdout).toContain('Workspace package: dependencies install from');
    expect(scaffold.stdout).toContain('Installed dependencies with npm');
    expect(existsSync(join(rootDir, 'package-lock.json'))).toBe(true);
    expect(existsSync(join(rootDir, 'node_modules/jose/package.json'))).toBe(true);
    expect(existsSync(join(apiDir, 'package-lock.json'))).toBe(false);
  });

  it('changes only the package\'s package.json (the tsconfig inherits NodeNext and strict from the base)', async () => {
    const changes = treeChanges(before, await snapshotTree(rootDir));
    expect(changes.changed).toEqual(['packages/api/package.json']);
    expect(changes.added.filter((path) => !path.startsWith('packages/api/'))).toEqual(['package-lock.json']);
    const inPackage = changes.added.filter((path) => path.startsWith('packages/api/')).map((path) => path.slice('packages/api/'.length));
    expect(inPackage.filter((path) => !isGeneratedPath(path, 'src/auth', ['.gitignore']))).toEqual([]);
    for (const file of ['package.json', 'tsconfig.base.json', 'packages/api/tsconfig.json', 'packages/shared/index.js', 'packages/api/src/index.ts']) {
      expect(await readFile(join(rootDir, file), 'utf8')).toBe(await readFixtureFile(fixture, file));
    }
    const pkg = (await readFile(join(apiDir, 'package.json'), 'utf8')).replace(packedTarball(), '<tarball>');
    expect(pkg).toMatchInlineSnapshot(`
      "{
        "name": "@acme/api",
        "version": "1.0.0",
        "private": true,
        "type": "module",
        "scripts": {
          "build": "tsc",
          "start": "node dist/index.js"
        },
        "dependencies": {
          "@acme/shared": "1.0.0",
          "express": "^5.1.0",
          "jose": "^6.2.17",
          "oauth4webapi": "^3.8.8"
        },
        "devDependencies": {
          "@types/express": "^5.0.3",
          "@types/node": "^20.19.0",
          "create-framework-auth": "file:<tarball>",
          "tsx": "^4.23.15",
          "typescript": "^6.0.3"
        }
      }
      "
    `);
  });

  it('compiles with the root\'s tsc and signs in', async () => {
    await mountInProject(apiDir, scaffold.stdout);
    const tsc = await execa(process.execPath, [join(rootDir, 'node_modules/typescript/bin/tsc'), '-p', apiDir], { reject: false, all: true });
    expect(tsc.all).toBe('');
    const { app, email } = await signInto(apiDir, 'dist/index.js', 'workspace-api');
    expect(email).toBe('alice@example.test');
    expect(await (await fetch(`${app.url}/about`)).json()).toEqual({ service: 'acme-api' });
  }, 60_000);
});
