// framework-auth add-provider on a scaffolded project (no install; the e2e suite compiles and serves the result).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { snapshotTree } from '../e2e/helpers/project.js';
import { makeTempDir, runChild, runInProcess, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const frameworkAuth = (argv: readonly string[], cwd: string) => runInProcess('framework-auth', argv, { cwd });

describe('framework-auth add-provider', () => {
  let root: string;

  beforeEach(async () => {
    const parent = await makeTempDir();
    await runInProcess('create-framework-auth', ['app', '--yes', '--no-install'], { cwd: parent });
    root = join(parent, 'app');
  });

  it('adds microblog to the config, its env placeholders, and prints the callback URL', async () => {
    const envBefore = await readFile(join(root, '.env'), 'utf8');
    const result = await frameworkAuth(['add-provider', 'microblog'], root);
    expect(result.exitCode).toBe(0);
    const config = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect(config).toContain("import Microblog from './core/providers/microblog.js';");
    expect(config).toContain('    OIDC(),\n    Microblog(),\n  ],');
    const env = await readFile(join(root, '.env'), 'utf8');
    expect(env.startsWith(envBefore)).toBe(true);
    expect(env.slice(envBefore.length)).toBe(
      '\n# Microblog (X, formerly Twitter): register http://localhost:3000/auth/callback/microblog as the callback URL.\nAUTH_MICROBLOG_ID=\nAUTH_MICROBLOG_SECRET=\n',
    );
    expect(await readFile(join(root, '.env.example'), 'utf8')).toContain('AUTH_MICROBLOG_SECRET=\n');
    expect(result.stdout).toContain('Register this callback URL with Microblog (X, formerly Twitter):');
    expect(result.stdout).toContain('http://localhost:3000/auth/callback/microblog');
  });

  it('changes nothing the second time, nor through the aliases twitter and x', async () => {
    await frameworkAuth(['add-provider', 'microblog'], root);
    const before = await snapshotTree(root);
    for (const alias of ['microblog', 'twitter', 'x']) {
      const result = await frameworkAuth(['add-provider', alias], root);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('is already in src/auth/config.ts; nothing changed.');
    }
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('uses the mount path and origin of the project for the callback URL', async () => {
    const parent = await makeTempDir();
    await runInProcess('create-framework-auth', ['api', '--yes', '--no-install', '--mount', '/api/auth'], { cwd: parent });
    const result = await frameworkAuth(['add-provider', 'twitter', '--cwd', 'api'], parent);
    expect(result.stdout).toContain('http://localhost:3000/api/auth/callback/microblog');
  });

  it('adds credentials without env vars and says where to write the user lookup', async () => {
    const result = await frameworkAuth(['add-provider', 'credentials'], root);
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).toContain('    Credentials({\n      credentials: {');
    expect(result.stdout).toContain('authorize()');
  });

  it('--dry-run shows the plan and writes nothing', async () => {
    const before = await snapshotTree(root);
    const result = await frameworkAuth(['add-provider', 'microblog', '--dry-run'], root);
    expect(result.stdout).toMatch(/update +src\/auth\/config\.ts {2}\(adds Microblog to the providers\)/);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('refuses an unknown provider with the valid ones (exit 2)', async () => {
    const result = await frameworkAuth(['add-provider', 'myspace'], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Unknown provider "myspace". Valid providers: oidc, github, google, microblog (twitter, x), discord, gitlab, microsoft-entra-id, auth0, keycloak, credentials, email, passkey (webauthn), password');
  });

  it('explains that it needs a scaffolded project when run elsewhere (exit 2)', async () => {
    const empty = await makeTempDir();
    const result = await runChild('framework-auth', ['add-provider', 'microblog'], { cwd: empty });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`No auth module in ${empty} (src/auth/config.ts is missing).`);
    expect(result.stderr).toContain('npx create-framework-auth');
  });

  it('needs the id argument', async () => {
    const result = await frameworkAuth(['add-provider'], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("missing required argument 'id'");
  });

  it('prints help with examples', async () => {
    const result = await frameworkAuth(['add-provider', '--help'], root);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Examples:\n  $ npx framework-auth add-provider microblog');
  });
});
