// framework-auth doctor: a healthy scaffold passes (exit 0); each seeded misconfiguration is reported with its fix
// (exit 1). Issuer discovery is checked against oidc-provider on 127.0.0.1 and against a closed port.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkNode } from '../../src/cli/doctor.js';
import { setEnvValue } from '../../src/generator/edit/env-file.js';
import { cliPackageRoot } from '../../src/generator/paths.js';
import { startOidcProvider } from '../support/oidc-provider.js';
import type { RunningOidcProvider } from '../support/oidc-provider.js';
import { parseJsonOutput } from './helpers/json-schema.js';
import { makeTempDir, runInProcess, removeTempDirs } from './helpers/run-cli.js';

let provider: RunningOidcProvider;

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function setEnv(root: string, values: Record<string, string>): Promise<void> {
  let text = await readFile(join(root, '.env'), 'utf8');
  for (const [key, value] of Object.entries(values)) text = setEnvValue(text, key, value);
  await writeFile(join(root, '.env'), text);
}

beforeAll(async () => {
  provider = await startOidcProvider();
});

afterAll(async () => {
  await provider.close();
  await removeTempDirs();
});

const doctor = (root: string, argv: readonly string[] = []) => runInProcess('framework-auth', ['doctor', ...argv], { cwd: root });

