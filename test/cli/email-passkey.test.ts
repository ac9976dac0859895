// The email and passkey providers in the CLI: selectable with an adapter, refused (exit 2, nothing written) without.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findProvider, getProvider, providersRequiringAdapter } from '../../src/catalog/providers.js';
import { checkProvidersFitAdapter } from '../../src/generator/answers.js';
import { snapshotTree } from '../e2e/helpers/project.js';
import { makeTempDir, removeTempDirs, runChild, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const create = (argv: readonly string[], cwd: string) => runInProcess('create-framework-auth', argv, { cwd });

describe('catalog entries', () => {
  it('email reads AUTH_EMAIL_SERVER and AUTH_EMAIL_FROM, depends on nodemailer and needs an adapter', () => {
    expect(getProvider('email')).toMatchObject({
      env: ['AUTH_EMAIL_SERVER', 'AUTH_EMAIL_FROM'],
      dependencies: { nodemailer: expect.stringMatching(/^\^10\./) },
      snippet: 'Email()',
      oauth: false,
      requiresAdapter: true,
    });
  });

  it('passkey reads no env var, depends on @simplewebauthn/server, needs an adapter, and answers to webauthn', () => {
    expect(getProvider('passkey')).toMatchObject({
      env: [],
      dependencies: { '@simplewebauthn/server': expect.stringMatching(/^\^14\./) },
      snippet: 'Passkey()',
      oauth: false,
      requiresAdapter: true,
    });
    expect(findProvider('WebAuthn')?.id).toBe('passkey');
  });

  it('names only email and passkey as needing an adapter', () => {
    expect(providersRequiringAdapter(['oidc', 'passkey', 'credentials', 'email', 'github'])).toEqual(['passkey', 'email']);
  });
});

describe('checkProvidersFitAdapter', () => {
  it('accepts email and passkey with a database adapter', () => {
    for (const adapter of ['memory', 'sqlite', 'postgres'] as const) {
      expect(() => checkProvidersFitAdapter({ providers: ['email', 'passkey'], adapter })).not.toThrow();
    }
  });

  it('accepts the other providers without an adapter', () => {
    expect(() => checkProvidersFitAdapter({ providers: ['oidc', 'credentials'], adapter: 'none' })).not.toThrow();
  });

  it('refuses email without an adapter, naming the adapters to choose from', () => {
    expect(() => checkProvidersFitAdapter({ providers: ['oidc', 'email'], adapter: 'none' })).toThrow(
      'The email provider needs a database adapter, but --adapter is "none" (JWT sessions without a database): email sign-in links are stored through the adapter.',
    );
  });
});

describe('create-framework-auth refuses email and passkey without an adapter (exit 2, nothing written)', () => {
  it.each([
    [['--providers', 'email', '--adapter', 'none'], 'The email provider needs a database adapter'],
    [['--providers', 'passkey', '--adapter', 'none'], 'The passkey provider needs a database adapter'],
    [['--providers', 'oidc,webauthn'], 'The passkey provider needs a database adapter'],
    [['--providers', 'email,passkey', '--adapter', 'none'], 'The email and passkey providers need a database adapter'],
  ])('%j', async (flags, words) => {
    const parent = await makeTempDir();
    const result = await runChild('create-framework-auth', ['new-app', '--yes', '--no-install', ...flags], { cwd: parent });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(words);
    expect(result.stderr).toContain('--adapter memory, sqlite, postgres');
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('create-framework-auth with email and passkey and an adapter', () => {
  it('writes both providers, their runtime files, env placeholders and dependencies', async () => {
    const parent = await makeTempDir();
    const result = await create(['app', '--providers', 'email,passkey', '--adapter', 'memory', '--mount', '/auth', '--no-install'], parent);
    expect(result.exitCode, result.stderr).toBe(0);
    const root = join(parent, 'app');
    const config = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect(config).toContain("import Email from './core/providers/email.js';");
    expect(config).toContain("import Passkey from './core/providers/passkey.js';");
    expect(config).toContain('    Email(),\n    Passkey(),\n  ],');
    const files = await readdir(join(root, 'src/auth/core/providers'));
    expect(files).toEqual(expect.arrayContaining(['email.ts', 'passkey.ts']));
    expect(files).not.toContain('github.ts');
    const env = await readFile(join(root, '.env.example'), 'utf8');
    expect(env).toMatch(/^AUTH_EMAIL_SERVER=$/m);
    expect(env).toMatch(/^AUTH_EMAIL_FROM=$/m);
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies).toMatchObject({ nodemailer: expect.stringMatching(/^\^10\./), '@simplewebauthn/server': expect.stringMatching(/^\^14\./) });
  });
});

describe('framework-auth add-provider refuses email and passkey in a project without an adapter (exit 2)', () => {
  it.each(['email', 'passkey'])('%s', async (id) => {
    const parent = await makeTempDir();
    await create(['app', '--yes', '--no-install'], parent);
    const root = join(parent, 'app');
    const before = await snapshotTree(root);
    const result = await runInProcess('framework-auth', ['add-provider', id], { cwd: root });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`The ${id} provider needs a database adapter, and src/auth/config.ts sets none`);
    expect(await snapshotTree(root)).toEqual(before);
  });
});
