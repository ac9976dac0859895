// The questions of create-framework-auth, answered through injected input/output streams as a user would type.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { makeTempDir, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const keys = { down: '\x1b[B', left: '\x1b[D', space: ' ', enter: '\r', backspace: '\x7f', ctrlC: '\x03' } as const;

/** A scripted terminal session: waits for a question to appear, then types. */
function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  const stderr = new PassThrough();
  let screen = '';
  let errors = '';
  output.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const waitFor = async (text: string, from: number): Promise<void> => {
    const deadline = Date.now() + 5_000;
    while (!stripVTControlCharacters(screen.slice(from)).includes(text)) {
      if (Date.now() > deadline) throw new Error(`"${text}" never appeared; the screen shows:\n${stripVTControlCharacters(screen)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return {
    input,
    output,
    stderr,
    screen: () => stripVTControlCharacters(screen),
    errors: () => stripVTControlCharacters(errors),
    /** Waits until `question` is on screen (after what was there before), then types `typed`, one key at a time. */
    async answer(question: string, ...typed: string[]): Promise<void> {
      await waitFor(question, 0);
      for (const key of typed) {
        input.write(key);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}

function start(argv: string[], cwd: string, session: ReturnType<typeof terminal>) {
  return run('create-framework-auth', argv, {
    stdin: session.input,
    stdout: session.output,
    stderr: session.stderr,
    env: {},
    cwd,
    interactive: true,
    signal: new AbortController().signal,
  });
}

describe('create-framework-auth asks what the flags did not say', () => {
  it('asks for providers, mount path and adapter and scaffolds with the answers', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    const done = start(['app', '--no-install'], parent, session);
    // oidc is preselected; move down past github and google to microblog and select it too.
    await session.answer('Which sign-in providers?', keys.down, keys.down, keys.down, keys.space, keys.enter);
    // API keys are offered to every project that may have an adapter; the default is no.
    await session.answer('Let users create API keys for scripts and apps (Authorization: Bearer)?', keys.enter);
    await session.answer('Add an account page (address change, export, delete, security events)?', keys.enter);
    await session.answer('Add organizations (members, roles, invitations, requirePermission)?', keys.enter);
    await session.answer('Add administration (find and disable users, end sessions, impersonate)?', keys.enter);
    await session.answer('Mount path of the auth routes?', ...Array<string>(5).fill(keys.backspace), ...'/api/auth', keys.enter);
    await session.answer('Where should sessions live?', keys.enter);
    // The plan is shown before anything is written, and the write waits for a yes.
    await session.answer('Write these files?', keys.enter);
    expect(session.screen()).toMatch(/Plan for .*app[\s\S]*create\s+src\/auth\/config\.ts[\s\S]*Write these files\?/);
    expect(await done).toBe(0);
    const config = await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8');
    expect(config).toContain("basePath: '/api/auth',");
    expect(config).toContain('    OIDC(),\n    Microblog(),\n');
    expect(session.screen()).toContain('Microblog (X, formerly Twitter): http://localhost:3000/api/auth/callback/microblog');
  });

  it('offers SQLite, and no choice without a database, when a chosen provider stores through an adapter', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    const done = start(['app', '--no-install', '--mount', '/auth'], parent, session);
    // Down past the other twelve providers to "Email and password", the last one, and select it beside oidc.
    await session.answer('Which sign-in providers?', ...Array<string>(12).fill(keys.down), keys.space, keys.enter);
    // A provider with a password brings the two-factor question; the default is no.
    await session.answer('Ask for a code from an authenticator app after the password (two-factor)?', keys.enter);
    await session.answer('Let users create API keys for scripts and apps (Authorization: Bearer)?', keys.enter);
    await session.answer('Add an account page (address change, export, delete, security events)?', keys.enter);
    await session.answer('Add organizations (members, roles, invitations, requirePermission)?', keys.enter);
    await session.answer('Add administration (find and disable users, end sessions, impersonate)?', keys.enter);
    await session.answer('Where should sessions live?', keys.enter);
    await session.answer('Write these files?', keys.enter);
    expect(session.screen()).toContain('password needs a database');
    expect(await done).toBe(0);
    const config = await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8');
    expect(config).toContain('adapter: SqliteAdapter(),');
    expect(config).toContain('    OIDC(),\n    Password(),\n');
    expect(config).not.toContain('TwoFactor');
  });

  it('asks for two-factor when credentials is chosen, and writes it with its opt-in', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    const done = start(['app', '--no-install', '--mount', '/auth', '--adapter', 'sqlite'], parent, session);
    // oidc off, down to credentials (the tenth) and on.
    await session.answer('Which sign-in providers?', keys.space, ...Array<string>(9).fill(keys.down), keys.space, keys.enter);
    await session.answer('Ask for a code from an authenticator app after the password (two-factor)?', keys.left, keys.enter);
    await session.answer('Let users create API keys for scripts and apps (Authorization: Bearer)?', keys.enter);
    await session.answer('Add an account page (address change, export, delete, security events)?', keys.enter);
    await session.answer('Add organizations (members, roles, invitations, requirePermission)?', keys.enter);
    await session.answer('Add administration (find and disable users, end sessions, impersonate)?', keys.enter);
    await session.answer('Write these files?', keys.enter);
    expect(await done).toBe(0);
    const config = await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8');
    expect(config).toContain("import { TwoFactor } from './core/features/two-factor/index.js';");
    expect(config).toContain('features: [TwoFactor()],');
    expect(config).toContain('twoFactor: true,');
    expect(JSON.parse(await readFile(join(parent, 'app/framework-auth.json'), 'utf8')).answers).toMatchObject({ providers: ['credentials'], adapter: 'sqlite', twoFactor: true });
  });

  it('asks for API keys, writes them, and then offers no choice without a database', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    const done = start(['app', '--no-install', '--providers', 'oidc', '--mount', '/auth'], parent, session);
    await session.answer('Let users create API keys for scripts and apps (Authorization: Bearer)?', keys.left, keys.enter);
    await session.answer('Add an account page (address change, export, delete, security events)?', keys.enter);
    await session.answer('Add organizations (members, roles, invitations, requirePermission)?', keys.enter);
    await session.answer('Add administration (find and disable users, end sessions, impersonate)?', keys.enter);
    await session.answer('Where should sessions live?', keys.enter);
    await session.answer('Write these files?', keys.enter);
    expect(session.screen()).toContain('api-keys needs a database');
    expect(await done).toBe(0);
    const config = await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8');
    expect(config).toContain("import { ApiKeys } from './core/features/api-keys/index.js';");
    expect(config).toContain("features: [ApiKeys({ scopes: ['read', 'write'] })],");
    expect(config).toContain('adapter: SqliteAdapter(),');
    expect(JSON.parse(await readFile(join(parent, 'app/framework-auth.json'), 'utf8')).answers).toEqual({ providers: ['oidc'], mount: '/auth', adapter: 'sqlite', apiKeys: true });
  });

  it('asks for the account page, writes it, and then offers no choice without a database', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    const done = start(['app', '--no-install', '--providers', 'password', '--mount', '/auth'], parent, session);
    await session.answer('Ask for a code from an authenticator app after the password (two-factor)?', keys.enter);
    await session.answer('Let users create API keys for scripts and apps (Authorization: Bearer)?', keys.enter);
    await session.answer('Add an account page (address change, export, delete, security events)?', keys.left, keys.enter);
    await session.answer('Add organizations (members, roles, invitations, requirePermission)?', keys.enter);
    await session.answer('Add administration (find and disable users, end sessions, impersonate)?', keys.enter);
    await session.answer('Where should sessions live?', keys.enter);
    await session.answer('Write these files?', keys.enter);
    expect(session.screen()).toContain('password and account need a database');
    expect(await done).toBe(0);
    const config = await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8');
    expect(config).toContain("import { Account } from './core/features/account/index.js';");
    expect(config).toContain('features: [Account()],');
    expect(config).toContain('adapter: SqliteAdapter(),');
    expect(JSON.parse(await readFile(join(parent, 'app/framework-auth.json'), 'utf8')).answers).toEqual({ providers: ['password'], mount: '/auth', adapter: 'sqlite', account: true });
  });

  it('asks for administration, writes it, and then offers no choice without a database', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    const done = start(['app', '--no-install', '--providers', 'oidc', '--mount', '/auth'], parent, session);
    await session.answer('Let users create API keys for scripts and apps (Authorization: Bearer)?', keys.enter);
    await session.answer('Add an account page (address change, export, delete, security events)?', keys.enter);
    await session.answer('Add organizations (members, roles, invitations, requirePermission)?', keys.enter);
    await session.answer('Add administration (find and disable users, end sessions, impersonate)?', keys.left, keys.enter);
    await session.answer('Where should sessions live?', keys.enter);
    await session.answer('Write these files?', keys.enter);
    expect(session.screen()).toContain('admin needs a database');
    expect(await done).toBe(0);
    const config = await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8');
    expect(config).toContain("import { Admin } from './core/features/admin/index.js';");
    expect(config).toContain('features: [Admin()],');
    expect(config).toContain('adapter: SqliteAdapter(),');
    expect(JSON.parse(await readFile(join(parent, 'app/framework-auth.json'), 'utf8')).answers).toEqual({ providers: ['oidc'], mount: '/auth', adapter: 'sqlite', admin: true });
  });

  it('asks only what the flags left open', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    const done = start(['app', '--no-install', '--providers', 'credentials', '--adapter', 'none'], parent, session);
    await session.answer('Mount path of the auth routes?', keys.enter);
    await session.answer('Write these files?', keys.enter);
    expect(await done).toBe(0);
    expect(session.screen()).not.toContain('Which sign-in providers?');
    expect(session.screen()).not.toContain('Where should sessions live?');
    // --adapter none leaves nothing to keep API keys in.
    expect(session.screen()).not.toContain('Let users create API keys');
    expect(session.screen()).not.toContain('Add an account page');
    expect(session.screen()).not.toContain('Add organizations');
    expect(session.screen()).not.toContain('Add administration');
    expect(await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8')).toContain("basePath: '/auth',");
  });

  it('shows why a typed mount path is invalid and takes the corrected one', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    const done = start(['app', '--no-install', '--providers', 'oidc', '--adapter', 'none'], parent, session);
    await session.answer('Mount path of the auth routes?', keys.backspace, keys.backspace, keys.backspace, keys.backspace, keys.backspace, ...'auth', keys.enter);
    await session.answer('The mount path must start with "/" (got "auth")', ...Array<string>(4).fill(keys.backspace), ...'/login', keys.enter);
    await session.answer('Write these files?', keys.enter);
    expect(await done).toBe(0);
    expect(await readFile(join(parent, 'app/src/auth/config.ts'), 'utf8')).toContain("basePath: '/login',");
  });

  it('does not let the last provider be unselected', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    const done = start(['app', '--no-install', '--mount', '/auth', '--adapter', 'none'], parent, session);
    await session.answer('Which sign-in providers?', keys.space, keys.enter);
    await session.answer('Please select at least one option', keys.space, keys.enter);
    await session.answer('Write these files?', keys.enter);
    expect(await done).toBe(0);
  });

  it('writes nothing when the plan is declined', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    const done = start(['app', '--no-install', '--providers', 'oidc', '--mount', '/auth', '--adapter', 'none'], parent, session);
    // Left arrow moves the confirm to "No".
    await session.answer('Write these files?', '\x1b[D', keys.enter);
    expect(await done).toBe(130);
    expect(session.errors()).toContain('Cancelled; nothing was changed.');
    expect(await readdir(parent)).toEqual([]);
  });

  it('refuses to write and keeps the edit when a planned file is edited before the yes', async () => {
    const root = await makeTempDir();
    await writeFile(join(root, 'package.json'), '{ "name": "mine" }\n');
    const session = terminal();
    const done = start(['.', '--no-install', '--providers', 'oidc', '--mount', '/auth', '--adapter', 'none'], root, session);
    await session.answer('Write these files?');
    expect(session.screen()).toMatch(/update\s+package\.json/);
    // The user edits package.json while the confirmation waits, then says yes.
    await writeFile(join(root, 'package.json'), '{ "name": "mine", "private": true }\n');
    await session.answer('Write these files?', keys.enter);
    expect(await done).toBe(1);
    expect(session.errors()).toContain('Nothing was written: a file changed on disk after the plan was made: package.json (edited).');
    expect(session.errors()).toContain('Run the command again');
    expect(await readFile(join(root, 'package.json'), 'utf8')).toBe('{ "name": "mine", "private": true }\n');
    expect(await readdir(root)).toEqual(['package.json']);
  });

  it('does not ask before writing under --yes', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    expect(await start(['app', '--no-install', '--yes'], parent, session)).toBe(0);
    expect(session.screen()).not.toContain('Write these files?');
    expect(await readdir(join(parent, 'app'))).toContain('src');
  });

  it('exits 130 on Ctrl-C and writes nothing', async () => {
    const parent = await makeTempDir();
    const session = terminal();
    const done = start(['app', '--no-install'], parent, session);
    await session.answer('Which sign-in providers?', keys.ctrlC);
    expect(await done).toBe(130);
    expect(session.errors()).toContain('Cancelled; nothing was changed.');
    expect(await readdir(parent)).toEqual([]);
  });
});
