// create-framework-auth without installing anything: flags, refusals, dry run, re-runs, conflicts.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshotTree } from '../e2e/helpers/project.js';
import { makeTempDir, runChild, runInProcess, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const create = (argv: readonly string[], cwd: string) => runInProcess('create-framework-auth', argv, { cwd });

describe('create-framework-auth refuses bad input before writing anything (exit 2)', () => {
  const refusals = [
    { flags: ['--providers', 'oidc,facebook'], words: ['Unknown provider "facebook"', 'oidc, github, google, microblog (twitter, x), discord, gitlab, microsoft-entra-id, auth0, keycloak, credentials, email, passkey (webauthn), password'] },
    { flags: ['--mount', 'auth'], words: ['--mount must start with "/" (got "auth")'] },
    { flags: ['--mount', '/auth/'], words: ['--mount must not end with "/" (got "/auth/")'] },
    { flags: ['--mount', '/auth/*'], words: ['--mount must not contain a wildcard'] },
    { flags: ['--adapter', 'mongo'], words: ['Unknown adapter "mongo"', 'none, memory, sqlite, postgres'] },
    { flags: ['--package-manager', 'pip'], words: ['Unknown package manager "pip"', 'npm, pnpm, yarn, bun'] },
    { flags: ['--frobnicate'], words: ["unknown option '--frobnicate'"] },
  ];

  it.each(refusals)('$flags', async ({ flags, words }) => {
    const parent = await makeTempDir();
    const result = await runChild('create-framework-auth', ['new-app', '--yes', '--no-install', ...flags], { cwd: parent });
    expect(result.exitCode).toBe(2);
    for (const word of words) expect(result.stderr).toContain(word);
    expect(await readdir(parent)).toEqual([]);
  });

  it('leaves an existing project byte for byte as it was', async () => {
    const root = await makeTempDir();
    await writeFile(join(root, 'package.json'), '{ "name": "mine" }\n');
    const before = await snapshotTree(root);
    const result = await create(['.', '--yes', '--mount', '/auth/*'], root);
    expect(result.exitCode).toBe(2);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('without a terminal and without --yes, names the missing flags instead of waiting', async () => {
    const parent = await makeTempDir();
    const started = Date.now();
    const result = await runChild('create-framework-auth', ['new-app', '--no-install'], { cwd: parent, timeout: 20_000 });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Missing --providers <ids>, --mount <path>, --adapter <name>: there is no terminal to ask in.');
    expect(result.stderr).toContain('--yes');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await readdir(parent)).toEqual([]);
  });

  it('without a terminal, names only the flags still missing', async () => {
    const parent = await makeTempDir();
    const result = await create(['new-app', '--no-install', '--providers', 'oidc', '--adapter', 'none'], parent);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Missing --mount <path>:');
  });
});

describe('create-framework-auth --dry-run', () => {
  it('prints the plan and the dependencies and writes nothing', async () => {
    const parent = await makeTempDir();
    const result = await create(['new-app', '--yes', '--dry-run'], parent);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('create  src/auth/config.ts');
    expect(result.stdout).toContain('create  src/auth/core/index.ts');
    expect(result.stdout).toContain('create  .env');
    expect(result.stdout).toMatch(/Dependencies to add: .*express@/);
    expect(result.stdout).toContain('Dry run: nothing was written.');
    expect(await readdir(parent)).toEqual([]);
  });

  it('shows updates to an existing project and leaves it untouched', async () => {
    const root = await makeTempDir();
    await writeFile(join(root, 'package.json'), '{ "name": "mine" }\n');
    const before = await snapshotTree(root);
    const result = await create(['--yes', '--dry-run', '--providers', 'microblog'], root);
    expect(result.stdout).toContain('update  package.json');
    expect(await snapshotTree(root)).toEqual(before);
  });
});

describe('create-framework-auth with email and password accounts', () => {
  it('plans the password feature and its dependencies with --dry-run --json, then writes a project update finds current', async () => {
    const parent = await makeTempDir();
    const dry = await create(['app', '--yes', '--dry-run', '--json', '--providers', 'email,password', '--adapter', 'sqlite'], parent);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout) as { files: { created: string[] }; dependencies: { added: Record<string, string> } };
    expect(plan.files.created).toEqual(expect.arrayContaining(['src/auth/core/providers/password.ts', 'src/auth/core/features/password/index.ts', 'src/auth/core/features/password/common-passwords.ts']));
    expect(Object.keys(plan.dependencies.added)).toEqual(expect.arrayContaining(['@node-rs/argon2', 'nodemailer', 'better-sqlite3']));
    expect(await readdir(parent)).toEqual([]);

    const written = await create(['app', '--yes', '--no-install', '--providers', 'email,password', '--adapter', 'sqlite'], parent);
    expect(written.exitCode, written.stderr).toBe(0);
    // The shared variables once, and what happens while they are empty.
    expect(written.stdout.match(/AUTH_EMAIL_SERVER=/g)).toHaveLength(1);
    expect(written.stdout).toContain('Email and password: until AUTH_EMAIL_SERVER and AUTH_EMAIL_FROM are set, its messages (address confirmation, password reset) are printed on the server console instead of sent; production refuses to start without them.');
    const update = await runInProcess('framework-auth', ['update', '--json'], { cwd: join(parent, 'app') });
    expect(update.exitCode, update.stderr).toBe(0);
    expect(JSON.parse(update.stdout)).toMatchObject({ command: 'update', ok: true });
  });
});

describe('create-framework-auth --yes --no-install', () => {
  it('writes the auth module, env files and a server, and prints the next steps', async () => {
    const parent = await makeTempDir();
    const result = await create(['new-app', '--yes', '--no-install', '--providers', 'oidc,x,credentials'], parent);
    expect(result.exitCode).toBe(0);
    const root = join(parent, 'new-app');
    for (const file of ['src/auth/config.ts', 'src/auth/index.ts', 'src/auth/env.ts', 'src/auth/core/index.ts', 'src/server.ts', '.env', '.env.example', '.gitignore', 'tsconfig.json', 'package.json']) {
      expect(existsSync(join(root, file)), file).toBe(true);
    }
    expect(await readFile(join(root, 'src/auth/core/index.ts'), 'utf8')).toMatch(/^\/\/ Copied from create-framework-auth \d+\.\d+\.\d+'s auth runtime\./);
    expect(result.stdout).toContain('cd new-app');
    expect(result.stdout).toContain('npm install');
    expect(result.stdout).toContain('OpenID Connect: http://localhost:3000/auth/callback/oidc');
    expect(result.stdout).toContain('Microblog (X, formerly Twitter): http://localhost:3000/auth/callback/microblog');
    expect(result.stdout).toContain('AUTH_MICROBLOG_SECRET=');
    expect(result.stdout).toContain('Start: npm run dev');
  });

  it('writes the config from a template: base path and providers in order', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'microblog,oidc', '--mount', '/api/auth'], parent);
    const config = await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8');
    expect(config.replace(/^\/\/ Written by .*\n/, '')).toMatchInlineSnapshot(`
      "import './env.js';
      import type { FrameworkAuthConfig } from './core/index.js';
      import Microblog from './core/providers/microblog.js';
      import OIDC from './core/providers/oidc.js';

      /**
       * The auth configuration used by the handler, getSession and the guards in ./index.ts.
       * Provider secrets come from .env (AUTH_<ID>_ID, AUTH_<ID>_SECRET, ...); \`npx framework-auth add-provider <id>\`
       * adds one to the list below.
       */
      export const authConfig: FrameworkAuthConfig = {
        basePath: '/api/auth',
        providers: [
          Microblog(),
          OIDC(),
        ],
      };
      "
    `);
  });

  it('writes .env with a 43-character secret and .env.example with the same keys and no secret', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install'], parent);
    const env = await readFile(join(parent, 'app/.env'), 'utf8');
    const example = await readFile(join(parent, 'app/.env.example'), 'utf8');
    expect(env).toMatch(/^AUTH_SECRET=[A-Za-z0-9_-]{43}$/m);
    expect(example).toContain('AUTH_SECRET=\n');
    const keys = (text: string) => [...text.matchAll(/^([A-Z_]+)=/gm)].map((match) => match[1]);
    expect(keys(example)).toEqual(keys(env));
    expect(await readFile(join(parent, 'app/.gitignore'), 'utf8')).toContain('.env\n');
  });

  it('changes nothing when run again with the same answers', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc,microblog'], parent);
    const before = await snapshotTree(join(parent, 'app'));
    const again = await create(['app', '--yes', '--no-install', '--providers', 'oidc,microblog'], parent);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/Planned \d+ files: \d+ unchanged\n/);
    expect(again.stdout).toContain('Nothing to write: the project is up to date');
    expect(await snapshotTree(join(parent, 'app'))).toEqual(before);
  });

  it('adds a provider chosen on a later run to the existing config', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install'], parent);
    const result = await create(['app', '--yes', '--no-install', '--providers', 'oidc,microblog'], parent);
    // Created: providers/microblog.ts and the OAuth 1.0a flow it brings (oauth1/flow.ts, oauth1/signature.ts).
    expect(result.stdout).toMatch(/Planned \d+ files: 3 created, 4 updated, \d+ unchanged/);
    const config = await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8');
    expect(config).toContain('    OIDC(),\n    Microblog(),\n');
    expect(await readFile(join(parent, 'app/.env'), 'utf8')).toContain('AUTH_MICROBLOG_ID=');
  });

  it('keeps a generated file the user changed, with a warning, and overwrites it with --force', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install'], parent);
    const index = join(parent, 'app/src/auth/index.ts');
    const original = await readFile(index, 'utf8');
    await writeFile(index, `${original}\nexport const mine = 1;\n`);
    const again = await create(['app', '--yes', '--no-install'], parent);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('src/auth/index.ts: differs from what this version generates');
    expect(await readFile(index, 'utf8')).toContain('export const mine = 1;');
    const forced = await create(['app', '--yes', '--no-install', '--force'], parent);
    expect(forced.exitCode).toBe(0);
    expect(await readFile(index, 'utf8')).toBe(original);
  });

  it('keeps a config whose base path differs from --mount, with a warning', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install'], parent);
    const result = await create(['app', '--yes', '--no-install', '--mount', '/api/auth'], parent);
    expect(result.stdout).toContain('src/auth/config.ts: its basePath is "/auth", not "/api/auth"');
    expect(await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8')).toContain("basePath: '/auth'");
  });

  it('never overwrites a server file of the user\'s own', async () => {
    const root = await makeTempDir();
    await mkdir(join(root, 'src'));
    await writeFile(join(root, 'src/server.ts'), 'console.log("mine");\n');
    const result = await create(['.', '--yes', '--no-install', '--force'], root);
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(root, 'src/server.ts'), 'utf8')).toBe('console.log("mine");\n');
    expect(result.stdout).toContain('Mount the auth module in src/server.ts:');
  });

  it('mounts with Express 4 syntax in a project on Express 4', async () => {
    const root = await makeTempDir();
    await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'old', dependencies: { express: '^4.21.2' } }));
    await create(['.', '--yes', '--no-install'], root);
    expect(await readFile(join(root, 'src/server.ts'), 'utf8')).toContain("app.use('/auth/*', authHandler);");
    expect(JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).dependencies.express).toBe('^4.21.2');
  });

  it('refuses a package.json that is not JSON, writing nothing', async () => {
    const root = await makeTempDir();
    await writeFile(join(root, 'package.json'), '{ "name": ');
    const result = await create(['.', '--yes', '--no-install'], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('package.json in');
    expect(await readdir(root)).toEqual(['package.json']);
  });
});

