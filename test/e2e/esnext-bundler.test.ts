// Issue 17, item 4 (ESM as the seed says): a project whose tsconfig uses "module": "ESNext" with
// "moduleResolution": "Bundler" keeps those settings, the generated auth module compiles under them, the compiled
// app starts and signs a user in through a real OpenID provider, and `doctor` has nothing to say about them.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJar } from '../support/cookie-jar.js';
import { startOidcProvider } from '../support/oidc-provider.js';
import type { RunningOidcProvider } from '../support/oidc-provider.js';
import { compileProject, fillEnv, makeTempDir, removeTempDirs, runBuiltCli, startApp } from './helpers/project.js';
import type { RunningApp } from './helpers/project.js';
import { linkSharedDeps, prepareSharedDeps } from './helpers/shared-deps.js';
import { signInWithOidc } from './helpers/sign-in.js';

const tsconfig = `{
  "compilerOptions": {
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "target": "ES2022",
    "strict": true,
    "skipLibCheck": true,
    "rootDir": "src",
    "outDir": "dist"
  },
  "include": ["src"]
}
`;

let provider: RunningOidcProvider;
let app: RunningApp | undefined;
let projectDir: string;
let compile: { exitCode: number; output: string };

beforeAll(async () => {
  await prepareSharedDeps();
  provider = await startOidcProvider();
  const root = await makeTempDir();
  projectDir = join(root, 'esnext-app');
  await mkdir(projectDir);
  await writeFile(join(projectDir, 'package.json'), `${JSON.stringify({ name: 'esnext-app', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
  await writeFile(join(projectDir, 'tsconfig.json'), tsconfig);
  const scaffold = await runBuiltCli('create', ['esnext-app', '--providers', 'oidc,credentials', '--yes', '--no-install'], { cwd: root });
  if (scaffold.exitCode !== 0) throw new Error(`scaffold failed: ${scaffold.stdout}\n${scaffold.stderr}`);
  await linkSharedDeps(projectDir);
  compile = await compileProject(projectDir);
  await fillEnv(projectDir, { AUTH_OIDC_ID: 'esnext-app', AUTH_OIDC_SECRET: 'esnext-secret', AUTH_OIDC_ISSUER: provider.issuer });
}, 600_000);

afterAll(async () => {
  await app?.stop();
  await provider?.close();
  await removeTempDirs();
});

describe('a project on "module": "ESNext" with "moduleResolution": "Bundler"', () => {
  it('keeps both settings as they are', async () => {
    const written = JSON.parse(await readFile(join(projectDir, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(written.compilerOptions['module']).toBe('ESNext');
    expect(written.compilerOptions['moduleResolution']).toBe('Bundler');
  });

  it('compiles the generated auth module with zero errors', () => {
    expect(compile.output).toBe('');
    expect(compile.exitCode).toBe(0);
  });

  it('starts and signs a user in through a real OpenID provider', async () => {
    app = await startApp(projectDir);
    await provider.setClient({ client_id: 'esnext-app', client_secret: 'esnext-secret', redirect_uris: [`${app.url}/auth/callback/oidc`] });
    const jar = createJar();
    expect(await signInWithOidc(jar, app.url, '/auth', `${app.url}/me`)).toBe(`${app.url}/me`);
    const me = await jar.fetch(`${app.url}/me`, { headers: { accept: 'application/json' } });
    expect(me.status).toBe(200);
  });

  it('gets no tsconfig error from doctor', async () => {
    const doctor = await runBuiltCli('frameworkAuth', ['doctor', '--offline'], { cwd: projectDir });
    expect(doctor.stdout).toContain('✔ tsconfig.json: module ESNext, moduleResolution Bundler.');
  });
});