describe('framework-auth doctor', () => {
  let root: string;
  const secretValue = 'x'.repeat(40);

  beforeEach(async () => {
    // A healthy project: the scaffold, its dependencies (this repo's node_modules), the provider's values.
    root = join(await makeTempDir(), 'app');
    await runInProcess('create-framework-auth', ['app', '--yes', '--no-install'], { cwd: join(root, '..') });
    await symlink(join(cliPackageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    await setEnv(root, { AUTH_SECRET: secretValue, AUTH_OIDC_ID: 'app', AUTH_OIDC_SECRET: 'app-secret', AUTH_OIDC_ISSUER: provider.issuer });
  });

  it('passes a healthy scaffold (exit 0) and never prints a secret', async () => {
    const result = await doctor(root);
    expect(result.stdout).not.toContain('✖');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`OpenID Connect: ${provider.issuer} answers its discovery document.`);
    expect(result.stdout).toContain('authHandler is mounted at /auth (src/server.ts), as basePath says.');
    expect(result.stdout).not.toContain(secretValue);
    expect(result.stdout).not.toContain('app-secret');
  });

  it('reports a missing AUTH_SECRET with its fix (exit 1)', async () => {
    await setEnv(root, { AUTH_SECRET: '' });
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ AUTH_SECRET is not set');
    expect(result.stdout).toContain('fix: Run "npx framework-auth secret"');
  });

  it('reports an AUTH_SECRET shorter than 32 characters without printing it', async () => {
    await setEnv(root, { AUTH_SECRET: 'short-secret-value' });
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('AUTH_SECRET (from .env) is 18 characters long; it must be at least 32.');
    expect(result.stdout + result.stderr).not.toContain('short-secret-value');
  });

  it('reports a provider env var that is empty', async () => {
    await setEnv(root, { AUTH_OIDC_SECRET: '' });
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ OpenID Connect: AUTH_OIDC_SECRET is empty or missing.');
    expect(result.stdout).toContain('fix: Fill in AUTH_OIDC_SECRET in .env');
  });

  it('reports an issuer that does not answer (a closed port on 127.0.0.1)', async () => {
    const issuer = `http://127.0.0.1:${await closedPort()}`;
    await setEnv(root, { AUTH_OIDC_ISSUER: issuer });
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(`✖ OpenID Connect: ${issuer}/.well-known/openid-configuration is unreachable (ECONNREFUSED).`);
    expect(result.stdout).toContain('fix: Check AUTH_OIDC_ISSUER and that the provider is running');
  });

  it('reports an issuer that calls itself by another name', async () => {
    await setEnv(root, { AUTH_OIDC_ISSUER: provider.issuer.replace('127.0.0.1', 'localhost') });
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(`the provider calls itself ${provider.issuer}`);
    expect(result.stdout).toContain(`fix: Set AUTH_OIDC_ISSUER=${provider.issuer}`);
  });

  it('reports a server that mounts the auth routes elsewhere than basePath', async () => {
    const server = join(root, 'src/server.ts');
    await writeFile(server, (await readFile(server, 'utf8')).replace("app.use('/auth/*splat', authHandler);", "app.use('/api/auth/*splat', authHandler);"));
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('src/server.ts mounts authHandler at "/api/auth/*splat", but basePath is "/auth"');
    expect(result.stdout).toContain("fix: Mount it as app.use('/auth/*splat', authHandler)");
  });

  it('reports an https AUTH_URL without trust proxy', async () => {
    const server = join(root, 'src/server.ts');
    await writeFile(server, (await readFile(server, 'utf8')).replace("app.set('trust proxy', trustProxy(process.env.TRUST_PROXY));", ''));
    await setEnv(root, { AUTH_URL: 'https://app.example.com' });
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("AUTH_URL is https but the app does not set 'trust proxy'");
    expect(result.stdout).toContain("fix: Add app.set('trust proxy', 1)");
  });

  it("warns about 'trust proxy' set to true: every client could forge X-Forwarded-*", async () => {
    const server = join(root, 'src/server.ts');
    await writeFile(server, (await readFile(server, 'utf8')).replace("app.set('trust proxy', trustProxy(process.env.TRUST_PROXY));", "app.set('trust proxy', true);"));
    const result = await doctor(root);
    expect(result.stdout).toContain("▲ The app sets 'trust proxy' to true: every client can then forge X-Forwarded-For");
    expect(result.stdout).toContain("fix: Trust only your proxy: app.set('trust proxy', 'loopback')");
  });

  it('reports a production setup without AUTH_URL (exit 1)', async () => {
    const text = (await readFile(join(root, '.env'), 'utf8')).replace(/^AUTH_URL=.*$/m, '');
    await writeFile(join(root, '.env'), `${text}NODE_ENV=production\n`);
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ NODE_ENV is production and AUTH_URL is not set');
    expect(result.stdout).toContain('fix: Set AUTH_URL in .env');
  });

  it('reports an email provider without AUTH_URL: the app would refuse to start (exit 1)', async () => {
    const config = join(root, 'src/auth/config.ts');
    await writeFile(config, (await readFile(config, 'utf8')).replace('  providers: [\n', "  providers: [\n    Email(),\n").replace("import './env.js';", "import './env.js';\nimport Email from './core/providers/email.js';"));
    await writeFile(join(root, '.env'), (await readFile(join(root, '.env'), 'utf8')).replace(/^AUTH_URL=.*$/m, ''));
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ AUTH_URL is not set and the email provider sends links by email: the app refuses to start');
  });

  it('warns, not fails, for a password provider without AUTH_EMAIL_SERVER in development, and fails in production', async () => {
    const config = join(root, 'src/auth/config.ts');
    await writeFile(config, (await readFile(config, 'utf8')).replace('  providers: [\n', '  providers: [\n    Password(),\n').replace("import './env.js';", "import './env.js';\nimport Password from './core/providers/password.js';"));
    const development = await doctor(root);
    expect(development.exitCode).toBe(0);
    expect(development.stdout).toContain('▲ Email and password: AUTH_EMAIL_SERVER, AUTH_EMAIL_FROM are empty, so its messages (address confirmation, password reset) are printed on the server console instead of sent.');
    await writeFile(join(root, '.env'), `${await readFile(join(root, '.env'), 'utf8')}NODE_ENV=production\n`);
    const production = await doctor(root);
    expect(production.exitCode).toBe(1);
    expect(production.stdout).toContain('✖ Email and password: AUTH_EMAIL_SERVER, AUTH_EMAIL_FROM are empty or missing.');
  });

  it('reports two-factor: configured after the password provider, or an error when no provider asks for a code', async () => {
    const config = join(root, 'src/auth/config.ts');
    const original = await readFile(config, 'utf8');
    const withTwoFactor = original.replace("import './env.js';", "import './env.js';\nimport { TwoFactor } from './core/features/two-factor/index.js';").replace(/\n};\s*$/, '\n  features: [TwoFactor()],\n};\n');
    await writeFile(config, withTwoFactor);
    const refused = await doctor(root);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toMatch(/✖ src\/auth\/config\.ts has TwoFactor\(\) but no (adapter|password or credentials provider)/);
  });

  it('warns when AUTH_URL is missing in development, and reports the scaffold\'s AUTH_URL as fine', async () => {
    expect((await doctor(root)).stdout).toContain('✔ AUTH_URL is http://localhost:3000.');
    await writeFile(join(root, '.env'), (await readFile(join(root, '.env'), 'utf8')).replace(/^AUTH_URL=.*$/m, ''));
    expect((await doctor(root)).stdout).toContain("▲ AUTH_URL is not set: the auth routes build their URLs on the request's Host header");
  });

  it('accepts an https AUTH_URL with trust proxy, and warns that the callback URLs in .env moved', async () => {
    await setEnv(root, { AUTH_URL: 'https://app.example.com' });
    const result = await doctor(root);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("✔ AUTH_URL is https and the app sets 'trust proxy'.");
    expect(result.stdout).toContain('▲ Callback URLs moved (mount path or origin changed): OpenID Connect: .env says http://localhost:3000/auth/callback/oidc, the app\'s is https://app.example.com/auth/callback/oidc.');
  });

  it('warns that every client would count as the proxy when a Dockerfile is there and TRUST_PROXY is not set (issue 27)', async () => {
    await writeFile(join(root, 'Dockerfile'), 'FROM node:20\n');
    const result = await doctor(root);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('▲ TRUST_PROXY is not set and Dockerfile says the app runs behind a proxy');
    expect(result.stdout).toContain('Set TRUST_PROXY in the deployment');

    await setEnv(root, { TRUST_PROXY: '1' });
    expect((await doctor(root)).stdout).not.toContain('TRUST_PROXY is not set');
  });

  it('says nothing about TRUST_PROXY for a project without deployment files', async () => {
    expect((await doctor(root)).stdout).not.toContain('TRUST_PROXY is not set');
  });

  it('reports a wildcard in AUTH_TRUST_HOST on a public suffix only the full list knows (*.github.io), naming the entry', async () => {
    await setEnv(root, { AUTH_TRUST_HOST: 'app.example.com, *.github.io' });
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ AUTH_TRUST_HOST lists *.github.io, a wildcard on the public suffix github.io');
  });

  it("reports a wildcard on a public suffix in the auth config's trustHost list", async () => {
    const config = join(root, 'src/auth/config.ts');
    await writeFile(config, (await readFile(config, 'utf8')).replace('  providers: [\n', "  trustHost: ['*.pages.dev'],\n  providers: [\n"));
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ trustHost in src/auth/config.ts lists *.pages.dev, a wildcard on the public suffix pages.dev');
  });

  it('accepts a wildcard in AUTH_TRUST_HOST below a domain of its own', async () => {
    await setEnv(root, { AUTH_TRUST_HOST: '*.preview.example.com' });
    const result = await doctor(root);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('✔ Host list: no wildcard on a public suffix (*.preview.example.com).');
  });

  it('reports a package.json that is not ESM while tsc emits ESM', async () => {
    const path = join(root, 'package.json');
    await writeFile(path, (await readFile(path, 'utf8')).replace('"type": "module"', '"type": "commonjs"'));
    // NodeNext would compile to CommonJS under "type": "commonjs", which is fine (issue 36); ESNext stays ESM.
    const tsconfig = join(root, 'tsconfig.json');
    await writeFile(tsconfig, (await readFile(tsconfig, 'utf8')).replace('"module": "NodeNext"', '"module": "ESNext"').replace('"moduleResolution": "NodeNext"', '"moduleResolution": "Bundler"'));
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('package.json "type" is "commonjs"; the auth module is ESM.');
    expect(result.stdout).toContain('fix: Set "type": "module" in package.json.');
  });

  it('reports a tsconfig that does not resolve like Node (module CommonJS)', async () => {
    const path = join(root, 'tsconfig.json');
    await writeFile(path, (await readFile(path, 'utf8')).replace('"module": "NodeNext"', '"module": "CommonJS"').replace('"moduleResolution": "NodeNext"', '"moduleResolution": "Node10"'));
    const result = await doctor(root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('tsconfig.json "module" is CommonJS; the generated imports ("./config.js") need NodeNext.');
  });

  it('accepts "module": "ESNext" with "moduleResolution": "Bundler" as it is (issue 17: the seed allows ESNext)', async () => {
    const path = join(root, 'tsconfig.json');
    await writeFile(path, (await readFile(path, 'utf8')).replace('"module": "NodeNext"', '"module": "ESNext"').replace('"moduleResolution": "NodeNext"', '"moduleResolution": "Bundler"'));
    const result = await doctor(root, ['--offline']);
    expect(result.stdout).toContain('✔ tsconfig.json: module ESNext, moduleResolution Bundler.');
    expect(result.stdout).not.toContain('tsconfig.json "module"');
    expect(result.stdout).not.toContain('tsconfig.json "moduleResolution"');
  });

  it('reports "module": "ESNext" without Bundler resolution, saying which setting to add', async () => {
    const path = join(root, 'tsconfig.json');
    await writeFile(path, (await readFile(path, 'utf8')).replace('"module": "NodeNext"', '"module": "ESNext"').replace('"moduleResolution": "NodeNext"', '"moduleResolution": "Node10"'));
    const result = await doctor(root, ['--offline']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('tsconfig.json "moduleResolution" is Node10; with "module": "ESNext" it must be Bundler.');
  });

  it('reports dependencies that are not installed', async () => {
    await rm(join(root, 'node_modules'));
    const result = await doctor(root, ['--offline']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ Not installed: express, jose, oauth4webapi.');
  });

  it('--offline skips the discovery requests', async () => {
    await setEnv(root, { AUTH_OIDC_ISSUER: `http://127.0.0.1:${await closedPort()}` });
    const result = await doctor(root, ['--offline']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('discovery not checked (--offline)');
  });

  it('--json prints the findings as one document (ok false when something is wrong)', async () => {
    await setEnv(root, { AUTH_SECRET: '' });
    const result = await doctor(root, ['--json']);
    expect(result.exitCode).toBe(1);
    const document = parseJsonOutput(result.stdout);
    expect(document).toMatchObject({ command: 'doctor', ok: false, summary: { error: 1 } });
    expect(document.findings).toContainEqual(expect.objectContaining({ id: 'auth-secret', status: 'error', fix: expect.stringContaining('framework-auth secret') }));
  });

  it('refuses a directory without an auth module (exit 2)', async () => {
    const result = await doctor(await makeTempDir());
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('No auth module in');
  });

  it('reports a Node older than 20.12', () => {
    expect(checkNode('20.11.1')).toMatchObject({ id: 'node-version', status: 'error', message: expect.stringContaining('older than 20.12') });
    expect(checkNode('20.12.0').status).toBe('ok');
    expect(checkNode('22.1.0').status).toBe('ok');
  });

  it('prints help with examples', async () => {
    const result = await doctor(root, ['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Examples:\n  $ npx framework-auth doctor');
  });
});