describe('help and version', () => {
  it('prints --help with examples', async () => {
    const result = await create(['--help'], await makeTempDir());
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Usage: create-framework-auth [options] [dir]');
    expect(result.stdout).toContain('--providers <ids>');
    expect(result.stdout).toContain('Examples:\n  $ npx create-framework-auth');
  });

  it('prints --version', async () => {
    const result = await create(['--version'], await makeTempDir());
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('the runtime copy', () => {
  it('holds the chosen provider factories only, with the shared provider code', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install', '--providers', 'oidc,credentials'], parent);
    const providers = (await readdir(join(parent, 'app/src/auth/core/providers'))).sort();
    expect(providers).toContain('oidc.ts');
    expect(providers).toContain('credentials.ts');
    // The shared provider code: resolving configurations; their types sit in the runtime's bottom module.
    expect(providers).toContain('resolve.ts');
    expect(await readdir(join(parent, 'app/src/auth/core'))).toContain('contracts.ts');
    expect(providers).not.toContain('microblog.ts');
  });

  it('gets the factory of a provider added later', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install'], parent);
    await runInProcess('framework-auth', ['add-provider', 'x'], { cwd: join(parent, 'app') });
    const copied = await readFile(join(parent, 'app/src/auth/core/providers/microblog.ts'), 'utf8');
    expect(copied).toMatch(/^\/\/ Copied from create-framework-auth /);
  });
});

describe('Ctrl-C after the work is done', () => {
  it('exits 0 when Ctrl-C comes in after the files were written: the work is done (issue 15)', async () => {
    const { PassThrough } = await import('node:stream');
    const { run } = await import('../../src/cli/main.js');
    const parent = await makeTempDir();
    const controller = new AbortController();
    const stdout = new PassThrough();
    let printed = '';
    // The user presses Ctrl-C the moment the CLI says the files are written, while it prints the next steps.
    stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes('Wrote ') && !controller.signal.aborted) controller.abort();
    });
    const exitCode = await run('create-framework-auth', ['app', '--yes', '--no-install'], {
      stdin: new PassThrough(),
      stdout,
      stderr: new PassThrough(),
      env: {},
      cwd: parent,
      interactive: false,
      signal: controller.signal,
    });
    expect(controller.signal.aborted).toBe(true);
    expect(existsSync(join(parent, 'app/src/auth/index.ts'))).toBe(true);
    expect(exitCode).toBe(0);
  });
});

describe('a project file the CLI cannot read', () => {
  /** A Unix socket where a source file is expected: unreadable even for root (tests often run as root). */
  async function socketAt(path: string): Promise<() => Promise<void>> {
    const { createServer } = await import('node:net');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    return () => new Promise<void>((resolve) => server.close(() => resolve()));
  }

  it('ends with one line naming the file and the reason (exit 1), no stack trace, nothing written (issue 15)', async () => {
    const parent = await makeTempDir();
    const app = join(parent, 'app');
    await mkdir(join(app, 'src'), { recursive: true });
    await writeFile(join(app, 'package.json'), '{ "name": "app", "type": "module" }\n');
    const close = await socketAt(join(app, 'src/server.ts'));
    try {
      const result = await create(['app', '--yes', '--no-install'], parent);
      expect(result.stderr).toContain('✖ Could not read app/src/server.ts: ENXIO');
      expect(result.stderr).not.toContain('Unexpected error');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.exitCode).toBe(1);
      expect((await readdir(app)).sort()).toEqual(['package.json', 'src']);
      expect(await readdir(join(app, 'src'))).toEqual(['server.ts']);
      expect(await readFile(join(app, 'package.json'), 'utf8')).toBe('{ "name": "app", "type": "module" }\n');
    } finally {
      await close();
    }
  });

  it('doctor passes over a socket named like a source file instead of crashing on it', async () => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install'], parent);
    const close = await socketAt(join(parent, 'app/src/listener.ts'));
    try {
      const result = await runInProcess('framework-auth', ['doctor', '--offline'], { cwd: join(parent, 'app') });
      expect(result.stderr).not.toContain('Unexpected error');
      expect(result.stdout).toContain('authHandler is mounted at /auth');
    } finally {
      await close();
    }
  });
});
